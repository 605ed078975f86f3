//! Issue 45 item 8, the dashboard's part of the walk a new user took: each item as the user met
//! it, driven through the keys on the tiny fixture or the embedded bundle.

use crate::common;
use common::tui::{app_with, key, keys, screen, tiny};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use execscope::metrics::TiePolicy;
use execscope::tui::app::Mode;
use execscope::tui::{App, Theme, ThemeKind};

/// The dashboard's own path on `root` (App::new: the leader selected), every job run.
fn opened(root: &std::path::Path, ties: TiePolicy) -> App {
    let opts = execscope::cli::EvalArgs {
        ties,
        no_cache: true,
        ..Default::default()
    }
    .engine_options()
    .unwrap();
    let mut a = App::new(root.to_path_buf(), opts, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    a
}

fn embedded(ties: TiePolicy) -> App {
    opened(&common::embedded_bundle(), ties)
}

/// The Pairs pane opens on the leader against the runner-up, never on the diagonal (a system
/// against itself), and ←/→ step over the diagonal.
#[test]
fn pairs_start_off_the_diagonal() {
    for root in [tiny().to_path_buf(), common::embedded_bundle()] {
        let mut a = opened(&root, TiePolicy::Expected);
        keys(&mut a, "6");
        let s = screen(&a, 120, 40);
        assert!(!s.contains("a system against itself"), "{s}");
        let head = s
            .lines()
            .find(|l| l.contains(" vs "))
            .expect("the selected pair");
        let parts: Vec<&str> = head
            .trim_matches(|c| c == '│' || c == ' ')
            .split(" vs ")
            .collect();
        assert_ne!(parts[0], parts[1].split(" on ").next().unwrap(), "{head}");
        for _ in 0..6 {
            keys(&mut a, "l");
            assert!(!screen(&a, 120, 40).contains("a system against itself"));
        }
        for _ in 0..6 {
            keys(&mut a, "h");
            assert!(!screen(&a, 120, 40).contains("a system against itself"));
        }
    }
}

/// A list cut short says how many rows it hides, and PgDn / PgUp scroll it: the Pairs pane's
/// query lists under the matrix (↑/↓ move the matrix row there).
#[test]
fn long_lists_scroll() {
    let mut a = embedded(TiePolicy::Expected);
    keys(&mut a, "6");
    let first_query = |s: &str| {
        let at = s
            .lines()
            .position(|l| l.contains("per query: A ="))
            .expect("per-query box");
        s.lines().nth(at + 2).unwrap_or("").to_string()
    };
    let before = screen(&a, 120, 40);
    assert!(
        before.contains("below"),
        "no count of the hidden rows:\n{before}"
    );
    key(&mut a, KeyCode::PageDown);
    let after = screen(&a, 120, 40);
    assert_ne!(
        first_query(&before),
        first_query(&after),
        "PgDn did not scroll:\n{after}"
    );
    assert!(after.contains("above"), "{after}");
    key(&mut a, KeyCode::PageUp);
    assert_eq!(first_query(&screen(&a, 120, 40)), first_query(&before));
    // The selected pair did not move.
    assert!(!after.contains("a system against itself"));
    // Suite strength's task list (the survivors take ↑/↓ there).
    keys(&mut a, "3v");
    let first_task = |s: &str| {
        let at = s
            .lines()
            .position(|l| l.contains("Tasks, weakest first"))
            .expect("tasks");
        s.lines().nth(at + 1).unwrap_or("").to_string()
    };
    let before = screen(&a, 120, 40);
    assert!(before.contains("below (PgUp/PgDn)"), "{before}");
    key(&mut a, KeyCode::PageDown);
    let after = screen(&a, 120, 40);
    assert_ne!(first_task(&before), first_task(&after), "{after}");
}

/// A bundle whose queries carry no domain: the Domains pane says so instead of drawing an empty
/// table.
#[test]
fn domains_pane_on_a_bundle_without_domains_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("b");
    common::copy_dir(tiny(), &root);
    let q = root.join("data/queries.jsonl");
    let text = std::fs::read_to_string(&q).unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
        // No domain, and an entry id none can be derived from (as in HumanEval's task ids).
        if let Some(o) = v.as_object_mut() {
            o.remove("domain");
            let id = o["query_id"].clone();
            o.insert("entry_id".into(), id);
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    std::fs::write(&q, out).unwrap();
    let _ = std::fs::remove_file(root.join("SHA256SUMS"));
    let mut a = opened(&root, TiePolicy::Expected);
    assert!(a.error.is_none(), "{:?}", a.error);
    keys(&mut a, "5");
    let s = screen(&a, 120, 40);
    assert!(s.contains("no domains"), "{s}");
}

/// `B`: a runner-up not distinguishable from the leader keeps its † in the big numbers, and
/// the screen says what † means.
#[test]
fn big_numbers_keep_the_dagger() {
    let mut a = app_with(TiePolicy::Expected);
    // The leaderboard marks the runner-up's exec@1 with † (toy-cos, 0.167†).
    let s = screen(&a, 200, 60);
    assert!(s.contains("0.167†"), "{s}");
    keys(&mut a, "B");
    for (w, h) in [(120, 40), (40, 12)] {
        let s = screen(&a, w, h);
        assert!(s.contains('†'), "{w}x{h}: the † is gone:\n{s}");
        assert!(
            s.contains("not distinguishable from the leader"),
            "{w}x{h}:\n{s}"
        );
    }
}

fn ctrl_p(a: &mut App) {
    a.handle_key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL));
    a.run_jobs_inline();
}

