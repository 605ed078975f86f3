//! Pane 5: domains and difficulty — the per-domain exec@1 heat map (the report's `domains`
//! table, shown domains × systems), above it in a bundle of several languages the per-language
//! one (the report's `languages` table, languages × systems), the per-query difficulty
//! histogram (`difficulty` table) and the queries no system solves at rank 1 (Enter opens one
//! in the browser).

use super::{step, Cx, Effect, Pane, PaneId};
use crate::report::{Align, Table, TableCell};
use crate::tui::actions::{Action, Hit};
use crate::tui::view::View;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::chrome::{block, framed};
use crate::tui::widgets::table::TableView;
use crate::tui::widgets::text::{fit, fit_pad};
use crate::tui::widgets::{histogram, scroll_offset};
use crate::view::anatomy::DomainDeceptionRow;
use crate::view::leaderboard::DomainRow;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell as StdCell;

const UNSOLVED: u8 = 50;

#[derive(Default)]
pub struct DomainsPane {
    pub selected: usize,
    page: StdCell<usize>,
    /// The system column ←/→ brought into view in the domain tables (0: they start at the first
    /// system, nothing focused).
    pub col: usize,
}

/// The per-domain exec@1 table with rows and columns swapped (domain names are long, systems
/// few), built from the core's typed rows (`Leaderboard::domain_rows`).
pub fn by_domain_table(rows: &[DomainRow], policy: crate::metrics::TiePolicy) -> Table {
    let mut out =
        Table::new("domains", "Per-domain exec@1").column("domain", "domain", Align::Left);
    for r in rows {
        out = out.column(&r.id, &r.id, Align::Right);
    }
    let domains = rows.first().map_or(&[][..], |r| &r.exec1[..]);
    for (di, (d, _)) in domains.iter().enumerate() {
        let mut row = vec![TableCell::text(d)];
        row.extend(rows.iter().map(|r| TableCell::num(r.exec1[di].1, 3)));
        out.push(row);
    }
    out.caption(format!(
        "Mean exec@1 over each domain's queries ({policy} ties)."
    ))
}

/// The per-language exec@1 table with languages as rows and systems as columns (the report's
/// `languages` table turned, as the domain table is), each language with its number of queries.
pub fn by_language_table(lb: &crate::view::Leaderboard) -> Table {
    let rows = lb.language_rows();
    let mut out =
        Table::new("languages", "Per-language exec@1").column("language", "language", Align::Left);
    for r in &rows {
        out = out.column(&r.id, &r.id, Align::Right);
    }
    for (li, (l, n)) in lb.languages.iter().enumerate() {
        let mut row = vec![TableCell::text(format!("{} ({n})", l.display_name()))];
        row.extend(rows.iter().map(|r| TableCell::num(r.exec1[li].1, 3)));
        out.push(row);
    }
    out.caption(format!(
        "Mean exec@1 over each language's queries (their number beside it; {} ties).",
        lb.policy
    ))
}

/// Deception by domain with domains as rows and systems as columns (the report's typed rows).
pub fn by_domain_deception_table(rows: &[DomainDeceptionRow]) -> Table {
    let mut out = Table::new("deception_domains", "Deception by domain").column(
        "domain",
        "domain",
        Align::Left,
    );
    for r in rows {
        out = out.column(&r.system, &r.system, Align::Right);
    }
    let domains = rows.first().map_or(&[][..], |r| &r.by_domain[..]);
    for (di, (d, _)) in domains.iter().enumerate() {
        let mut row = vec![TableCell::text(d)];
        row.extend(
            rows.iter()
                .map(|r| TableCell::pct(r.by_domain[di].1.rate(), 1)),
        );
        out.push(row);
    }
    out
}

/// A bordered table whose number cells are shaded by value (`shade` maps the value first).
pub(super) fn heat_table(
    f: &mut Frame,
    area: Rect,
    v: &View,
    t: &Table,
    title: Line<'_>,
    focus: usize,
    shade: impl Fn(f64) -> f64,
) {
    let th = v.theme;
    let inner = framed(f, area, title, false, th);
    let order: Vec<usize> = (0..t.rows.len()).collect();
    let heat = |_r: usize, c: usize, cell: &TableCell| {
        if c == 0 {
            ratatui::style::Style::default()
        } else {
            th.heat(shade(cell.value.unwrap_or(f64::NAN)))
        }
    };
    // ←/→ scroll the system columns that do not fit (the focused one is kept in view).
    let focus_col = (focus > 0).then_some((1 + focus).min(t.headers.len().saturating_sub(1)));
    TableView {
        cell_style: Some(&heat),
        focus_col,
        ..TableView::plain(t, &order, 1, 51)
    }
    .render(f, inner, th, v.hits);
}

