//! The dashboard, driven headless by key events on the tiny fixture and rendered on ratatui's
//! TestBackend: a snapshot of every pane, plus assertions that sorting, filtering, system
//! switching, tie-policy toggling and the diff view change what they should.

use crate::common;

use common::tui::*;
use crossterm::event::KeyCode;
use execscope::cli::{open_engine, EvalArgs};
use execscope::metrics::{MetricKey, TiePolicy};
use execscope::report::TableCell;
use execscope::tui::actions::{Action, Hit};
use execscope::tui::panes::PaneId;
use execscope::tui::{App, Theme, ThemeKind};

#[test]
fn snapshot_every_pane() {
    let mut a = app();
    each_pane(&mut a, |a, i, id| {
        if id != PaneId::Audit {
            let name = id.as_str();
            insta::assert_snapshot!(format!("pane_{}_{name}", i + 1), screen(a, 100, 30));
        }
    });
}

#[test]
fn snapshot_small_and_wide_terminals() {
    let mut a = app();
    insta::assert_snapshot!("leaderboard_80x24", screen(&a, 80, 24));
    keys(&mut a, "2");
    insta::assert_snapshot!("browser_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("browser_160x40", screen(&a, 160, 40));
    // Every pane survives a tiny terminal.
    for i in 1..=7 {
        keys(&mut a, &i.to_string());
        let _ = screen(&a, 24, 6);
        let _ = screen(&a, 1, 1);
    }
}

#[test]
fn snapshot_overlays() {
    let mut a = app();
    keys(&mut a, "?");
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("help", s);
    // The help lists the registry's commands (checked on a screen wide enough for every line).
    let wide = screen(&a, 220, 60);
    for c in execscope::tui::commands::COMMANDS {
        // Long lines are cut at the column edge: their first words are shown.
        let head: Vec<&str> = c.help.split_whitespace().take(3).collect();
        let head = head.join(" ");
        assert!(wide.contains(&head), "{head}\n{wide}");
        assert!(wide.contains(c.keys_label), "{}", c.keys_label);
    }
    key(&mut a, KeyCode::Esc);
    keys(&mut a, "s");
    insta::assert_snapshot!("system_picker", screen(&a, 100, 30));
}

#[test]
fn leaderboard_numbers_are_the_reports() {
    for policy in TiePolicy::ALL {
        let a = app_with(policy);
        let s = screen(&a, 200, 30);
        let engine = open_engine(
            Some(tiny()),
            &EvalArgs {
                ties: policy,
                ..EvalArgs::default()
            },
        )
        .unwrap();
        let lb = execscope::view::Leaderboard::build(&engine);
        for row in &lb.rows {
            let id = &row.id;
            let line = line_with(&s, &format!(" {id} ")).unwrap_or_else(|| panic!("{id}: {s}"));
            // exec@1, exec@3 of the report appear in the row, in order.
            let e1 = &TableCell::num(row.metric(MetricKey::exec(1)).unwrap(), 3).text;
            let e3 = &TableCell::num(row.metric(MetricKey::exec(3)).unwrap(), 3).text;
            let p1 = line.find(e1.as_str()).expect("exec@1 shown");
            assert!(line[p1 + e1.len()..].contains(e3.as_str()), "{line}");
        }
    }
}

#[test]
fn sorting_by_header_click_and_keys() {
    let mut a = app();
    let order = |a: &App| -> Vec<String> {
        let s = screen(a, 200, 30);
        s.lines()
            .filter_map(|l| {
                ["toy-cos", "toy-dot", "BM25"]
                    .into_iter()
                    .find(|id| l.contains(&format!(" {id} ")) && l.contains("│"))
                    .map(str::to_string)
            })
            .take(3)
            .collect()
    };
    let before = order(&a);
    assert_eq!(before.len(), 3, "{before:?}");
    // Click the "system" header: text sorts descending first (click), then ascending.
    a.handle(Action::Click(Hit::Header { list: 0, col: 1 }));
    let desc = order(&a);
    let mut sorted = before.clone();
    sorted.sort();
    sorted.reverse();
    assert_eq!(desc, sorted);
    keys(&mut a, "r");
    sorted.reverse();
    assert_eq!(order(&a), sorted);
    assert!(screen(&a, 200, 30).contains("system▲"));
}

#[test]
fn filter_narrows_the_query_list() {
    let mut a = app();
    keys(&mut a, "2");
    let s = screen(&a, 100, 30);
    assert!(s.contains("q_0001") && s.contains("q_0002") && s.contains("q_0003"));
    keys(&mut a, "/gcd");
    let s = screen(&a, 100, 30);
    assert!(s.contains("/gcd 1/3"), "{s}");
    assert!(!s.contains("q_0001 ") && !s.contains("q_0002 "), "{s}");
    // The selection follows to the only match: its ranking is shown.
    assert!(line_with(&s, "q_0003 under").is_some(), "{s}");
    key(&mut a, KeyCode::Esc);
    let s = screen(&a, 100, 30);
    assert!(s.contains("q_0001") && s.contains("q_0002"));
}

#[test]
fn switching_system_reranks() {
    let mut a = app();
    keys(&mut a, "2j");
    let s = screen(&a, 100, 30);
    assert!(line_with(&s, "q_0002 under toy-cos").is_some(), "{s}");
    let first = |s: &str| -> String {
        let i = s.lines().position(|l| l.contains("pass tests")).unwrap();
        s.lines().nth(i + 1).unwrap().to_string()
    };
    // toy-cos ranks c_0003 first on q_0002 (EXPECTED.md).
    assert!(first(&s).contains("c_0003"), "{}", first(&s));
    keys(&mut a, "sdot");
    key(&mut a, KeyCode::Enter);
    let s = screen(&a, 100, 30);
    assert!(line_with(&s, "q_0002 under toy-dot").is_some(), "{s}");
    // toy-dot: c_0004 (canonical) and c_0012 tie at the top (dot 3).
    let top = first(&s);
    assert!(
        top.contains("c_0004") && top.contains("canonical") && top.contains("=2"),
        "{top}"
    );
    assert!(s.contains("system toy-dot"));
}

#[test]
fn tie_policy_toggle_reevaluates() {
    let mut a = app();
    let s = screen(&a, 200, 30);
    assert!(s.contains("ties expected"));
    keys(&mut a, "t");
    assert_eq!(a.settings.policy(), TiePolicy::Pessimistic);
    let s2 = screen(&a, 200, 30);
    assert!(s2.contains("ties pessimistic"), "{s2}");
    // toy-dot's q_0001 canonical ties with its distractor at the top: exec@1 drops under
    // pessimistic ties, and the screen shows the report's pessimistic numbers.
    let engine = open_engine(
        Some(tiny()),
        &EvalArgs {
            ties: TiePolicy::Pessimistic,
            ..EvalArgs::default()
        },
    )
    .unwrap();
    let lb = execscope::view::Leaderboard::build(&engine);
    let dot = lb.rows.iter().find(|r| r.id == "toy-dot").unwrap();
    let e1 = TableCell::num(dot.metric(MetricKey::exec(1)).unwrap(), 3).text;
    let line = line_with(&s2, " toy-dot ").unwrap();
    assert!(line.contains(&e1), "{line} vs {e1}");
    assert_ne!(
        line_with(&s, " toy-dot ").unwrap(),
        line,
        "exec numbers must change with the policy"
    );
    keys(&mut a, "ttt");
    assert_eq!(a.settings.policy(), TiePolicy::Expected);
}

#[test]
fn diff_view_shows_the_edit() {
    let mut a = app();
    keys(&mut a, "2");
    key(&mut a, KeyCode::Enter); // focus the ranking of q_0001 under toy-cos
    keys(&mut a, "j"); // rank 2: c_0002, the wrong_operator distractor
    let code = screen(&a, 100, 30);
    assert!(code.contains("c_0002 wrong_operator"), "{code}");
    keys(&mut a, "d");
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("browser_diff", s);
    assert!(s.contains("diff c_0001 → c_0002"), "{s}");
    let minus = s.lines().filter(|l| l.contains("│- ")).count();
    let plus = s.lines().filter(|l| l.contains("│+ ")).count();
    assert!(minus >= 1 && plus >= 1, "{s}");
    keys(&mut a, "d");
    assert!(!screen(&a, 100, 30).contains("diff c_0001"));
}

#[test]
fn compare_view_and_live_query() {
    let mut a = app();
    keys(&mut a, "2c");
    let s = screen(&a, 120, 30);
    insta::assert_snapshot!("browser_compare", s);
    assert!(
        line_with(&s, "score toy-cos").is_some_and(|l| l.contains("score toy-dot")),
        "{s}"
    );
    keys(&mut a, "c:");
    keys(&mut a, "vowels");
    let s = screen(&a, 100, 30);
    insta::assert_snapshot!("live_query", s);
    assert!(s.contains("live BM25 (Enter: every system)"), "{s}");
    assert!(
        s.contains("live BM25 query: vowels"),
        "the typed text is read back:\n{s}"
    );
    key(&mut a, KeyCode::Esc);
    assert!(!screen(&a, 100, 30).contains("live BM25"));
}

#[test]
fn enter_on_leaderboard_opens_browser_and_domains_open_query() {
    let mut a = app();
    // The leaderboard starts on the shared selection; `g` goes to the first row.
    keys(&mut a, "gj");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.pane_id(), "browser");
    let lb = execscope::view::Leaderboard::build(
        &open_engine(Some(tiny()), &EvalArgs::default()).unwrap(),
    );
    assert_eq!(a.settings.system, lb.rows[1].system);
    keys(&mut a, "5");
    let s = screen(&a, 100, 30);
    assert!(s.contains("Solved by no system"), "{s}");
}

