//! The Deception pane's second view (`v`): test-suite strength — which bug-type families the
//! tasks' tests kill and which they let through, the tasks weakest first (a suite gap flagged
//! ⚑), every surviving mutant and the diff of the selected one. Every number is a cell of the
//! report's `suites`, `suite-tasks` and `survivors` tables, built by the suite-strength job
//! (`jobs::suites_of`) from the core's `analysis::suites` rows; nothing here counts or reads a
//! file. A bundle without a build report says so and how to get one.

use super::{Cx, Effect};
use crate::analysis::suites::{SuiteStrength, Survivor, Tally};
use crate::report::suites as stab;
use crate::report::Table;
use crate::tui::actions::{Action, Hit};
use crate::tui::view::View;
use crate::tui::widgets::bar::bar;
use crate::tui::widgets::chrome::framed;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::scroll_offset;
use crate::tui::widgets::text::{fit, fit_pad, wrap_words};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell;

/// Mouse list id of the survivor rows.
const SURVIVORS: u8 = 31;

/// What the pane says on a bundle whose build left no report (or that was not built).
pub const NO_REPORT: &str = "This bundle has no build report (build_report.json), so its test-suite strength is unknown. `execscope build TASKS --out DIR` writes one beside the bundle it builds (add `--operators all` for the whole mutation catalogue); then open DIR.";

/// The selection in the survivor list.
#[derive(Default)]
pub struct SuitesPanel {
    pub selected: usize,
    page: Cell<usize>,
    /// The first task shown in the task list (PgUp/PgDn scroll it; ↑/↓ move the survivors).
    pub task_top: usize,
    task_page: Cell<usize>,
}

/// The suite-strength rows once the job delivered them: `Ok(None)` when the bundle has no
/// build report, `Err` when it could not be read.
fn rows<'a>(v: &View<'a>) -> Option<&'a crate::tui::jobs::SuitesResult> {
    v.data.and_then(|d| d.suites.as_deref())
}

/// The core's suite-strength rows and the report's three tables of them (`report --table
/// suites`, `suite-tasks`, `survivors`), formatted for one frame.
struct SuitesView<'a> {
    strength: &'a SuiteStrength,
    families: Table,
    tasks: Table,
    survivors: Table,
}

impl SuitesView<'_> {
    fn of(strength: &SuiteStrength) -> SuitesView<'_> {
        SuitesView {
            families: stab::suites_table(strength),
            tasks: stab::suite_tasks_table(strength),
            survivors: stab::survivors_table(strength),
            strength,
        }
    }
}

/// The text of cell (`row`, `col`) of a report table (empty where the table has none).
fn cell(t: &Table, row: usize, col: usize) -> &str {
    t.rows
        .get(row)
        .and_then(|r| r.get(col))
        .map_or("", |c| c.text.as_str())
}

impl SuitesPanel {
    /// The report tables this view shows (the pane's export).
    pub fn export_tables(&self, v: &View) -> Vec<Table> {
        match rows(v) {
            Some(Ok(Some(s))) => {
                let s = SuitesView::of(s);
                vec![s.families, s.tasks, s.survivors]
            }
            _ => Vec::new(),
        }
    }

