//! Issue 30 items 4 and 7 on the embedded bundle: every chart's ticks sit in the columns where
//! their values are drawn (each chart at three sizes), the gap histogram has a zero line and
//! round bins with 0 an edge, every glyph a pane draws has a legend reachable from it, and rows
//! or labels that do not fit say so.

use crate::common::tui::{key, keys, screen};
use crossterm::event::KeyCode;
use execscope::cli::{open_engine, EvalArgs};
use execscope::tui::{App, Theme, ThemeKind};

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

fn embedded_app() -> App {
    let engine = open_engine(None, &EvalArgs::default()).expect("embedded bundle");
    let mut a = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    a.run_jobs_inline();
    a
}

/// The anatomy view the panes draw from.
fn anatomy(a: &App) -> &execscope::view::AnatomyView {
    a.data.as_ref().unwrap().anatomy.as_ref().unwrap()
}

fn chars(l: &str) -> Vec<char> {
    l.chars().collect()
}

/// The labels of a tick-label row: (centre column, text) for each whitespace-separated token
/// between columns `from` and `to`.
fn tokens(row: &[char], from: usize, to: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to.min(row.len()) {
        if row[i] == ' ' || row[i] == '│' {
            i += 1;
            continue;
        }
        let start = i;
        while i < to.min(row.len()) && row[i] != ' ' && row[i] != '│' {
            i += 1;
        }
        let t: String = row[start..i].iter().collect();
        out.push((start + (i - start - 1) / 2, t));
    }
    out
}

fn is_braille(c: char) -> bool {
    ('\u{2801}'..='\u{28ff}').contains(&c)
}

/// Density: the x labels `0 1 2 …` centre on the axis's `┬`, and with one system's line shown,
/// the braille cell at each tick's column lies in the row where that system's table value is
/// drawn (the same mapping as the canvas); the y labels sit on `┤` rows.
#[test]
fn density_ticks_are_where_the_values_are() {
    let mut a = embedded_app();
    keys(&mut a, "4");
    let rows = anatomy(&a).density.clone();
    assert!(rows.len() >= 2);
    // Only the first system's line.
    for _ in 1..rows.len() {
        key(&mut a, KeyCode::Down);
        key(&mut a, KeyCode::Char(' '));
    }
    let want = &rows[0].density;
    for (w, h) in SIZES {
        let s = screen(&a, w, h);
        let lines: Vec<Vec<char>> = s.lines().map(chars).collect();
        let ax = lines
            .iter()
            .position(|l| l.contains(&'└') && l.contains(&'┬'))
            .unwrap_or_else(|| panic!("{w}x{h}: no x axis\n{s}"));
        let axis = &lines[ax];
        let x0 = axis.iter().position(|&c| c == '└').unwrap();
        let x_end = (x0..axis.len())
            .find(|&i| !matches!(axis[i], '└' | '─' | '┬'))
            .unwrap_or(axis.len());
        let ticks: Vec<usize> = (x0..x_end).filter(|&i| axis[i] == '┬').collect();
        let labels = tokens(&lines[ax + 1], x0, x_end);
        assert_eq!(
            labels.len(),
            ticks.len(),
            "{w}x{h}: {labels:?} vs {ticks:?}\n{s}"
        );
        for (i, ((c, t), tick)) in labels.iter().zip(&ticks).enumerate() {
            assert_eq!(t, &i.to_string(), "{w}x{h}");
            assert_eq!(c, tick, "{w}x{h}: label {t} off its tick\n{s}");
        }
        // The plot: rows from below the block's top border to the axis row, columns after `└`.
        // The chart's block starts in column 0.
        let top = (0..ax)
            .rev()
            .find(|&r| lines[r].first() == Some(&'┌'))
            .expect("chart block")
            + 1;
        let plot_h = (ax - top) as u16;
        let plot_w = (x_end - x0 - 1) as u16;
        for (d, &y) in want.iter().enumerate().take(want.len() - 1) {
            // Cell column of tick d on the canvas = the tick's column.
            let col = ticks[d];
            let r = execscope::tui::widgets::axis::braille_row(y, 0.0, 1.0, plot_h) as usize;
            let c = lines[top + r][col];
            assert!(
                is_braille(c),
                "{w}x{h}: at {d} distractors the line should be in row {r} (exec@1 {y:.3}), found {c:?}\n{s}"
            );
            assert_eq!(
                execscope::tui::widgets::axis::braille_col(
                    d as f64,
                    0.0,
                    (want.len() - 1) as f64,
                    plot_w
                ) as usize,
                col - x0 - 1,
                "{w}x{h}"
            );
        }
        // y labels on `┤` rows.
        for l in &lines[top..ax] {
            if let Some(p) = l.iter().position(|&c| c == '┤') {
                let label: String = l[..p].iter().filter(|&&c| c != '│').collect::<String>();
                let label = label.trim().rsplit(' ').next().unwrap().to_string();
                assert!(label.parse::<f64>().is_ok(), "{w}x{h}: {label:?}");
            }
        }
    }
}

