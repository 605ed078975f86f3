//! The browser's inline editor (`e`), driven by key events on the tiny fixture: it opens on the
//! selected snippet's code, moves and edits with the keyboard, takes a pasted block whole, cancels
//! with Esc (no edit) and applies with Ctrl-S; the probe then shows the oracle's verdict on the
//! edited code (run for real in the sandbox). On the query list, `e` edits the query text and
//! Enter applies it. (Its own test binary: the session's scratch directory is per process.)

use crate::common;

use common::tui::{app_with, key, keys, screen, settle};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use execscope::metrics::TiePolicy;
use execscope::tui::actions::Action;
use execscope::tui::App;

fn ctrl(app: &mut App, c: char) {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
    app.run_jobs_inline();
}

/// The session's scratch log, where the probe box on `screen` says it is (each dashboard has a
/// directory of its own).
fn scratch_log(screen: &str) -> String {
    let Some(line) = screen.lines().find(|l| l.contains("scratch ")) else {
        return String::new();
    };
    let path = line
        .split("scratch ")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap();
    std::fs::read_to_string(path.trim()).unwrap_or_default()
}

#[test]
fn inline_editor_edits_cancels_and_applies() {
    let mut app = app_with(TiePolicy::Expected);
    // q_0001 under toy-cos; the ranking focused on rank 1, the canonical c_0001.
    keys(&mut app, "2");
    key(&mut app, KeyCode::Right);
    keys(&mut app, "e");
    let s = screen(&app, 100, 30);
    insta::assert_snapshot!("browser_inline_editor", s);
    assert!(s.contains("edit c_0001 Ctrl-S apply"), "{s}");
    assert!(s.contains("return n"), "{s}");
    // The cursor starts at the top.
    assert!(s.contains("line 1 col 1"), "{s}");
    // The key bar names the editor's keys, not the filter's.
    let bar = s.lines().next_back().unwrap();
    assert!(
        bar.contains("C-s apply") && bar.contains("Esc cancel"),
        "{bar}"
    );

    // Keys typed here go to the editor, not to the dashboard: `q` does not quit.
    keys(&mut app, "q");
    assert!(!app.quit);
    assert!(screen(&app, 100, 30).contains("qdef count_vowels"));
    // Esc cancels: no edit is made.
    key(&mut app, KeyCode::Esc);
    let s = screen(&app, 100, 30);
    assert!(!s.contains("edit c_0001"), "{s}");
    assert_eq!(app.status.as_deref(), Some("edit cancelled"));
    assert!(!s.contains("q_0001 edited"), "{s}");

    // Open again: replace `return n` by `return 0`, add a comment line (Enter is a newline in
    // code), go up and back to the line's end, paste a block, then apply with Ctrl-S.
    keys(&mut app, "e");
    for _ in 0..5 {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::End);
    assert!(screen(&app, 100, 30).contains("line 6 col 13"));
    key(&mut app, KeyCode::Backspace);
    keys(&mut app, "0");
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "# no vowels");
    key(&mut app, KeyCode::Up);
    key(&mut app, KeyCode::End);
    app.handle(Action::Paste("  # pasted\r\n".into()));
    // The pasted newline left an empty line before the comment: Delete joins them.
    key(&mut app, KeyCode::Delete);
    let s = screen(&app, 100, 30);
    let l6 = s
        .lines()
        .position(|l| l.contains("6      return 0  # pasted"));
    let l7 = s.lines().position(|l| l.contains("7  # no vowels"));
    assert!(l6.is_some() && l7 == l6.map(|i| i + 1), "{s}");
    ctrl(&mut app, 's');
    let status = app.status.clone().unwrap_or_default();
    assert_eq!(status, "edited c_0001 (u undoes)");
    let s = settle(&app, 180, 45);
    assert!(s.contains("q_0001 edited"), "{s}");
    assert!(s.contains("probe 1 edit (u undoes"), "{s}");
    // count_vowels returning 0: the oracle fails two of q_0001's three tests.
    assert!(s.contains("c_0001 FAIL ✗✓✗"), "{s}");
    // Issue 30 item 3: the edited ranking keeps the verdicts: the edited row shows the
    // oracle's outcomes (as the panel does), the others their cached ones, not `label`.
    assert!(
        s.matches("✗✓✗").count() >= 2,
        "the edited row lacks its verdict:\n{s}"
    );
    let edited_labels = s.matches("label").count();
    let log = scratch_log(&s);
    assert!(
        log.contains(r"return 0  # pasted\n# no vowels"),
        "the scratch file holds the edit: {log}"
    );
    // The bundle is untouched: undo restores the stored ranking.
    keys(&mut app, "u");
    let s = settle(&app, 180, 45);
    assert!(!s.contains("q_0001 edited"), "{s}");
    assert!(
        edited_labels <= s.matches("label").count(),
        "the edit turned cached outcomes into labels"
    );

    // On the query list `e` edits the query text; Enter applies it.
    key(&mut app, KeyCode::Left);
    keys(&mut app, "e");
    let s = screen(&app, 100, 30);
    assert!(s.contains("edit q_0001 query text"), "{s}");
    app.handle(Action::Paste(" in a word".into()));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.status.as_deref(),
        Some("edited q_0001 query (u undoes)")
    );
    let s = settle(&app, 180, 45);
    assert!(s.contains("query: ") && s.contains(" in a word"), "{s}");
    // Enter applied and left the editor: the next key is the dashboard's again.
    keys(&mut app, "u");
    let s = settle(&app, 180, 45);
    assert!(!s.contains("q_0001 edited"), "{s}");
}
