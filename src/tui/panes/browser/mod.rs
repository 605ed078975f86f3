//! Pane 2: the query browser. Left: the queries (fuzzy filter with `/`) and whether the current
//! system passes each at the cutoff. Right: the selected query's ranking under the current
//! system (or the live BM25 query's), then the selected snippet's code or its diff against the
//! canonical. `c` shows two systems' rankings side by side.
//!
//! Live probing: a live query (`:`) is ranked by every system — BM25 at once, the dense systems
//! through the probing service ([`crate::probe::live`]) when their model is available — and the
//! current system's ranking is shown, with every system's state in the title. `e` edits the query
//! text (inline) or the selected snippet (in `$EDITOR`); the view then shows the ranking after the
//! edits and, below it, every system's score and rank of the edited snippets before → after and
//! the oracle's per-test verdict. `u` undoes. Both come from [`crate::probe::probe`], the function
//! behind `execscope probe`.

mod edit;
mod probe;

use super::{message, step, Cx, Effect, Pane, PaneId};
use crate::probe::live::{LiveProbe, LiveState};
use crate::probe::session::{Edit, Session, Target};
use crate::probe::{ProbeQuery, ProbeReport, ProbeRequest};
use crate::rank::{ties::group_sizes, top_k};
use crate::tui::actions::{Action, Hit};
use crate::tui::frame::block;
use crate::tui::fuzzy;
use crate::tui::view::{Data, View};
use crate::tui::widgets::ranking::{self, RankRow};
use crate::tui::widgets::text::fit_spans;
use crate::tui::widgets::{code, diff};
use probe::{live_rows, report_rows, status_spans};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::{Cell, RefCell};

const QUERIES: u8 = 10;
const RANKING: u8 = 11;
/// How deep a query's ranking can be browsed.
pub const DEPTH: usize = 100;

/// (corpus row, dark theme, monochrome): what a highlighted snippet depends on.
type CodeKey = (usize, bool, bool);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    Queries,
    Ranking,
}

#[derive(Default)]
pub struct BrowserPane {
    pub filter: String,
    pub focus: Focus,
    /// Selected position in the ranking.
    pub rank_sel: usize,
    pub diff: bool,
    pub compare: bool,
    page_list: Cell<usize>,
    page_rank: Cell<usize>,
    /// Highlighted code per (corpus row, theme) — syntect is the costly part of a frame.
    code_cache: RefCell<Option<(CodeKey, Vec<Line<'static>>)>>,
    /// The probing service, started on the first live query or edit.
    live: RefCell<Option<LiveProbe>>,
    /// The request (and tie policy) last submitted to it.
    live_sent: RefCell<Option<(ProbeRequest, crate::metrics::TiePolicy)>>,
    /// This session's edits (mirrored to its scratch file).
    pub session: Session,
    /// The inline editor (`e`), while open.
    pub editing: Option<edit::Editing>,
    /// Set after `$EDITOR` used the terminal: the screen is redrawn whole.
    full_redraw: Cell<bool>,
    /// The last answered request for which one more frame was asked (so the answer is drawn).
    ticked_done: Cell<u64>,
    /// The live-query text Enter was pressed on: the dense systems rank it (BM25 ranks as
    /// the text is typed).
    live_committed: Option<String>,
}

/// Queries matching `filter`, best first (all, in bundle order, without a filter).
pub fn filtered(d: &Data, filter: &str) -> Vec<usize> {
    let b = &d.engine.bundle();
    let hay: Vec<String> = b
        .queries
        .iter()
        .map(|q| format!("{} {} {} {}", q.id, q.function_name, q.domain, q.text))
        .collect();
    fuzzy::filter(filter, hay.iter().map(String::as_str))
}

/// The ranking rows shown for system `s` on query `q` (top [`DEPTH`]).
pub fn query_ranking(d: &Data, s: usize, q: usize) -> Vec<RankRow> {
    let e = &d.engine;
    let row = e.scores()[s].row(q);
    let order = top_k(row, DEPTH);
    let sizes = group_sizes(row, &order);
    order
        .iter()
        .zip(sizes)
        .map(|(&c, tie)| RankRow {
            corpus: c as usize,
            score: f64::from(row[c as usize]),
            tie,
            pass: Some(e.truth().passes(q, c as usize)),
            outcomes: d.index.outcomes(e, q, c as usize).map(<[String]>::to_vec),
        })
        .collect()
}

impl BrowserPane {
    fn rows(&self, d: &Data, cx_shared: &crate::tui::view::Shared) -> Vec<RankRow> {
        let k = d
            .engine
            .config()
            .ks
            .get(cx_shared.k_index)
            .copied()
            .unwrap_or(1);
        let probed = self
            .wanted(d, cx_shared, k)
            .and_then(|w| self.live_state(&w))
            .and_then(|st| st.report)
            .and_then(|r| report_rows(d, &r, cx_shared.system));
        match (&cx_shared.live, probed) {
            (_, Some(rows)) => rows,
            (Some((text, live)), None)
                if self.live_committed.as_ref() != Some(text)
                    || !d.engine.scores()[cx_shared.system].is_dense() =>
            {
                live_rows(live)
            }
            (Some(_), None) => Vec::new(),
            (None, None) => query_ranking(d, cx_shared.system, cx_shared.query),
        }
    }