    /// ↑/↓ move through the survivors; Enter (or a click on one) opens its query in the browser.
    pub fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        let Some(Ok(Some(s))) = cx.data.and_then(|d| d.suites.as_deref()) else {
            return false;
        };
        let n = s.survivors.len();
        match action {
            Action::PageUp | Action::PageDown => {
                let page = self.task_page.get().max(1);
                let last = s.tasks.len().saturating_sub(page);
                self.task_top = if *action == Action::PageUp {
                    self.task_top.saturating_sub(page)
                } else {
                    (self.task_top + page).min(last)
                };
            }
            _ if action.moves_selection() => {
                self.selected = super::step(self.selected, n, action, self.page.get());
            }
            Action::Click(Hit::Row {
                list: SURVIVORS,
                index,
            }) => self.selected = *index,
            Action::Enter => {
                let Some(sv) = s.survivors.get(self.selected) else {
                    return true;
                };
                let query = cx.data.and_then(|d| {
                    let b = d.engine.bundle();
                    b.queries.iter().position(|q| q.id == sv.query_id)
                });
                cx.effects.push(Effect::OpenBrowser {
                    system: None,
                    query,
                });
            }
            _ => return false,
        }
        true
    }

    pub fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        let th = v.theme;
        let s = match rows(v) {
            None => return message(f, area, &v.pending("test-suite strength"), th.accent),
            Some(Err(e)) => {
                let text = format!("build_report.json could not be read: {e}");
                return message(f, area, &text, th.bad);
            }
            Some(Ok(None)) => return message(f, area, NO_REPORT, th.accent),
            Some(Ok(Some(s))) => SuitesView::of(s),
        };
        let s = &s;
        let fam_h = (s.families.rows.len() as u16 + 3)
            .min(area.height / 2)
            .max(4);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(fam_h), Constraint::Min(4)]).areas(area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(40), Constraint::Min(24)]).areas(bottom);
        draw_families(f, top, v, s);
        self.draw_tasks(f, left, v, s);
        self.draw_survivors(f, right, v, s);
    }

    /// The survivor list (selected one highlighted), the selected survivor's diff below it.
    fn draw_survivors(&self, f: &mut Frame, area: Rect, v: &View, s: &SuitesView) {
        let th = v.theme;
        let list = &s.strength.survivors;
        let gaps = s.strength.gaps().count();
        let title = Line::from(vec![
            Span::styled(" Survivors ", th.title),
            Span::styled(format!("{} · ⚑ {gaps} suite gaps ", list.len()), th.dim),
        ]);
        let inner = framed(f, area, title, true, th);
        if list.is_empty() {
            let text = "every mutant is killed by its task's tests";
            f.render_widget(Paragraph::new(Line::styled(text, th.dim)), inner);
            return;
        }
        let sel = self.selected.min(list.len() - 1);
        let diff: Vec<&str> = list[sel]
            .diff
            .lines()
            .filter(|l| !l.starts_with("@@"))
            .collect();
        let diff_h = (diff.len() as u16 + 2).min(inner.height / 2);
        let [rows_area, diff_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(diff_h)]).areas(inner);
        let h = rows_area.height as usize;
        self.page.set(h);
        let offset = scroll_offset(sel, h);
        let w = rows_area.width as usize;
        let t = &s.survivors;
        // The longest task id and family take their width where the pane is wide enough.
        let longest = |f: fn(&Survivor) -> &str| list.iter().map(|s| f(s).chars().count()).max();
        let task_w = longest(|s| &s.task_id)
            .unwrap_or(8)
            .clamp(8, (w / 5).max(8));
        let fam_w = longest(|s| &s.bug_type)
            .unwrap_or(8)
            .clamp(8, (w / 6).max(8));
        let mut lines = Vec::new();
        for (i, sv) in list.iter().enumerate().skip(offset).take(h) {
            // task, line, bug type, operator (the report's cells), then the one-line diff.
            let flag = if sv.gap.is_some() { "⚑" } else { " " };
            let head = format!(
                "{flag}{} :{} {} ",
                fit_pad(cell(t, i, 0), task_w),
                fit_pad(cell(t, i, 4), 3),
                fit_pad(cell(t, i, 2), fam_w)
            );
            let rest = w.saturating_sub(head.chars().count());
            let mut line = Line::from(vec![
                Span::styled(
                    fit(&head, w),
                    if sv.gap.is_some() { th.warn } else { th.accent },
                ),
                Span::raw(fit(cell(t, i, 5), rest)),
            ]);
            if i == sel {
                line = line.style(th.selected);
            }
            let r = Rect::new(
                rows_area.x,
                rows_area.y + (i - offset) as u16,
                rows_area.width,
                1,
            );
            v.hits.push(
                r,
                Hit::Row {
                    list: SURVIVORS,
                    index: i,
                },
            );
            lines.push(line);
        }
        f.render_widget(Paragraph::new(lines), rows_area);
        self.draw_diff(f, diff_area, v, s, sel, &diff);
    }

    /// The selected survivor's changed lines, and why it is a suite gap when it is one.
    fn draw_diff(&self, f: &mut Frame, area: Rect, v: &View, s: &SuitesView, i: usize, d: &[&str]) {
        let th = v.theme;
        let sv = &s.strength.survivors[i];
        let title = Line::from(vec![
            Span::styled(format!(" {} line {} ", sv.task_id, sv.line), th.title),
            Span::styled(format!("{} ", cell(&s.survivors, i, 3)), th.dim),
        ]);
        let inner = framed(f, area, title, false, th);
        let w = inner.width as usize;
        let mut lines: Vec<Line> = d
            .iter()
            .map(|l| {
                let style = match l.chars().next() {
                    Some('-') => th.diff_del,
                    Some('+') => th.diff_add,
                    _ => Style::default(),
                };
                Line::styled(fit(l, w), style)
            })
            .collect();
        if let Some(g) = &sv.gap {
            for part in wrap_words(&format!("⚑ suite gap: {g}"), w) {
                lines.push(Line::styled(part, th.warn));
            }
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}

/// Per family: the mutation-score bar, killed of scored, the survival rate, and the mutants
/// settled before execution (equivalent, duplicate); the overall row last.
fn draw_families(f: &mut Frame, area: Rect, v: &View, s: &SuitesView) {
    let th = v.theme;
    let t = &s.families;
    let o = &s.strength.overall;
    let title = Line::from(vec![
        Span::styled(" Test-suite strength by bug type ", th.title),
        Span::styled(
            format!(
                "mutation score {} · {} tasks ",
                cell(t, t.rows.len().saturating_sub(1), 4),
                s.strength.tasks.len()
            ),
            th.dim,
        ),
    ]);
    let inner = framed(f, area, title, false, th);
    let w = inner.width as usize;
    let label_w = 24.min(w / 3);
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                "{} {}",
                fit_pad("bug type", label_w),
                "mutation score (killed / killed + survived), survival rate, settled before running"
            ),
            w,
        ),
        th.header,
    )];
    for (r, fam) in s.strength.families.iter().enumerate() {
        lines.push(family_line(t, r, &fam.tally, label_w, w, v));
    }
    lines.push(family_line(
        t,
        t.rows.len().saturating_sub(1),
        o,
        label_w,
        w,
        v,
    ));
    f.render_widget(Paragraph::new(lines), inner);
}