#[test]
fn mouse_clicks_switch_tabs() {
    let mut a = app();
    let _ = screen(&a, 100, 30);
    let hit = a.hits.at(30, 0).expect("a tab under the cursor");
    a.handle(Action::Click(hit));
    assert_ne!(a.pane_id(), "leaderboard");
}

#[test]
fn cutoff_and_theme_keys() {
    let mut a = app();
    keys(&mut a, "K");
    assert!(screen(&a, 100, 30).contains("k=3"));
    keys(&mut a, "T");
    assert_eq!(a.settings.theme.kind, ThemeKind::Light);
}

#[test]
fn stale_results_are_dropped_and_policy_does_not_wait_for_jobs() {
    let engine = open_engine(Some(tiny()), &EvalArgs::default()).unwrap();
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, true));
    // Jobs queued but not run hold the old engine snapshot; the policy change applies at once
    // to a new snapshot, and the old jobs' results (an older generation) are dropped.
    let jobs = a.take_jobs();
    keys(&mut a, "t");
    assert_eq!(a.pending_policy(), None);
    assert_eq!(a.settings.policy(), TiePolicy::Pessimistic);
    // (`keys` ran the new jobs; forget their leaderboard to see that the old one is not taken.)
    a.data.as_mut().unwrap().lb = None;
    for j in jobs {
        let r = j.run();
        a.on_result(r);
    }
    assert!(a.data.as_ref().unwrap().lb.is_none());
    // A full cycle of policies comes back to pessimistic with fresh results.
    keys(&mut a, &"t".repeat(TiePolicy::ALL.len()));
    assert!(screen(&a, 120, 30).contains("ties pessimistic"));
    let d = a.data.as_ref().unwrap();
    assert!(d.lb.is_some());
    assert_eq!(d.engine.config().policy, TiePolicy::Pessimistic);
}

