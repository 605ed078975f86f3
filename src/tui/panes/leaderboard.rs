//! Pane 1: the leaderboard — `report`'s leaderboard table (with the bootstrap / Wilson exec@1
//! intervals and † tier marks once the significance job is done), sortable by any column, an
//! interval column for the current exec@k, and the selected system's tie and interval details.

use super::{step, Cx, Effect, Pane, PaneId};
use crate::metrics::{metric_keys, MetricKey};
use crate::report::{leaderboard, Align, Table, TableCell};
use crate::tui::actions::{Action, Hit};
use crate::tui::view::{Data, Settings, View};
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::chrome::{block, framed};
use crate::tui::widgets::forest::{self, ForestRow};
use crate::tui::widgets::table::{sorted_order, SortState, TableView};
use crate::view::{Leaderboard, Standing};
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

/// Whether the pane adds an "exec@k 95% CI" column: not for the first metric cell, whose
/// intervals the report table itself carries (or will, once the bootstrap job is done).
fn extra_ci(settings: &Settings) -> bool {
    let first = metric_keys(&settings.eval().ks).first().map(|c| c.0);
    first != Some(MetricKey::exec(settings.k()))
}

/// The report's leaderboard table formatted from the data's rows: `leaderboard::table` with the
/// intervals and † marks once the bootstrap job is done, `pending_table` ("…") before.
pub fn report_table(d: &Data) -> Option<(&Leaderboard, Table)> {
    let lb = d.lb.as_ref()?;
    let t = match d.sig.as_deref() {
        Some(sig) => leaderboard::table(lb, Some(sig)),
        None => leaderboard::pending_table(lb),
    };
    Some((lb, t))
}

/// The report's leaderboard table (with intervals and † once the bootstrap job is done), plus
/// the current exec@k's bootstrap interval when k is not the table's own interval cell (`…`
/// while the job runs).
pub fn display_table(v: &View) -> Option<(Table, Vec<usize>)> {
    let d = v.data?;
    let (lb, table) = report_table(d)?;
    let systems: Vec<usize> = lb.rows.iter().map(|r| r.system).collect();
    let k = v.k();
    let first_pending = d.sig.is_none() && !extra_ci(v.settings);
    if !extra_ci(v.settings) && !first_pending {
        return Some((table, systems));
    }
    let key = MetricKey::exec(k);
    let mut t = table.column(
        &format!("{key} 95% CI"),
        &format!("{key}_ci95"),
        Align::Left,
    );
    let cell = d.sig.as_ref().and_then(|s| Some((s, s.cell_index(key)?)));
    for (row, &s) in t.rows.iter_mut().zip(&systems) {
        row.push(match cell {
            Some((sig, ci)) => {
                let iv = &sig.intervals[ci][s];
                let flag = if iv.degenerate { " (degenerate)" } else { "" };
                TableCell {
                    text: format!("[{:.3}, {:.3}]{flag}", iv.low, iv.high),
                    value: Some(iv.low),
                    ..TableCell::default()
                }
            }
            None => TableCell::text("…"),
        });
    }
    Some((t, systems))
}

/// The selected system's interval and tier line for the current exec@k.
fn interval_lines(d: &Data, v: &View, s: usize) -> Vec<Line<'static>> {
    let th = v.theme;
    let key = MetricKey::exec(v.k());
    let Some(sig) = d.sig.as_ref() else {
        return vec![Line::styled(
            format!("{key} 95% intervals: … (bootstrap running)"),
            th.dim,
        )];
    };
    let Some(ci) = sig.cell_index(key) else {
        return vec![Line::styled(format!("{key}: no interval"), th.dim)];
    };
    let iv = &sig.intervals[ci][s];
    let wilson = match sig.wilson[ci][s] {
        Some((lo, hi)) => format!("[{lo:.3}, {hi:.3}]"),
        None => "—".to_string(),
    };
    let mut first = vec![
        Span::raw(format!("{key} {:.3}   95% bootstrap ", iv.mean)),
        Span::styled(format!("[{:.3}, {:.3}]", iv.low, iv.high), th.accent),
        Span::raw(if iv.degenerate { " (degenerate)" } else { "" }),
        Span::raw("   Wilson "),
        Span::styled(wilson, th.accent),
    ];
    let mut lines = Vec::new();
    let (Some(lb), Some(t)) = (d.lb.as_ref(), sig.tier(key)) else {
        lines.push(Line::from(first));
        return lines;
    };
    let standing = lb
        .standings(sig, key)
        .and_then(|st| Some(st[lb.rows.iter().position(|r| r.system == s)?]))
        .unwrap_or(Standing::Below {
            adjusted_p: t.adjusted_p.get(s).copied().flatten(),
        });
    let leader = v.system_id(t.leader).to_string();
    let p = |p: Option<f64>| {
        p.map_or(String::new(), |p| {
            format!(", Holm p {}", crate::report::p_text(p, 4))
        })
    };
    let (text, st) = match standing {
        Standing::Leader => ("leader".to_string(), th.good),
        Standing::Level => (format!("level with the leader {leader}"), th.good),
        Standing::Tied { adjusted_p } => (
            format!("tied with the leader {leader}{}", p(adjusted_p)),
            th.warn,
        ),
        Standing::Below { adjusted_p } => (
            format!("below the leader {leader}{}", p(adjusted_p)),
            th.bad,
        ),
    };
    first.push(Span::raw("   "));
    first.push(Span::styled(text, st));
    lines.push(Line::from(first));
    lines.push(Line::styled(format!("tier test: {}", t.method), th.dim));
    lines
}

