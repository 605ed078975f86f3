//! A vertical histogram (ratatui BarChart) whose bar width adapts to the space available.

use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block};
use ratatui::Frame;

/// Bars with optional labels (shown only when the bars are wide enough to hold them).
pub fn render(f: &mut Frame, area: Rect, bars: &[(String, u64)], th: &Theme, block: Block) {
    let inner = block.inner(area);
    let n = bars.len().max(1) as u16;
    let gap = u16::from(inner.width >= n * 3);
    let width = ((inner.width.saturating_sub(gap * n)) / n).max(1);
    let labels = bars
        .iter()
        .all(|(l, _)| l.chars().count() <= width as usize);
    let bs: Vec<Bar> = bars
        .iter()
        .map(|(l, v)| {
            let b = Bar::new(*v).style(th.bar).value_style(th.tab_active);
            if labels {
                b.label(Line::from(l.clone()))
            } else {
                b
            }
        })
        .collect();
    let chart = BarChart::default()
        .block(block)
        .data(BarGroup::new(bs))
        .bar_width(width)
        .bar_gap(gap);
    f.render_widget(chart, area);
}

/// Where [`numeric`] drew its parts (tests read the screen through it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumericLayout {
    /// Row of the axis (`──┬──┼──`) under the bars.
    pub axis_row: u16,
    /// Screen column of each bin edge that got a tick, with the edge's value index.
    pub ticks: Vec<(u16, usize)>,
    /// Screen column of the zero line, when 0 is an edge.
    pub zero: Option<u16>,
}

/// A histogram over numeric bins `(lower, upper, count)` of equal width: bars with their counts
/// above them, an axis whose ticks sit on the bin edges they name (every k-th edge, k = 1, 2, 5,
/// 10 … so labels never touch, always including 0), and a zero line `│` (`┼` on the axis) when 0
/// is an edge. Bins that do not fit are left out and the axis ends in `…`.
pub fn numeric(
    f: &mut Frame,
    area: Rect,
    bins: &[(f64, f64, usize)],
    th: &Theme,
    block: Block,
) -> Option<NumericLayout> {
    let inner = block.inner(area);
    f.render_widget(block, area);
    let n = bins.len();
    if n == 0 || inner.height < 4 || inner.width < 3 {
        return None;
    }
    let w = inner.width as usize;
    // One column of gap between bars when there is room (the zero line lives in a gap).
    let gap = usize::from(w >= 2 * n - 1);
    let bw = ((w + gap) / n).saturating_sub(gap).max(1);
    let shown = n.min((w + gap) / (bw + gap));
    let start = |i: usize| i * (bw + gap);
    // Edge i's column: the gap before bin i (its first column without gaps); edge `shown` is the
    // column after the last bar.
    let edge_col = |i: usize| {
        if i == 0 {
            0
        } else {
            (start(i) - gap).min(w - 1)
        }
    };
    let width = bins[0].1 - bins[0].0;
    let edge_value = |i: usize| if i < n { bins[i].0 } else { bins[n - 1].1 };
    let zero_edge = (0..=shown).find(|&i| edge_value(i).abs() < width * 1e-6);
    // Label every k-th edge, counted from 0 when 0 is an edge, so 0 is always labelled.
    let decimals_for = |k: usize| super::axis::tick_decimals(round_to(width * k as f64));
    let label = |i: usize, d: usize| {
        let v = edge_value(i);
        let v = if v.abs() < width * 1e-6 { 0.0 } else { v };
        format!("{v:.d$}")
    };
    let anchor = zero_edge.unwrap_or(0);
    let mut k = 1usize;
    for &cand in &[1usize, 2, 5, 10, 20, 50, 100, 200, 500] {
        k = cand;
        let d = decimals_for(cand);
        let widest = (0..=shown)
            .map(|i| label(i, d).chars().count())
            .max()
            .unwrap_or(1);
        // Centred labels `cand` edges apart keep a space between them.
        if widest + 1 < cand * (bw + gap) {
            break;
        }
    }
    let d = decimals_for(k);
    let ticked: Vec<usize> = (0..=shown)
        .filter(|&i| (i as i64 - anchor as i64).rem_euclid(k as i64) == 0)
        .collect();
    let bars_h = (inner.height - 2) as usize;
    let cols = Columns { w, bw, gap, shown };
    let mut grid = bar_grid(bins, &cols, bars_h, th);
    let zero_col = zero_edge.map(edge_col);
    if let Some(zc) = zero_col {
        for row in grid.iter_mut() {
            if row[zc].0 == ' ' {
                row[zc] = ('│', th.accent);
            }
        }
    }
    let ticks: Vec<(u16, String)> = ticked
        .iter()
        .map(|&i| (edge_col(i) as u16, label(i, d)))
        .collect();
    // A tick mark only where a label names it (one at the very edge may not fit).
    let (label_text, placed) = super::axis::place_labels(inner.width, &ticks);
    let ticked: Vec<usize> = ticked
        .into_iter()
        .zip(placed)
        .filter_map(|(i, p)| p.then_some(i))
        .collect();
    let mut axis: Vec<(char, Style)> = vec![('─', th.dim); w];
    for &i in &ticked {
        axis[edge_col(i)] = ('┬', th.dim);
    }
    if let Some(zc) = zero_col {
        axis[zc] = ('┼', th.accent);
    }
    if shown < n {
        axis[w - 1] = ('…', th.warn);
    }
    let to_line = |cells: Vec<(char, Style)>| {
        Line::from(
            cells
                .into_iter()
                .map(|(c, s)| Span::styled(c.to_string(), s))
                .collect::<Vec<_>>(),
        )
    };
    let mut lines: Vec<Line> = grid.into_iter().map(to_line).collect();
    lines.push(to_line(axis));
    lines.push(Line::styled(label_text, th.dim));
    f.render_widget(ratatui::widgets::Paragraph::new(lines), inner);
    Some(NumericLayout {
        axis_row: inner.y + bars_h as u16,
        ticks: ticked
            .iter()
            .map(|&i| (inner.x + edge_col(i) as u16, i))
            .collect(),
        zero: zero_col.map(|c| inner.x + c as u16),
    })
}