    fn move_query(&mut self, action: &Action, cx: &mut Cx, d: &Data) {
        let list = filtered(d, &self.filter);
        let pos = list.iter().position(|&q| q == cx.shared.query).unwrap_or(0);
        let new = step(pos, list.len(), action, self.page_list.get());
        if let Some(&q) = list.get(new) {
            if q != cx.shared.query {
                self.rank_sel = 0;
            }
            cx.shared.query = q;
        }
    }
}

impl Pane for BrowserPane {
    fn kind(&self) -> PaneId {
        PaneId::Browser
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(d) = cx.data.filter(|d| !d.engine.scores().is_empty()) else {
            return false;
        };
        let nav = matches!(
            action,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Top
                | Action::Bottom
                | Action::ScrollUp
                | Action::ScrollDown
        );
        let live = cx.shared.live.is_some();
        match action {
            _ if nav && (self.focus == Focus::Ranking || live) => {
                let n = self.rows(d, cx.shared).len();
                self.rank_sel = step(self.rank_sel, n, action, self.page_rank.get());
            }
            _ if nav => self.move_query(action, cx, d),
            Action::Enter if live => {
                self.live_committed = cx.shared.live.as_ref().map(|l| l.0.clone());
                self.focus = Focus::Ranking;
            }
            Action::Left => self.focus = Focus::Queries,
            Action::Right | Action::Enter => self.focus = Focus::Ranking,
            Action::Filter => {
                self.focus = Focus::Queries;
                cx.effects.push(Effect::StartFilter);
            }
            Action::Back => {
                if self.focus == Focus::Ranking {
                    self.focus = Focus::Queries;
                } else {
                    self.filter.clear();
                }
            }
            Action::ToggleDiff => self.diff = !self.diff,
            Action::Edit if !live => self.start_edit(cx, d),
            Action::ExternalEdit if !live => {
                if self.focus == Focus::Ranking {
                    self.edit_external(cx, d);
                } else {
                    cx.effects.push(Effect::Status(
                        "E edits the selected snippet: focus the ranking first (→)".into(),
                    ));
                }
            }
            Action::Undo if !live => {
                let res = self.session.undo(cx.shared.query, &Self::edit_ids(d));
                cx.effects.push(Effect::Status(match res {
                    Ok(Some(_)) => "undone".to_string(),
                    Ok(None) => "no edit to undo on this query".to_string(),
                    Err(e) => format!("undone; scratch file not written: {e}"),
                }));
            }
            Action::ToggleCompare => {
                self.compare = !self.compare;
                if self.compare && cx.shared.compare == cx.shared.system {
                    cx.shared.compare = (cx.shared.system + 1) % d.engine.scores().len().max(1);
                }
            }
            Action::Click(Hit::Row {
                list: QUERIES,
                index,
            }) => {
                if let Some(&q) = filtered(d, &self.filter).get(*index) {
                    cx.shared.query = q;
                    self.rank_sel = 0;
                }
                self.focus = Focus::Queries;
            }
            Action::Click(Hit::Row {
                list: RANKING,
                index,
            }) => {
                self.rank_sel = *index;
                self.focus = Focus::Ranking;
            }
            _ => return false,
        }
        true
    }

