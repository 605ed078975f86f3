//! Pane 5: domains and difficulty — the per-domain exec@1 heat map (the report's `domains`
//! table, shown domains × systems), the per-query difficulty histogram (`difficulty` table) and
//! the queries no system solves at rank 1 (Enter opens one in the browser).

use super::{message, step, Cx, Effect, Pane};
use crate::analysis::misses;
use crate::report::{Align, Table};
use crate::tui::actions::{Action, Hit};
use crate::tui::frame::block;
use crate::tui::view::View;
use crate::tui::widgets::histogram;
use crate::tui::widgets::table::TableView;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell;

const UNSOLVED: u8 = 50;

#[derive(Default)]
pub struct DomainsPane {
    pub selected: usize,
    page: Cell<usize>,
}

/// The domain table with rows and columns swapped (domain names are long, systems few).
pub fn transpose(t: &Table) -> Table {
    let mut out = Table::new(&t.name, &t.title).column("domain", "domain", Align::Left);
    for r in &t.rows {
        out = out.column(&r[0].text, &r[0].text, Align::Right);
    }
    for c in 1..t.headers.len() {
        let mut row = vec![crate::report::Cell::text(&t.headers[c])];
        row.extend(t.rows.iter().map(|r| r[c].clone()));
        out.push(row);
    }
    out.caption(t.caption.clone())
}

fn unsolved(v: &View) -> Vec<usize> {
    v.data
        .and_then(|d| d.anatomy.as_ref())
        .map(|(a, _)| misses::unsolved(&a.difficulty))
        .unwrap_or_default()
}

impl Pane for DomainsPane {
    fn id(&self) -> &'static str {
        "domains"
    }

    fn title(&self) -> &'static str {
        "Domains"
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some((a, _)) = cx.data.and_then(|d| d.anatomy.as_ref()) else {
            return false;
        };
        let list = misses::unsolved(&a.difficulty);
        match action {
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::PageUp
            | Action::PageDown
            | Action::ScrollUp
            | Action::ScrollDown => {
                self.selected = step(self.selected, list.len(), action, self.page.get());
            }
            Action::Click(Hit::Row {
                list: UNSOLVED,
                index,
            }) => self.selected = *index,
            Action::Enter => {
                if let Some(&q) = list.get(self.selected) {
                    cx.effects.push(Effect::OpenBrowser {
                        system: None,
                        query: Some(q),
                    });
                }
            }
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(d) = v.data else { return };
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Min(24)]).areas(area);
        match d.lb.as_ref() {
            Some((_, _, domains)) => {
                let t = transpose(domains);
                let blk = block(
                    Line::from(vec![
                        Span::styled(" exec@1 by domain ", th.title),
                        Span::styled(format!("(ties: {}) ", v.policy), th.dim),
                    ]),
                    false,
                    th,
                );
                let inner = blk.inner(left);
                f.render_widget(blk, left);
                let order: Vec<usize> = (0..t.rows.len()).collect();
                let heat = |_r: usize, c: usize, cell: &crate::report::Cell| {
                    if c == 0 {
                        ratatui::style::Style::default()
                    } else {
                        th.heat(cell.value.unwrap_or(f64::NAN))
                    }
                };
                TableView {
                    table: &t,
                    order: &order,
                    selected: None,
                    focused: false,
                    sort: None,
                    frozen: 1,
                    focus_col: None,
                    cell_style: Some(&heat),
                    list: 51,
                }
                .render(f, inner, th, v.hits);
            }
            None => message(f, left, &v.pending("per-domain exec@1"), th.accent),
        }
        let Some((a, tables)) = d.anatomy.as_ref() else {
            message(f, right, &v.pending("difficulty"), th.accent);
            return;
        };
        let hist_h = (right.height / 2).max(6);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(hist_h), Constraint::Min(3)]).areas(right);
        let bars: Vec<(String, u64)> = tables
            .difficulty
            .rows
            .iter()
            .map(|r| (r[0].text.clone(), r[1].value.unwrap_or(0.0) as u64))
            .collect();
        histogram::render(
            f,
            top,
            &bars,
            th,
            block(
                Line::from(vec![Span::styled(
                    " Queries by systems solving at rank 1 ",
                    th.title,
                )]),
                false,
                th,
            ),
        );
        let list = unsolved(v);
        let blk = block(
            Line::from(vec![
                Span::styled(" Solved by no system ", th.title),
                Span::styled(format!("{} of {} ", list.len(), a.difficulty.len()), th.dim),
            ]),
            true,
            th,
        );
        let inner = blk.inner(bottom);
        f.render_widget(blk, bottom);
        let h = inner.height as usize;
        self.page.set(h);
        let sel = self.selected.min(list.len().saturating_sub(1));
        let offset = if h > 0 && sel >= h { sel + 1 - h } else { 0 };
        let b = &d.engine.bundle();
        let mut lines = Vec::new();
        for (i, &q) in list.iter().enumerate().skip(offset).take(h) {
            let query = &b.queries[q];
            let mut line = Line::from(vec![
                Span::raw(format!(" {:<9}", query.id)),
                Span::styled(format!("{:<22}", query.function_name), th.accent),
                Span::styled(query.domain.clone(), th.dim),
            ]);
            if i == sel {
                line = line.style(th.selected);
            }
            v.hits.push(
                Rect::new(inner.x, inner.y + (i - offset) as u16, inner.width, 1),
                Hit::Row {
                    list: UNSOLVED,
                    index: i,
                },
            );
            lines.push(line);
        }
        if list.is_empty() {
            lines.push(Line::styled(
                " every query is solved by some system",
                th.dim,
            ));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}
