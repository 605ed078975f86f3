//! Every table, figure and pane that groups by bug type handles any family, the paper's six
//! first: on the tiny fixture relabelled to the catalogue's families and a name no catalogue
//! knows (`common::tiny::with_new_families`), the deception table, the figure's groups (and
//! its SVG labels) and the dashboard's Deception pane list the bug types in the core's order.

use crate::common::{self, tui::keys, tui::screen};
use execscope::analysis::significance::SigConfig;
use execscope::cli::{open_engine, EvalArgs};
use execscope::plot::{self, Figure, PlotInputs};
use execscope::report::anatomy::bugtypes_table;
use execscope::tui::{App, Theme, ThemeKind};
use execscope::view::AnatomyView;

/// The relabelled fixture's bug types, in the documented order: the paper's (off_by_one,
/// swap_arguments, wrong_comparison), the catalogue's (negate_condition, value_to_none,
/// wrong_string_method, wrong_constant), then the unknown name.
const ORDER: [&str; 8] = [
    "off_by_one",
    "swap_arguments",
    "wrong_comparison",
    "negate_condition",
    "value_to_none",
    "wrong_string_method",
    "wrong_constant",
    "zz_custom",
];

#[test]
fn bug_type_table_figure_and_pane_list_any_family_paper_first() {
    let (_dir, root) = common::tiny::with_new_families();
    let engine = open_engine(Some(&root), &EvalArgs::default()).expect("relabelled fixture loads");
    let check = execscope::bundle::check(&root);
    assert!(check.is_ok(), "{check}");
    let a = AnatomyView::build(&engine);
    assert_eq!(a.anatomy.bug_types(), ORDER);

    // the report table: the same order, then `overall`
    let t = bugtypes_table(&a);
    let col = t.keys.iter().position(|k| k == "bug_type").unwrap();
    let rows: Vec<&str> = t.rows.iter().map(|r| r[col].text.as_str()).collect();
    assert_eq!(rows[..ORDER.len()], ORDER);
    assert_eq!(rows[ORDER.len()..], ["overall"]);

    // the figure: its groups, and every label in the SVG from left to right
    let (types, _) = plot::bugtype_data(&a);
    assert_eq!(types, ORDER);
    let cfg = SigConfig {
        replicates: 50,
        seed: 1,
    };
    let inputs = PlotInputs::new(&engine, cfg);
    let svg = plot::render(&inputs, Figure::Bugtypes).expect("the figure renders");
    let at: Vec<usize> = ORDER
        .iter()
        .map(|t| {
            // a label is its own line between the <text …> tag and </text>
            svg.find(&format!("\n{t}\n</text>"))
                .unwrap_or_else(|| panic!("no label {t}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "labels out of order: {at:?}"
    );

    // the Deception pane: one bar row per type in the same order (tall enough for all)
    let mut app = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    app.run_jobs_inline();
    keys(&mut app, "3");
    assert_eq!(app.pane_id(), "deception");
    let s = screen(&app, 160, 60);
    let rows: Vec<usize> = ORDER
        .iter()
        .map(|t| {
            s.lines()
                .position(|l| l.contains(&format!("│{t} ")))
                .unwrap_or_else(|| panic!("{t} not on the Deception pane:\n{s}"))
        })
        .collect();
    assert!(
        rows.windows(2).all(|w| w[0] < w[1]),
        "pane rows out of order: {rows:?}\n{s}"
    );
}
