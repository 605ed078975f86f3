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

fn app() -> App {
    app_with(TiePolicy::Expected)
}

/// The dashboard on the embedded bundle (the paper-shaped data), every job run.
fn embedded_app() -> App {
    embedded_app_with(TiePolicy::Expected)
}

/// [`embedded_app`] under another tie policy (the retrieval audit needs one pool order: `row`,
/// the release's, where every pair of the top 10 is in the execution cache).
fn embedded_app_with(ties: TiePolicy) -> App {
    let args = EvalArgs {
        ties,
        ..EvalArgs::default()
    };
    let engine = open_engine(None, &args).expect("embedded bundle");
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    a
}

fn line_with<'a>(s: &'a str, needle: &str) -> Option<&'a str> {
    s.lines().find(|l| l.contains(needle))
}

/// Switch to each pane in tab order (by its number key) and call `f` with its id.
fn each_pane(a: &mut App, mut f: impl FnMut(&mut App, usize, PaneId)) {
    for (i, id) in PaneId::ALL.into_iter().enumerate() {
        keys(a, &(i + 1).to_string());
        assert_eq!(a.pane_id(), id.as_str());
        f(a, i, id);
    }
}

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

/// Every word the dashboard may show whole: system, query, function, domain, bug-type and
/// label names of the bundle.
fn vocabulary(a: &App) -> Vec<String> {
    let d = a.data.as_ref().expect("loaded");
    let b = d.engine.bundle();
    let mut v: Vec<String> = d.engine.scores().iter().map(|s| s.id.clone()).collect();
    for q in &b.queries {
        v.extend([q.id.clone(), q.function_name.clone(), q.domain.clone()]);
    }
    for c in &b.corpus {
        v.push(c.id.clone());
        v.extend(c.bug_type.clone());
        v.push(c.label.as_str().to_string());
    }
    v.sort();
    v.dedup();
    v
}

/// No word cut mid-way: no name-like screen token is a proper prefix (3+ characters) of a
/// bundle name it is not itself, unless it says so with `…`; and no text runs off the right edge
/// of the screen (bars and lines without a border).
fn assert_no_clipped_words(s: &str, w: u16, vocab: &[String], what: &str) {
    let n = s.lines().count();
    for (li, line) in s.lines().enumerate() {
        let is_bar = li + 2 >= n;
        for tok in line.split(|c: char| c.is_whitespace() || "│┌┐└┘─├┤()[],:;·".contains(c))
        {
            // Plain words ("sort", "interval") are English, not cut names: only name-like
            // tokens (with `_`, `-` or a digit) are checked.
            let namelike = tok.contains(|c: char| c == '_' || c == '-' || c.is_ascii_digit());
            if tok.chars().count() < 3
                || !namelike
                || tok.ends_with('…')
                || vocab.iter().any(|v| v == tok)
            {
                continue;
            }
            if let Some(full) = vocab.iter().find(|v| v.starts_with(tok)) {
                panic!("{what}: {tok:?} is {full:?} cut off\n{s}");
            }
        }
        let chars: Vec<char> = line.chars().collect();
        // The status and key bars (the last two lines) never wrap: a letter in the last column
        // is a cut word.
        if is_bar && chars.len() == w as usize && chars.last().is_some_and(|c| c.is_alphanumeric())
        {
            panic!("{what}: text runs off the right edge: {line:?}\n{s}");
        }
    }
}

#[test]
fn clipped_word_check_bites() {
    let vocab = vec!["count_vowels".to_string(), "toy-cos".to_string()];
    let ok = "│ count_vowels toy-cos │\n│ count_vo… │\n";
    assert_no_clipped_words(ok, 40, &vocab, "ok");
    for bad in [
        "│ count_vow │\n",
        "abcdefghij\n",
        "abc toy-co\n",
        "ab count_v\n",
    ] {
        let r = std::panic::catch_unwind(|| assert_no_clipped_words(bad, 10, &vocab, "bad"));
        assert!(r.is_err(), "{bad:?} passed");
    }
}

