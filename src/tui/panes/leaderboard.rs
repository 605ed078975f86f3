//! Pane 1: the leaderboard — `report`'s leaderboard table, sortable by any column, with a 95%
//! interval column waiting for the stats module and the selected system's tie details.

use super::{message, step, Cx, Effect, Pane};
use crate::report::{Align, Cell, Table};
use crate::tui::actions::{Action, Hit};
use crate::tui::frame::block;
use crate::tui::view::View;
use crate::tui::widgets::table::{sorted_order, SortState, TableView};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use std::cell::Cell as StdCell;

const LIST: u8 = 0;

#[derive(Default)]
pub struct LeaderboardPane {
    pub sort: SortState,
    pub selected: usize,
    /// Column the arrow keys have reached (kept in view, sorted by).
    pub focus_col: usize,
    page: StdCell<usize>,
}

/// The report's leaderboard table plus the interval column (`…` until intervals exist).
pub fn display_table(v: &View) -> Option<(Table, Vec<usize>)> {
    let d = v.data?;
    let (lb, table, _) = d.lb.as_ref()?;
    let key = format!("exec@{}", v.k());
    let mut t = table
        .clone()
        .column(&format!("{key} 95% CI"), "ci95", Align::Right);
    let systems: Vec<usize> = lb.rows.iter().map(|r| r.system).collect();
    for (row, &s) in t.rows.iter_mut().zip(&systems) {
        let ci = d
            .intervals
            .as_ref()
            .and_then(|i| i.by_metric.get(&key))
            .and_then(|v| v.get(s));
        row.push(match ci {
            Some(&(lo, hi)) => Cell {
                text: format!("[{}, {}]", Cell::num(lo, 3).text, Cell::num(hi, 3).text),
                value: Some(lo),
                ..Cell::default()
            },
            None => Cell::text("…"),
        });
    }
    Some((t, systems))
}

impl LeaderboardPane {
    fn sort_on(&mut self, col: usize, t: &Table) {
        self.focus_col = col;
        let numeric = t.rows.first().and_then(|r| r[col].value).is_some();
        self.sort = SortState {
            col: Some(col),
            // Ranks and text read best ascending; metrics descending.
            desc: numeric && t.keys[col] != "rank",
        };
    }
}

impl Pane for LeaderboardPane {
    fn id(&self) -> &'static str {
        "leaderboard"
    }

    fn title(&self) -> &'static str {
        "Leaderboard"
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(d) = cx.data else { return false };
        let Some((lb, table, _)) = d.lb.as_ref() else {
            return false;
        };
        let n = table.rows.len();
        let ncol = table.headers.len() + 1;
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom
            | Action::ScrollUp
            | Action::ScrollDown => {
                self.selected = step(self.selected, n, action, self.page.get());
            }
            Action::Left | Action::Right => {
                let col = if *action == Action::Left {
                    self.focus_col.saturating_sub(1)
                } else {
                    (self.focus_col + 1).min(ncol - 1)
                };
                if col < table.headers.len() {
                    self.sort_on(col, table);
                } else {
                    self.focus_col = col;
                }
            }
            Action::ReverseSort => {
                if self.sort.col.is_none() {
                    self.sort = SortState {
                        col: Some(0),
                        desc: false,
                    };
                }
                self.sort.desc = !self.sort.desc;
            }
            Action::Click(Hit::Header { list: LIST, col }) => {
                self.focus_col = *col;
                self.sort.click(*col);
            }
            Action::Click(Hit::Row { list: LIST, index }) => self.selected = *index,
            Action::Enter => {
                let order = sorted_order(table, &self.sort);
                if let Some(&r) = order.get(self.selected) {
                    cx.effects.push(Effect::OpenBrowser {
                        system: Some(lb.rows[r].system),
                        query: None,
                    });
                }
            }
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some((t, systems)) = display_table(v) else {
            message(f, area, &v.pending("leaderboard"), th.accent);
            return;
        };
        let d = v.data.expect("table implies data");
        let lb = &d.lb.as_ref().expect("table implies leaderboard").0;
        let rows = t.rows.len() as u16;
        let [top, bottom] =
            Layout::vertical([Constraint::Length(rows + 3), Constraint::Min(0)]).areas(area);
        let b = block(
            Line::from(vec![
                Span::styled(" Leaderboard ", th.title),
                Span::styled(
                    format!("(ties: {}; ←/→ sort column, r reverse) ", lb.policy),
                    th.dim,
                ),
            ]),
            true,
            th,
        );
        let inner = b.inner(top);
        f.render_widget(b, top);
        let order = sorted_order(&t, &self.sort);
        self.page.set(inner.height.saturating_sub(1) as usize);
        TableView {
            table: &t,
            order: &order,
            selected: Some(self.selected.min(order.len().saturating_sub(1))),
            focused: true,
            sort: Some(self.sort),
            frozen: 2,
            focus_col: Some(self.focus_col),
            cell_style: None,
            list: LIST,
        }
        .render(f, inner, th, v.hits);
        // Details of the selected system.
        let Some(&r) = order.get(self.selected) else {
            return;
        };
        let row = &lb.rows[r];
        let s = systems[r];
        let n3 = |x: f64| Cell::num(x, 3).text;
        let ties = &row.ties;
        let straddle: Vec<String> = lb
            .ks
            .iter()
            .zip(&ties.at_cutoff)
            .map(|(k, n)| format!("@{k}: {n}"))
            .collect();
        let lines = vec![
            Line::from(vec![
                Span::styled(format!("{} ", row.id), th.accent),
                Span::styled(format!("({}) rank {}", row.similarity, row.rank), th.dim),
                Span::raw(if row.shared_rank { " (shared)" } else { "" }),
            ]),
            Line::from(vec![
                Span::raw("exec@1 by tie order   pessimistic "),
                Span::styled(n3(row.exec1_bounds[0]), th.bad),
                Span::raw("   expected "),
                Span::styled(n3(row.exec1_bounds[1]), th.accent),
                Span::raw("   optimistic "),
                Span::styled(n3(row.exec1_bounds[2]), th.good),
            ]),
            Line::from(format!(
                "tied pairs {}/{} (paired distractor scored exactly like the canonical) · top-1 tied in {} queries",
                ties.tied_pairs, ties.pairs, ties.top1_tied
            )),
            Line::from(format!(
                "ties straddling the cutoff: {} · label-fallback verdicts in top 10: {}",
                straddle.join(", "),
                row.label_fallbacks
            )),
            Line::from(Span::styled(
                if d.intervals.is_none() {
                    "95% intervals: … (bootstrap pending)".to_string()
                } else {
                    String::new()
                },
                th.dim,
            )),
            Line::from(Span::styled(t.caption.clone(), th.dim)),
            Line::from(Span::styled(
                format!("Enter: browse {}'s queries", v.system_id(s)),
                th.dim,
            )),
        ];
        let b = block(" Selected system ", false, th);
        f.render_widget(
            Paragraph::new(lines).block(b).wrap(Wrap { trim: true }),
            bottom,
        );
    }
}
