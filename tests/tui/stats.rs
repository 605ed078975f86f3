//! The dashboard's statistics are the report's: leaderboard cells with intervals equal
//! `leaderboard::table(&lb, Some(&sig))`, the pairs pane's p and interval equal
//! `report::pairs::pairs_table`, and the audit pane shows a retrieval audit run as a job (inline
//! here, with the real oracle for the pairs the tiny fixture's cache lacks).

use crate::common;

use common::tui::*;
use crossterm::event::KeyCode;
use execscope::analysis::significance::{PairTest, SigConfig, Significance};
use execscope::engine::Engine;
use execscope::metrics::{MetricKey, TiePolicy};
use execscope::report::{leaderboard, Table};
use execscope::tui::jobs::Job;
use execscope::tui::panes::leaderboard::display_table;
use execscope::tui::panes::pairs::{fmt_ci, fmt_p, PairCell};
use execscope::tui::view::AuditSlot;
use execscope::tui::{App, Theme, ThemeKind};
use execscope::view::pairs::{pair_rows, NamedPair};

fn reference(policy: TiePolicy) -> (Engine, Significance, Table) {
    let e = engine(policy);
    let sig = Significance::compute(&e, SigConfig::default());
    let t = leaderboard::table(&execscope::view::Leaderboard::build(&e), Some(&sig));
    (e, sig, t)
}

#[test]
fn leaderboard_cells_are_the_reports_with_intervals() {
    for policy in TiePolicy::ALL {
        let mut a = app_with(policy);
        let (_, sig, want) = reference(policy);
        let (got, _) = display_table(&a.view()).expect("leaderboard and significance are in");
        // k = 1: no extra column, the very table `report` prints (cells, CI columns, † marks).
        assert_eq!(got.headers, want.headers, "{policy}");
        assert_eq!(got.rows, want.rows, "{policy}");
        assert_eq!(got.caption, want.caption);
        assert!(got.headers.iter().any(|h| h == "95% CI (Wilson)"));
        // k = 3: the extra column carries exec@3's bootstrap interval per system.
        keys(&mut a, "K");
        let (got, systems) = display_table(&a.view()).unwrap();
        assert_eq!(got.headers.last().unwrap(), "exec@3 95% CI");
        let ci = sig.cell_index(MetricKey::exec(3)).unwrap();
        for (row, s) in got.rows.iter().zip(systems) {
            let iv = &sig.intervals[ci][s];
            let flag = if iv.degenerate { " (degenerate)" } else { "" };
            assert_eq!(
                row.last().unwrap().text,
                format!("[{:.3}, {:.3}]{flag}", iv.low, iv.high)
            );
        }
    }
    // The screen shows the marks (toy-cos is tied with the leader toy-dot under expected ties).
    let a = app_with(TiePolicy::Expected);
    let s = screen(&a, 120, 30);
    assert!(s.contains("0.167†"), "{s}");
    assert!(s.contains("leader"), "{s}");
}

#[test]
fn leaderboard_shows_ellipsis_until_the_bootstrap_is_done() {
    let mut a = App::with_engine(engine(TiePolicy::Row), Theme::new(ThemeKind::Dark, false));
    // (The bootstrap is queued once the leaderboard is in, so jobs are taken until none is left.)
    let mut held = Vec::new();
    loop {
        let jobs = a.take_jobs();
        if jobs.is_empty() {
            break;
        }
        for j in jobs {
            if matches!(j, Job::Significance { .. }) {
                held.push(j);
            } else {
                let r = j.run();
                a.on_result(r);
            }
        }
    }
    let (t, _) = display_table(&a.view()).unwrap();
    assert_eq!(t.headers.last().unwrap(), "exec@1 95% CI");
    assert!(t.rows.iter().all(|r| r.last().unwrap().text == "…"));
    let s = screen(&a, 120, 30);
    assert!(s.contains("bootstrap running"), "{s}");
    assert!(
        s.contains("bootstrap intervals"),
        "status bar names the job: {s}"
    );
    keys(&mut a, "6");
    let s = screen(&a, 100, 30);
    assert!(s.contains("p … · Δ 95% CI …"), "{s}");
    for j in held {
        let r = j.run();
        a.on_result(r);
    }
    // The intervals are in; the pairs follow as a job of their own.
    let s = screen(&a, 100, 30);
    assert!(s.contains("p … · Δ 95% CI …"), "{s}");
    loop {
        let jobs = a.take_jobs();
        if jobs.is_empty() {
            break;
        }
        for j in jobs {
            a.on_result(j.run());
        }
    }
    let s = screen(&a, 100, 30);
    assert!(!s.contains("Δ 95% CI …"), "{s}");
}

