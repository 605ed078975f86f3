//! Issue 30, presenter mode: zoom one pane to the whole screen and back (`z`), the headline
//! numbers in large type (`B`), and the command palette (Ctrl-P) over the command registry.

use crate::common::tui::{app_with, engine, key, keys, screen};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use execscope::metrics::{MetricKey, TiePolicy};
use execscope::report::TableCell;
use execscope::tui::app::Mode;
use execscope::tui::commands;
use execscope::tui::panes::PaneId;
use execscope::tui::presenter::FONT;
use execscope::tui::{App, ThemeKind};

fn app() -> App {
    app_with(TiePolicy::Expected)
}

fn ctrl_p(a: &mut App) {
    a.handle_key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL));
    a.run_jobs_inline();
}

/// Open the palette, type `text`, press Enter.
fn palette_run(a: &mut App, text: &str) {
    ctrl_p(a);
    assert!(matches!(a.mode, Mode::Palette { .. }), "{:?}", a.mode);
    keys(a, text);
    key(a, KeyCode::Enter);
}

fn last_line(s: &str) -> &str {
    s.lines().last().unwrap_or("")
}

// ---- zoom ----

#[test]
fn zoom_fills_the_screen_and_returns_to_the_same_pane_and_selection() {
    let mut a = app();
    keys(&mut a, "1");
    key(&mut a, KeyCode::Down);
    let (tab, system) = (a.tab, a.settings.system);
    let normal = screen(&a, 120, 40);
    assert!(normal.lines().next().unwrap().contains("1 Leaderboard"));

    keys(&mut a, "z");
    assert!(a.zoom);
    let zoomed = screen(&a, 120, 40);
    let first = zoomed.lines().next().unwrap();
    assert!(
        !first.contains("2 Queries"),
        "no tab bar when zoomed:\n{zoomed}"
    );
    let bar = last_line(&zoomed);
    assert!(
        bar.contains("z unzoom") && bar.contains("Leaderboard"),
        "{bar}"
    );
    assert_eq!(
        (a.tab, a.settings.system),
        (tab, system),
        "zoom changes no state"
    );
    // The zoomed pane has the rows of the normal one (one more line of room, no tab bar).
    let id = &a.data.as_ref().unwrap().engine.scores()[system].id;
    assert!(zoomed.contains(id.as_str()));

    // Keys still go to the pane: the selection moves while zoomed, and is kept on return.
    key(&mut a, KeyCode::Up);
    let moved = a.settings.system;
    assert_ne!(moved, system, "↑ moved the zoomed leaderboard's selection");
    keys(&mut a, "z");
    assert!(!a.zoom);
    assert_eq!((a.tab, a.settings.system), (tab, moved));
    assert!(screen(&a, 120, 40)
        .lines()
        .next()
        .unwrap()
        .contains("1 Leaderboard"));

    // Esc also returns; the normal screen is the one before zooming.
    key(&mut a, KeyCode::Down);
    keys(&mut a, "z");
    key(&mut a, KeyCode::Esc);
    assert!(!a.zoom);
    assert_eq!(screen(&a, 120, 40), normal);
}

#[test]
fn zoom_keeps_the_browser_state_across_panes() {
    let mut a = app();
    keys(&mut a, "2");
    key(&mut a, KeyCode::Down);
    let query = a.shared.query;
    keys(&mut a, "dz");
    let zoomed = screen(&a, 120, 40);
    assert!(last_line(&zoomed).contains("2 Queries"), "{zoomed}");
    // Tab switches the zoomed pane; the bottom line follows.
    key(&mut a, KeyCode::Tab);
    assert!(last_line(&screen(&a, 120, 40)).contains("3 Deception"));
    key(&mut a, KeyCode::BackTab);
    keys(&mut a, "z");
    assert_eq!(a.shared.query, query);
    assert_eq!(a.pane_id(), "browser");
}