#[test]
fn no_systems_and_no_queries_do_not_panic() {
    use execscope::engine::{Engine, EngineOptions};
    use execscope::rank::RankOptions;
    let engine = open_engine(Some(tiny()), &EvalArgs::default()).unwrap();
    let mut bundle = engine.bundle().clone();
    bundle.systems.clear();
    let opts = EngineOptions {
        rank: RankOptions {
            bm25: false,
            ..RankOptions::default()
        },
        ..EngineOptions::default()
    };
    let mut a = App::with_engine(
        Engine::from_bundle(bundle.clone(), &opts),
        Theme::new(ThemeKind::Dark, true),
    );
    a.run_jobs_inline();
    // `x` on a pane without a filter exports: into a temporary directory, not the crate.
    let out = tempfile::tempdir().unwrap();
    a.shared.export_dir = Some(out.path().to_path_buf());
    for i in 1..=7 {
        keys(&mut a, &format!("{i}jjkGgtKd/x"));
        key(&mut a, KeyCode::Enter);
        key(&mut a, KeyCode::Esc);
        let _ = screen(&a, 80, 24);
    }
    assert!(screen(&a, 80, 24).contains("no systems to audit"));
    keys(&mut a, "6");
    assert!(screen(&a, 80, 24).contains("no systems to compare"));
    bundle.queries.clear();
    let mut a = App::with_engine(
        Engine::from_bundle(bundle, &EngineOptions::default()),
        Theme::new(ThemeKind::Light, false),
    );
    a.run_jobs_inline();
    for i in 1..=7 {
        keys(&mut a, &format!("{i}jjGgtKdc"));
        key(&mut a, KeyCode::Enter);
        let _ = screen(&a, 80, 24);
    }
}

