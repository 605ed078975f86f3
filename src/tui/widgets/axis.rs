//! Chart axes whose tick labels sit in the columns (and rows) where their values are drawn.
//!
//! ratatui's `Chart` spreads its labels evenly along the axis whatever their values, so on the
//! Density pane the label `1` stood where the data said 0.37. Here a tick is placed by the same
//! mapping the braille canvas uses for the data ([`braille_col`], [`braille_row`]), so reading a
//! line at a tick reads the value the table beside it prints.

use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::canvas::{Canvas, Line as Segment, Points};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// The cell column (from the plot's left edge) where a braille canvas `width` cells wide over
/// `[lo, hi]` draws `x`: ratatui's `Painter::get_point` rounds to one of `2·width` dots.
pub fn braille_col(x: f64, lo: f64, hi: f64, width: u16) -> u16 {
    if width == 0 || hi <= lo {
        return 0;
    }
    let dots = f64::from(width) * 2.0;
    let dot = ((x.clamp(lo, hi) - lo) * (dots - 1.0) / (hi - lo)).round();
    (dot as u16 / 2).min(width - 1)
}

/// The cell row (from the plot's top edge) where a braille canvas `height` cells tall over
/// `[lo, hi]` draws `y` (4 dots per cell, top = `hi`).
pub fn braille_row(y: f64, lo: f64, hi: f64, height: u16) -> u16 {
    if height == 0 || hi <= lo {
        return 0;
    }
    let dots = f64::from(height) * 4.0;
    let dot = ((hi - y.clamp(lo, hi)) * (dots - 1.0) / (hi - lo)).round();
    (dot as u16 / 4).min(height - 1)
}

/// One text row of `width` cells with each label centred on its column; a label that would not
/// fit the row centred, or would touch the previous one, is left out, so no two run together.
pub fn label_row(width: u16, ticks: &[(u16, String)]) -> String {
    place_labels(width, ticks).0
}

/// [`label_row`] and, for each tick, whether its label was placed (an axis draws a tick mark
/// only where a label names it).
pub fn place_labels(width: u16, ticks: &[(u16, String)]) -> (String, Vec<bool>) {
    let w = width as usize;
    let mut row = vec![' '; w];
    let mut placed = Vec::with_capacity(ticks.len());
    let mut free_from = 0usize;
    for (col, label) in ticks {
        let n = label.chars().count();
        // Centred on its column or not at all (a label pushed aside would name another place).
        let half = n.saturating_sub(1) / 2;
        let start = (*col as usize).wrapping_sub(half);
        if (*col as usize) < half || start + n > w || start < free_from {
            placed.push(false);
            continue;
        }
        for (i, ch) in label.chars().enumerate() {
            row[start + i] = ch;
        }
        free_from = start + n + 1;
        placed.push(true);
    }
    (row.into_iter().collect(), placed)
}

/// Decimals enough to tell ticks `step` apart (0 for whole steps, 1 for 0.5, 2 for 0.25 …).
pub fn tick_decimals(step: f64) -> usize {
    (0..6)
        .find(|&d| {
            let s = step * 10f64.powi(d as i32);
            (s - s.round()).abs() < 1e-9
        })
        .unwrap_or(6)
}

/// One line of a [`LineChart`]: its points, style and the marker drawn at its last point.
pub struct Series<'a> {
    pub points: &'a [(f64, f64)],
    pub style: Style,
    pub marker: &'a str,
}

/// A line chart on a braille canvas with a y axis at the left and an x axis below, each tick
/// labelled where its value is drawn.
pub struct LineChart<'a> {
    pub series: Vec<Series<'a>>,
    pub x: [f64; 2],
    pub y: [f64; 2],
    pub x_ticks: Vec<f64>,
    pub y_ticks: Vec<f64>,
    /// Style of the axes and their labels.
    pub axis: Style,
}

/// Where a [`LineChart`] put its parts (tests read the screen through it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartLayout {
    /// The braille canvas.
    pub plot: Rect,
    /// The x axis row (`└──┬──`) below the plot.
    pub x_axis_row: u16,
}