#[test]
fn snapshot_zoom() {
    let mut a = app();
    keys(&mut a, "z");
    insta::assert_snapshot!("zoom_leaderboard_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("zoom_leaderboard_120x40", screen(&a, 120, 40));
    keys(&mut a, "2");
    insta::assert_snapshot!("zoom_browser_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("zoom_browser_120x40", screen(&a, 120, 40));
}

// ---- big numbers ----

/// The numbers drawn in block glyphs on `s`, band by band (top to bottom), each band's numbers
/// left to right. Read back with the dashboard's own font table.
fn read_big(s: &str) -> Vec<Vec<String>> {
    let lines: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let w = lines.iter().map(Vec::len).max().unwrap_or(0);
    let at = |y: usize, x: usize| lines[y].get(x).copied().unwrap_or(' ');
    let mut bands = Vec::new();
    let mut y = 0;
    while y < lines.len() {
        // Every digit has a cell set in its first row: a band starts at a row with a block
        // below one without.
        if !lines[y].contains(&'█') {
            y += 1;
            continue;
        }
        assert!(y + 5 <= lines.len(), "a cut glyph band at row {y}:\n{s}");
        let blank = |x: usize| (y..y + 5).all(|r| at(r, x) != '█');
        let mut numbers = Vec::new();
        let mut cur = String::new();
        let mut gap = 0;
        let mut x = 0;
        while x < w {
            if blank(x) {
                gap += 1;
                x += 1;
                if gap >= 3 && !cur.is_empty() {
                    numbers.push(std::mem::take(&mut cur));
                }
                continue;
            }
            gap = 0;
            let hit = FONT.iter().filter(|(c, _)| *c != ' ').find(|(_, rows)| {
                let gw = rows[0].chars().count();
                rows.iter().enumerate().all(|(r, row)| {
                    row.chars()
                        .enumerate()
                        .all(|(i, ch)| (at(y + r, x + i) == '█') == (ch == '█'))
                }) && blank(x + gw)
            });
            let (c, rows) = hit.unwrap_or_else(|| panic!("no glyph at row {y} col {x}:\n{s}"));
            cur.push(*c);
            x += rows[0].chars().count();
        }
        if !cur.is_empty() {
            numbers.push(cur);
        }
        bands.push(numbers);
        y += 5;
    }
    bands
}

/// The report's leaderboard cells (exec@1, exec@10) of the leader and the runner-up.
fn report_headline(policy: TiePolicy) -> Vec<(String, String, String)> {
    let lb = execscope::view::Leaderboard::build(&engine(policy));
    lb.rows
        .iter()
        .take(2)
        .map(|r| {
            let num = |k| TableCell::num(r.metric(MetricKey::exec(k)).unwrap(), 3).text;
            (r.id.clone(), num(1), num(10))
        })
        .collect()
}

#[test]
fn big_numbers_are_the_reports_leaderboard_cells() {
    for policy in TiePolicy::ALL {
        let mut a = app_with(policy);
        let want = report_headline(policy);
        assert_eq!(want.len(), 2);
        // The leaderboard pane shows these cells too.
        let pane = screen(&a, 200, 30);
        for (id, e1, _) in &want {
            let row = pane
                .lines()
                .find(|l| l.contains(&format!(" {id} ")))
                .unwrap();
            assert!(row.contains(e1.as_str()), "{row}");
        }
        keys(&mut a, "B");
        assert_eq!(a.mode, Mode::Big);
        for (w, h) in [(80, 24), (120, 40)] {
            let s = screen(&a, w, h);
            let bands = read_big(&s);
            assert_eq!(
                bands,
                vec![
                    vec![want[0].1.clone(), want[1].1.clone()],
                    vec![want[0].2.clone(), want[1].2.clone()],
                ],
                "{policy:?} {w}×{h}\n{s}"
            );
            assert!(s.contains(&format!("ties: {}", policy.as_str())), "{s}");
            // The names sit under their numbers: the leader's on the left.
            let names = s.lines().find(|l| l.contains(&want[0].0)).unwrap();
            let (l, r) = (names.find(&want[0].0), names.find(&want[1].0));
            assert!(l < r, "{names}");
            // The bootstrap interval of each, as the leaderboard's CI cell.
            let d = a.data.as_ref().unwrap();
            let sig = d.sig.as_ref().expect("bootstrap ran");
            let ci = sig.cell_index(MetricKey::exec(1)).unwrap();
            let lb = d.lb.as_ref().unwrap();
            for row in lb.rows.iter().take(2) {
                let iv = &sig.intervals[ci][row.system];
                let text = format!("95% CI [{:.3}, {:.3}]", iv.low, iv.high);
                assert!(s.contains(&text), "{text}\n{s}");
            }
        }
        // Too small for block digits: the same cells in normal type.
        let s = screen(&a, 40, 12);
        assert!(read_big(&s).is_empty(), "{s}");
        for (id, e1, e10) in &want {
            assert!(s.contains(id.as_str()), "{s}");
            // (a † after a number not distinguishable from the leader's)
            assert!(s.contains(&format!("exec@1 {e1}")), "{s}");
            assert!(s.contains(&format!("exec@10 {e10}")), "{s}");
        }
        key(&mut a, KeyCode::Esc);
        assert_eq!(a.mode, Mode::Normal);
    }
}

#[test]
fn big_numbers_follow_the_tie_policy_and_close_with_b() {
    let mut a = app_with(TiePolicy::Row);
    keys(&mut a, "B");
    keys(&mut a, "t");
    assert_eq!(a.mode, Mode::Big, "t works in the big view");
    let s = screen(&a, 120, 40);
    assert!(s.contains("ties: expected"), "{s}");
    let want = report_headline(TiePolicy::Expected);
    assert_eq!(read_big(&s)[0], vec![want[0].1.clone(), want[1].1.clone()]);
    // Other keys do nothing there; B closes it.
    keys(&mut a, "j2");
    assert_eq!((a.mode.clone(), a.pane_id()), (Mode::Big, "leaderboard"));
    keys(&mut a, "B");
    assert_eq!(a.mode, Mode::Normal);
}

#[test]
fn snapshot_big_numbers() {
    let mut a = app();
    keys(&mut a, "B");
    insta::assert_snapshot!("big_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("big_120x40", screen(&a, 120, 40));
    insta::assert_snapshot!("big_40x12", screen(&a, 40, 12));
}

// ---- command palette ----

#[test]
fn palette_theme_changes_the_theme() {
    let mut a = app();
    assert_eq!(a.settings.theme.kind, ThemeKind::Dark);
    palette_run(&mut a, "theme");
    assert_eq!(a.mode, Mode::Normal);
    assert_eq!(
        a.settings.theme.kind,
        ThemeKind::Light,
        "the first match is T's cycle"
    );
    palette_run(&mut a, "high-contrast");
    assert_eq!(a.settings.theme.kind, ThemeKind::HighContrast);
}

#[test]
fn palette_goes_to_a_pane_by_name() {
    let mut a = app();
    palette_run(&mut a, "deception");
    assert_eq!(a.pane_id(), "deception");
    palette_run(&mut a, "go to pane 6");
    assert_eq!(a.pane_id(), "pairs");
}

#[test]
fn palette_runs_an_action_as_its_key_does() {
    // `r` on the leaderboard, and "reverse" in the palette: the same screen.
    let mut by_key = app();
    keys(&mut by_key, "r");
    let mut by_palette = app();
    palette_run(&mut by_palette, "reverse");
    assert_eq!(screen(&by_palette, 120, 40), screen(&by_key, 120, 40));
    // Esc closes the palette and does nothing else.
    let before = screen(&by_palette, 120, 40);
    ctrl_p(&mut by_palette);
    keys(&mut by_palette, "quit");
    key(&mut by_palette, KeyCode::Esc);
    assert_eq!(by_palette.mode, Mode::Normal);
    assert!(!by_palette.quit);
    assert_eq!(screen(&by_palette, 120, 40), before);
    // Zoom and big numbers are in it too.
    palette_run(&mut by_palette, "zoom");
    assert!(by_palette.zoom);
    palette_run(&mut by_palette, "big numbers");
    assert_eq!(by_palette.mode, Mode::Big);
}

/// The rows inside the palette's border on screen `s` (its entries, below the typed text).
fn palette_box(s: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = s.lines().map(|l| l.chars().collect()).collect();
    let top = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains(" commands on "))
        .unwrap_or_else(|| panic!("no palette:\n{s}"));
    let left = lines[top].iter().position(|&c| c == '┌').unwrap();
    let right = lines[top].iter().position(|&c| c == '┐').unwrap();
    lines[top + 2..]
        .iter()
        .take_while(|l| l.get(left) == Some(&'│'))
        .map(|l| l[left + 1..right.min(l.len())].iter().collect())
        .collect()
}

#[test]
fn every_registry_command_is_findable_by_its_label() {
    let mut a = app();
    for (i, pane) in PaneId::ALL.into_iter().enumerate() {
        keys(&mut a, &(i + 1).to_string());
        let entries = a.palette_entries();
        for c in commands::active(pane, false) {
            assert!(!c.label.is_empty());
            let items = a.palette_items(c.label);
            assert!(
                items.iter().any(|&e| std::ptr::eq(entries[e].command, c)),
                "{pane:?}: {:?} not found by {:?}",
                c.action,
                c.label
            );
            // The entry is on screen with its keys when its label is typed.
            if matches!(c.action, execscope::tui::actions::Action::Tab(_)) {
                continue;
            }
            ctrl_p(&mut a);
            keys(&mut a, c.label);
            let s = screen(&a, 200, 60);
            let boxed = palette_box(&s);
            let line = boxed
                .iter()
                .find(|l| l.contains(c.label) && l.contains(c.keys_label))
                .unwrap_or_else(|| panic!("{pane:?} {:?}\n{s}", c.label));
            let head: String = c.help.chars().take(12).collect();
            assert!(line.contains(&head), "{line}");
            key(&mut a, KeyCode::Esc);
        }
        // One "go to pane" entry per pane, and one entry per theme.
        for (n, p) in PaneId::ALL.iter().enumerate() {
            let label = format!("go to pane {} {}", n + 1, p.title());
            assert!(entries.iter().any(|e| e.label == label), "{label}");
        }
        for t in ThemeKind::ALL {
            let label = format!("theme: {}", t.as_str());
            assert!(entries.iter().any(|e| e.label == label), "{label}");
        }
    }
}

#[test]
fn snapshot_palette() {
    let mut a = app();
    ctrl_p(&mut a);
    insta::assert_snapshot!("palette_80x24", screen(&a, 80, 24));
    insta::assert_snapshot!("palette_120x40", screen(&a, 120, 40));
    keys(&mut a, "theme");
    key(&mut a, KeyCode::Down);
    insta::assert_snapshot!("palette_theme_120x40", screen(&a, 120, 40));
}

#[test]
fn presenter_views_survive_tiny_terminals() {
    let mut a = app();
    let sizes = [(1, 1), (20, 10), (24, 6), (250, 80)];
    keys(&mut a, "z");
    for i in 1..=7 {
        keys(&mut a, &i.to_string());
        for (w, h) in sizes {
            let _ = screen(&a, w, h);
        }
    }
    keys(&mut a, "z1B");
    for (w, h) in sizes {
        let _ = screen(&a, w, h);
    }
    keys(&mut a, "B");
    ctrl_p(&mut a);
    for (w, h) in sizes {
        let _ = screen(&a, w, h);
    }
}