/// Every pane at 80×24 and 200×60. Besides the snapshots: the lower half of the screen is not
/// empty (the space is used).
#[test]
fn snapshot_every_pane_small_and_large() {
    let mut a = app();
    let vocab = vocabulary(&a);
    each_pane(&mut a, |a, _, id| {
        let name = id.as_str();
        for (w, h) in [(80u16, 24u16), (200, 60)] {
            let s = screen(a, w, h);
            insta::assert_snapshot!(format!("{name}_{w}x{h}"), s);
            assert_no_clipped_words(&s, w, &vocab, &format!("{name} at {w}x{h}"));
            let lines: Vec<&str> = s.lines().collect();
            let lower = &lines[lines.len() / 2..lines.len() - 1];
            let blank = lower
                .iter()
                .filter(|l| {
                    l.chars()
                        .all(|c| c == ' ' || c == '│' || c == '─' || c == '└' || c == '┘')
                })
                .count();
            // Not an empty half-screen: at least a third of the lower half carries content, on
            // every pane (the Audit pane before an audit has run included).
            assert!(
                lower.len() - blank >= lower.len() / 3,
                "{name} at {w}x{h}: the lower half is empty\n{s}"
            );
        }
    });
}

/// One selection everywhere: moving in the leaderboard moves the status bar's system, and the
/// pairs matrix's rows follow the same selection.
#[test]
fn the_selected_system_is_shared_by_every_pane() {
    let mut a = app();
    let ids: Vec<String> = {
        let lb = a
            .data
            .as_ref()
            .and_then(|d| d.lb.as_ref())
            .expect("leaderboard");
        lb.rows.iter().map(|r| r.id.clone()).collect()
    };
    let systems: Vec<usize> = {
        let lb = a.data.as_ref().and_then(|d| d.lb.as_ref()).unwrap();
        lb.rows.iter().map(|r| r.system).collect()
    };
    let pos = |a: &App| {
        systems
            .iter()
            .position(|&s| s == a.settings.system)
            .unwrap()
    };
    let start = pos(&a);
    key(&mut a, KeyCode::Up);
    key(&mut a, KeyCode::Down);
    assert_eq!(
        pos(&a),
        if start == 0 {
            1.min(ids.len() - 1)
        } else {
            start
        }
    );
    let at = pos(&a);
    let s = screen(&a, 120, 40);
    let status: Vec<&str> = s.lines().rev().take(3).collect();
    assert!(
        status.iter().any(|l| l.contains(ids[at].as_str())),
        "status bar should name {}: {status:?}",
        ids[at]
    );
    // The highlighted leaderboard row is that system.
    let row = line_with(&s, &format!(" {} ", ids[at])).expect("row shown");
    assert!(row.contains(&ids[at]));
    // Pairs: Down moves the shared selection by one system index.
    keys(&mut a, "6");
    let before = a.settings.system;
    key(&mut a, KeyCode::Down);
    let n = systems.len();
    assert_eq!(a.settings.system, (before + 1).min(n - 1));
    keys(&mut a, "1");
    let s = screen(&a, 120, 40);
    let want = &ids[pos(&a)];
    assert!(
        s.lines().rev().take(3).any(|l| l.contains(want.as_str())),
        "{s}"
    );
}

