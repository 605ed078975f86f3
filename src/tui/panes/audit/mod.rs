//! Pane 7: the retrieval audit of the current system — its top k per query as the candidate
//! pool, the first m tests of each suite as the "self-tests", the whole suite as the oracle.
//!
//! Every number is the audit's own: the summary and admission tables are
//! `report::audit::AuditTables` (what `execscope audit` prints) and the task list, candidates,
//! evidence and per-test outcomes come from `audit::view::AuditView`. The audit may start the
//! oracle and run tens of seconds on a large bundle, so it runs as a background job, only when
//! the user presses Enter here.
//!
//! The pool is taken in the session's tie order (`t` changes it, and drops a finished audit),
//! named in the pane's titles and in the export's captions; under expected ties, which have no
//! single order, the pane refuses as `execscope audit --ties expected` does and says what to
//! press. Files: `idle` before a run, `result` after it.

mod idle;
mod result;

pub use idle::{no_single_order, Preview};
pub use result::{pool_marks, task_table};

use super::{step, Cx, Effect, Pane, PaneId};
use crate::metrics::TiePolicy;
use crate::report::audit::AuditTables;
use crate::report::Table;
use crate::tui::actions::Action;
use crate::tui::jobs::AuditResult;
use crate::tui::view::{AuditSlot, Data, Settings, Shared, View};
use crate::tui::widgets::chrome::{block, framed, message};
use crate::tui::widgets::table::TableView;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;
use std::cell::Cell as StdCell;

/// Pool size: the system's top k per query.
pub const K: usize = crate::audit::retrieval::DEFAULT_K;
/// Visible-test counts `v` cycles through.
pub const MAX_VISIBLE: usize = 5;

const TASKS: u8 = 0;

/// What a pool preview was built for: (data generation, system, tie policy).
type PreviewKey = (u64, usize, TiePolicy);

pub struct AuditPane {
    /// Self-tests per query (the first m of the suite).
    pub visible: usize,
    /// Selected task (row of the task list).
    pub task: usize,
    /// Selected candidate of the opened task.
    pub cand: usize,
    /// The selected task's candidates are open (Enter; Esc closes).
    pub open: bool,
    /// Steps ←/→ took through the result tables' columns that do not fit (0: none focused).
    pub col: usize,
    page: StdCell<usize>,
    /// Before a run: the first query of the pool list shown (↑/↓ scroll it), and the list's
    /// page height as last drawn (0: every pair fits).
    pool_top: usize,
    pool_page: StdCell<usize>,
    /// The pools the audit would take, per (data generation, system, tie policy): built by
    /// `sync` when any changes, read by `draw`. One, in the session's order; under expected
    /// ties (no single order), the pool of each order the audit can take, for comparison.
    preview: Option<(PreviewKey, Vec<(TiePolicy, Preview)>)>,
    /// The report's tables of the finished audit (by its request's token), formatted by `sync`
    /// from the core's run.
    tables: Option<(u64, AuditTables)>,
}

impl AuditPane {
    /// The report's tables of audit `a` (`execscope audit`'s): formatted once by `sync`, or
    /// here when `sync` has not seen this result yet.
    fn tables<'a>(&'a self, a: &AuditResult) -> std::borrow::Cow<'a, AuditTables> {
        match &self.tables {
            Some((token, t)) if *token == a.request.token => std::borrow::Cow::Borrowed(t),
            _ => std::borrow::Cow::Owned(AuditTables::build(&a.run.pools, &a.run.audits)),
        }
    }
}

impl Default for AuditPane {
    fn default() -> Self {
        AuditPane {
            visible: crate::audit::retrieval::DEFAULT_VISIBLE,
            task: 0,
            cand: 0,
            open: false,
            col: 0,
            page: StdCell::new(1),
            pool_top: 0,
            pool_page: StdCell::new(0),
            preview: None,
            tables: None,
        }
    }
}

