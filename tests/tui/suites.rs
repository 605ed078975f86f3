//! The Deception pane's test-suite strength view (`v`): on the embedded bundle (its
//! build_report.json records every mutant) the families, the weakest tasks, the survivors and
//! the selected survivor's diff, every number the report's; on a bundle without a build report
//! the view says so and how to get one.

use crate::common;

use common::tui::{app_with, key, keys, screen};
use crossterm::event::KeyCode;
use execscope::analysis::suites::from_bundle;
use execscope::cli::{open_engine, EvalArgs};
use execscope::metrics::TiePolicy;
use execscope::tui::panes::PaneId;
use execscope::tui::{App, Theme, ThemeKind};

/// The dashboard on the embedded bundle, every job run, on the suite-strength view.
fn embedded_suites() -> App {
    let engine = open_engine(None, &EvalArgs::default()).expect("embedded bundle");
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    keys(&mut a, "3v");
    a
}

#[test]
fn embedded_bundle_suite_strength_view() {
    let mut a = embedded_suites();
    assert_eq!(a.pane_id(), "deception");
    let wide = screen(&a, 200, 60);
    insta::assert_snapshot!("suites_200x60", wide);
    insta::assert_snapshot!("suites_80x24", screen(&a, 80, 24));
    // Every family row, the weakest task and the first survivor are the core's.
    let b = execscope::bundle::load(&common::embedded_bundle(), &Default::default()).unwrap();
    let s = from_bundle(&b)
        .unwrap()
        .expect("the embedded bundle has a build report");
    for f in &s.families {
        let line = wide
            .lines()
            .find(|l| l.contains(&format!("│{} ", f.bug_type)))
            .unwrap_or_else(|| panic!("{}\n{wide}", f.bug_type));
        let killed = format!("{}/{}", f.tally.killed, f.tally.scored());
        assert!(line.contains(&killed), "{killed}: {line}");
    }
    assert!(wide.contains(&s.tasks[0].task_id), "{}", s.tasks[0].task_id);
    let gaps = s.gaps().count();
    assert!(gaps > 0, "the embedded bundle has suite gaps");
    assert!(wide.contains(&format!("⚑ {gaps} suite gaps")), "{wide}");
    // ↓ selects the second survivor: its diff box is titled with its task and line.
    keys(&mut a, "j");
    let sv = &s.survivors[1];
    let title = format!(" {} line {} ", sv.task_id, sv.line);
    assert!(screen(&a, 200, 60).contains(&title), "{title}");
    // Enter opens that survivor's query in the browser.
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.pane_id(), "browser");
    let q = b.queries.iter().position(|q| q.id == sv.query_id).unwrap();
    assert_eq!(a.shared.query, q);
    // `v` again is the deception view.
    keys(&mut a, "3v");
    assert!(screen(&a, 200, 60).contains("Deception by bug type"));
}

#[test]
fn bundle_without_build_report_says_how_to_get_one() {
    let mut a = app_with(TiePolicy::Expected);
    keys(&mut a, "3v");
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("suites_no_build_report", s);
    assert!(s.contains("no build report"), "{s}");
    assert!(s.contains("execscope build"), "{s}");
    let i = PaneId::ALL
        .iter()
        .position(|&p| p == PaneId::Deception)
        .unwrap();
    assert!(a.panes[i].export_tables(&a.view()).is_empty());
    // Keys do nothing harmful on the empty view.
    keys(&mut a, "jjG");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.pane_id(), "deception");
}