/// A status message longer than the 80-column status bar is shortened at a word boundary with
/// `…`; nothing runs off the right edge mid-word.
#[test]
fn long_status_message_is_shortened_at_a_word_boundary() {
    let mut a = app();
    let vocab = vocabulary(&a);
    keys(&mut a, "2");
    let msg = "edited c_0001 of q_0001: the oracle ran 3 tests under every system and the \
               ranking moved from 1 to 2";
    a.status = Some(msg.to_string());
    let s = screen(&a, 80, 24);
    insta::assert_snapshot!("status_long_80x24", s);
    assert_no_clipped_words(&s, 80, &vocab, "status bar at 80x24");
    let bar = s.lines().nth(22).expect("status bar");
    assert!(bar.ends_with('…'), "{bar:?}");
    // What is shown is the message's own words, whole, up to the ellipsis.
    let shown = bar
        .split(" │ ties expected │ ")
        .nth(1)
        .expect("message after the ties");
    let shown = shown.trim_end_matches('…');
    assert!(msg.starts_with(shown), "{shown:?}");
    let next = msg[shown.len()..].chars().next();
    assert_eq!(next, Some(' '), "cut mid-word: {shown:?}");
    // On a wide screen the whole message is there.
    let wide = screen(&a, 220, 24);
    assert!(wide.contains(msg), "{wide}");
}

/// The help overlay at 80x24 and 100x30: every line is whole or ends in `…` at a word boundary;
/// where the screen has the room (160x60), long help texts wrap under themselves instead.
#[test]
fn help_lines_are_never_cut_mid_word() {
    let mut a = app();
    keys(&mut a, "?");
    let mut words: Vec<String> = vec!["help".into(), "—".into(), "?".into(), "or".into()];
    let fixed = "Esc closes Everywhere Prompts, filter and pickers lines of · ↓ j/PgDn for more ↑ \
                 k/PgUp back";
    words.extend(fixed.split_whitespace().map(String::from));
    for id in PaneId::ALL {
        words.extend(id.title().split_whitespace().map(String::from));
    }
    for c in execscope::tui::commands::COMMANDS {
        words.extend(c.help.split_whitespace().map(String::from));
        words.extend(c.keys_label.split_whitespace().map(String::from));
    }
    // The active pane's glyph legend, shown first.
    words.push("Glyphs".into());
    for (g, m) in a.panes[a.tab].legend() {
        words.extend(g.split_whitespace().map(String::from));
        words.extend(m.split_whitespace().map(String::from));
    }
    for (w, h) in [(80u16, 24u16), (100, 30), (160, 60)] {
        let s = screen(&a, w, h);
        if (w, h) == (80, 24) {
            insta::assert_snapshot!("help_80x24", s);
        }
        let lines: Vec<&str> = s.lines().collect();
        // The overlay covers the body: between the tab bar and the status and key bars.
        for line in &lines[1..lines.len() - 2] {
            for tok in line.split(|c: char| c.is_whitespace() || "│┌┐└┘─".contains(c)) {
                // (Numbers: the scrolled help's "lines 1–19 of 58".)
                let number = tok.chars().all(|c| c.is_ascii_digit() || c == '–');
                if tok.is_empty() || tok.ends_with('…') || number || words.iter().any(|x| x == tok)
                {
                    continue;
                }
                panic!("help at {w}x{h}: {tok:?} is cut\n{s}");
            }
        }
        if w == 160 {
            // Wrapped, not shortened: every help text is there in full (a lone `…` is the
            // legend's glyph).
            assert!(
                !s.split_whitespace()
                    .any(|t| t.len() > 3 && t.ends_with('…')),
                "{s}"
            );
            let first = execscope::tui::commands::COMMANDS
                .iter()
                .map(|c| c.help)
                .max_by_key(|h| h.len())
                .unwrap();
            assert!(
                first.split_whitespace().all(|word| s.contains(word)),
                "{first}\n{s}"
            );
        }
    }
}

