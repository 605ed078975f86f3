//! Pane 3: deception — how often a paired distractor scores at least as high as its canonical,
//! by bug type (dense systems pooled, and the current system), by edit size, and the
//! canonical-vs-best-distractor gap histogram of the current system. Every number is a cell of
//! the report's `bugtypes`, `editsize` and `gaps` tables.

use super::{message, step, Cx, Pane};
use crate::tui::actions::Action;
use crate::tui::frame::block;
use crate::tui::view::View;
use crate::tui::widgets::bar::bar;
use crate::tui::widgets::histogram;
use crate::tui::widgets::table::TableView;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell;

#[derive(Default)]
pub struct DeceptionPane {
    /// Scroll position of the bug-type list.
    pub scroll: usize,
    page: Cell<usize>,
}

impl Pane for DeceptionPane {
    fn id(&self) -> &'static str {
        "deception"
    }

    fn title(&self) -> &'static str {
        "Deception"
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let n = cx
            .data
            .and_then(|d| d.anatomy.as_ref())
            .map_or(0, |(_, t)| t.bugtypes.rows.len());
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::ScrollUp
            | Action::ScrollDown => {
                self.scroll = step(self.scroll, n, action, self.page.get());
                true
            }
            _ => false,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some((a, t)) = v.data.and_then(|d| d.anatomy.as_ref()) else {
            message(f, area, &v.pending("failure anatomy"), th.accent);
            return;
        };
        let sys = v.shared.system;
        let sys_id = v.system_id(sys).to_string();
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(58), Constraint::Min(6)]).areas(area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Min(20)]).areas(top);
        // Bars by bug type: pooled dense, then the current system.
        let title = Line::from(vec![
            Span::styled(" Deception by bug type ", th.title),
            Span::styled("■ dense pooled ", th.bar),
            Span::styled(format!("■ {sys_id} "), th.bar_alt),
        ]);
        let blk = block(title, true, th);
        let inner = blk.inner(left);
        f.render_widget(blk, left);
        let bt = &t.bugtypes;
        let sys_col = bt.keys.iter().position(|k| *k == sys_id);
        let label_w = 24usize.min(inner.width as usize / 3);
        let text_w = 16usize;
        let bar_w = (inner.width as usize)
            .saturating_sub(label_w + text_w + 10)
            .max(4);
        let mut lines = Vec::new();
        let per = 2usize;
        let visible = (inner.height as usize / per).max(1);
        self.page.set(visible);
        let start = self.scroll.min(bt.rows.len().saturating_sub(visible));
        for row in bt.rows.iter().skip(start).take(visible) {
            let name: String = row[0].text.chars().take(label_w).collect();
            let pooled = &row[1];
            lines.push(Line::from(vec![
                Span::styled(format!("{name:<label_w$} "), th.accent),
                Span::styled(bar(pooled.value.unwrap_or(f64::NAN) / 100.0, bar_w), th.bar),
                Span::raw(format!(" {}", pooled.text)),
                Span::styled(format!("  tie {}", row[2].text), th.dim),
            ]));
            if let Some(c) = sys_col {
                let cell = &row[c];
                lines.push(Line::from(vec![
                    Span::raw(" ".repeat(label_w + 1)),
                    Span::styled(
                        bar(cell.value.unwrap_or(f64::NAN) / 100.0, bar_w),
                        th.bar_alt,
                    ),
                    Span::raw(format!(" {}", cell.text)),
                ]));
            }
        }
        f.render_widget(Paragraph::new(lines), inner);
        // Edit-size buckets.
        let blk = block(
            Line::styled(" Deception by edit size ", th.title),
            false,
            th,
        );
        let inner = blk.inner(right);
        f.render_widget(blk, right);
        let order: Vec<usize> = (0..t.editsize.rows.len()).collect();
        TableView {
            table: &t.editsize,
            order: &order,
            selected: None,
            focused: false,
            sort: None,
            frozen: 1,
            focus_col: None,
            cell_style: None,
            list: 30,
        }
        .render(f, inner, th, v.hits);
        // Overall deception of every system (the bug-type table's `overall` row).
        let rows_h = t.editsize.rows.len() as u16 + 2;
        if let Some(overall) = bt.rows.iter().find(|r| r[0].text == "overall") {
            if inner.height > rows_h {
                let mut lines = vec![Line::styled("overall, per system", th.accent)];
                for (c, key) in bt.keys.iter().enumerate().skip(3) {
                    let st = if *key == sys_id { th.bar_alt } else { th.base };
                    lines.push(Line::from(vec![
                        Span::styled(format!("{key:<16}"), st),
                        Span::raw(format!("{:>7}", overall[c].text)),
                    ]));
                }
                let r = Rect::new(
                    inner.x,
                    inner.y + rows_h,
                    inner.width,
                    inner.height - rows_h,
                );
                f.render_widget(Paragraph::new(lines), r);
            }
        }
        // Gap histogram of the current system.
        let Some(s) = a.systems.get(sys) else { return };
        let g = &s.gap_summary;
        let gaps_row = t.gaps.rows.iter().find(|r| r[0].text == sys_id);
        let summary = gaps_row.map_or(String::new(), |r| {
            format!(
                "gap<0 {} · gap=0 {} · median {} · mean {}",
                r[2].text, r[3].text, r[4].text, r[5].text
            )
        });
        let title = Line::from(vec![
            Span::styled(format!(" Canonical − best distractor, {sys_id} "), th.title),
            Span::styled(format!("({} queries) {summary} ", g.n), th.dim),
        ]);
        let bars: Vec<(String, u64)> = g
            .histogram
            .iter()
            .map(|(lo, _, c)| (format!("{lo:.2}"), *c as u64))
            .collect();
        let [hist, axis] =
            Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(bottom);
        histogram::render(f, hist, &bars, th, block(title, false, th));
        if let (Some(first), Some(last)) = (g.histogram.first(), g.histogram.last()) {
            let w = axis.width.saturating_sub(4) as usize;
            let left = format!("{:.3}", first.0);
            let right = format!("{:.3}", last.1);
            let mid = "gap (canonical wins → right of 0)";
            let pad = w.saturating_sub(left.len() + right.len() + mid.len()) / 2;
            f.render_widget(
                Paragraph::new(Line::styled(
                    format!(" {left}{}{mid}{}{right}", " ".repeat(pad), " ".repeat(pad)),
                    th.dim,
                )),
                axis,
            );
        }
    }
}
