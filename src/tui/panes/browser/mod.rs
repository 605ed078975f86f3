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
//!
//! Files: this one holds the pane's state, its key handling and the layout of its areas;
//! `query_list` draws the left column (queries, the selected query), `ranking_panel` the ranking
//! and its title, `snippet` the code panel below it; `edit` the inline and external editors and
//! `probe` the probing service and the edit report.

mod edit;
mod probe;
mod query_list;
mod ranking;
mod ranking_panel;
mod snippet;
mod tables;

use super::{step, Cx, Effect, Pane, PaneId};
use crate::probe::live::{LiveProbe, LiveState};
use crate::probe::session::{Edit, Session, Target};
use crate::probe::{ProbeQuery, ProbeReport, ProbeRequest};
use crate::tui::actions::{Action, Hit};
use crate::tui::fuzzy;
use crate::tui::view::{Data, Settings, Shared, View};
use crate::tui::widgets::chrome::block;
use crate::tui::widgets::chrome::message;
use probe::{live_rows, report_rows};
use ranking::RankRow;
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
    live: Option<LiveProbe>,
    /// The request (and tie policy) last submitted to it.
    live_sent: Option<(ProbeRequest, crate::metrics::TiePolicy)>,
    /// This session's edits, mirrored to a scratch directory of this dashboard's own (so a
    /// crash loses nothing), removed with the pane when the dashboard closes.
    pub session: Session,
    /// The inline editor (`e`), while open.
    pub editing: Option<edit::Editing>,
    /// The snippet handed to `$EDITOR`, until the main loop says the editor closed.
    external: Option<edit::External>,
    /// The last answered request for which one more frame was asked (so the answer is drawn).
    ticked_done: Cell<u64>,
    /// The live-query text Enter was pressed on: the dense systems rank it (BM25 ranks as
    /// the text is typed).
    live_committed: Option<String>,
}

impl Default for BrowserPane {
    fn default() -> Self {
        // One scratch directory per dashboard: another one in the same process (tests) never
        // shares or removes it.
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("execscope-session-{}-{n}", std::process::id()));
        BrowserPane {
            filter: String::new(),
            focus: Focus::default(),
            rank_sel: 0,
            diff: false,
            compare: false,
            page_list: Cell::default(),
            page_rank: Cell::default(),
            code_cache: RefCell::default(),
            live: None,
            live_sent: None,
            session: Session::new(dir),
            editing: None,
            external: None,
            ticked_done: Cell::default(),
            live_committed: None,
        }
    }
}

impl Drop for BrowserPane {
    /// The session's scratch directory goes with the dashboard (`q`); after a panic it stays,
    /// with the edits it mirrors.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(self.session.dir());
        }
    }
}

/// Queries matching `filter`, best first (all, in bundle order, without a filter). In a bundle
/// of several languages the query's language is matched too (`/c++`, `/go`).
pub fn filtered(d: &Data, filter: &str) -> Vec<usize> {
    let b = &d.engine.bundle();
    let several = crate::view::languages::multilingual(&crate::view::languages::mix(b));
    let hay: Vec<String> = b
        .queries
        .iter()
        .map(|q| match several {
            true => format!(
                "{} {} {} {} {}",
                q.id,
                q.function_name,
                q.domain,
                q.language.display_name(),
                q.text
            ),
            false => format!("{} {} {} {}", q.id, q.function_name, q.domain, q.text),
        })
        .collect();
    fuzzy::filter(filter, hay.iter().map(String::as_str))
}

/// The ranking rows shown for system `s` on query `q`: its top [`DEPTH`] under the session's
/// tie policy and ε (the core's [`crate::view::ranking::query_ranking`]), each counted at `k`.
pub fn query_ranking(d: &Data, s: usize, q: usize, k: usize) -> Vec<RankRow> {
    let e = &d.engine;
    crate::view::ranking::query_ranking(e, s, q, DEPTH, k)
        .into_iter()
        .map(|r| RankRow {
            corpus: r.corpus,
            score: f64::from(r.score),
            tie: r.tie,
            pass: Some(r.pass),
            counted: r.counted,
            outcomes: d.index.outcomes(e, q, r.corpus).map(<[String]>::to_vec),
        })
        .collect()
}