impl LineChart<'_> {
    /// The area the canvas gets inside `area`: left of it the y labels and the `│` axis, below
    /// it the x axis and its labels.
    pub fn layout(&self, area: Rect) -> Option<ChartLayout> {
        let ylab = self.y_labels().iter().map(|s| s.chars().count()).max()? as u16;
        let left = ylab + 1;
        if area.width <= left + 4 || area.height < 4 {
            return None;
        }
        let plot = Rect::new(
            area.x + left,
            area.y,
            area.width - left,
            area.height.saturating_sub(2),
        );
        Some(ChartLayout {
            plot,
            x_axis_row: plot.bottom(),
        })
    }

    fn y_labels(&self) -> Vec<String> {
        let d = tick_decimals(step_of(&self.y_ticks));
        self.y_ticks.iter().map(|v| format!("{v:.d$}")).collect()
    }

    pub fn render(&self, f: &mut Frame, area: Rect, th: &Theme) {
        let Some(l) = self.layout(area) else {
            return;
        };
        let plot = l.plot;
        let [x0, x1] = self.x;
        let [y0, y1] = self.y;
        // The y axis: `│` with `┤` at each tick, its label right-aligned beside.
        let ylabels = self.y_labels();
        let lw = (plot.x - area.x - 1) as usize;
        let mut rows: Vec<String> = vec![format!("{}│", " ".repeat(lw)); plot.height as usize];
        for (v, label) in self.y_ticks.iter().zip(&ylabels) {
            let r = braille_row(*v, y0, y1, plot.height) as usize;
            rows[r] = format!("{label:>lw$}┤");
        }
        let ylines: Vec<Line> = rows
            .into_iter()
            .map(|r| Line::styled(r, self.axis))
            .collect();
        f.render_widget(
            Paragraph::new(ylines),
            Rect::new(area.x, area.y, plot.x - area.x, plot.height),
        );
        // The x axis: `└` then `─` with `┬` at each tick, the labels centred under them.
        let d = tick_decimals(step_of(&self.x_ticks));
        let ticks: Vec<(u16, String)> = self
            .x_ticks
            .iter()
            .map(|v| (braille_col(*v, x0, x1, plot.width), format!("{v:.d$}")))
            .collect();
        let mut axis: Vec<char> = vec!['─'; plot.width as usize];
        for (c, _) in &ticks {
            axis[*c as usize] = '┬';
        }
        let axis_line: String = std::iter::once('└').chain(axis).collect();
        let pad = " ".repeat(lw);
        f.render_widget(
            Paragraph::new(vec![
                Line::styled(format!("{pad}{axis_line}"), self.axis),
                Line::styled(
                    format!("{pad} {}", label_row(plot.width, &ticks)),
                    self.axis,
                ),
            ]),
            Rect::new(
                area.x,
                l.x_axis_row,
                area.width,
                2.min(area.bottom() - l.x_axis_row),
            ),
        );
        // The data, on the canvas whose mapping the ticks used.
        let canvas = Canvas::default()
            .marker(Marker::Braille)
            .x_bounds(self.x)
            .y_bounds(self.y)
            .background_color(th.base.bg.unwrap_or_default())
            .paint(|ctx| {
                for s in &self.series {
                    let color = s.style.fg.unwrap_or_default();
                    for w in s.points.windows(2) {
                        ctx.draw(&Segment::new(w[0].0, w[0].1, w[1].0, w[1].1, color));
                    }
                    if s.points.len() == 1 {
                        ctx.draw(&Points {
                            coords: s.points,
                            color,
                        });
                    }
                }
            });
        f.render_widget(canvas, plot);
        // Each line's marker on its last point, so the table's markers name the lines.
        for s in &self.series {
            if let Some(&(x, y)) = s.points.last() {
                let c = braille_col(x, x0, x1, plot.width);
                let r = braille_row(y, y0, y1, plot.height);
                f.render_widget(
                    Paragraph::new(Span::styled(s.marker.to_string(), s.style)),
                    Rect::new(plot.x + c, plot.y + r, 1, 1),
                );
            }
        }
    }
}

/// The step between consecutive ticks (1 when there is one tick or none).
fn step_of(ticks: &[f64]) -> f64 {
    let s = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|s| *s > 0.0)
        .fold(f64::INFINITY, f64::min);
    if s.is_finite() {
        s
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_map_like_the_canvas() {
        // 20 cells over [0, 4]: 40 dots, dot = round(x · 39 / 4).
        assert_eq!(braille_col(0.0, 0.0, 4.0, 20), 0);
        assert_eq!(braille_col(1.0, 0.0, 4.0, 20), 5); // dot 10 (9.75)
        assert_eq!(braille_col(2.0, 0.0, 4.0, 20), 10); // dot 20 (19.5 rounds up)
        assert_eq!(braille_col(4.0, 0.0, 4.0, 20), 19);
        // 10 rows over [0, 1]: 40 dots from the top.
        assert_eq!(braille_row(1.0, 0.0, 1.0, 10), 0);
        assert_eq!(braille_row(0.5, 0.0, 1.0, 10), 5); // dot 20 (19.5)
        assert_eq!(braille_row(0.0, 0.0, 1.0, 10), 9);
    }

    #[test]
    fn labels_centre_on_their_columns_and_never_touch() {
        let row = label_row(12, &[(0, "0".into()), (5, "0.5".into()), (11, "1".into())]);
        assert_eq!(row, "0   0.5    1");
        // Not centred at the edges: left out rather than pushed aside.
        let (row, placed) =
            place_labels(8, &[(0, "-0.5".into()), (4, "0".into()), (7, "0.5".into())]);
        assert_eq!(row, "    0   ");
        assert_eq!(placed, vec![false, true, false]);
        // Too close to the previous one: left out.
        let row = label_row(7, &[(0, "10".into()), (2, "20".into()), (5, "30".into())]);
        assert_eq!(row, "10   30");
        assert_eq!(tick_decimals(1.0), 0);
        assert_eq!(tick_decimals(0.5), 1);
        assert_eq!(tick_decimals(0.25), 2);
    }
}