/// One row of the family table (`tally` is its typed row): label, bar of the mutation score,
/// then the report's cells.
fn family_line(
    t: &Table,
    r: usize,
    tally: &Tally,
    label_w: usize,
    w: usize,
    v: &View,
) -> Line<'static> {
    let th = v.theme;
    // killed/scored, score, survival rate, equivalent, duplicate: columns 2, 3, 4, 5, 6, 7.
    let scored = format!("{}/{}", cell(t, r, 2), tally.scored());
    let text = format!(
        " {:>9} {:>6}  survive {:>6}  equiv {:>3}  dup {:>3}",
        scored,
        cell(t, r, 4),
        cell(t, r, 5),
        cell(t, r, 6),
        cell(t, r, 7)
    );
    let bar_w = w
        .saturating_sub(label_w + 1 + text.chars().count())
        .clamp(0, 30);
    let score = tally.kill_rate();
    let frac = if score.is_finite() { score } else { 0.0 };
    Line::from(vec![
        Span::styled(format!("{} ", fit_pad(cell(t, r, 0), label_w)), th.accent),
        Span::styled(bar(frac, bar_w), th.bar),
        Span::raw(fit(&text, w.saturating_sub(label_w + 1 + bar_w))),
    ])
}

/// The tasks weakest first: ⚑ marks a task with a suite gap.
impl SuitesPanel {
    /// The tasks, weakest first, from the one PgUp/PgDn scrolled to; the last row says how many
    /// are above and below when they do not all fit.
    fn draw_tasks(&self, f: &mut Frame, area: Rect, v: &View, s: &SuitesView) {
        let th = v.theme;
        let t = &s.tasks;
        let flagged = s.strength.tasks.iter().filter(|r| r.gaps > 0).count();
        let title = Line::from(vec![
            Span::styled(" Tasks, weakest first ", th.title),
            Span::styled(format!("⚑ {flagged} with a suite gap "), th.dim),
        ]);
        let inner = framed(f, area, title, false, th);
        let w = inner.width as usize;
        let mut lines = Vec::new();
        let n = s.strength.tasks.len();
        let h = inner.height as usize;
        let shown = if n <= h { h } else { h.saturating_sub(1) };
        self.task_page.set(shown);
        let top = self.task_top.min(n.saturating_sub(shown));
        for (i, r) in s.strength.tasks.iter().enumerate().skip(top).take(shown) {
            let flag = if r.gaps > 0 { "⚑" } else { " " };
            // killed/scored and the mutation score; the survivors too where the id keeps room.
            let short = format!(
                " {}/{} {:>6}",
                cell(t, i, 3),
                r.tally.scored(),
                cell(t, i, 5)
            );
            let long = format!("{short} survived {}", cell(t, i, 4));
            let fits = |x: &str| w.saturating_sub(x.chars().count() + 1) >= 16;
            let text = if fits(&long) { long } else { short };
            let name_w = w.saturating_sub(text.chars().count() + 1).max(4);
            lines.push(Line::from(vec![
                Span::styled(flag, th.warn),
                Span::styled(fit_pad(&r.task_id, name_w), th.accent),
                Span::raw(fit(&text, w.saturating_sub(name_w + 1))),
            ]));
        }
        if n > shown {
            let below = n.saturating_sub(top + shown);
            lines.push(Line::styled(
                fit(&format!("▲ {top} above · ▼ {below} below (PgUp/PgDn)"), w),
                th.dim,
            ));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}