/// Where a numeric histogram's bars go: `w` columns, bars `bw` wide `gap` apart, the first
/// `shown` bins.
struct Columns {
    w: usize,
    bw: usize,
    gap: usize,
    shown: usize,
}

/// The bars of the first `cols.shown` bins in `bars_h` rows, in eighths of a row, each with its
/// count above it where the count fits (the top row is kept for the tallest bar's count).
fn bar_grid(
    bins: &[(f64, f64, usize)],
    cols: &Columns,
    bars_h: usize,
    th: &Theme,
) -> Vec<Vec<(char, Style)>> {
    const EIGHTHS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let Columns { w, bw, gap, shown } = *cols;
    let start = |i: usize| i * (bw + gap);
    let max = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1);
    let room = bars_h.saturating_sub(1).max(1) * 8;
    let mut grid: Vec<Vec<(char, Style)>> = vec![vec![(' ', th.base); w]; bars_h];
    for (i, b) in bins.iter().take(shown).enumerate() {
        let h = if b.2 == 0 {
            0
        } else {
            ((b.2 * room) as f64 / max as f64).round().max(1.0) as usize
        };
        let (full, part) = (h / 8, h % 8);
        let cols = start(i)..(start(i) + bw).min(w);
        for r in 0..full {
            grid[bars_h - 1 - r][cols.clone()].fill(('█', th.bar));
        }
        if part > 0 {
            grid[bars_h - 1 - full][cols].fill((EIGHTHS[part], th.bar));
        }
        // The count above the bar, when it fits over it. Bars never fill the top row
        // (`room`), so the row above the bar exists.
        let txt = b.2.to_string();
        let bar_rows = full + usize::from(part > 0);
        let top = (bars_h - 1).saturating_sub(bar_rows);
        if txt.chars().count() <= bw + gap && b.2 > 0 {
            let c0 = start(i) + bw.saturating_sub(txt.chars().count()) / 2;
            for (j, ch) in txt.chars().enumerate() {
                if c0 + j < w && grid[top][c0 + j].0 == ' ' {
                    grid[top][c0 + j] = (ch, th.tab_active);
                }
            }
        }
    }
    grid
}

/// `x` rounded to 12 significant decimals (0.1 × 3 → 0.3, so decimals are counted right).
fn round_to(x: f64) -> f64 {
    (x * 1e12).round() / 1e12
}
