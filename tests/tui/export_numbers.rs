//! Every number a pane's `x` export carries is the report's, under every tie policy: the real
//! binary writes every table (`report --all --ties P`, `audit --out --ties P`) and the
//! dashboard, on the same bundle under the same settings, exports its panes; each exported table
//! must equal the report's file of that table in CSV (every number at full precision) and
//! markdown (every shown text, the captions with the edit-size ρ included), the Domains pane's
//! swapped exec@1 table cell by cell, the leaderboard's extra interval column the report JSON's
//! intervals, the Queries pane's per-query exec@k (for every system) the leaderboard's mean, its
//! ranking the query's exec@k, the Pairs pane's table the report's pairs table, and the Audit
//! pane's tables `execscope audit`'s (under expected ties both refuse, with the same reason).

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
    queries_and_rankings(&mut a, &dir);
    let pairs = pane(&a, PaneId::Pairs);
    assert_eq!(pairs.len(), 1, "the pairs table of the metric cell shown");
    same_as_report(&pairs[0], &dir, "pairs");
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

/// The Queries pane's export for every system: the query list's exec@k, whose mean is the
/// report's leaderboard cell, and the ranking of every query, whose rows counted inside the
/// cutoff hold a passing snippet exactly when the query's exec@k is 1 (strictly between 0 and 1
/// under expected ties only where a tie straddles the cutoff).
fn queries_and_rankings(a: &mut App, dir: &Path) {
    let (keys_, rows) = csv(&read(dir, "leaderboard.csv"));
    let col = keys_.iter().position(|k| k == "exec@1").unwrap();
    let sys = keys_.iter().position(|k| k == "system").unwrap();
    let policy = a.settings.policy();
    let nq = a.data.as_ref().unwrap().engine.bundle().queries.len();
    keys(a, "2");
    for row in &rows {
        let s = a
            .data
            .as_ref()
            .unwrap()
            .engine
            .system_index(&row[sys])
            .unwrap();
        a.settings.system = s;
        for q in 0..nq {
            a.shared.query = q;
            let t = exported(a, PaneId::Browser);
            assert_eq!(t.len(), 2, "the query list and the ranking");
            let (list, ranking) = (&t[0], &t[1]);
            assert!(list.caption.contains(policy.as_str()), "{}", list.caption);
            let vals: Vec<f64> = list.rows.iter().map(|r| r[3].value.unwrap()).collect();
            let mean = vals.iter().sum::<f64>() / vals.len() as f64;
            let want: f64 = row[col].parse().unwrap();
            assert!((mean - want).abs() < 1e-12, "{} {mean} vs {want}", row[sys]);
            let exec = vals[q];
            let passing_in = ranking.rows.iter().filter(|r| r[4].text == "pass");
            let counted: Vec<&str> = passing_in.map(|r| r[5].text.as_str()).collect();
            let what = format!("{policy} {} query {q}: {counted:?} exec@1 {exec}", row[sys]);
            if counted.contains(&"yes") {
                assert_eq!(exec, 1.0, "{what}");
            } else if counted.iter().any(|c| *c != "no") {
                assert_eq!(policy, TiePolicy::Expected, "{what}");
                assert!(exec > 0.0 && exec < 1.0, "{what}");
            } else {
                assert_eq!(exec, 0.0, "{what}");
            }
            assert!(
                ranking.caption.contains(&format!("`{policy}` tie policy")),
                "{}",
                ranking.caption
            );
        }
    }
    a.shared.query = 0;
    keys(a, "1");
}

#[test]
fn every_exported_number_is_the_reports_tiny_under_each_policy() {
    for policy in TiePolicy::ALL {
        check(tiny(), policy);
    }
}

#[test]
fn every_exported_number_is_the_reports_embedded_bundle() {
    check(&common::embedded_bundle(), TiePolicy::Expected);
}

/// The Audit pane's tables (after Enter runs the audit) are `execscope audit`'s under the same
/// tie policy (the pool order inside score ties), every cell (CSV; the captions name each run's
/// own oracle), and name the order; under expected ties, which have no single pool order, both
/// refuse with the same reason.
#[test]
fn audit_export_numbers_are_the_audit_commands_under_each_policy() {
    for policy in TiePolicy::ALL {
        let out = tempfile::tempdir().unwrap();
        let cli = common::execscope()
            .args([
                "audit",
                tiny().to_str().unwrap(),
                "--system",
                "toy-cos",
                "--ties",
                policy.as_str(),
                "--out",
                out.path().to_str().unwrap(),
            ])
            .output()
            .unwrap();
        let mut a = app(tiny(), policy);
        keys(&mut a, "7");
        // The leader is not toy-cos: pick it.
        a.settings.system = a
            .data
            .as_ref()
            .unwrap()
            .engine
            .system_index("toy-cos")
            .unwrap();
        key(&mut a, KeyCode::Enter);
        let tables = exported(&a, PaneId::Audit);
        if policy == TiePolicy::Expected {
            let err = String::from_utf8_lossy(&cli.stderr);
            let why = execscope::audit::retrieval::NO_SINGLE_ORDER;
            assert!(!cli.status.success() && err.contains(why), "{err}");
            assert!(tables.is_empty(), "no audit under expected ties");
            assert!(matches!(
                a.data.as_ref().unwrap().audit,
                execscope::tui::view::AuditSlot::Idle
            ));
            let s = common::tui::screen(&a, 120, 40);
            assert!(s.contains("needs one pool order"), "{s}");
            assert!(a.status.as_deref().is_some_and(|m| m.contains(why)));
            continue;
        }
        assert!(
            cli.status.success(),
            "{}",
            String::from_utf8_lossy(&cli.stderr)
        );
        assert_eq!(tables.len(), 6, "every audit table");
        for t in &tables {
            assert_eq!(
                t.to_csv(),
                read(out.path(), &format!("{}.csv", t.name)),
                "{policy}: {}",
                t.name
            );
        }
        let summary = tables.iter().find(|t| t.name == "audit-retrieval").unwrap();
        assert!(
            summary.caption.contains(&format!("`{policy}` ties")),
            "{}",
            summary.caption
        );
        let s = common::tui::screen(&a, 120, 40);
        let note = execscope::view::ranking::order_note(policy);
        assert!(s.contains(note), "{note}\n{s}");
        // The tie policy changes: the audit of the old order is dropped.
        keys(&mut a, "t");
        assert!(exported(&a, PaneId::Audit).is_empty());
    }
}