/// The selected pair's p and interval as the pairs report has them: its typed row, seen as
/// row − column (`PairRow::oriented`), formatted as the pane formats a cell.
fn expect_pair(rows: &[NamedPair], row_id: &str, col_id: &str) -> (String, String) {
    let r = rows
        .iter()
        .find_map(|r| r.oriented(row_id, col_id))
        .expect("pair in the report");
    let cell = PairCell {
        result: r,
        tested: true,
    };
    (fmt_p(&cell), fmt_ci(&cell))
}

#[test]
fn pairs_pane_p_and_interval_are_the_reports() {
    for (policy, metric_presses, key) in [
        (TiePolicy::Pessimistic, "", "exec@1"),
        (TiePolicy::Row, "", "exec@1"),
        (TiePolicy::Expected, "", "exec@1"),
        (TiePolicy::Row, "mm", "ndcg@1"),
    ] {
        let mut a = app_with(policy);
        let (e, sig, _) = reference(policy);
        let cell: MetricKey = key.parse().unwrap();
        let t = pair_rows(&e, &sig, cell).unwrap();
        let ids: Vec<String> = e.scores().iter().map(|s| s.id.clone()).collect();
        // `g`: the shared system selection (the matrix's row) to the first system.
        keys(&mut a, &format!("6{metric_presses}g"));
        // (row, col) → keys from the selection (0, 1).
        for (r, c, moves) in [(0, 1, ""), (1, 0, "jh"), (2, 0, "j"), (2, 1, "l")] {
            keys(&mut a, moves);
            let s = screen(&a, 100, 30);
            assert!(
                s.contains(&format!("{} vs {} on {key}", ids[r], ids[c])),
                "{s}"
            );
            let (p, ci) = expect_pair(&t, &ids[r], &ids[c]);
            let line = s
                .lines()
                .find(|l| l.contains("Δ 95% CI"))
                .expect("detail line");
            assert!(
                line.contains(&format!("{p} · Δ 95% CI {ci}")),
                "{policy} {key} ({r},{c}): want {p} {ci}\n{line}"
            );
        }
        let test = sig.cells[sig.cell_index(cell).unwrap()].test;
        let s = screen(&a, 100, 30);
        let want = match test {
            PairTest::ExactMcNemar => "Test: exact McNemar on the discordant counts",
            PairTest::TieAveragedMcNemar => "Test: exact McNemar averaged over the orders",
            PairTest::BootstrapOnly => "Test: continuous metric: paired bootstrap only",
        };
        assert!(s.contains(want), "{policy} {key}: want {want}\n{s}");
        // Under the default `expected` policy exec@k has p-values too.
        if key.starts_with("exec@") {
            assert!(test != PairTest::BootstrapOnly);
        }
    }
}