/// The finished audit of the current system under the session's tie policy, if any.
fn current<'a>(slot: &'a AuditSlot, settings: &Settings) -> Option<&'a AuditResult> {
    match slot {
        AuditSlot::Done(a) if settings.is_current(&a.request) => Some(a),
        _ => None,
    }
}

impl Pane for AuditPane {
    fn kind(&self) -> PaneId {
        PaneId::Audit
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("✓", "the verdict holds (pass)"),
            ("✗", "fails (from the execution cache)"),
            ("?", "not cached: runs in the oracle sandbox"),
            ("·", "pool mark: fails"),
            ("…", "more rows than fit"),
            (
                "▲ ▼",
                "pool rows above / below the visible ones (↑/↓ scroll)",
            ),
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<Table> {
        match v.data.and_then(|d| current(&d.audit, v.settings)) {
            Some(a) => self.tables(a).all().into_iter().cloned().collect(),
            None => Vec::new(),
        }
    }

    /// The pool preview of the current system under the session's tie policy, built when the
    /// data, the system or the policy changed; the report's tables of a finished audit.
    fn sync(&mut self, data: Option<&Data>, settings: &Settings, _shared: &Shared) {
        let Some(d) = data.filter(|d| settings.system < d.engine.scores().len()) else {
            return;
        };
        let key = (d.gen, settings.system, settings.policy());
        if self.preview.as_ref().is_none_or(|(k, _)| *k != key) {
            self.pool_top = 0;
            let orders = match settings.policy() {
                TiePolicy::Expected => {
                    vec![
                        TiePolicy::Row,
                        TiePolicy::Pessimistic,
                        TiePolicy::Optimistic,
                    ]
                }
                p => vec![p],
            };
            let pools = orders
                .into_iter()
                .filter_map(|p| Some((p, Preview::build(d, settings.system, p)?)))
                .collect();
            self.preview = Some((key, pools));
        }
        if let AuditSlot::Done(a) = &d.audit {
            if self
                .tables
                .as_ref()
                .is_none_or(|(t, _)| *t != a.request.token)
            {
                let t = AuditTables::build(&a.run.pools, &a.run.audits);
                self.tables = Some((a.request.token, t));
            }
        }
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(d) = cx.data else { return false };
        let done = current(&d.audit, cx.settings);
        match action {
            Action::Enter => match done {
                Some(_) if !self.open => {
                    self.open = true;
                    self.cand = 0;
                }
                Some(_) => {}
                None if matches!(d.audit, AuditSlot::Running(..)) => {}
                // The audit's own refusal: expected ties have no single pool order.
                None if cx.settings.policy() == TiePolicy::Expected => {
                    cx.effects.push(Effect::Status(format!(
                        "audit: {}; t picks the next tie policy",
                        crate::audit::retrieval::NO_SINGLE_ORDER
                    )));
                }
                None => {
                    self.open = false;
                    self.task = 0;
                    cx.effects.push(Effect::RunAudit {
                        k: K,
                        visible: self.visible,
                    });
                }
            },
            Action::Back if self.open => self.open = false,
            Action::CycleVisible => {
                self.visible = self.visible % MAX_VISIBLE + 1;
                self.open = false;
                cx.effects.push(Effect::ClearAudit);
                cx.effects.push(Effect::Status(format!(
                    "visible tests m = {}: Enter runs the audit",
                    self.visible
                )));
            }
            _ if action.moves_selection() => match done {
                Some(a) if self.open => {
                    let n = a
                        .view
                        .tasks
                        .get(self.task)
                        .map_or(0, |t| t.candidates.len());
                    self.cand = step(self.cand, n, action, 6);
                }
                Some(a) => {
                    self.task = step(self.task, a.view.tasks.len(), action, self.page.get());
                }
                None => {
                    // Before a run: scroll the pool list (when it does not fit).
                    let page = self.pool_page.get();
                    let n = self
                        .preview
                        .as_ref()
                        .and_then(|(_, p)| p.first())
                        .map_or(0, |(_, p)| p.pools.len());
                    if page == 0 || n <= page {
                        return false;
                    }
                    self.pool_top = step(self.pool_top, n - page + 1, action, page);
                }
            },
            Action::Left => self.col = self.col.saturating_sub(1),
            Action::Right => {
                let Some(a) = done else { return false };
                let widest = self
                    .tables(a)
                    .all()
                    .iter()
                    .map(|t| t.headers.len())
                    .max()
                    .unwrap_or(0);
                let widest = widest.max(task_table(a).headers.len());
                self.col = (self.col + 1).min(widest.saturating_sub(1));
            }
            Action::Click(crate::tui::actions::Hit::Row { list: TASKS, index }) => {
                self.task = *index;
                self.open = false;
            }
            _ => return false,
        }
        true
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let Some(d) = v.data else {
            message(f, area, &v.pending("bundle"), th.accent);
            return;
        };
        let sys = v.system_id(v.settings.system).to_string();
        if d.engine.scores().is_empty() {
            message(f, area, "no systems to audit", th.dim);
            return;
        }
        let a = match &d.audit {
            AuditSlot::Running(r, p) if v.settings.is_current(r) => {
                let prog = p.text().map_or(String::new(), |t| format!(" ({t})"));
                message(
                    f,
                    area,
                    &format!(
                        "{} auditing {sys}: top {} ({}), {} visible tests{prog} …",
                        v.spinner,
                        r.k,
                        crate::view::ranking::order_note(r.ties),
                        r.visible
                    ),
                    th.accent,
                );
                return;
            }
            AuditSlot::Failed(r, e) if v.settings.is_current(r) => {
                let p = Paragraph::new(vec![
                    Line::styled(format!("retrieval audit of {sys} failed:"), th.bad),
                    Line::raw(e.to_string()),
                    Line::raw(""),
                    Line::styled("Enter: try again".to_string(), th.dim),
                ])
                .wrap(Wrap { trim: false })
                .block(block(" Audit ", true, th));
                f.render_widget(p, area);
                return;
            }
            AuditSlot::Done(a) if v.settings.is_current(&a.request) => a,
            _ => {
                self.draw_idle(f, area, v, d, &sys);
                return;
            }
        };
        self.draw_result(f, area, v, a);
    }
}

impl AuditPane {
    /// A finished audit: the summary tables on top, the task list over the selected task (or,
    /// with a task open, beside its candidates).
    fn draw_result(&self, f: &mut Frame, area: Rect, v: &View, a: &AuditResult) {
        let th = v.theme;
        let summary_h: u16 = self
            .tables(a)
            .summary()
            .iter()
            .map(|t| t.rows.len() as u16 + 2)
            .sum::<u16>()
            + 1;
        let [top, bottom] =
            Layout::vertical([Constraint::Length(summary_h), Constraint::Min(5)]).areas(area);
        self.draw_summary(f, top, v, a);
        let [left, right] = if self.open {
            Layout::horizontal([Constraint::Percentage(28), Constraint::Min(30)]).areas(bottom)
        } else {
            Layout::vertical([Constraint::Min(4), Constraint::Length(8)]).areas(bottom)
        };
        let t = task_table(a);
        let inner = framed(
            f,
            left,
            Line::from(vec![
                Span::styled(" Tasks ", th.title),
                Span::styled("(first-admitted return per predicate) ", th.dim),
            ]),
            !self.open,
            th,
        );
        self.page.set(inner.height.saturating_sub(1) as usize);
        let order: Vec<usize> = (0..t.rows.len()).collect();
        TableView {
            table: &t,
            order: &order,
            selected: Some(self.task.min(order.len().saturating_sub(1))),
            focused: !self.open,
            sort: None,
            frozen: 1,
            focus_col: self.focus_col(&t, 1),
            cell_style: None,
            list: TASKS,
        }
        .render(f, inner, th, v.hits);
        let Some(task) = a.view.tasks.get(self.task) else {
            return;
        };
        if self.open {
            self.draw_candidates(f, right, v, task);
        } else {
            self.draw_task(f, right, v, a, task);
        }
    }
}
