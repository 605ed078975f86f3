//! A text forest plot: one row per system, its interval drawn as `├──●──┤` on a shared axis, so
//! the leaderboard's free space shows at a glance which systems overlap.

use super::text::{fit_pad, letter};
use crate::tui::theme::Theme;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// One row of the plot.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestRow {
    pub label: String,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// Marked (not distinguishable from the leader): drawn with `†`.
    pub mark: bool,
    pub selected: bool,
}

/// Lines of a forest plot `width` characters wide. Labels longer than the label column are
/// replaced by letters with a legend line below (never cut).
pub fn lines(
    rows: &[ForestRow],
    width: usize,
    th: &Theme,
    style_of: impl Fn(&ForestRow) -> Style,
) -> Vec<Line<'static>> {
    if rows.is_empty() || width < 20 {
        return Vec::new();
    }
    let longest = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(1);
    let max_label = (width / 4).clamp(6, 28);
    let abbreviate = longest > max_label;
    let label_w = if abbreviate { 3 } else { longest };
    let value_w = 8; // " 0.512†"
    let plot_w = width.saturating_sub(label_w + value_w + 3).max(10);
    let finite = |x: f64| x.is_finite();
    let lo = rows
        .iter()
        .map(|r| r.low)
        .filter(|x| finite(*x))
        .fold(f64::INFINITY, f64::min);
    let hi = rows
        .iter()
        .map(|r| r.high)
        .filter(|x| finite(*x))
        .fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
        let pad = (hi - lo) * 0.05;
        ((lo - pad).max(0.0), (hi + pad).min(1.0))
    } else {
        (0.0, 1.0)
    };
    let pos = |x: f64| -> usize {
        let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
        (t * (plot_w - 1) as f64).round() as usize
    };
    let mut out = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let mut cells = vec![' '; plot_w];
        if r.low.is_finite() && r.high.is_finite() {
            let (a, b) = (pos(r.low), pos(r.high));
            for c in cells.iter_mut().take(b + 1).skip(a) {
                *c = '─';
            }
            cells[a] = '├';
            cells[b] = '┤';
        }
        if r.mean.is_finite() {
            cells[pos(r.mean)] = '●';
        }
        let label = if abbreviate {
            letter(i)
        } else {
            r.label.clone()
        };
        let st = style_of(r);
        let st = if r.selected {
            st.patch(th.selected)
        } else {
            st
        };
        out.push(Line::from(vec![
            Span::styled(format!("{} ", fit_pad(&label, label_w)), st),
            Span::styled(cells.into_iter().collect::<String>(), st),
            Span::raw(format!(" {:.3}{}", r.mean, if r.mark { "†" } else { " " })),
        ]));
    }
    // Axis: the two ends and the middle.
    let mut axis = vec![' '; plot_w];
    let ticks = [lo, (lo + hi) / 2.0, hi];
    let mut axis_line = " ".repeat(label_w + 1);
    for t in ticks {
        let p = pos(t);
        let s = format!("{t:.2}");
        let start = p
            .saturating_sub(s.len() / 2)
            .min(plot_w.saturating_sub(s.len()));
        for (j, ch) in s.chars().enumerate() {
            if start + j < plot_w {
                axis[start + j] = ch;
            }
        }
    }
    axis_line.extend(axis);
    out.push(Line::styled(axis_line, th.dim));
    if abbreviate {
        let mut legend = String::new();
        for (i, r) in rows.iter().enumerate() {
            let item = format!("{}={} ", letter(i), r.label);
            if legend.chars().count() + item.chars().count() > width {
                out.push(Line::styled(std::mem::take(&mut legend), th.dim));
            }
            legend.push_str(&item);
        }
        if !legend.is_empty() {
            out.push(Line::styled(legend, th.dim));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_intervals_on_a_shared_axis() {
        let th = Theme::new(crate::tui::theme::ThemeKind::Dark, false);
        let rows = vec![
            ForestRow {
                label: "a".into(),
                mean: 0.5,
                low: 0.4,
                high: 0.6,
                mark: false,
                selected: false,
            },
            ForestRow {
                label: "b".into(),
                mean: 0.2,
                low: 0.1,
                high: 0.3,
                mark: true,
                selected: false,
            },
        ];
        let l = lines(&rows, 40, &th, |_| Style::default());
        let text: Vec<String> = l
            .iter()
            .map(|x| x.spans.iter().map(|s| s.content.to_string()).collect())
            .collect();
        assert_eq!(text.len(), 3);
        assert!(text[0].contains('●') && text[0].contains('├') && text[0].contains('┤'));
        assert!(text[1].ends_with("0.200†"));
        // b's interval lies left of a's.
        let at = |t: &str, c: char| t.chars().position(|x| x == c).unwrap();
        assert!(at(&text[1], '┤') < at(&text[0], '├'));
        assert!(text.iter().all(|t| t.chars().count() <= 40), "{text:?}");
    }
}
