//! A bundle in several languages on the dashboard: the leaderboard names the mix and each
//! system's exec@1 per language, the domains pane leads with exec@1 by language, the deception
//! pane's `L` shows deception by bug type and language (the report's tables, the same numbers),
//! the browser filters by language and highlights a snippet in its own language. A Python
//! bundle shows none of it.

use crate::common;

use common::tui::*;
use execscope::cli::{open_engine, EvalArgs};
use execscope::metrics::TiePolicy;
use execscope::record::Language;
use execscope::tui::widgets::code;
use execscope::tui::{App, Theme, ThemeKind};

fn two_language_app() -> (tempfile::TempDir, App) {
    let (dir, root) = common::tiny::two_languages();
    let args = EvalArgs {
        ties: TiePolicy::Pessimistic,
        ..EvalArgs::default()
    };
    let engine = open_engine(Some(&root), &args).expect("two-language bundle loads");
    let mut app = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    app.run_jobs_inline();
    (dir, app)
}

/// The report's cell text for `table`, row whose first cell is `row`, column `col` (JSON output).
fn report_cell(root: &std::path::Path, table: &str, row: &str, col: &str) -> String {
    let (code, out, err) = common::run_execscope(&[
        "report",
        root.to_str().unwrap(),
        "--table",
        table,
        "--ties",
        "pessimistic",
        "--format",
        "csv",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let c = head
        .iter()
        .position(|h| h.contains(col))
        .unwrap_or_else(|| panic!("{col} in {head:?}"));
    lines
        .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
        .find(|cells| cells[0] == row)
        .unwrap_or_else(|| panic!("{row} in {out}"))[c]
        .clone()
}

#[test]
fn leaderboard_names_the_mix_and_each_systems_exec1_per_language() {
    let (_dir, app) = two_language_app();
    let s = screen(&app, 140, 40);
    let title = s
        .lines()
        .find(|l| l.contains("Leaderboard") && l.contains("ties"))
        .unwrap();
    assert!(title.contains("Python 2, C++ 1"), "{title}");
    let line = s
        .lines()
        .find(|l| l.contains("exec@1 by language"))
        .unwrap_or_else(|| panic!("no per-language line:\n{s}"));
    assert!(line.contains("C++") && line.contains("Python"), "{line}");
}

#[test]
fn domains_pane_leads_with_exec1_by_language_the_reports_numbers() {
    let (dir, mut app) = two_language_app();
    keys(&mut app, "5");
    let s = screen(&app, 160, 44);
    assert!(s.contains("exec@1 by language"), "{s}");
    let root = dir.path().join("bundle");
    let row = s
        .lines()
        .find(|l| l.contains("C++ (1)"))
        .unwrap_or_else(|| panic!("no C++ row:\n{s}"));
    // Every system's cell in the row is the report's per-language exec@1 (CSV, 3 decimals).
    for sys in ["toy-cos", "toy-dot", "BM25"] {
        let want = report_cell(&root, "languages", sys, "cpp");
        let want: f64 = want.parse().unwrap();
        assert!(
            row.contains(&format!("{want:.3}")),
            "{sys}: {want:.3} not in {row}"
        );
    }
}

#[test]
fn deception_pane_shows_bug_types_by_language_on_l() {
    let (_dir, mut app) = two_language_app();
    keys(&mut app, "3");
    let before = screen(&app, 140, 40);
    assert!(!before.contains("by bug type and language"), "{before}");
    keys(&mut app, "L");
    let s = screen(&app, 140, 40);
    assert!(s.contains("Deception by bug type and language"), "{s}");
    assert!(s.contains("Deception by language"), "{s}");
    let head = s
        .lines()
        .find(|l| l.contains("bug type") && l.contains("C++"));
    assert!(head.is_some_and(|h| h.contains("Python")), "{s}");
    // The export carries the same tables as the report.
    let names: Vec<String> = app.panes[2]
        .export_tables(&app.view())
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(names, ["bugtypes_languages", "deception_languages"]);
    keys(&mut app, "L");
    assert_eq!(screen(&app, 140, 40), before);
}

#[test]
fn a_python_bundle_shows_no_languages() {
    let app = app_with(TiePolicy::Pessimistic);
    let s = screen(&app, 140, 40);
    assert!(!s.contains("Python"), "{s}");
    let mut app = app;
    keys(&mut app, "5");
    assert!(!screen(&app, 160, 44).contains("by language"));
    keys(&mut app, "3L");
    let s = screen(&app, 140, 40);
    assert!(s.contains("Every query of this bundle is Python"), "{s}");
}

#[test]
fn the_browser_filters_by_language() {
    let (_dir, mut app) = two_language_app();
    keys(&mut app, "2/c++");
    let s = screen(&app, 140, 40);
    // The C++ query (the fixture's first) heads the list, its language in the detail line.
    assert!(s.contains("· C++"), "{s}");
}

#[test]
fn code_is_highlighted_in_its_own_language() {
    // `#include` is a preprocessor line in C++ and a comment in Python: the two syntaxes colour
    // the line differently, and a C++ keyword (`int`) is coloured apart from a name only in C++.
    let th = Theme::new(ThemeKind::Dark, false);
    let src = "#include <vector>\nint f(int x) { return x; }\n";
    let styles = |lang: Language| -> Vec<Vec<(String, ratatui::style::Style)>> {
        code::highlight(src, lang, &th)
            .into_iter()
            .map(|l| {
                l.spans
                    .into_iter()
                    .map(|s| (s.content.to_string(), s.style))
                    .collect()
            })
            .collect()
    };
    let cpp = styles(Language::Cpp);
    let py = styles(Language::Python);
    assert_ne!(cpp, py);
    let style_of = |lines: &[Vec<(String, ratatui::style::Style)>], w: &str| {
        lines[1]
            .iter()
            .find(|(t, _)| t.trim() == w)
            .map(|(_, s)| *s)
    };
    // Under the light theme (InspiredGitHub) a C++ type keyword is coloured apart from a name.
    let light = Theme::new(ThemeKind::Light, false);
    let lines = code::highlight(src, Language::Cpp, &light);
    let style = |w: &str| {
        lines[1]
            .spans
            .iter()
            .find(|s| s.content.trim() == w)
            .map(|s| s.style)
    };
    assert_ne!(style("int"), style("f"));
    assert_ne!(style_of(&cpp, "x"), style_of(&py, "x"));
    // The text is kept, whatever the language.
    let text: Vec<String> = cpp
        .iter()
        .map(|l| l.iter().map(|(t, _)| t.as_str()).collect())
        .collect();
    assert_eq!(text, ["#include <vector>", "int f(int x) { return x; }"]);
}