/// The gap histogram: labels centre on their ticks, 0 is labelled on the zero line `┼` (with `│`
/// above it), the labels step evenly, every one a multiple of the step (no bin straddles 0).
#[test]
fn gap_histogram_has_a_zero_line_and_ticks_on_edges() {
    let mut a = embedded_app();
    keys(&mut a, "3");
    let g = {
        let d = a.data.as_ref().unwrap();
        let an = &d.anatomy.as_ref().unwrap().anatomy;
        an.systems[a.settings.system].gap_summary.clone()
    };
    assert!(g.histogram.iter().any(|b| b.0 == 0.0), "0 is a bin edge");
    assert!(!g.histogram.iter().any(|b| b.0 < 0.0 && b.1 > 0.0));
    for (w, h) in SIZES {
        let s = screen(&a, w, h);
        let lines: Vec<Vec<char>> = s.lines().map(chars).collect();
        let ax = lines
            .iter()
            .position(|l| l.contains(&'┼'))
            .unwrap_or_else(|| panic!("{w}x{h}: no zero line\n{s}"));
        let axis = &lines[ax];
        let zero = axis.iter().position(|&c| c == '┼').unwrap();
        assert_eq!(
            lines[ax - 1][zero],
            '│',
            "{w}x{h}: the zero line above the axis\n{s}"
        );
        let ticks: Vec<usize> = (0..axis.len())
            .filter(|&i| matches!(axis[i], '┬' | '┼'))
            .collect();
        let labels = tokens(&lines[ax + 1], 1, axis.len() - 1);
        assert!(labels.len() >= 3, "{w}x{h}: {labels:?}\n{s}");
        assert_eq!(
            labels.len(),
            ticks.len(),
            "{w}x{h}: {labels:?} vs {ticks:?}\n{s}"
        );
        let mut vals = Vec::new();
        for ((c, t), tick) in labels.iter().zip(&ticks) {
            assert_eq!(c, tick, "{w}x{h}: label {t} off its tick\n{s}");
            let v: f64 = t.parse().unwrap_or_else(|_| panic!("{t:?}"));
            assert!(!t.starts_with("-0") || v != 0.0, "{w}x{h}: {t}");
            if *tick == zero {
                assert_eq!(v, 0.0, "{w}x{h}: the zero line is labelled {t}");
            }
            vals.push(v);
        }
        let step = vals[1] - vals[0];
        assert!(step > 0.0);
        for p in vals.windows(2) {
            assert!(
                ((p[1] - p[0]) - step).abs() < 1e-9,
                "{w}x{h}: uneven {vals:?}"
            );
        }
        for v in &vals {
            assert!(
                ((v / step).round() * step - v).abs() < 1e-9,
                "{w}x{h}: {v} off the grid"
            );
        }
    }
}

/// Every pane with glyphs has a legend, shown first in its help; the browser's ranking names its
/// glyphs on its bottom border and marks the rows inside the cutoff with `›` (not colour alone);
/// another query's snippet reads `other:`; bug-type labels are cut in the middle; rows out of
/// view are counted.
#[test]
fn glyphs_have_legends_and_cuts_are_marked() {
    let mut a = embedded_app();
    for (i, title) in [
        "Leaderboard",
        "Queries",
        "Deception",
        "Density",
        "Domains",
        "Pairs",
        "Audit",
    ]
    .iter()
    .enumerate()
    {
        keys(&mut a, &(i + 1).to_string());
        let legend = a.panes[a.tab].legend();
        assert!(!legend.is_empty(), "{title}: no legend");
        keys(&mut a, "?");
        let s = screen(&a, 220, 60);
        assert!(s.contains(&format!("Glyphs on {title}")), "{title}\n{s}");
        for (g, _) in legend {
            assert!(s.contains(g), "{title}: {g} not in the help\n{s}");
        }
        key(&mut a, KeyCode::Esc);
    }
    keys(&mut a, "2");
    for (w, h) in SIZES {
        let s = screen(&a, w, h);
        assert!(s.contains("› in the top k"), "{w}x{h}\n{s}");
        assert!(
            s.contains("? all") || s.contains("… cut to fit"),
            "{w}x{h}\n{s}"
        );
        // k = 1 on the embedded bundle: exactly the first row is marked.
        let marked = s.lines().filter(|l| l.contains("1› ")).count();
        assert_eq!(marked, 1, "{w}x{h}\n{s}");
    }
    // Deception at 80×24: labels never end in a bare `…` (cut in the middle instead), and the
    // bug types that do not fit are counted on the border.
    keys(&mut a, "3");
    let s = screen(&a, 80, 24);
    let nbt = anatomy(&a).bugtypes.len();
    let shown = s
        .lines()
        .filter(|l| l.starts_with('│') && l.contains('%') && l.contains('('))
        .count();
    if shown < nbt {
        assert!(
            s.contains("below (↑/↓)"),
            "{shown} of {nbt} bug types, no indicator\n{s}"
        );
    }
    for l in s.lines().filter(|l| l.contains('%') && l.contains('(')) {
        let label = l
            .trim_start_matches('│')
            .split_whitespace()
            .next()
            .unwrap_or("");
        assert!(!label.ends_with('…'), "{label:?}\n{s}");
    }
}
