//! The Audit pane after a run: the audit's summary tables (the report's, `execscope audit`'s),
//! the task list with each predicate's first-admitted return, the selected task, and its
//! candidates with their code and per-test outcomes.

use super::AuditPane;
use crate::audit::account::Choice;
use crate::audit::view::{CandidateView, TaskView};
use crate::report::{Align, Table, TableCell};
use crate::tui::jobs::AuditResult;
use crate::tui::view::View;
use crate::tui::widgets::chrome::{block, fit_title, framed};
use crate::tui::widgets::table::TableView;
use crate::tui::widgets::{code, scroll_offset};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

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
    /// The column of table `t` (with `frozen` leading columns) that ←/→ brought into view.
    pub(super) fn focus_col(&self, t: &Table, frozen: usize) -> Option<usize> {
        (self.col > 0).then(|| (frozen - 1 + self.col).min(t.headers.len().saturating_sub(1)))
    }

    pub(super) fn draw_summary(&self, f: &mut Frame, area: Rect, v: &View, a: &AuditResult) {
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

    pub(super) fn draw_task(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        a: &AuditResult,
        task: &TaskView,
    ) {
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
            if p.starts_with("pool order inside score ties") {
                continue; // the summary's title names the order
            }
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

    pub(super) fn draw_candidates(&self, f: &mut Frame, area: Rect, v: &View, task: &TaskView) {
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
        self.draw_candidate(f, code_area, tests_area, v, task.language, c);
    }

    fn draw_candidate(
        &self,
        f: &mut Frame,
        code_area: Rect,
        tests_area: Rect,
        v: &View,
        language: crate::record::Language,
        c: &CandidateView,
    ) {
        let th = v.theme;
        let lines = code::numbered(
            // In the task's language (a HumanEval-X pool's JavaScript, C++, ...).
            code::highlight(&c.code, language, th),
            th,
        );
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
