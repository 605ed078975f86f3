//! Pane 7: the retrieval audit of the current system — its top k per query as the candidate
//! pool, the first m tests of each suite as the "self-tests", the whole suite as the oracle.
//!
//! Every number is the audit's own: the summary and admission tables are
//! `report::audit::AuditTables` (what `execscope audit` prints) and the task list, candidates,
//! evidence and per-test outcomes come from `audit::view::AuditView`. The audit may start the
//! oracle and run tens of seconds on a large bundle, so it runs as a background job, only when
//! the user presses Enter here.

use super::{step, Cx, Effect, Pane, PaneId};
use crate::audit::account::Choice;
use crate::audit::view::{CandidateView, TaskView};
use crate::report::audit::AuditTables;
use crate::report::{Align, Table, TableCell};
use crate::tui::actions::Action;
use crate::tui::jobs::AuditResult;
use crate::tui::view::{AuditSlot, View};
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::chrome::{block, fit_title, framed};
use crate::tui::widgets::table::TableView;
use crate::tui::widgets::{code, scroll_offset};
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
    /// The pool the audit would take, per (data generation, system): built by `sync` when
    /// either changes, read by `draw`.
    preview: Option<((u64, usize), Preview)>,
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

/// The pool an audit of one system would take, before it runs: per query its top [`K`] in pool
/// order (row order inside ties, as the audit), each pair's cached verdict if the execution cache
/// has it.
#[derive(Clone, Debug, Default)]
pub struct Preview {
    /// Per query: (query row, per rank `Some(passes)` if cached, `None` if the oracle must run it).
    pub pools: Vec<(usize, Vec<Option<bool>>)>,
    /// Per query: the pool's corpus rows, in rank order.
    pub rows: Vec<Vec<usize>>,
    pub pairs: usize,
    pub cached: usize,
}

impl Preview {
    pub fn build(d: &crate::tui::view::Data, s: usize) -> Preview {
        let e = &d.engine;
        let mut p = Preview::default();
        for q in 0..e.bundle().queries.len() {
            let top = crate::rank::top_k(e.scores()[s].row(q), K);
            let marks: Vec<Option<bool>> = top
                .iter()
                .map(|&c| e.cache_index().verdict(e.bundle(), q, c as usize))
                .collect();
            p.rows.push(top.iter().map(|&c| c as usize).collect());
            p.pairs += marks.len();
            p.cached += marks.iter().filter(|m| m.is_some()).count();
            p.pools.push((q, marks));
        }
        p
    }
}

/// How the oracle will isolate the pairs it runs (the same choice as `execscope build`).
fn isolation_text() -> String {
    match std::env::var("EXECSCOPE_ISOLATION") {
        Ok(s) if !s.trim().is_empty() => format!("{s} (set by EXECSCOPE_ISOLATION)"),
        _ => "auto: the strongest level that passes a start-up probe (userns, then bubblewrap, \
              then netns); weaker isolation is refused unless asked for (docs/threat-model.md)"
            .to_string(),
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
            preview: Default::default(),
            tables: None,
        }
    }
}

/// The finished audit of the current system, if any.
fn current(slot: &AuditSlot, system: usize) -> Option<&AuditResult> {
    match slot {
        AuditSlot::Done(a) if a.request.system == system => Some(a),
        _ => None,
    }
}

fn choice_text(c: Choice, cand: Option<usize>, task: &TaskView) -> String {
    let label = cand
        .and_then(|i| task.candidates.get(i))
        .map_or(String::new(), |c| {
            // Labels read `rank 3 c_0005` / `sample 2`: the number is the pool position.
            c.label.split_whitespace().nth(1).unwrap_or("?").to_string()
        });
    match c {
        Choice::Pass => format!("pass #{label}"),
        Choice::Nonpass => format!("FAIL #{label}"),
        Choice::Abstain => "abstain".to_string(),
    }
}

