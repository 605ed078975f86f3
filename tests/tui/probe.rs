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
    // The scratch file of the session (the probe box names it) holds the edit; the bundle is
    // untouched.
    let line = s
        .lines()
        .find(|l| l.contains("scratch "))
        .expect("the scratch file named");
    let path = line
        .split("scratch ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    let log = std::fs::read_to_string(path.trim()).unwrap();
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
    // Issue 45 item 5: at 120 columns every system is named whole, with its remedy whole.
    let s = settle(&app, 120, 40);
    // The dense system selected cannot rank it: BM25's ranking under a title that says so.
    assert!(s.contains("under BM25"), "{s}");
    let panel = boxed(&s, "live query");
    assert!(panel.contains("query: merge two sorted lists"), "{panel}");
    let e = &app.data.as_ref().unwrap().engine;
    for sys in e.scores() {
        assert!(panel.contains(&sys.id), "{} not whole:\n{panel}", sys.id);
    }
    assert!(!panel.contains("…✗"), "{panel}");
    assert_eq!(panel.matches("probe --setup").count(), 1, "said once:\n{s}");
    assert!(
        panel.contains(
            "need a model: `execscope probe --setup` (≈7 GB, once); the next query uses it"
        ),
        "whole at 120 columns: {panel}"
    );
    assert!(!s.contains("error"), "{s}");
    assert_eq!(env.dir.exists(), existed, "the environment was created");
}

/// The text inside the box whose top border starts with `┌ {title}` (the first such box), its
/// rows joined by spaces, runs of spaces collapsed: what a reader reads in that panel.
fn boxed(screen: &str, title: &str) -> String {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let head = format!("┌ {title}");
    let Some((top, col)) = lines.iter().enumerate().find_map(|(i, l)| {
        let s: String = l.iter().collect();
        s.find(&head).map(|b| (i, s[..b].chars().count()))
    }) else {
        panic!("no box {title:?}:\n{screen}");
    };
    let end = (col + 1..lines[top].len())
        .find(|&c| lines[top][c] == '┐')
        .unwrap_or(lines[top].len());
    let mut text = String::new();
    for l in &lines[top + 1..] {
        if l.get(col) == Some(&'└') {
            break;
        }
        let row: String = l.iter().skip(col + 1).take(end - col - 1).collect();
        text.push(' ');
        text.push_str(&row);
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Issue 45 item 5: what is typed can be read back. A query text edited inline, longer than
/// any panel is wide, is shown whole in the probe box (not cut at its border) and in the query
/// box (which shows the edited text, the stored one under it), at 120 columns.
#[test]
fn an_edited_query_is_read_back_whole() {
    let mut app = app_with(TiePolicy::Row);
    keys(&mut app, "2e");
    let stored = app.data.as_ref().unwrap().engine.bundle().queries[0]
        .text
        .clone();
    let added = " and also count the letter y as a vowel whenever it ends a word of the text";
    key(&mut app, KeyCode::End);
    keys(&mut app, added);
    key(&mut app, KeyCode::Enter);
    let edited = format!("{stored}{added}");
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = settle(&app, 120, 40);
    let probe = boxed(&s, "probe");
    assert!(
        probe.contains(&format!("query: {}", words(&edited))),
        "the probe box cuts the edited query:\n{probe}\n{s}"
    );
    let query = boxed(&s, "q_0001 ─");
    assert!(
        query.contains(&format!("edited: {}", words(&edited))),
        "the query box does not show the edited text:\n{query}\n{s}"
    );
    assert!(
        query.contains(&format!("stored: {}", words(&stored))),
        "{query}"
    );
}

/// Issue 45 item 5: an edited query's title and its probe state at 120 columns name every
/// system whole, with each unavailable system's reason whole (here the toy systems, whose
/// models no embedding environment has).
#[test]
fn an_edited_query_names_every_system_whole_at_120_columns() {
    let mut app = app_with(TiePolicy::Row);
    keys(&mut app, "2e");
    keys(&mut app, " please");
    key(&mut app, KeyCode::Enter);
    let s = settle(&app, 120, 40);
    let ranking = boxed(&s, "q_0001 edited");
    for id in ["toy-cos", "toy-dot", "BM25"] {
        assert!(ranking.contains(id), "{id} not whole:\n{ranking}\n{s}");
    }
    assert!(!ranking.contains("…✗"), "{ranking}");
    let probe = boxed(&s, "probe");
    assert!(probe.contains("toy-cos"), "{probe}");
}
