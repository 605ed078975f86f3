//! Every number a pane's `x` export carries is the report's: the real binary writes every table
//! (`report --all`, `audit --out`) and the dashboard, on the same bundle under the same settings,
//! exports its panes; each exported table must equal the report's file of that table in CSV (every
//! number at full precision) and markdown (every shown text, the captions with the edit-size ρ
//! included), the Domains pane's swapped exec@1 table cell by cell, and the leaderboard's extra
//! interval column the report JSON's intervals.

use crate::common;

use common::tui::{key, keys, tiny};
use crossterm::event::KeyCode;
use execscope::cli::{open_engine, EvalArgs};
use execscope::metrics::TiePolicy;
use execscope::report::Table;
use execscope::tui::panes::PaneId;
use execscope::tui::{App, Theme, ThemeKind};
use std::path::Path;

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The dashboard on `bundle` under `policy`, every background job run.
fn app(bundle: &Path, policy: TiePolicy) -> App {
    let args = EvalArgs {
        ties: policy,
        ..EvalArgs::default()
    };
    let engine = open_engine(Some(bundle), &args).expect("bundle loads");
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    a
}

/// The tables pane `id` exports (what `x` writes as markdown).
fn exported(a: &App, id: PaneId) -> Vec<Table> {
    let i = PaneId::ALL.iter().position(|&p| p == id).unwrap();
    a.panes[i].export_tables(&a.view())
}

/// The exported table equals the report's `<file>.csv` and `<file>.md` byte for byte.
fn same_as_report(t: &Table, dir: &Path, file: &str) {
    assert_eq!(t.to_csv(), read(dir, &format!("{file}.csv")), "{file}.csv");
    assert_eq!(
        t.to_markdown(),
        read(dir, &format!("{file}.md")),
        "{file}.md"
    );
}

/// The report's CSV as (header keys, rows of fields).
fn csv(text: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect());
    (lines.next().unwrap(), lines.collect())
}

fn check(bundle: &Path, policy: TiePolicy) {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("report");
    common::stdout_ok(common::execscope().args([
        "report",
        bundle.to_str().unwrap(),
        "--all",
        "--out",
        dir.to_str().unwrap(),
        "--ties",
        policy.as_str(),
    ]));
    let mut a = app(bundle, policy);
    let pane = |a: &App, id| exported(a, id);
    let lb = pane(&a, PaneId::Leaderboard);
    assert_eq!(lb.len(), 1);
    same_as_report(&lb[0], &dir, "leaderboard");
    let dec = pane(&a, PaneId::Deception);
    for (t, file) in dec.iter().zip(["bugtypes", "editsize", "gaps"]) {
        same_as_report(t, &dir, file);
    }
    assert_eq!(dec.len(), 3);
    assert!(
        !dec[1].caption.contains("undefined"),
        "the edit-size ρ is defined here: {}",
        dec[1].caption
    );
    // The Deception pane's suite-strength view (`v`) exports the report's three suite tables,
    // where the bundle has a build report (the report skips them where it has none).
    keys(&mut a, "3v");
    let suites = pane(&a, PaneId::Deception);
    let files = ["suites", "suite-tasks", "survivors"];
    let has_report = dir.join("suites.csv").exists();
    assert_eq!(suites.len(), if has_report { 3 } else { 0 });
    for (t, file) in suites.iter().zip(files) {
        same_as_report(t, &dir, file);
    }
    keys(&mut a, "v");
    let dens = pane(&a, PaneId::Density);
    assert_eq!(dens.len(), 1);
    same_as_report(&dens[0], &dir, "density");
    let dom = pane(&a, PaneId::Domains);
    assert_eq!(dom.len(), 2);
    same_as_report(&dom[1], &dir, "difficulty");
    // The pane shows exec@1 by domain with rows and columns swapped: every cell is the report's.
    let (keys_, rows) = csv(&read(&dir, "domains.csv"));
    let swapped = &dom[0];
    assert_eq!(swapped.rows.len(), keys_.len() - 1, "one row per domain");
    for (s, row) in rows.iter().enumerate() {
        assert_eq!(swapped.keys[s + 1], row[0], "system column {s}");
        for (d, field) in row.iter().enumerate().skip(1) {
            assert_eq!(swapped.rows[d - 1][0].text, keys_[d]);
            let want: f64 = field.parse().unwrap();
            assert_eq!(
                swapped.rows[d - 1][s + 1].value,
                Some(want),
                "{} {}",
                row[0],
                keys_[d]
            );
        }
    }
    // The export key writes the same tables as markdown into the export file.
    a.shared.export_dir = Some(out.path().to_path_buf());
    keys(&mut a, "3x");
    let md = read(out.path(), "execscope-deception-1.md");
    for file in ["bugtypes", "editsize", "gaps"] {
        assert!(
            md.contains(&read(&dir, &format!("{file}.md"))),
            "{file} in the export"
        );
    }
    // At k = 3 the leaderboard adds exec@3's bootstrap interval: the report JSON's.
    keys(&mut a, "1K");
    let lb = &pane(&a, PaneId::Leaderboard)[0];
    let json: serde_json::Value = serde_json::from_str(&read(&dir, "leaderboard.json")).unwrap();
    let systems = json["systems"].as_array().unwrap();
    assert_eq!(lb.headers.last().unwrap(), "exec@3 95% CI");
    for (row, sys) in lb.rows.iter().zip(systems) {
        let iv = &sys["intervals"]["exec@3"];
        let (lo, hi) = (
            iv["ci95_low"].as_f64().unwrap(),
            iv["ci95_high"].as_f64().unwrap(),
        );
        let cell = row.last().unwrap();
        assert_eq!(cell.value, Some(lo), "{}", sys["id"]);
        assert!(
            cell.text.starts_with(&format!("[{lo:.3}, {hi:.3}]")),
            "{}",
            cell.text
        );
    }
}

#[test]
fn every_exported_number_is_the_reports_tiny_under_each_policy() {
    for policy in [TiePolicy::Expected, TiePolicy::Row, TiePolicy::Pessimistic] {
        check(tiny(), policy);
    }
}

#[test]
fn every_exported_number_is_the_reports_embedded_bundle() {
    check(&common::embedded_bundle(), TiePolicy::Expected);
}

/// The Audit pane's tables (after Enter runs the audit) are `execscope audit`'s under the same
/// settings, every cell (CSV; the captions name each run's own oracle).
#[test]
fn audit_export_numbers_are_the_audit_commands() {
    let out = tempfile::tempdir().unwrap();
    common::stdout_ok(common::execscope().args([
        "audit",
        tiny().to_str().unwrap(),
        "--system",
        "toy-cos",
        "--out",
        out.path().to_str().unwrap(),
    ]));
    let mut a = app(tiny(), TiePolicy::Expected);
    keys(&mut a, "7");
    key(&mut a, KeyCode::Enter);
    let tables = exported(&a, PaneId::Audit);
    assert_eq!(tables.len(), 6, "every audit table");
    for t in &tables {
        assert_eq!(
            t.to_csv(),
            read(out.path(), &format!("{}.csv", t.name)),
            "{}",
            t.name
        );
    }
}
