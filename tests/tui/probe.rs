//! The dashboard's live probing through a TestBackend: an edit of a snippet in `$EDITOR` (`E`) shows
//! every system's rank before → after and the oracle's per-test verdict, and `u` undoes it; a
//! live query ranks under every dense system (needs the embedding environment; skipped by name
//! without it).

use crate::common;

use common::tui::{app_with, key, keys, settle};
use crossterm::event::KeyCode;
use execscope::metrics::TiePolicy;
use execscope::tui::App;

/// `E` on the ranking hands the selected snippet to $EDITOR (here a script writing a wrong
/// count_vowels); the probe panel then shows the edit, the oracle's ✗✓✗ on q_0001's three tests,
/// BM25's ranks before → after, and the toy systems' missing models; `u` takes it back.
#[test]
fn editing_a_snippet_shows_ranks_and_verdicts_and_undo_restores() {
    let tmp = tempfile::tempdir().unwrap();
    let editor = tmp.path().join("ed.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'def count_vowels(s):\\n    return 0\\n' > \"$1\"\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::env::set_var("VISUAL", &editor);
    std::env::set_var("EDITOR", &editor);
    let mut app = app_with(TiePolicy::Expected);
    key(&mut app, KeyCode::Char('2'));
    key(&mut app, KeyCode::Right);
    keys(&mut app, "E");
    let status = app.status.clone().unwrap_or_default();
    assert!(status.starts_with("edited c_"), "{status}");
    // The edit's probe was submitted by the action, before anything was drawn (drawing only
    // reads the service's state).
    assert!(app.panes[1].busy(), "the probe runs before the first frame");
    let s = settle(&app, 180, 45);
    assert!(s.contains("q_0001 edited"), "{s}");
    assert!(s.contains("probe 1 edit (u undoes"), "{s}");
    assert!(s.contains("FAIL ✗✓✗"), "{s}");
    assert!(s.contains("BM25"), "{s}");
    assert!(s.contains("needs model `toy-cos`"), "{s}");
    assert!(s.contains("rank "), "{s}");
    // The scratch file of the session holds the edit; the bundle is untouched.
    let log = std::fs::read_to_string(
        std::env::temp_dir()
            .join(format!("execscope-session-{}", std::process::id()))
            .join("edits.jsonl"),
    )
    .unwrap();
    assert!(
        log.contains("\"query_id\":\"q_0001\"") && log.contains("return 0"),
        "{log}"
    );
    keys(&mut app, "u");
    let s = settle(&app, 180, 45);
    assert!(
        !s.contains("q_0001 edited") && !s.contains("probe 1 edit"),
        "{s}"
    );
}

/// The dashboard on `engine` with `:` + `text` + Enter typed (its probe submitted).
fn live_query(engine: execscope::engine::Engine, text: &str) -> App {
    let mut app = App::with_engine(
        engine,
        execscope::tui::Theme::new(execscope::tui::ThemeKind::Dark, false),
    );
    app.run_jobs_inline();
    keys(&mut app, ":");
    keys(&mut app, text);
    key(&mut app, KeyCode::Enter);
    app
}

/// `:` then a query: every dense system of the embedded bundle ranks it (✓ in the title) beside
/// BM25, and the current system's ranking is listed.
#[test]
fn a_live_query_ranks_under_every_dense_system() {
    let env = execscope::embed::EmbedEnv::locate().unwrap();
    if !env.is_ready() {
        common::skip(
            "a_live_query_ranks_under_every_dense_system",
            &env.absence(),
        );
        return;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle");
    let args = execscope::cli::EvalArgs {
        no_cache: true,
        ..Default::default()
    };
    let engine = execscope::cli::open_engine(Some(&root), &args).unwrap();
    let app = live_query(engine, "sort a list of pairs by the second item");
    let s = settle(&app, 200, 50);
    for id in [
        "all-MiniLM-…✓",
        "all-mpnet-b…✓",
        "paraphrase-…✓",
        "multilingua…✓",
        "BM25✓",
    ] {
        assert!(s.contains(id), "{id} missing:\n{s}");
    }
    assert!(
        s.contains("live: \"sort a list of pairs by the second item\""),
        "{s}"
    );
    assert!(!s.contains("loading model"), "{s}");
}

/// Issue 30 item 1 without an embedding environment (CI): a live query ranks under BM25, marks
/// each dense system ✗, and says once, in one whole line above the ranking (not cut in the
/// title), what would enable them; the environment is never created.
#[test]
fn a_live_query_without_models_says_once_what_enables_them() {
    let env = execscope::embed::EmbedEnv::locate().unwrap();
    if env.is_ready() {
        common::skip(
            "a_live_query_without_models_says_once_what_enables_them",
            "an embedding environment is present (this checks the state without one)",
        );
        return;
    }
    let existed = env.dir.exists();
    let engine = execscope::cli::open_engine(None, &execscope::cli::EvalArgs::default()).unwrap();
    let app = live_query(engine, "merge two sorted lists");
    let s = settle(&app, 160, 40);
    // The dense system selected cannot rank it: BM25's ranking under a title that says so.
    assert!(s.contains("under BM25"), "{s}");
    assert!(s.contains("…✗ "), "{s}");
    let hint: Vec<&str> = s.lines().filter(|l| l.contains("probe --setup")).collect();
    assert_eq!(hint.len(), 1, "said once:\n{s}");
    assert!(
        hint[0].contains("(≈7 GB, once); the next query uses it"),
        "whole at 160 columns: {:?}",
        hint[0]
    );
    assert!(!s.contains("error"), "{s}");
    assert_eq!(env.dir.exists(), existed, "the environment was created");
}