/// The pane's domain table, once the leaderboard is in (`None` too where the bundle's queries
/// carry no domain: it would have no row).
fn domain_view(v: &View) -> Option<Table> {
    let lb = v.data?.lb.as_ref()?;
    Some(by_domain_table(&lb.domain_rows(), lb.policy)).filter(|t| !t.rows.is_empty())
}

/// The pane's language table, where the bundle is not all Python.
fn language_view(v: &View) -> Option<Table> {
    let lb = v.data?.lb.as_ref()?;
    lb.multilingual().then(|| by_language_table(lb))
}

/// What the pane says where the bundle's queries carry no domain.
pub const NO_DOMAINS: &str = "This bundle has no domains: its queries carry no `domain` field, \
    and none can be read from their entry ids, so there is no per-domain table. The difficulty \
    of every query is beside.";

fn unsolved(v: &View) -> Vec<usize> {
    v.data
        .and_then(|d| d.anatomy.as_ref())
        .map(|a| a.difficulty.unsolved.iter().map(|u| u.query).collect())
        .unwrap_or_default()
}

impl Pane for DomainsPane {
    fn kind(&self) -> PaneId {
        PaneId::Domains
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("█", "bar: queries in the bin (the count beside it)"),
            (
                "<1 1–2",
                "under expected ties: bins of the expected number of systems",
            ),
            ("…", "cut to fit"),
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<Table> {
        let mut out: Vec<Table> = language_view(v).into_iter().collect();
        out.extend(domain_view(v));
        if let Some(a) = v.data.and_then(|d| d.anatomy.as_ref()) {
            out.push(crate::report::anatomy::difficulty_table(a));
        }
        out
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(a) = cx.data.and_then(|d| d.anatomy.as_ref()) else {
            return false;
        };
        let list: Vec<usize> = a.difficulty.unsolved.iter().map(|u| u.query).collect();
        match action {
            _ if action.moves_selection() => {
                self.selected = step(self.selected, list.len(), action, self.page.get());
            }
            Action::Left => self.col = self.col.saturating_sub(1),
            Action::Right => {
                let n = cx.data.map_or(0, |d| d.engine.scores().len());
                self.col = (self.col + 1).min(n.saturating_sub(1));
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
        let Some(d) = v.data else { return };
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Min(24)]).areas(area);
        self.draw_domains(f, left, v, d);
        self.draw_difficulty(f, right, v, d);
    }
}

impl DomainsPane {
    /// exec@1 by domain on top; the free space below holds deception by domain (the report's
    /// `deception-domains` rows, same orientation).
    fn draw_domains(&self, f: &mut Frame, left: Rect, v: &View, d: &crate::tui::view::Data) {
        let th = v.theme;
        // A bundle of several languages: exec@1 by language first (a few rows).
        let left = match language_view(v) {
            Some(t) => {
                let want = (t.rows.len() as u16 + 3).min(left.height / 2);
                let [top, rest] =
                    Layout::vertical([Constraint::Length(want), Constraint::Min(0)]).areas(left);
                let title = Line::from(vec![
                    Span::styled(" exec@1 by language ", th.title),
                    Span::styled(format!("(ties: {}) ", v.policy()), th.dim),
                ]);
                heat_table(f, top, v, &t, title, self.col, |x| x);
                rest
            }
            None => left,
        };
        match domain_view(v) {
            Some(t) => {
                // exec@1 by domain on top; the free space below holds deception by domain (the
                // report's `deception-domains` rows, same orientation).
                let want = t.rows.len() as u16 + 3;
                let [top, below] =
                    Layout::vertical([Constraint::Length(want), Constraint::Min(0)]).areas(left);
                let title = Line::from(vec![
                    Span::styled(" exec@1 by domain ", th.title),
                    Span::styled(format!("(ties: {}) ", v.policy()), th.dim),
                ]);
                heat_table(f, top, v, &t, title, self.col, |x| x);
                if below.height >= 4 {
                    match d.anatomy.as_ref() {
                        Some(a) => {
                            let t = by_domain_deception_table(&a.deception_domains.rows);
                            // The explanation only where it fits whole.
                            let note = "(distractor ≥ canonical) ";
                            let room = below.width.saturating_sub(4) as usize;
                            let mut spans = vec![Span::styled(" deception by domain ", th.title)];
                            if 21 + note.chars().count() <= room {
                                spans.push(Span::styled(note, th.dim));
                            }
                            let title = Line::from(spans);
                            // Cells hold percentages; the heat scale is a fraction.
                            heat_table(f, below, v, &t, title, self.col, |x| x / 100.0);
                        }
                        None => message(f, below, &v.pending("deception"), th.accent),
                    }
                }
            }
            None if d.lb.is_some() => message(f, left, NO_DOMAINS, th.dim),
            None => message(f, left, &v.pending("per-domain exec@1"), th.accent),
        }
    }