/// The export key writes the current pane as SVG (with the theme's colours) and markdown (the
/// pane's report tables and the screen), names both files in the status bar, and never
/// overwrites an earlier export.
#[test]
fn export_key_writes_svg_and_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app();
    a.shared.export_dir = Some(dir.path().to_path_buf());
    // Drawn once at 100×30: the export has the body's size (30 − tab, status and key bars).
    let s = screen(&a, 100, 30);
    keys(&mut a, "x");
    let status = screen(&a, 100, 30);
    let bar = status.lines().rev().nth(1).unwrap();
    assert!(
        bar.contains("wrote execscope-leaderboard-1.svg and .md in"),
        "{bar}"
    );
    let svg = std::fs::read_to_string(dir.path().join("execscope-leaderboard-1.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(svg.contains(r#"width="850" height="459""#), "100×27 cells");
    // Colours kept: the accent (cyan) title and the selected row's blue background.
    assert!(svg.contains(r##"fill="#11a8cd""##) && svg.contains(r##"fill="#2472c8""##));
    // Every system row of the screen is in the SVG text.
    for id in ["toy-dot", "toy-cos", "BM25"] {
        assert!(svg.contains(id), "{id}");
        assert!(s.contains(id));
    }
    let md = std::fs::read_to_string(dir.path().join("execscope-leaderboard-1.md")).unwrap();
    let (table, _) = execscope::tui::panes::leaderboard::display_table(&a.view()).unwrap();
    assert!(md.starts_with("# Leaderboard — execscope, tiny\n"), "{md}");
    assert!(md.contains(&table.to_markdown()), "{md}");
    assert!(md.contains("```text\n") && md.contains("Selected system"));
    // A second export of another pane, then of the same pane: new names, nothing overwritten.
    keys(&mut a, "3x1x");
    for f in [
        "execscope-deception-1.svg",
        "execscope-deception-1.md",
        "execscope-leaderboard-2.svg",
        "execscope-leaderboard-2.md",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let md3 = std::fs::read_to_string(dir.path().join("execscope-deception-1.md")).unwrap();
    assert!(md3.contains("| bug type |"), "{md3}");
    // No temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 6);
}

/// Every pane of the embedded bundle (the paper-shaped data) at 80×24 and 200×60: no clipped
/// word and no empty lower half. The Audit pane under expected ties says why it will not run
/// (no single pool order), which is a message, not a layout; its layout is checked under row
/// ties.
#[test]
fn embedded_bundle_panes_use_their_space() {
    let mut a = embedded_app();
    let vocab = vocabulary(&a);
    let mut row = embedded_app_with(TiePolicy::Row);
    keys(&mut row, "7");
    each_pane(&mut a, |a, _, id| {
        let a = if id == PaneId::Audit {
            assert!(screen(a, 80, 24).contains("needs one pool order"));
            &mut row
        } else {
            a
        };
        for (w, h) in [(80u16, 24u16), (200, 60)] {
            let s = screen(a, w, h);
            let what = format!("{} at {w}x{h} (embedded)", id.as_str());
            assert_no_clipped_words(&s, w, &vocab, &what);
            let lines: Vec<&str> = s.lines().collect();
            let lower = &lines[lines.len() / 2..lines.len() - 2];
            let filled = lower
                .iter()
                // Anything drawn besides blanks and box lines (text, bars, chart dots).
                .filter(|l| l.chars().any(|c| !" │─┌┐└┘".contains(c)))
                .count();
            assert!(
                filled >= lower.len() / 3,
                "{what}: the lower half is empty\n{s}"
            );
        }
    });
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

/// Under the selected pair, the pairs pane lists every query's value under both systems: the
/// engine's per-query exec@1 columns, their difference, and which side solves it.
#[test]
fn pairs_pane_per_query_values_are_the_engines() {
    let mut a = app();
    keys(&mut a, "6");
    let s = screen(&a, 100, 30);
    let d = a.data.as_ref().expect("loaded");
    let (sa, sb) = (a.settings.system, 1);
    assert_ne!(sa, sb, "the default pair is two systems");
    let ki = a.settings.k_index;
    let ca = d.engine.evals()[sa].column(execscope::metrics::Metric::Exec, ki);
    let cb = d.engine.evals()[sb].column(execscope::metrics::Metric::Exec, ki);
    assert!(s.contains("per query: A ="), "{s}");
    for (q, query) in d.engine.bundle().queries.iter().enumerate() {
        let row = s
            .lines()
            .find(|l| {
                l.contains(&query.id)
                    && l.contains("  ")
                    && l.contains(&query.function_name)
                    && l.contains('.')
            })
            .filter(|l| l.contains(&format!("{:.3}", ca[q])))
            .unwrap_or_else(|| panic!("{} row\n{s}", query.id));
        let want = format!("{:.3}  {:.3}  {:+.3}", ca[q], cb[q], ca[q] - cb[q]);
        let mark = match (ca[q] > 0.0, cb[q] > 0.0) {
            (true, true) => "both",
            (true, false) => "A only",
            (false, true) => "B only",
            (false, false) => "neither",
        };
        assert!(
            row.contains(&want) && row.contains(mark),
            "{row:?} lacks {want} {mark}"
        );
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

/// On a tall screen the pairs pane also shows the selected pair on every metric and cutoff: each
/// row's values are the report's pairs table's for that pair (`report --table pairs --metric`),
/// and the row of the matrix's metric and cutoff is the highlighted one.
#[test]
fn pairs_pane_every_cutoff_values_are_the_reports() {
    use execscope::analysis::significance::Significance;
    use execscope::report::pairs::pairs_table;
    let mut a = app();
    keys(&mut a, "6");
    let s = screen(&a, 200, 60);
    assert!(
        s.contains("every metric and cutoff: A = toy-cos, B = toy-dot"),
        "{s}"
    );
    let d = a.data.as_ref().expect("loaded");
    let sig: &Significance = d.sig.as_ref().expect("bootstrap run");
    assert!(sig.cells.len() > 4, "every metric at every cutoff");
    for cell in &sig.cells {
        let t = pairs_table(&d.engine, sig, cell.key).expect("pairs table");
        // toy-cos (A) against toy-dot (B): the report orders each pair by system index.
        let row = t
            .rows
            .iter()
            .find(|r| r[0].text == "toy-cos" && r[1].text == "toy-dot")
            .expect("the pair's row");
        // Columns: A, B, A only, B only, both, neither, A rate, B rate, Δ, Δ CI, p.
        assert_eq!(
            (t.headers[8].as_str(), t.headers[9].as_str()),
            ("Δ (A − B)", "Δ 95% CI")
        );
        let (ra, rb) = (&row[6].text, &row[7].text);
        let (delta, ci) = (&row[8].text, &row[9].text);
        let line = s
            .lines()
            .find(|l| l.contains(&format!("│{:<9}", cell.key)))
            .unwrap_or_else(|| panic!("{} row\n{s}", cell.key));
        let want = format!("{ra}  {rb}");
        assert!(line.contains(&want), "{line:?} lacks {want}");
        assert!(
            line.contains(&format!(" {delta}  {ci}")),
            "{line:?} lacks {delta} {ci}"
        );
        let p = row[10].value.filter(|_| cell.test.has_p());
        match p {
            Some(p) if p >= 0.001 => assert!(line.contains(&format!("{p:.3}")), "{line:?}"),
            Some(_) => assert!(line.contains("<.001"), "{line:?}"),
            None => assert!(line.contains(" – "), "{line:?}"),
        }
        assert!(line.contains(cell.test.short()), "{line:?}");
    }
    // The matrix shows exec@1: its row is highlighted (selected, unfocused).
    let (x, y) = {
        let lines: Vec<&str> = s.lines().collect();
        let y = lines.iter().position(|l| l.contains("│exec@1  ")).unwrap();
        (1u16, y as u16)
    };
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(200, 60)).unwrap();
    t.draw(|f| execscope::tui::frame::draw(f, &a)).unwrap();
    let buf = t.backend().buffer().clone();
    let marked = |y: u16| {
        buf[(x, y)]
            .modifier
            .contains(ratatui::style::Modifier::UNDERLINED)
    };
    assert!(marked(y), "the exec@1 row is highlighted");
    assert!(!marked(y + 1), "the exec@3 row is not");
}

/// ←/→ on the domains pane scroll the system columns its tables cannot show (at 80×24 the
/// deception table shows two of the three systems), and the unsolved list leaves out the domain
/// where it has no room rather than showing a column of lone `…`.
#[test]
fn domains_pane_scrolls_its_system_columns() {
    let mut a = app();
    keys(&mut a, "5");
    let s = screen(&a, 80, 24);
    let header = |s: &str| {
        s.lines()
            .skip_while(|l| !l.contains("deception by domain"))
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    assert!(
        header(&s).contains('›') && !header(&s).contains("BM25"),
        "{s}"
    );
    keys(&mut a, "ll");
    let s2 = screen(&a, 80, 24);
    assert!(
        header(&s2).contains("BM25") && header(&s2).contains('‹'),
        "{s2}"
    );
    keys(&mut a, "hh");
    assert_eq!(screen(&a, 80, 24), s);
    // The embedded bundle leaves queries unsolved: their list at 80 columns.
    let mut a = embedded_app();
    keys(&mut a, "5");
    let s = screen(&a, 80, 24);
    let unsolved: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.contains("Solved by no system"))
        .skip(1)
        .take_while(|l| !l.contains('└'))
        .collect();
    assert!(!unsolved.is_empty(), "{s}");
    for l in unsolved {
        let cell = l.rsplit('│').nth(1).unwrap_or("").trim_end();
        assert!(cell.contains("q_0"), "{s}");
        assert!(!cell.ends_with(" …"), "a lone … for the domain: {l:?}");
    }
}

/// The last text row of the full-width box whose top border carries `title`.
fn last_row_of_box<'a>(s: &'a str, title: &str) -> Option<&'a str> {
    let lines: Vec<&str> = s.lines().collect();
    let top = lines.iter().position(|l| l.contains(title))?;
    let bottom = (top + 1..lines.len()).find(|&i| lines[i].starts_with('└'))?;
    Some(lines[bottom - 1])
}

/// On the embedded bundle at 80×24 text that does not fit its box ends in `…` (or is whole):
/// the snippet title in the browser, the selected pair's details, the density table's caption.
/// Before, each stopped mid-word or mid-sentence at the border. And no label is drawn over the
/// density chart's curves.
#[test]
fn text_that_does_not_fit_says_so() {
    let mut a = embedded_app();
    let ends_whole = |row: &str| {
        let t = row.trim_end_matches('│').trim_end();
        t.ends_with('…') || t.ends_with('.') || t.ends_with(')')
    };
    // The snippet panel's title: shortened with `…` inside the top border.
    keys(&mut a, "2");
    let s = screen(&a, 80, 24);
    let title = s
        .lines()
        .find(|l| l.contains("c_0005 wrong_operator"))
        .expect("the code panel's title");
    let title = &title[title.find("c_0005").unwrap()..];
    let before_corner = title.split('┐').next().unwrap().trim_end_matches('─');
    assert!(before_corner.trim_end().ends_with('…'), "{title:?}");
    // The selected pair's details.
    keys(&mut a, "6");
    let s = screen(&a, 80, 24);
    let row = last_row_of_box(&s, "Selected pair").expect("details box");
    assert!(ends_whole(row), "cut mid-sentence: {row:?}\n{s}");
    // The density table's caption; and nothing written over the chart.
    keys(&mut a, "4");
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let s = screen(&a, w, h);
        if w == 80 {
            let row = last_row_of_box(&s, "Density table").expect("density table");
            assert!(ends_whole(row), "cut mid-sentence: {row:?}\n{s}");
        }
        for l in s.lines() {
            let c: Vec<char> = l.chars().collect();
            for p in c.windows(2) {
                let braille = |x: char| ('\u{2800}'..='\u{28ff}').contains(&x);
                let letter = |x: char| x.is_ascii_alphabetic();
                assert!(
                    !(braille(p[0]) && letter(p[1]) || letter(p[0]) && braille(p[1])),
                    "text over the chart: {l:?}"
                );
            }
        }
    }
}

/// The deception pane on the embedded bundle: at 80×24 its bar legend still names the current
/// system (it read "■ …"), and at 200×60 the gap histogram's bins carry distinct labels (bins
/// narrower than 0.01 all read "-0.03" with two decimals).
#[test]
fn deception_pane_legend_and_bin_labels_are_readable() {
    let mut a = embedded_app();
    keys(&mut a, "3");
    let sys = a.view().system_id(a.settings.system).to_string();
    let s = screen(&a, 80, 24);
    let title = s.lines().nth(1).unwrap();
    assert!(title.contains(&format!("■ {sys}")), "{title:?}");
    let s = screen(&a, 200, 60);
    let labels: Vec<&str> = s
        .lines()
        .filter_map(|l| {
            let inner = l.strip_prefix('│')?.trim_end().trim_end_matches('│').trim();
            let toks: Vec<&str> = inner.split_whitespace().collect();
            let numeric = |t: &str| t.parse::<f64>().is_ok() && t.contains('.');
            (toks.len() >= 5 && toks.iter().all(|t| numeric(t))).then_some(inner)
        })
        .collect();
    assert_eq!(labels.len(), 1, "one row of bin labels\n{s}");
    let toks: Vec<&str> = labels[0].split_whitespace().collect();
    for p in toks.windows(2) {
        assert_ne!(p[0], p[1], "neighbouring bins read the same: {}", labels[0]);
    }
}

/// The pairs pane on the embedded bundle at 80×24 says what it cannot show: the matrix rows
/// above and below the ones in view, and how many queries each "only" list and the per-query
/// table leave out (they stopped at the border without a word).
#[test]
fn pairs_pane_says_what_is_out_of_view() {
    let mut a = embedded_app();
    keys(&mut a, "6");
    let s = screen(&a, 80, 24);
    assert!(s.contains("▲ 0 above · ▼ 1 below"), "{s}");
    keys(&mut a, "G");
    let s = screen(&a, 80, 24);
    assert!(s.contains("▲ 1 above · ▼ 0 below"), "{s}");
    keys(&mut a, "g");
    // At 200×60 the lists are longer than their boxes.
    let s = screen(&a, 200, 60);
    let d = a.data.as_ref().unwrap();
    let (ca, cb) = (
        d.engine.evals()[0].column(execscope::metrics::Metric::Exec, 0),
        d.engine.evals()[1].column(execscope::metrics::Metric::Exec, 0),
    );
    let only_a = (0..ca.len())
        .filter(|&q| ca[q] > 0.0 && cb[q] <= 0.0)
        .count();
    let shown_a = s
        .lines()
        .filter(|l| l.starts_with("│q_0") && l.contains("││q_0"))
        .count();
    assert!(shown_a < only_a, "the list is longer than its box\n{s}");
    assert!(
        s.contains(&format!("▼ {} below (PgUp/PgDn)", only_a - shown_a)),
        "{} below\n{s}",
        only_a - shown_a
    );
    // The per-query table: its rows carry who solves the query.
    let n = d.engine.bundle().queries.len();
    let per_query = s
        .lines()
        .filter(|l| {
            l.starts_with("│q_0")
                && ["both", "A only", "B only", "neither"]
                    .iter()
                    .any(|m| l.contains(&format!("  {m}")))
        })
        .count();
    assert!(per_query > 0 && per_query < n, "{s}");
    assert!(
        s.contains(&format!("▼ {} below (PgUp/PgDn)", n - per_query)),
        "{} below\n{s}",
        n - per_query
    );
}

/// Enter on the leaderboard opens the highlighted system (the shared selection), also before
/// any movement and after a re-sort; it opened the row at a stale position (the first).
#[test]
fn leaderboard_enter_opens_the_highlighted_system() {
    let mut a = app();
    let current = a.settings.system;
    let lb_first = {
        let lb = a.data.as_ref().unwrap().lb.as_ref().unwrap();
        lb.rows[0].system
    };
    assert_ne!(current, lb_first, "the fixture starts off the first row");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.pane_id(), "browser");
    assert_eq!(a.settings.system, current);
    keys(&mut a, "1r");
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.settings.system, current, "after a re-sort too");
}

/// On the embedded bundle at 80×24: the diff view's note on the canonical wraps instead of
/// stopping at "see it", and the audit's per-test panel title ends in `…` inside its border
/// instead of being cut by the corner ("per-test outcom┐").
#[test]
fn notes_and_titles_are_whole_at_80_columns() {
    let mut a = embedded_app_with(TiePolicy::Row);
    keys(&mut a, "2");
    key(&mut a, KeyCode::Enter);
    // Down the ranking to the canonical, then its diff.
    for _ in 0..10 {
        let s = screen(&a, 80, 24);
        if s.lines().any(|l| l.contains("┌ c_0001 correct")) {
            break;
        }
        keys(&mut a, "j");
    }
    keys(&mut a, "d");
    let s = screen(&a, 80, 24);
    let words: Vec<&str> = s.split(|c: char| c.is_whitespace() || c == '│').collect();
    for w in "the canonical itself — select a distractor to see its edit".split(' ') {
        assert!(words.contains(&w), "{w:?} missing\n{s}");
    }
    // The audit (every pair is in the execution cache), then the first task's candidates.
    keys(&mut a, "7");
    key(&mut a, KeyCode::Enter);
    let t0 = std::time::Instant::now();
    while !a.busy().is_empty() && t0.elapsed() < std::time::Duration::from_secs(120) {
        a.run_jobs_inline();
    }
    key(&mut a, KeyCode::Enter);
    let s = screen(&a, 80, 24);
    let title = s
        .lines()
        .find(|l| l.contains(" tests: "))
        .unwrap_or_else(|| panic!("the tests panel\n{s}"));
    let head = title[title.find(" tests: ").unwrap()..]
        .split('┐')
        .next()
        .unwrap()
        .trim_end_matches('─')
        .trim_end();
    assert!(
        head.ends_with('…') || head.ends_with("outcomes"),
        "{title:?}"
    );
}

/// The side-by-side rankings at 80×24 (embedded bundle) leave out the role where it has no room
/// instead of showing a column of lone `…`.
#[test]
fn compare_view_has_no_lone_ellipsis_column() {
    let mut a = embedded_app();
    keys(&mut a, "2c");
    let s = screen(&a, 80, 24);
    let rows: Vec<&str> = s.lines().filter(|l| l.contains(" c_0")).collect();
    assert!(rows.len() >= 4, "{s}");
    for l in rows {
        assert!(!l.contains(" … ✗") && !l.contains(" … ✓"), "{l:?}\n{s}");
    }
}

/// ←/→ on the density pane bring the rank-1 miss table's columns that do not fit into view (at
/// 200×60 on the embedded bundle its last column, "paired share", was out of reach).
#[test]
fn density_pane_scrolls_the_miss_table() {
    let mut a = embedded_app();
    keys(&mut a, "4");
    let header = |s: &str| {
        s.lines()
            .skip_while(|l| !l.contains("Rank-1 miss composition"))
            .nth(1)
            .unwrap_or("")
            .to_string()
    };
    let s = screen(&a, 200, 60);
    assert!(
        header(&s).contains('›') && !header(&s).contains("paired share"),
        "{s}"
    );
    keys(&mut a, "lllll");
    let s2 = screen(&a, 200, 60);
    assert!(header(&s2).contains("paired share"), "{s2}");
    keys(&mut a, "hhhhh");
    assert_eq!(screen(&a, 200, 60), s);
}

/// ←/→ on the audit pane bring the result tables' columns that do not fit into view (at 80×24
/// on the embedded bundle the summary and the task table each hid columns behind `›`).
#[test]
fn audit_pane_scrolls_its_result_tables() {
    let mut a = embedded_app_with(TiePolicy::Row);
    keys(&mut a, "7");
    key(&mut a, KeyCode::Enter);
    let t0 = std::time::Instant::now();
    while !a.busy().is_empty() && t0.elapsed() < std::time::Duration::from_secs(120) {
        a.run_jobs_inline();
    }
    let s = screen(&a, 80, 24);
    let header = |s: &str, head: &str| {
        s.lines()
            .find(|l| l.starts_with(&format!("│{head}")))
            .unwrap_or("")
            .to_string()
    };
    for head in ["system ", "task "] {
        let h = header(&s, head);
        assert!(h.contains('›') && !h.contains('‹'), "{h:?}\n{s}");
    }
    // → moves the focus a column at a time: the hidden ones come into view.
    let mut seen = [false, false];
    for _ in 0..15 {
        keys(&mut a, "l");
        let s2 = screen(&a, 80, 24);
        for (i, head) in ["system ", "task "].into_iter().enumerate() {
            seen[i] |= header(&s2, head).contains('‹');
        }
    }
    assert_eq!(seen, [true, true], "{}", screen(&a, 80, 24));
    keys(&mut a, &"h".repeat(15));
    assert_eq!(screen(&a, 80, 24), s);
}