    fn filter_input(&mut self, action: &Action, cx: &mut Cx) -> Option<bool> {
        if self.edit_input(action, cx) {
            return Some(true);
        }
        match action {
            Action::Input(c) if !c.is_control() => self.filter.push(*c),
            Action::Input(_) => {}
            Action::Paste(s) => self.filter.extend(s.chars().filter(|c| !c.is_control())),
            Action::Backspace => {
                self.filter.pop();
            }
            Action::Back => self.filter.clear(),
            Action::Enter => {}
            other => return Some(self.handle(other, cx)),
        }
        // Keep the selection on a visible query.
        if let Some(d) = cx.data {
            let list = filtered(d, &self.filter);
            if !list.contains(&cx.shared.query) {
                if let Some(&q) = list.first() {
                    cx.shared.query = q;
                    self.rank_sel = 0;
                }
            }
        }
        Some(true)
    }

    fn busy(&self) -> bool {
        self.probe_busy()
    }

    fn captures_input(&self) -> bool {
        self.editing.is_some()
    }

    fn take_full_redraw(&self) -> bool {
        self.full_redraw.replace(false)
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(d) = v.data else { return };
        let want = (!d.engine.scores().is_empty())
            .then(|| self.wanted(d, v.shared, v.k()))
            .flatten();
        if let Some(w) = &want {
            self.submit(d, w);
        }
        let state = want.as_ref().and_then(|w| self.live_state(w));
        let b = d.engine.bundle();
        if b.queries.is_empty() || d.engine.scores().is_empty() {
            let why = if b.queries.is_empty() {
                "the bundle has no queries"
            } else {
                "no system to rank with (no embeddings, BM25 off)"
            };
            message(f, area, why, th.dim);
            return;
        }
        let list_w = (area.width * 3 / 10).clamp(26, 46).min(area.width / 2);
        let [left, right] =
            Layout::horizontal([Constraint::Length(list_w), Constraint::Min(10)]).areas(area);
        // The query list takes what it needs; the space below it shows the selected query
        // (text, tests, every system's result on it) when at least 8 rows are left, or a third
        // of a tall column.
        let n_list = filtered(d, &self.filter).len() as u16 + 3;
        let detail_h = match left.height.saturating_sub(n_list) {
            h if h >= 8 => h,
            _ if left.height >= 30 => left.height / 3,
            _ => 0,
        };
        if detail_h > 0 && v.shared.live.is_none() {
            let [list_area, detail_area] =
                Layout::vertical([Constraint::Min(3), Constraint::Length(detail_h)]).areas(left);
            self.draw_list(f, list_area, v, d);
            self.draw_query_detail(f, detail_area, v, d);
        } else {
            self.draw_list(f, left, v, d);
        }
        let rows = self.rows(d, v.shared);
        // The ranking takes what its rows need (at most 45%); the code panel the rest.
        let rank_h = (rows.len() as u16 + 3).max(6).min(right.height * 45 / 100);
        let [rank_area, code_area] =
            Layout::vertical([Constraint::Length(rank_h), Constraint::Min(4)]).areas(right);
        let sel = self.rank_sel.min(rows.len().saturating_sub(1));
        let focused = self.focus == Focus::Ranking || v.shared.live.is_some();
        let q = v.shared.query;
        // The title stays inside the top border: what does not fit is abbreviated, never cut.
        let title_w = rank_area.width.saturating_sub(2) as usize;
        let title = match &v.shared.live {
            Some((text, _)) if self.live_committed.as_ref() != Some(text) => Line::from(vec![
                Span::styled(" live BM25: ", th.title),
                Span::raw(format!("\"{text}\" ")),
            ]),
            Some((text, _)) => {
                let mut spans = vec![
                    Span::styled(" live: ", th.title),
                    Span::raw(format!("\"{text}\" ")),
                    Span::styled(
                        format!("under {} ", v.system_id(v.shared.system)),
                        th.accent,
                    ),
                ];
                let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                spans.extend(status_spans(
                    d,
                    v,
                    state.as_ref(),
                    title_w.saturating_sub(used),
                ));
                Line::from(spans)
            }
            None if self.session.count(q) > 0 => {
                let mut spans = vec![
                    Span::styled(format!(" {} edited ", b.queries[q].id), th.warn),
                    Span::styled(
                        format!("under {} ", v.system_id(v.shared.system)),
                        th.accent,
                    ),
                    Span::styled(format!("(k={}) ", v.k()), th.dim),
                ];
                let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                spans.extend(status_spans(
                    d,
                    v,
                    state.as_ref(),
                    title_w.saturating_sub(used),
                ));
                Line::from(spans)
            }
            None => Line::from(vec![
                Span::styled(format!(" {} ", b.queries[q].id), th.title),
                Span::styled(
                    format!("under {} ", v.system_id(v.shared.system)),
                    th.accent,
                ),
                Span::styled(format!("(k={}) ", v.k()), th.dim),
            ]),
        };
        let title = Line::from(fit_spans(title.spans, title_w));
        let blk = block(title, focused, th);
        let inner = blk.inner(rank_area);
        f.render_widget(blk, rank_area);
        self.page_rank.set(inner.height.saturating_sub(1) as usize);
        if self.compare && v.shared.live.is_none() {
            let other = query_ranking(d, v.shared.compare, q);
            ranking::side_by_side(
                f,
                inner,
                v,
                d,
                (rows.as_slice(), v.shared.system),
                (other.as_slice(), v.shared.compare),
                sel,
                RANKING,
            );
        } else if rows.is_empty() && want.is_some() {
            let sid = v.system_id(v.shared.system).to_string();
            let why = match state.as_ref() {
                Some(st) => match (st.busy.as_deref(), &st.report, &st.error) {
                    (Some(b), _, _) => format!("{} {b} …", v.spinner),
                    (None, Some(r), _) => r
                        .systems
                        .iter()
                        .find(|x| x.id == sid)
                        .and_then(|x| x.reason.clone())
                        .map_or_else(|| format!("{sid}: no results"), |w| format!("{sid}: {w}")),
                    (None, None, Some(e)) => e.clone(),
                    _ => String::new(),
                },
                None => format!("{} ranking …", v.spinner),
            };
            message(f, inner, &why, th.dim);
        } else {
            let query = v.shared.live.is_none().then_some(q);
            ranking::render(f, inner, v, d, query, &rows, sel, focused, RANKING);
        }
        let report = state.as_ref().and_then(|s| s.report.as_ref());
        if let Some(ed) = &self.editing {
            self.draw_editor(f, code_area, v, d, ed);
        } else if v.shared.live.is_none() && self.session.count(q) > 0 {
            self.draw_probe(f, code_area, v, report);
        } else if let Some(r) = rows.get(sel) {
            self.draw_code(f, code_area, v, d, r.corpus);
        }
    }
}

impl BrowserPane {
    fn draw_list(&self, f: &mut Frame, area: Rect, v: &View, d: &Data) {
        let th = v.theme;
        let b = &d.engine.bundle();
        let list = filtered(d, &self.filter);
        let title = if self.filter.is_empty() {
            Line::from(vec![
                Span::styled(" Queries ", th.title),
                Span::styled(format!("{} ", list.len()), th.dim),
            ])
        } else {
            Line::from(vec![
                Span::styled(" /", th.accent),
                Span::raw(format!("{} ", self.filter)),
                Span::styled(format!("{}/{} ", list.len(), b.queries.len()), th.dim),
            ])
        };
        let blk = block(
            title,
            self.focus == Focus::Queries && v.shared.live.is_none(),
            th,
        );
        let inner = blk.inner(area);
        f.render_widget(blk, area);
        let h = inner.height.saturating_sub(1) as usize;
        self.page_list.set(h);
        let k = v.k();
        let ki = v.shared.k_index;
        let eval = &d.engine.evals()[v.shared.system.min(d.engine.evals().len() - 1)];
        let mut lines = vec![Line::styled(
            crate::tui::widgets::text::fit(
                &format!(" id       exec@{k} function"),
                inner.width as usize,
            ),
            th.header,
        )];
        let pos = list.iter().position(|&q| q == v.shared.query);
        let offset = match pos {
            Some(p) if h > 0 && p >= h => p + 1 - h,
            _ => 0,
        };
        let w = inner.width as usize;
        for (i, &q) in list.iter().enumerate().skip(offset).take(h) {
            let query = &b.queries[q];
            let val = eval.per_query.get(q).map_or(f64::NAN, |e| e.exec[ki]);
            let (mark, st) = if val == 1.0 {
                ("  ✓  ", th.good)
            } else if val == 0.0 {
                ("  ✗  ", th.bad)
            } else {
                ("", th.warn)
            };
            let mark = if mark.is_empty() {
                format!("{val:>5.2}")
            } else {
                mark.to_string()
            };
            let name = if query.function_name.is_empty() {
                query.domain.as_str()
            } else {
                query.function_name.as_str()
            };
            let head = format!(" {:<8} ", query.id);
            let rest_w = w.saturating_sub(head.chars().count() + 6);
            let mut line = Line::from(vec![
                Span::raw(head),
                Span::styled(mark, st),
                Span::raw(format!(" {}", crate::tui::widgets::text::fit(name, rest_w))),
            ]);
            if Some(i) == pos {
                line = line.style(if self.focus == Focus::Queries {
                    th.selected
                } else {
                    th.selected_unfocused
                });
            }
            v.hits.push(
                Rect::new(inner.x, inner.y + 1 + (i - offset) as u16, inner.width, 1),
                Hit::Row {
                    list: QUERIES,
                    index: i,
                },
            );
            lines.push(line);
        }
        if list.is_empty() {
            lines.push(Line::styled(" no query matches", th.dim));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }

    /// The selected query: id, domain and function, its text, its tests and pool, and every
    /// system's exec@k on it (the current system marked).
    fn draw_query_detail(&self, f: &mut Frame, area: Rect, v: &View, d: &Data) {
        let th = v.theme;
        let b = d.engine.bundle();
        let Some(query) = b.queries.get(v.shared.query) else {
            return;
        };
        let ki = v.shared.k_index;
        let mut lines = vec![
            Line::from(vec![
                Span::styled(format!("{} ", query.function_name), th.accent),
                Span::styled(query.domain.clone(), th.dim),
            ]),
            Line::raw(query.text.clone()),
            Line::styled(
                format!(
                    "{} tests · {} paired distractors",
                    query.tests.len(),
                    query.paired.len()
                ),
                th.dim,
            ),
            Line::styled(format!("exec@{} per system", v.k()), th.header),
        ];
        for (s, (sys, ev)) in d.engine.scores().iter().zip(d.engine.evals()).enumerate() {
            let val = ev
                .per_query
                .get(v.shared.query)
                .map_or(f64::NAN, |e| e.exec[ki]);
            let (mark, st) = if val == 1.0 {
                ("✓", th.good)
            } else if val == 0.0 {
                ("✗", th.bad)
            } else {
                ("~", th.warn)
            };
            let mut line = Line::from(vec![
                Span::styled(format!(" {mark} "), st),
                Span::raw(format!("{val:.2} ")),
                Span::raw(sys.id.clone()),
            ]);
            if s == v.shared.system {
                line = line.style(th.selected_unfocused);
            }
            lines.push(line);
        }
        let title = Line::styled(format!(" {} ", query.id), th.title);
        f.render_widget(
            Paragraph::new(lines)
                .wrap(ratatui::widgets::Wrap { trim: true })
                .block(block(title, false, th)),
            area,
        );
    }

    fn draw_code(&self, f: &mut Frame, area: Rect, v: &View, d: &Data, c: usize) {
        fn canon_of_query(v: &View, b: &crate::bundle::Bundle) -> Option<usize> {
            b.queries
                .get(v.shared.query)
                .and_then(|q| q.correct.first().copied())
        }
        let th = v.theme;
        let b = &d.engine.bundle();
        let snip = &b.corpus[c];
        let meta = d.index.distractor.get(&snip.id).map(|&i| &b.distractors[i]);
        let canon = if v.shared.live.is_none() {
            b.queries[v.shared.query].correct.first().copied()
        } else {
            None
        };
        let kind = snip
            .bug_type
            .clone()
            .unwrap_or_else(|| snip.label.as_str().to_string());
        if self.diff {
            // A distractor is compared with its own canonical (the edit its metadata describes),
            // even when it was retrieved for another query; anything else with this query's.
            let own = meta.and_then(|m| b.corpus_row(&m.canonical_id));
            let Some(canon) = own.or(canon) else {
                let blk = block(" diff ", false, th);
                let inner = blk.inner(area);
                f.render_widget(blk, area);
                message(f, inner, "no canonical to compare with", th.dim);
                return;
            };
            let size = crate::analysis::deception::edit_size(&b.corpus[canon].code, &snip.code);
            let title = Line::from(vec![
                Span::styled(" diff ", th.title),
                Span::styled(format!("{} ", b.corpus[canon].id), th.diff_del),
                Span::styled(
                    if own.is_some() && own != canon_of_query(v, b) {
                        "(its own canonical) "
                    } else {
                        ""
                    },
                    th.dim,
                ),
                Span::raw("→ "),
                Span::styled(format!("{} ", snip.id), th.diff_add),
                Span::styled(
                    format!(
                        "({kind}, edit size {size}{}) ",
                        meta.map_or(String::new(), |m| format!(", {}", m.operator))
                    ),
                    th.dim,
                ),
            ]);
            let blk = block(title, false, th);
            let mut lines = Vec::new();
            if canon == c {
                lines.push(Line::styled(
                    "the canonical itself — select a distractor to see its edit",
                    th.dim,
                ));
            } else {
                if let Some(m) = meta {
                    lines.push(Line::styled(m.bug_description.clone(), th.warn));
                }
                lines.extend(diff::diff_lines(&b.corpus[canon].code, &snip.code, th));
            }
            f.render_widget(Paragraph::new(lines).block(blk), area);
            return;
        }
        let key = (c, th.kind == crate::tui::theme::ThemeKind::Dark, th.mono);
        let mut cache = self.code_cache.borrow_mut();
        if cache.as_ref().is_none_or(|(k, _)| *k != key) {
            *cache = Some((key, code::numbered(code::highlight(&snip.code, th), th)));
        }
        let mut lines = cache.as_ref().map(|(_, l)| l.clone()).unwrap_or_default();
        // Below the code: the query's tests with this snippet's cached outcome on each.
        if v.shared.live.is_none() {
            let q = v.shared.query;
            let query = &b.queries[q];
            let outcomes = d.index.outcomes(&d.engine, q, c);
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!(
                    "{}'s tests{}",
                    query.id,
                    if outcomes.is_some() {
                        " (this snippet's outcome)"
                    } else {
                        " (not in the execution cache for this snippet)"
                    }
                ),
                th.header,
            ));
            for (i, t) in query.tests.iter().enumerate() {
                let (g, st) = match outcomes.and_then(|o| o.get(i)) {
                    Some(o) => ranking::outcome_glyph(o, v),
                    None => ('·', th.dim),
                };
                lines.push(Line::from(vec![
                    Span::styled(format!(" {g} "), st),
                    Span::styled(t.clone(), th.dim),
                ]));
            }
            // Where every system ranks this snippet on the query (rank 1 = best; ties shared).
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                format!("{} on {} under every system", snip.id, query.id),
                th.header,
            ));
            let idw = d
                .engine
                .scores()
                .iter()
                .map(|s| s.id.chars().count())
                .max()
                .unwrap_or(4);
            for (s, sys) in d.engine.scores().iter().enumerate() {
                let row = sys.row(q);
                let sc = row[c];
                let above = row.iter().filter(|&&x| x > sc).count();
                let tied = row.iter().filter(|&&x| x == sc).count();
                let tie = if tied > 1 {
                    format!(" (tie of {tied})")
                } else {
                    String::new()
                };
                let mut line = Line::from(vec![
                    Span::styled(format!(" {:<idw$} ", sys.id), th.accent),
                    Span::raw(format!("rank {}{tie}  score {sc:.4}", above + 1)),
                ]);
                if s == v.shared.system {
                    line = line.style(th.selected_unfocused);
                }
                lines.push(line);
            }
            // Then the edits that make the query's paired distractors (the changed lines only;
            // cut at the panel's bottom on a small screen): what the systems had to tell apart.
            if let Some(&canon) = query.correct.first() {
                for &p in query.paired.iter().filter(|&&p| p != c) {
                    let ps = &b.corpus[p];
                    let desc = d.index.distractor.get(&ps.id).map_or(String::new(), |&i| {
                        format!(" — {}", b.distractors[i].bug_description)
                    });
                    lines.push(Line::raw(""));
                    lines.push(Line::from(vec![
                        Span::styled(format!("{} → {} ", b.corpus[canon].id, ps.id), th.header),
                        Span::styled(
                            format!("{}{desc}", ps.bug_type.as_deref().unwrap_or("")),
                            th.dim,
                        ),
                    ]));
                    lines.extend(
                        diff::diff_lines(&b.corpus[canon].code, &ps.code, th)
                            .into_iter()
                            .filter(|l| {
                                l.spans
                                    .first()
                                    .is_some_and(|s| s.content.starts_with(['-', '+']))
                            }),
                    );
                }
            }
        }
        let title = Line::from(vec![
            Span::styled(format!(" {} ", snip.id), th.title),
            Span::styled(
                format!(
                    "{kind}{} ",
                    meta.map_or(String::new(), |m| format!(" — {}", m.bug_description))
                ),
                th.dim,
            ),
        ]);
        f.render_widget(Paragraph::new(lines).block(block(title, false, th)), area);
    }
}