/// The oracle's isolation depends on the machine: cut it out of the snapshot.
fn redact(s: &str) -> String {
    s.lines()
        .map(|l| match l.find("oracle isolation") {
            Some(i) => format!("{}<oracle>", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn audit_pane_runs_the_retrieval_audit() {
    let mut a = app_with(TiePolicy::Row);
    keys(&mut a, "7");
    assert_eq!(a.pane_id(), "audit");
    let s = screen(&a, 100, 30);
    // Before the run: the key, what it does, the pool it would take and the isolation.
    for want in [
        "Press Enter to audit toy-cos's retrieval",
        "Pool: 3 queries × top 10 = 30 pairs; 11 in the execution cache, 19 to run",
        "Isolation: ",
        "q_0001  ✓✗✗?✗?????",
    ] {
        assert!(s.contains(want), "{want}\n{s}");
    }
    // Opening the pane does not start the audit.
    assert!(matches!(a.data.as_ref().unwrap().audit, AuditSlot::Idle));
    key(&mut a, KeyCode::Enter);
    let done = match &a.data.as_ref().unwrap().audit {
        AuditSlot::Done(r) => r.clone(),
        AuditSlot::Failed(_, e) => panic!("audit failed: {e}"),
        other => panic!("audit not finished: {other:?}"),
    };
    assert_eq!((done.request.k, done.request.visible), (10, 3));
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("audit_pane", redact(&s));
    assert!(
        s.contains("retrieval audit: toy-cos, top 10 (row ties: corpus order), 3 visible tests"),
        "{s}"
    );
    // The summary row is the audit's own table.
    let tables = execscope::report::audit::AuditTables::build(&done.run.pools, &done.run.audits);
    let ret = tables.retrieval.as_ref().expect("a retrieval summary");
    assert_eq!(ret.name, "audit-retrieval");
    let cell = |key: &str| {
        let c = ret.keys.iter().position(|k| k == key).unwrap();
        ret.rows[0][c].text.clone()
    };
    let line = s
        .lines()
        .find(|l| l.contains("toy-cos") && l.contains(&cell("exec_at_1")));
    assert!(
        line.is_some_and(|l| l.contains(&cell("exec_verified_at_1"))),
        "{s}"
    );
    // Enter opens the selected task's candidates: labels, code and per-test outcomes.
    assert!(!s.contains("q_0001 candidates"));
    key(&mut a, KeyCode::Enter);
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("audit_candidates", redact(&s));
    assert!(s.contains("q_0001 candidates"), "{s}");
    assert!(s.contains("rank 1 c_0001"), "{s}");
    assert!(s.contains("def count_vowels"), "{s}");
    assert!(s.contains("visible") && s.contains("hidden"), "{s}");
    // j moves to the next candidate; Esc goes back to the task list.
    keys(&mut a, "j");
    assert!(screen(&a, 100, 30).contains("code rank 2"));
    key(&mut a, KeyCode::Esc);
    assert!(!screen(&a, 100, 30).contains("q_0001 candidates"));
    // Switching system drops the result.
    keys(&mut a, "sdot");
    key(&mut a, KeyCode::Enter);
    let s = screen(&a, 100, 30);
    assert!(
        s.contains("Press Enter to audit toy-dot's retrieval"),
        "{s}"
    );
    assert!(matches!(a.data.as_ref().unwrap().audit, AuditSlot::Idle));
    // v changes the visible count for the next run.
    keys(&mut a, "v");
    assert!(screen(&a, 100, 30).contains("visible tests m = 4"));
}

/// The Deception pane's `x` export carries the report's edit-size table byte for byte, Spearman ρ
/// included: the binary's `report --table editsize --format markdown` under the same settings is
/// a substring of the exported markdown (the dashboard once built the table without ρ and
/// printed "undefined" where the report printed a number).
#[test]
fn deception_export_has_the_reports_editsize_rho() {
    let want = common::stdout_ok(common::execscope().args([
        "report",
        tiny().to_str().unwrap(),
        "--table",
        "editsize",
        "--format",
        "markdown",
    ]));
    let want = String::from_utf8(want).unwrap();
    assert!(want.contains("dense systems: -0.124."), "{want}");
    let dir = tempfile::tempdir().unwrap();
    let mut a = app_with(TiePolicy::Expected);
    a.shared.export_dir = Some(dir.path().to_path_buf());
    keys(&mut a, "3x");
    let md = std::fs::read_to_string(dir.path().join("execscope-deception-1.md")).unwrap();
    assert!(md.contains(&want), "export:\n{md}\nreport:\n{want}");
    assert!(!md.contains("undefined"), "{md}");
}