    /// The difficulty histogram over the queries no system solves at rank 1.
    fn draw_difficulty(&self, f: &mut Frame, right: Rect, v: &View, d: &crate::tui::view::Data) {
        let th = v.theme;
        let Some(a) = d.anatomy.as_ref() else {
            message(f, right, &v.pending("difficulty"), th.accent);
            return;
        };
        // The unsolved list takes what it needs (at most half); the histogram the rest.
        let list = unsolved(v);
        let list_h = (list.len() as u16 + 2).max(3);
        let hist_h = right
            .height
            .saturating_sub(list_h)
            .max(right.height / 2)
            .max(6);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(hist_h), Constraint::Min(3)]).areas(right);
        let bars: Vec<(String, u64)> = a
            .difficulty
            .rows
            .iter()
            .map(|r| {
                let label = crate::report::anatomy::difficulty_bin(
                    r.systems,
                    a.difficulty.rows.len(),
                    a.policy() == crate::metrics::TiePolicy::Expected,
                );
                (label, r.queries as u64)
            })
            .collect();
        histogram::render(
            f,
            top,
            &bars,
            th,
            block(
                Line::from(vec![Span::styled(
                    format!(
                        " {} ",
                        fit(
                            if a.policy() == crate::metrics::TiePolicy::Expected {
                                "Queries by expected number of systems solving them at rank 1"
                            } else {
                                "Queries by number of systems solving them at rank 1"
                            },
                            top.width.saturating_sub(4) as usize
                        )
                    ),
                    th.title,
                )]),
                false,
                th,
            ),
        );
        let inner = framed(
            f,
            bottom,
            Line::from(vec![
                Span::styled(" Solved by no system ", th.title),
                Span::styled(
                    format!("{} of {} ", list.len(), a.difficulty.queries),
                    th.dim,
                ),
            ]),
            true,
            th,
        );
        let h = inner.height as usize;
        self.page.set(h);
        let sel = self.selected.min(list.len().saturating_sub(1));
        let offset = scroll_offset(sel, h);
        let b = &d.engine.bundle();
        let mut lines = Vec::new();
        for (i, &q) in list.iter().enumerate().skip(offset).take(h) {
            let query = &b.queries[q];
            // Id, function and domain, each shortened with `…` rather than cut at the border.
            // The domain only where a few of its letters fit (not a column of lone `…`).
            let w = inner.width as usize;
            let fw = 22.min(w.saturating_sub(11));
            let dw = w.saturating_sub(10 + fw + 1);
            let mut line = Line::from(vec![
                Span::raw(format!(" {} ", fit_pad(&query.id, 8))),
                Span::styled(format!("{} ", fit_pad(&query.function_name, fw)), th.accent),
                Span::styled(
                    if dw >= 6 {
                        fit(&query.domain, dw)
                    } else {
                        String::new()
                    },
                    th.dim,
                ),
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
            f.render_widget(
                Paragraph::new(Line::styled("every query is solved by some system", th.dim))
                    .wrap(ratatui::widgets::Wrap { trim: true }),
                inner,
            );
            return;
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}
