//! Issue 30 items 5 and 6: the dashboard opens on the leader with a layout that does not jump
//! when the bootstrap arrives, and counts never read as contradicting their headline.

use crate::common::tui::{app_with, engine, key, keys, screen, tiny};
use crossterm::event::KeyCode;
use execscope::metrics::TiePolicy;
use execscope::tui::jobs::Job;
use execscope::tui::{App, Theme, ThemeKind};

fn leader(a: &App) -> (usize, String) {
    let lb = a
        .data
        .as_ref()
        .and_then(|d| d.lb.as_ref())
        .expect("leaderboard");
    (lb.rows[0].system, lb.rows[0].id.clone())
}

fn status(s: &str) -> String {
    s.lines().rev().take(3).collect::<Vec<_>>().join("\n")
}

#[test]
fn it_opens_on_the_leader_and_keeps_a_chosen_system() {
    for policy in [TiePolicy::Expected, TiePolicy::Row] {
        // The dashboard's own path: App::new loads the bundle (its jobs run here inline).
        let opts = execscope::cli::EvalArgs {
            ties: policy,
            no_cache: true,
            ..Default::default()
        }
        .engine_options()
        .unwrap();
        let mut a = App::new(
            tiny().to_path_buf(),
            opts,
            Theme::new(ThemeKind::Dark, false),
        );
        a.run_jobs_inline();
        let (s, id) = leader(&a);
        assert_eq!(
            a.settings.system, s,
            "{policy:?}: the leader is the selection"
        );
        let st = status(&screen(&a, 120, 40));
        assert!(st.contains(&format!("system {id}")), "{st}");
        assert_ne!(a.settings.compare, s, "the comparison is another system");
        // A system the presenter picks survives a re-evaluation (the tie-policy key).
        key(&mut a, KeyCode::Down);
        let chosen = a.settings.system;
        assert_ne!(chosen, s);
        keys(&mut a, "t");
        assert_eq!(
            a.settings.system, chosen,
            "{policy:?}: the choice was overridden"
        );
    }
}

/// The leaderboard before its bootstrap is in has the columns it will have after, the
/// pending cells shown as "…", and the header line does not move.
#[test]
fn the_leaderboard_layout_is_stable_from_the_first_frame() {
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        let mut a = App::with_engine(
            engine(TiePolicy::Expected),
            Theme::new(ThemeKind::Dark, false),
        );
        // Run only the leaderboard; hold every other job (the bootstrap among them).
        let mut held: Vec<Job> = Vec::new();
        loop {
            let jobs = a.take_jobs();
            if jobs.is_empty() {
                break;
            }
            for j in jobs {
                if j.label() == "leaderboard" {
                    let r = j.run();
                    a.on_result(r);
                } else {
                    held.push(j);
                }
            }
        }
        let before = screen(&a, w, h);
        let header = |s: &str| {
            s.lines()
                .find(|l| l.contains("rank") && l.contains("system"))
                .map(str::to_string)
                .unwrap_or_else(|| panic!("no header at {w}x{h}:\n{s}"))
        };
        assert!(before.contains('…'), "pending cells shown as …:\n{before}");
        for j in held {
            let r = j.run();
            a.on_result(r);
        }
        a.run_jobs_inline();
        let after = screen(&a, w, h);
        assert_eq!(header(&before), header(&after), "{w}x{h}: the header moved");
        assert!(after.contains('†') || !before.contains("CI"), "{after}");
    }
}

/// Under expected ties the difficulty histogram's first bar is "<1", never "0": it holds the
/// unsolved queries and those solved only inside a score tie, so it never reads as more
/// queries "solved by no system" than the list beside it names.
#[test]
fn difficulty_bins_say_what_they_hold() {
    use execscope::report::anatomy::difficulty_bin;
    assert_eq!(difficulty_bin(0, 4, false), "0");
    assert_eq!(difficulty_bin(0, 4, true), "<1");
    assert_eq!(difficulty_bin(2, 4, true), "2–3");
    assert_eq!(
        difficulty_bin(3, 4, true),
        "3",
        "the last bin (every system) is whole"
    );
    let mut a = app_with(TiePolicy::Expected);
    keys(&mut a, "5");
    let s = screen(&a, 200, 60);
    assert!(s.contains("expected number of systems"), "{s}");
    assert!(s.contains("<1"), "{s}");
    let mut a = app_with(TiePolicy::Row);
    keys(&mut a, "5");
    let s = screen(&a, 200, 60);
    assert!(!s.contains("<1") && !s.contains("expected number"), "{s}");
}

/// Issue 45 item 4: `t` never moves the selection. On the embedded bundle BM25 leads under
/// expected ties and a dense system under pessimistic ones; a presenter browsing the leader's
/// queries who presses `t` keeps browsing them (the status bar and the ranking's title say so).
#[test]
fn the_tie_policy_key_keeps_the_browsed_system() {
    let opts = execscope::cli::EvalArgs {
        ties: TiePolicy::Expected,
        no_cache: true,
        ..Default::default()
    }
    .engine_options()
    .unwrap();
    let mut a = App::new(
        crate::common::embedded_bundle(),
        opts,
        Theme::new(ThemeKind::Dark, false),
    );
    a.run_jobs_inline();
    let (s, id) = leader(&a);
    assert_eq!(a.settings.system, s, "opened on the leader");
    keys(&mut a, "2t");
    assert_eq!(a.settings.policy(), TiePolicy::Pessimistic);
    let (new_leader, _) = leader(&a);
    assert_ne!(
        new_leader, s,
        "the leader changes with the tie policy (the test bites)"
    );
    assert_eq!(a.settings.system, s, "t moved the browsed system");
    let scr = screen(&a, 120, 40);
    assert!(status(&scr).contains(&format!("system {id}")), "{scr}");
    assert!(scr.contains(&format!("under {id} ")), "{scr}");
}