/// Position in `order` of the row of `system` (the one selection shared by every pane).
fn selected_row(order: &[usize], lb: &Leaderboard, system: usize) -> Option<usize> {
    order.iter().position(|&r| lb.rows[r].system == system)
}

/// The forest plot of exec@k: every system's bootstrap interval, in table order,
/// † for systems not distinguishable from the leader (the core's [`Leaderboard::forest`]).
/// `None` until the bootstrap job is done.
pub fn forest_rows(v: &View, k: usize, order: &[usize], selected: usize) -> Option<Vec<ForestRow>> {
    let d = v.data?;
    let lb = d.lb.as_ref()?;
    let points = lb.forest(d.sig.as_ref()?, MetricKey::exec(k))?;
    Some(
        order
            .iter()
            .enumerate()
            .map(|(i, &r)| {
                let p = &points[r];
                ForestRow {
                    label: p.system.clone(),
                    mean: p.mean,
                    low: p.low,
                    high: p.high,
                    mark: p.tied_with_leader,
                    selected: i == selected,
                }
            })
            .collect(),
    )
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
    fn kind(&self) -> PaneId {
        PaneId::Leaderboard
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (
                "†",
                "not distinguishable from the leader (paired test, p ≥ 0.05)",
            ),
            ("…", "still computing (bootstrap intervals), or cut to fit"),
            ("├ ● ┤", "95% bootstrap interval and the point estimate"),
            ("▲ ▼", "the sorted column and its order (r reverses)"),
            ("A=", "letters standing for system names that do not fit"),
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<Table> {
        display_table(v).map(|(t, _)| t).into_iter().collect()
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(d) = cx.data else { return false };
        let Some((lb, table)) = report_table(d) else {
            return false;
        };
        let table = &table;
        let n = table.rows.len();
        let ncol = table.headers.len() + usize::from(extra_ci(cx.settings) || d.sig.is_none());
        match action {
            _ if action.moves_selection() => {
                let order = sorted_order(table, &self.sort);
                let cur = selected_row(&order, lb, cx.settings.system).unwrap_or(self.selected);
                self.selected = step(cur, n, action, self.page.get());
                if let Some(&r) = order.get(self.selected) {
                    cx.settings.system = lb.rows[r].system;
                }
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
            Action::Click(Hit::Row { list: LIST, index }) => {
                self.selected = *index;
                let order = sorted_order(table, &self.sort);
                if let Some(&r) = order.get(*index) {
                    cx.settings.system = lb.rows[r].system;
                }
            }
            Action::Enter => {
                // The highlighted row: the shared selection's (as drawn), not a stale position.
                let order = sorted_order(table, &self.sort);
                let pos = selected_row(&order, lb, cx.settings.system).unwrap_or(self.selected);
                if let Some(&r) = order.get(pos) {
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
        let lb = d.lb.as_ref().expect("table implies leaderboard");
        let rows = t.rows.len() as u16;
        let [top, bottom] =
            Layout::vertical([Constraint::Length(rows + 3), Constraint::Min(0)]).areas(area);
        // The language mix, where the bundle is not all Python (as the report's header says it).
        let mix = if lb.multilingual() {
            format!("{} · ", crate::view::languages::describe(&lb.languages))
        } else {
            String::new()
        };
        let inner = framed(
            f,
            top,
            Line::from(vec![
                Span::styled(" Leaderboard ", th.title),
                Span::styled(mix, th.accent),
                Span::styled(
                    format!("(ties: {}; ←/→ sort column, r reverse) ", lb.policy),
                    th.dim,
                ),
            ]),
            true,
            th,
        );
        let order = sorted_order(&t, &self.sort);
        let selected = selected_row(&order, lb, v.settings.system)
            .unwrap_or(self.selected.min(order.len().saturating_sub(1)));
        self.page.set(inner.height.saturating_sub(1) as usize);
        TableView {
            table: &t,
            order: &order,
            selected: Some(selected),
            focused: true,
            sort: Some(self.sort),
            frozen: 2,
            focus_col: Some(self.focus_col),
            cell_style: None,
            list: LIST,
        }
        .render(f, inner, th, v.hits);
        // Details of the selected system, the forest plot under them.
        let Some(&r) = order.get(selected) else {
            return;
        };
        let lines = detail_lines(v, d, lb, r, systems[r]);
        self.draw_below(f, bottom, v, (&t, &order, selected), lines);
    }
}

/// The selected system (row `r` of the leaderboard, system `s`): its tie counts, exec@1 under
/// each tie order, its interval and standing.
fn detail_lines(v: &View, d: &Data, lb: &Leaderboard, r: usize, s: usize) -> Vec<Line<'static>> {
    let th = v.theme;
    let row = &lb.rows[r];
    let n3 = |x: f64| TableCell::num(x, 3).text;
    let ties = &row.ties;
    let straddle: Vec<String> = lb
        .ks
        .iter()
        .zip(&ties.at_cutoff)
        .map(|(k, n)| format!("@{k}: {n}"))
        .collect();
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{} ", row.id), th.accent),
            Span::styled(format!("({}) rank {}", row.similarity, row.rank), th.dim),
            Span::raw(if row.shared_rank { " (shared)" } else { "" }),
            Span::styled(
                crate::systems::origin(d.engine.bundle(), &row.id)
                    .map_or(String::new(), |(_, o)| format!("  {o}")),
                th.dim,
            ),
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
    ];
    if lb.multilingual() {
        // exec@1 over each language's queries (the report's `languages` table, this row).
        let mut spans = vec![Span::raw("exec@1 by language  ")];
        for (l, x) in &row.per_language {
            spans.push(Span::raw(format!(" {} ", l.display_name())));
            spans.push(Span::styled(n3(*x), th.accent));
        }
        lines.push(Line::from(spans));
    }
    lines.extend(interval_lines(d, v, s));
    lines.push(Line::from(Span::styled(
        format!("Enter: browse {}'s queries", v.system_id(s)),
        th.dim,
    )));
    lines
}

impl LeaderboardPane {
    /// Under the table: the details `lines` (with the table's caption where it fits whole),
    /// and in the free space the forest plot of the systems in view, at k and the other cutoffs.
    fn draw_below(
        &self,
        f: &mut Frame,
        bottom: Rect,
        v: &View,
        (t, order, selected): (&Table, &[usize], usize),
        mut lines: Vec<Line<'static>>,
    ) {
        let th = v.theme;
        let Some(lb) = v.data.and_then(|d| d.lb.as_ref()) else {
            return;
        };
        // The free space below the details holds the forest plot of the systems in view.
        let plot = |k: usize| {
            forest_rows(v, k, order, selected)
                .map(|rows| {
                    forest::lines(&rows, bottom.width.saturating_sub(2) as usize, th, |r| {
                        if r.mark {
                            th.warn
                        } else {
                            th.base
                        }
                    })
                })
                .unwrap_or_default()
        };
        let mut forest = plot(v.k());
        // Rows the details take once wrapped (the box is 2 columns narrower than the pane).
        let inner_w = bottom.width.saturating_sub(2).max(1) as usize;
        let wrapped = |l: &Line| l.width().div_ceil(inner_w).max(1) as u16;
        let detail_h = (lines.iter().map(wrapped).sum::<u16>() + 2).min(bottom.height);
        let forest_h = forest.len() as u16 + 2;
        // The caption only where it fits whole (never cut off at the bottom of the box).
        let caption = Line::from(Span::styled(t.caption.clone(), th.dim));
        let room = bottom
            .height
            .saturating_sub(detail_h + if forest.is_empty() { 0 } else { forest_h });
        let detail_h = if wrapped(&caption) < room {
            lines.push(caption.clone());
            detail_h + wrapped(&caption)
        } else {
            detail_h
        };
        // Room to spare: the other cutoffs' forests below the current one.
        let mut used = detail_h + forest_h;
        if !forest.is_empty() {
            for &k in lb.ks.iter().filter(|&&k| k != v.k()) {
                let more = plot(k);
                if used + more.len() as u16 + 1 > bottom.height {
                    break;
                }
                used += more.len() as u16 + 1;
                forest.push(Line::styled(format!("exec@{k}"), th.title));
                forest.extend(more);
            }
        }
        let forest_h = forest.len() as u16 + 2;
        let (detail_area, forest_area) =
            if !forest.is_empty() && bottom.height >= detail_h + forest_h {
                let [a, b] =
                    Layout::vertical([Constraint::Length(detail_h), Constraint::Min(forest_h)])
                        .areas(bottom);
                (a, Some(b))
            } else {
                (bottom, None)
            };
        let b = block(" Selected system ", false, th);
        f.render_widget(
            Paragraph::new(lines).block(b).wrap(Wrap { trim: true }),
            detail_area,
        );
        if let Some(area) = forest_area {
            let key = format!("exec@{}", v.k());
            let title = Line::from(vec![
                Span::styled(
                    format!(" {key} (and other cutoffs below) with 95% bootstrap intervals "),
                    th.title,
                ),
                Span::styled("(† not distinguishable from the leader) ", th.dim),
            ]);
            f.render_widget(Paragraph::new(forest).block(block(title, false, th)), area);
        }
    }
}