/// One short mark per candidate in pool order: each evidence verdict's initial if it holds, `·`
/// if not (the view's badge with one letter per verdict, so ten candidates fit a list cell).
pub fn pool_marks(task: &TaskView) -> String {
    task.candidates
        .iter()
        .map(|c| {
            c.evidence
                .iter()
                .map(|(n, v)| {
                    if v.ok {
                        n.chars().next().unwrap_or('?')
                    } else {
                        '·'
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The task list as a table: id, function, first-admitted return per predicate, pool marks.
pub fn task_table(a: &AuditResult) -> Table {
    let v = &a.view;
    let mut t = Table::new("audit-tasks", "Tasks")
        .column("task", "task", Align::Left)
        .column("function", "function", Align::Left);
    for p in &v.predicates {
        t = t.column(&format!("first {p}"), &format!("first_{p}"), Align::Left);
    }
    let names: Vec<String> = v
        .evidence_names
        .iter()
        .map(|n| n.chars().next().unwrap_or('?').to_string())
        .collect();
    t = t.column(
        &format!("pool ({} per rank)", names.join("")),
        "pool",
        Align::Left,
    );
    for task in &v.tasks {
        let mut row = vec![
            TableCell::text(&task.task_id),
            TableCell::text(&task.function_name),
        ];
        for (_, cand, ch) in &task.first_admitted {
            row.push(TableCell::text(choice_text(*ch, *cand, task)));
        }
        row.push(TableCell::text(pool_marks(task)));
        t.push(row);
    }
    t
}

impl AuditPane {
    /// Before a run: what the audit will do, the key that starts it, the isolation it runs
    /// under, and the pool it would audit (with what the execution cache already knows).
    fn draw_idle(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        d: &crate::tui::view::Data,
        sys: &str,
    ) {
        let th = v.theme;
        let key = (d.gen, v.shared.system);
        let Some((_, p)) = self.preview.as_ref().filter(|(k, _)| *k == key) else {
            message(f, area, &v.pending("the audit's pool"), th.accent);
            return;
        };
        let nq = p.pools.len();
        let m = self.visible;
        let run = p.pairs - p.cached;
        let lines = vec![
            Line::from(vec![
                Span::styled("Press Enter", th.accent),
                Span::raw(format!(" to audit {sys}'s retrieval ")),
                Span::styled(format!("(v: visible tests m = {m}, 1–{MAX_VISIBLE})"), th.dim),
            ]),
            Line::raw(format!(
                "What it does: {sys}'s top {K} snippets per query form the candidate pool; the first {m} tests of each suite serve as self-tests, the whole suite as the oracle. It counts how often each admission rule (take the top k; take the first candidate passing the self-tests) returns a snippet that passes the whole suite."
            )),
            Line::from(vec![
                Span::styled("Pool: ", th.accent),
                Span::raw(format!(
                    "{nq} queries × top {K} = {} pairs; {} in the execution cache, {run} to run in the oracle sandbox",
                    p.pairs, p.cached
                )),
            ]),
            Line::from(vec![
                Span::styled("Isolation: ", th.accent),
                Span::raw(isolation_text()),
            ]),
        ];
        let inner = framed(
            f,
            area,
            Line::styled(format!(" Audit of {sys} — not run yet "), th.title),
            true,
            th,
        );
        // Rows the wrapped text takes: the character count's, plus one row of slack for word
        // wrapping of each line that wraps more than once.
        let w = inner.width.max(1) as usize;
        let text_h = lines
            .iter()
            .map(|l| {
                let rows = l.width().div_ceil(w).max(1);
                rows + usize::from(rows > 2)
            })
            .sum::<usize>()
            .min(inner.height as usize) as u16;
        let para = Paragraph::new(lines).wrap(Wrap { trim: true });
        let [top, rest] =
            Layout::vertical([Constraint::Length(text_h + 1), Constraint::Min(0)]).areas(inner);
        f.render_widget(para, top);
        if rest.height < 2 {
            return;
        }
        // The pool, one line per query: ✓ cached pass, ✗ cached fail, ? to run.
        let b = d.engine.bundle();
        let mut out = vec![Line::styled(
            crate::tui::widgets::text::fit(
                &format!("pool, ranks 1–{K}: ✓ pass · ✗ fail (cached) · ? to run"),
                rest.width as usize,
            ),
            th.header,
        )];
        // Room for every pair on its own line (a small bundle on a tall screen): the pairs by id.
        let every = p.pools.iter().map(|(_, m)| m.len() + 1).sum::<usize>() + 1;
        if every <= rest.height as usize {
            for ((q, marks), rows) in p.pools.iter().zip(&p.rows) {
                let query = &b.queries[*q];
                out.push(Line::from(vec![
                    Span::styled(format!("{} ", query.id), th.accent),
                    Span::styled(query.function_name.clone(), th.dim),
                ]));
                for (r, (mk, &c)) in marks.iter().zip(rows).enumerate() {
                    let (g, st, what) = match mk {
                        Some(true) => ("✓", th.good, "passes (cached)"),
                        Some(false) => ("✗", th.bad, "fails (cached)"),
                        None => ("?", th.warn, "to run in the sandbox"),
                    };
                    let role = if query.correct.contains(&c) {
                        "canonical".to_string()
                    } else {
                        b.corpus[c]
                            .bug_type
                            .clone()
                            .unwrap_or_else(|| b.corpus[c].label.as_str().to_string())
                    };
                    out.push(Line::from(vec![
                        Span::raw(format!("  {:>2} {} ", r + 1, b.corpus[c].id)),
                        Span::styled(format!("{g} "), st),
                        Span::styled(format!("{what:<22}"), st),
                        Span::styled(role, th.dim),
                    ]));
                }
            }
            f.render_widget(Paragraph::new(out), rest);
            return;
        }
        let idw = p
            .pools
            .iter()
            .map(|(q, _)| b.queries[*q].id.chars().count())
            .max()
            .unwrap_or(6);
        for (q, marks) in p.pools.iter().take(rest.height as usize - 1) {
            let query = &b.queries[*q];
            let mut spans = vec![Span::raw(format!("{:<idw$}  ", query.id))];
            for mk in marks {
                spans.push(match mk {
                    Some(true) => Span::styled("✓", th.good),
                    Some(false) => Span::styled("✗", th.bad),
                    None => Span::styled("?", th.warn),
                });
            }
            spans.push(Span::styled(
                format!(
                    "{}  {}",
                    " ".repeat(K + 1 - marks.len()),
                    query.function_name
                ),
                th.dim,
            ));
            out.push(Line::from(spans));
        }
        if nq + 1 > rest.height as usize {
            out.pop();
            out.push(Line::styled(
                format!("… {} more queries", nq + 2 - rest.height as usize),
                th.dim,
            ));
        }
        f.render_widget(Paragraph::new(out), rest);
    }

    /// The column of table `t` (with `frozen` leading columns) that ←/→ brought into view.
    fn focus_col(&self, t: &Table, frozen: usize) -> Option<usize> {
        (self.col > 0).then(|| (frozen - 1 + self.col).min(t.headers.len().saturating_sub(1)))
    }

    fn draw_summary(&self, f: &mut Frame, area: Rect, v: &View, a: &AuditResult) {
        let th = v.theme;
        let inner = framed(
            f,
            area,
            Line::styled(format!(" {} ", a.view.title), th.title),
            false,
            th,
        );
        let mut y = inner.y;
        let tables = self.tables(a);
        for t in tables.summary() {
            let h = (t.rows.len() as u16 + 1).min(inner.bottom().saturating_sub(y));
            let r = Rect::new(inner.x, y, inner.width, h);
            let order: Vec<usize> = (0..t.rows.len()).collect();
            TableView {
                focus_col: self.focus_col(t, 2),
                ..TableView::plain(t, &order, 2, 9)
            }
            .render(f, r, th, v.hits);
            y = y.saturating_add(h + 1);
        }
    }

    fn draw_task(&self, f: &mut Frame, area: Rect, v: &View, a: &AuditResult, task: &TaskView) {
        let th = v.theme;
        let mut lines = vec![Line::from(vec![
            Span::styled(task.task_id.clone(), th.accent),
            Span::raw(format!(" {}()", task.function_name)),
            Span::styled(format!("  {} candidates", task.candidates.len()), th.dim),
        ])];
        for (p, cand, ch) in &task.first_admitted {
            let st = match ch {
                Choice::Pass => th.good,
                Choice::Nonpass => th.bad,
                Choice::Abstain => th.warn,
            };
            let what = cand
                .and_then(|i| task.candidates.get(i))
                .map_or("no candidate admitted".to_string(), |c| c.label.clone());
            lines.push(Line::from(vec![
                Span::raw(format!("first admitted by {p:<6} ")),
                Span::raw(format!("{what} → ")),
                Span::styled(format!("{ch:?}").to_lowercase(), st),
            ]));
        }
        lines.push(Line::styled(
            format!(
                "pool marks: one per rank, {} = verdict holds, · = fails",
                a.view.evidence_names.join(" / ")
            ),
            th.dim,
        ));
        // The oracle's isolation goes in the border (one line, machine-dependent); the cache /
        // oracle counts stay in the body.
        let mut oracle = None;
        for p in &a.view.provenance {
            if p.starts_with("oracle isolation") {
                oracle = Some(p.clone());
            } else {
                lines.push(Line::styled(p.clone(), th.dim));
            }
        }
        lines.push(Line::styled(
            "Enter: open this task's candidates".to_string(),
            th.accent,
        ));
        let mut blk = block(" Task ", false, th);
        if let Some(o) = oracle {
            blk = blk.title_bottom(Line::styled(format!(" {o} "), th.dim));
        }
        f.render_widget(
            Paragraph::new(lines).block(blk).wrap(Wrap { trim: true }),
            area,
        );
    }

    fn draw_candidates(&self, f: &mut Frame, area: Rect, v: &View, task: &TaskView) {
        let th = v.theme;
        let n = task.candidates.len();
        let list_h = (n.min(6) as u16) + 2;
        let [list, code_area, tests_area] = Layout::vertical([
            Constraint::Length(list_h),
            Constraint::Min(3),
            Constraint::Length(
                task.candidates
                    .get(self.cand)
                    .map_or(3, |c| c.tests.len() as u16 + 3),
            ),
        ])
        .areas(area);
        let inner = framed(
            f,
            list,
            Line::styled(
                format!(" {} candidates (Esc closes) ", task.task_id),
                th.title,
            ),
            true,
            th,
        );
        let body = inner.height as usize;
        let sel = self.cand.min(n.saturating_sub(1));
        let offset = scroll_offset(sel, body);
        let lw = task
            .candidates
            .iter()
            .map(|c| c.label.chars().count())
            .max()
            .unwrap_or(8);
        let bw = task
            .candidates
            .iter()
            .map(|c| c.badge.chars().count())
            .max()
            .unwrap_or(4);
        let mut lines = Vec::new();
        for (i, c) in task.candidates.iter().enumerate().skip(offset).take(body) {
            let admitted: Vec<String> = c
                .admitted
                .iter()
                .map(|(p, ok)| format!("{p} {}", if *ok { "✓" } else { "·" }))
                .collect();
            let mut line = Line::from(vec![
                Span::raw(format!("{:<lw$}  ", c.label)),
                Span::styled(format!("{:<bw$}  ", c.badge), th.accent),
                Span::styled(format!("admitted: {}  ", admitted.join(" ")), th.dim),
                if c.pass {
                    Span::styled("P+ pass", th.good)
                } else {
                    Span::styled("P+ fail", th.bad)
                },
            ]);
            if i == sel {
                line = line.style(th.selected);
            }
            lines.push(line);
        }
        f.render_widget(Paragraph::new(lines), inner);
        let Some(c) = task.candidates.get(sel) else {
            return;
        };
        self.draw_candidate(f, code_area, tests_area, v, c);
    }

    fn draw_candidate(
        &self,
        f: &mut Frame,
        code_area: Rect,
        tests_area: Rect,
        v: &View,
        c: &CandidateView,
    ) {
        let th = v.theme;
        let lines = code::numbered(code::highlight(&c.code, th), th);
        f.render_widget(
            Paragraph::new(lines).block(block(format!(" code {} ", c.label), false, th)),
            code_area,
        );
        let evidence: Vec<String> = c
            .evidence
            .iter()
            .map(|(n, v)| format!("{n}: {}", v.reason))
            .collect();
        let mut lines = vec![Line::styled(evidence.join(" · "), th.dim)];
        let ow = c
            .tests
            .iter()
            .map(|t| t.outcome.to_string().chars().count())
            .max()
            .unwrap_or(4);
        for t in &c.tests {
            let st = if t.outcome.is_pass() { th.good } else { th.bad };
            lines.push(Line::from(vec![
                Span::styled(format!("{:<7} ", t.suite), th.dim),
                Span::styled(format!("{:<ow$}  ", t.outcome.to_string()), st),
                Span::raw(t.test.clone()),
            ]));
        }
        let m = c.tests.iter().filter(|t| t.suite == "visible").count();
        f.render_widget(
            Paragraph::new(lines).block(block(
                fit_title(
                    format!(" tests: {m} self-tests (visible) + hidden, per-test outcomes "),
                    tests_area.width.saturating_sub(2),
                ),
                false,
                th,
            )),
            tests_area,
        );
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
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<Table> {
        match v.data.map(|d| &d.audit) {
            Some(AuditSlot::Done(a)) if a.request.system == v.shared.system => {
                self.tables(a).all().into_iter().cloned().collect()
            }
            _ => Vec::new(),
        }
    }

    /// The pool preview of the current system, built when the data or the system changed.
    fn sync(&mut self, data: Option<&crate::tui::view::Data>, shared: &crate::tui::view::Shared) {
        let Some(d) = data.filter(|d| shared.system < d.engine.scores().len()) else {
            return;
        };
        let key = (d.gen, shared.system);
        if self.preview.as_ref().is_none_or(|(k, _)| *k != key) {
            self.preview = Some((key, Preview::build(d, shared.system)));
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
        let done = current(&d.audit, cx.shared.system);
        match action {
            Action::Enter => match done {
                Some(_) if !self.open => {
                    self.open = true;
                    self.cand = 0;
                }
                Some(_) => {}
                None if matches!(d.audit, AuditSlot::Running(..)) => {}
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
            _ if action.moves_selection() => {
                let Some(a) = done else { return false };
                if self.open {
                    let n = a
                        .view
                        .tasks
                        .get(self.task)
                        .map_or(0, |t| t.candidates.len());
                    self.cand = step(self.cand, n, action, 6);
                } else {
                    self.task = step(self.task, a.view.tasks.len(), action, self.page.get());
                }
            }
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
        let sys = v.system_id(v.shared.system).to_string();
        if d.engine.scores().is_empty() {
            message(f, area, "no systems to audit", th.dim);
            return;
        }
        let a = match &d.audit {
            AuditSlot::Running(r, p) if r.system == v.shared.system => {
                let prog = p.text().map_or(String::new(), |t| format!(" ({t})"));
                message(
                    f,
                    area,
                    &format!(
                        "{} auditing {sys}: top {}, {} visible tests{prog} …",
                        v.spinner, r.k, r.visible
                    ),
                    th.accent,
                );
                return;
            }
            AuditSlot::Failed(r, e) if r.system == v.shared.system => {
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
            AuditSlot::Done(a) if a.request.system == v.shared.system => a,
            _ => {
                self.draw_idle(f, area, v, d, &sys);
                return;
            }
        };
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
        // Task list over the task details; with a task open, the list narrows to the left and
        // the candidates take the rest.
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