/// At 80×24 the help does not fit in columns: it becomes one column with every help text in
/// full, the bottom border says which lines are shown and that there is more, and j/k, the
/// arrows, PgUp/PgDn, g/G and the mouse wheel scroll it. Every command's keys and whole help text
/// can be read by scrolling.
#[test]
fn help_scrolls_on_a_short_screen() {
    let mut a = app();
    keys(&mut a, "?");
    // (Its first page is the `help_80x24` snapshot of `help_lines_are_never_cut_mid_word`.)
    let top = screen(&a, 80, 24);
    let bottom_border = |s: &str| s.lines().nth(21).unwrap_or("").to_string();
    assert!(
        bottom_border(&top).contains("lines 1–19 of") && bottom_border(&top).contains("for more"),
        "{top}"
    );
    // The key bar names what works here (scrolling, closing), not the pane's keys.
    let bar = top.lines().nth(23).unwrap_or("");
    assert!(
        bar.contains("close") && bar.contains("PgDn") && !bar.contains("quit"),
        "{bar}"
    );
    // Page through to the end, keeping what each page shows.
    let mut seen = top.clone();
    let mut prev = top.clone();
    for _ in 0..50 {
        key(&mut a, KeyCode::PageDown);
        let s = screen(&a, 80, 24);
        if s == prev {
            break;
        }
        seen.push_str(&s);
        prev = s;
    }
    assert_ne!(prev, top, "PgDn scrolls the help");
    assert!(bottom_border(&prev).contains("back"), "{prev}");
    insta::assert_snapshot!("help_80x24_end", prev);
    // Nothing is abbreviated: every command's keys and every word of its help are there (a lone
    // `…` is the legend's glyph).
    assert!(
        !seen
            .split_whitespace()
            .any(|t| t.len() > 3 && t.ends_with('…')),
        "{seen}"
    );
    let tokens: Vec<&str> = seen.split_whitespace().collect();
    for c in execscope::tui::commands::COMMANDS {
        assert!(seen.contains(c.keys_label), "{}", c.keys_label);
        for word in c.help.split_whitespace() {
            assert!(
                tokens.contains(&word),
                "{word:?} of {:?} never shown",
                c.help
            );
        }
    }
    // G and g jump to the end and back; j/k, ↓/↑ and the wheel move one line.
    keys(&mut a, "g");
    assert_eq!(screen(&a, 80, 24), top);
    keys(&mut a, "G");
    assert_eq!(screen(&a, 80, 24), prev);
    keys(&mut a, "g");
    let line = |s: &str, i: usize| s.lines().nth(i).unwrap_or("").to_string();
    keys(&mut a, "j");
    let one = screen(&a, 80, 24);
    assert_eq!(line(&one, 2), line(&top, 3), "j scrolls one line\n{one}");
    assert!(bottom_border(&one).contains("lines 2–20 of"), "{one}");
    keys(&mut a, "k");
    assert_eq!(screen(&a, 80, 24), top);
    key(&mut a, KeyCode::Down);
    assert_eq!(screen(&a, 80, 24), one);
    key(&mut a, KeyCode::Up);
    a.handle(Action::ScrollDown);
    assert_eq!(screen(&a, 80, 24), one);
    key(&mut a, KeyCode::PageUp);
    assert_eq!(screen(&a, 80, 24), top);
    // Esc closes; opened again, the help starts at the top.
    key(&mut a, KeyCode::Esc);
    assert!(!screen(&a, 80, 24).contains("help — ? or Esc closes"));
    keys(&mut a, "?G?");
    keys(&mut a, "?");
    assert_eq!(screen(&a, 80, 24), top);
}