impl BrowserPane {
    fn rows(&self, d: &Data, settings: &Settings, shared: &Shared) -> Vec<RankRow> {
        let k = settings.k();
        let probed = self
            .wanted(d, shared, k)
            .and_then(|w| self.live_state(&w))
            .and_then(|st| st.report)
            .and_then(|r| report_rows(d, &r, settings.system, k));
        match (&shared.live, probed) {
            (_, Some(rows)) => rows,
            // Before Enter, for BM25 itself, and for a dense system that cannot run here (no
            // model): the live BM25 ranking, which the title then names.
            (Some((text, live)), None)
                if self.live_committed.as_ref() != Some(text)
                    || !d.engine.scores()[settings.system].is_dense()
                    || self.live_unavailable(d, settings, shared) =>
            {
                live_rows(live, k, settings.policy())
            }
            (Some(_), None) => Vec::new(),
            (None, None) => query_ranking(d, settings.system, shared.query, k),
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

    /// The committed live query's answer says the selected system cannot rank it here.
    pub(super) fn live_unavailable(&self, d: &Data, settings: &Settings, shared: &Shared) -> bool {
        let id = &d.engine.scores()[settings.system].id;
        self.wanted(d, shared, settings.k())
            .and_then(|w| self.live_state(&w))
            .and_then(|st| st.report)
            .is_some_and(|r| r.systems.iter().any(|x| &x.id == id && x.status != "ok"))
    }

    /// The selected position in a ranking of `n` rows.
    fn rank_index(&self, n: usize) -> usize {
        self.rank_sel.min(n.saturating_sub(1))
    }
}

impl Pane for BrowserPane {
    fn kind(&self) -> PaneId {
        PaneId::Browser
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        ranking::LEGEND
    }

    fn export_tables(&self, v: &View) -> Vec<crate::report::Table> {
        self.tables(v)
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(d) = cx.data.filter(|d| !d.engine.scores().is_empty()) else {
            return false;
        };
        let nav = action.moves_selection();
        let live = cx.shared.live.is_some();
        match action {
            _ if nav && (self.focus == Focus::Ranking || live) => {
                let n = self.rows(d, cx.settings, cx.shared).len();
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
                if self.compare && cx.settings.compare == cx.settings.system {
                    cx.settings.compare = (cx.settings.system + 1) % d.engine.scores().len().max(1);
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

    /// Submit the probe the state wants answered (a committed live query, the current query's
    /// edits) to the probing service, starting it on first use.
    fn sync(&mut self, data: Option<&Data>, settings: &Settings, shared: &Shared) {
        let Some(d) = data.filter(|d| !d.engine.scores().is_empty()) else {
            return;
        };
        if let Some(w) = self.wanted(d, shared, settings.k()) {
            self.submit(d, &w);
        }
    }

    fn captures_input(&self) -> bool {
        self.editing.is_some()
    }

    fn editor_closed(&mut self, result: Result<(), String>, cx: &mut Cx) {
        self.external_closed(result, cx);
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(d) = v.data else { return };
        // What `sync` submitted; drawing only reads the service's state.
        let want = (!d.engine.scores().is_empty())
            .then(|| self.wanted(d, v.shared, v.k()))
            .flatten();
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
        let rows = self.rows(d, v.settings, v.shared);
        // The ranking takes what its rows need (at most 45%); the code panel the rest.
        let rank_h = (rows.len() as u16 + 3).max(6).min(right.height * 45 / 100);
        let [rank_area, code_area] =
            Layout::vertical([Constraint::Length(rank_h), Constraint::Min(4)]).areas(right);
        let sel = self.rank_index(rows.len());
        self.draw_ranking(f, rank_area, v, &rows, want.is_some(), state.as_ref());
        let q = v.shared.query;
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