/// The command palette sets every tie policy and every cutoff by name.
#[test]
fn the_palette_sets_tie_policies_and_cutoffs() {
    let mut a = app_with(TiePolicy::Expected);
    for p in ["pessimistic", "row", "optimistic", "expected"] {
        ctrl_p(&mut a);
        keys(&mut a, &format!("ties: {p}"));
        key(&mut a, KeyCode::Enter);
        assert_eq!(a.mode, Mode::Normal);
        assert_eq!(a.settings.policy().as_str(), p);
    }
    for k in [5, 10, 1, 3] {
        ctrl_p(&mut a);
        keys(&mut a, &format!("cutoff k = {k}"));
        key(&mut a, KeyCode::Enter);
        assert_eq!(a.settings.k(), k);
    }
}

/// `x` on the Queries tab writes files named after the tab (`queries`, not `browser`) and the
/// status bar says in which directory.
#[test]
fn export_names_the_tab_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app_with(TiePolicy::Expected);
    a.shared.export_dir = Some(dir.path().to_path_buf());
    keys(&mut a, "2x");
    assert!(dir.path().join("execscope-queries-1.svg").exists());
    assert!(dir.path().join("execscope-queries-1.md").exists());
    let status = a.status.clone().unwrap_or_default();
    assert!(
        status.contains(&dir.path().display().to_string()),
        "the status does not say where: {status}"
    );
}

/// The session's scratch directory (edits mirrored for a crash) is gone once the dashboard is
/// closed; each dashboard has its own.
#[test]
fn the_session_directory_goes_with_the_dashboard() {
    let tmp = tempfile::tempdir().unwrap();
    let editor = tmp.path().join("ed.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'def f():\\n    return 1\\n' > \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::env::set_var("VISUAL", &editor);
    let mut a = app_with(TiePolicy::Expected);
    keys(&mut a, "2l");
    keys(&mut a, "E");
    let s = common::tui::settle(&a, 220, 50);
    let line = s
        .lines()
        .find(|l| l.contains("scratch "))
        .unwrap_or_else(|| panic!("{s}"));
    let path = line
        .split("scratch ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .trim();
    let dir = std::path::Path::new(path).parent().unwrap().to_path_buf();
    assert!(dir.join("edits.jsonl").exists(), "{}", dir.display());
    let other = app_with(TiePolicy::Expected);
    drop(other);
    assert!(
        dir.exists(),
        "another dashboard removed this one's directory"
    );
    drop(a);
    assert!(!dir.exists(), "{} left behind", dir.display());
}

/// A terminal smaller than the dashboard can use says so (and how to quit) instead of drawing
/// a crushed screen.
#[test]
fn a_too_small_terminal_says_so() {
    let mut a = app_with(TiePolicy::Expected);
    for (w, h) in [(40, 12), (79, 30), (120, 15)] {
        let s = screen(&a, w, h);
        assert!(s.contains("too small"), "{w}x{h}:\n{s}");
    }
    keys(&mut a, "z");
    assert!(screen(&a, 40, 12).contains("too small"));
    keys(&mut a, "z");
    assert!(!screen(&a, 80, 24).contains("too small"));
}

/// A Holm-adjusted p-value below 0.0001 reads `<0.0001`, never `0.0000`, as in the report.
#[test]
fn small_p_values_are_printed_honestly() {
    assert_eq!(execscope::report::p_text(0.00001, 4), "<0.0001");
    assert_eq!(execscope::report::p_text(0.0123, 4), "0.0123");
    assert_eq!(execscope::report::p_text(0.0001, 4), "0.0001");
    let mut a = embedded(TiePolicy::Pessimistic);
    // The leaderboard under pessimistic ties: BM25 is far below the leader.
    let lb = a.data.as_ref().unwrap().lb.as_ref().unwrap();
    let bm25 = lb.rows.iter().position(|r| r.id == "BM25").unwrap();
    for _ in 0..bm25 {
        keys(&mut a, "j");
    }
    let s = screen(&a, 160, 50);
    assert!(s.contains("below the leader"), "{s}");
    assert!(!s.contains("0.0000"), "{s}");
    assert!(s.contains("Holm p <0.0001"), "{s}");
}
