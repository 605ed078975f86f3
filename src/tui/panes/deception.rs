//! Pane 3: deception — how often a paired distractor scores at least as high as its canonical,
//! by bug type (dense systems pooled, and the current system), by edit size, and the
//! canonical-vs-best-distractor gap histogram of the current system. Every number is a cell of
//! the report's `bugtypes`, `editsize` and `gaps` tables, drawn from the same typed rows
//! (the core's `AnatomyView::bugtypes`, `editsize`, `gaps`) and the same formatter. `v`
//! switches to the test-suite strength of the same families ([`super::suites`]); `L`, in a
//! bundle of several languages, to deception by bug type and language and by language per
//! system (the report's `bugtypes-languages` and `deception-languages` tables).

use super::suites::SuitesPanel;
use super::{step, Cx, Pane, PaneId};
use crate::report::anatomy::pct_text;
use crate::tui::actions::Action;
use crate::tui::view::View;
use crate::tui::widgets::bar::bar;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::chrome::{block, framed};
use crate::tui::widgets::histogram;
use crate::tui::widgets::text::{fit, fit_middle, fit_pad};
use crate::view::AnatomyView;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;
use std::cell::Cell;

#[derive(Default)]
pub struct DeceptionPane {
    /// Scroll position of the bug-type list.
    pub scroll: usize,
    page: Cell<usize>,
    /// Showing test-suite strength instead of deception.
    pub suites: bool,
    /// Showing deception by language (a bundle of several languages).
    pub languages: bool,
    pub suites_panel: SuitesPanel,
}

impl Pane for DeceptionPane {
    fn kind(&self) -> PaneId {
        PaneId::Deception
    }

    fn legend(&self) -> &'static [(&'static str, &'static str)] {
        &[
            (
                "■",
                "deception bars: dense systems pooled (first), the current system (second)",
            ),
            (
                "│ ┼",
                "gap = 0: left of it a paired distractor outscores the canonical",
            ),
            ("▁…█", "a gap bin's queries (its count above the bar)"),
            ("┬", "a bin edge, its value under it"),
            ("…", "a name cut in the middle, or bins that do not fit"),
            (
                "▲ ▼",
                "bug types above / below the visible rows (↑/↓ scroll)",
            ),
            ("⚑", "suite strength (v): a suite gap"),
        ]
    }

    fn export_tables(&self, v: &View) -> Vec<crate::report::Table> {
        if self.suites {
            return self.suites_panel.export_tables(v);
        }
        match v.data.and_then(|d| d.anatomy.as_ref()) {
            Some(a) if self.languages && multilingual(v) => vec![
                crate::report::anatomy::bugtypes_languages_table(a),
                crate::report::anatomy::language_deception_table(a),
            ],
            Some(a) => vec![
                crate::report::anatomy::bugtypes_table(a),
                crate::report::anatomy::editsize_table(a),
                crate::report::anatomy::gaps_table(a),
            ],
            None => Vec::new(),
        }
    }

    fn handle(&mut self, action: &Action, cx: &mut Cx) -> bool {
        if *action == Action::ToggleSuites {
            self.suites = !self.suites;
            return true;
        }
        if *action == Action::ToggleLanguages && !self.suites {
            self.languages = !self.languages;
            return true;
        }
        if self.suites {
            return self.suites_panel.handle(action, cx);
        }
        let n = cx
            .data
            .and_then(|d| d.anatomy.as_ref())
            .map_or(0, |a| a.bugtypes.len());
        match action {
            _ if action.moves_selection() => {
                self.scroll = step(self.scroll, n, action, self.page.get());
                true
            }
            _ => false,
        }
    }

    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        if self.suites {
            return self.suites_panel.draw(f, area, v);
        }
        let th = v.theme;
        let Some(a) = v.data.and_then(|d| d.anatomy.as_ref()) else {
            message(f, area, &v.pending("failure anatomy"), th.accent);
            return;
        };
        if self.languages {
            return draw_languages(f, area, v, a);
        }
        let [top, bottom] =
            Layout::vertical([Constraint::Percentage(58), Constraint::Min(6)]).areas(area);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Min(20)]).areas(top);
        self.draw_bug_types(f, left, v, a);
        draw_edit_sizes(f, right, v, a);
        draw_gaps(f, bottom, v, a);
    }
}

impl DeceptionPane {
    /// Deception by bug type: the pooled dense bar, then the current system's.
    fn draw_bug_types(&self, f: &mut Frame, left: Rect, v: &View, a: &AnatomyView) {
        let th = v.theme;
        let sys = v.settings.system;
        let sys_id = v.system_id(sys).to_string();
        // Bars by bug type: pooled dense, then the current system.
        // The legend names both bars; on a narrow pane the title is shortened so that the
        // system's name still shows (not a lone `■ …`).
        let room = (left.width as usize).saturating_sub(43);
        let (head, pooled, room) = if room >= sys_id.chars().count().min(10) {
            (" Deception by bug type ", "■ dense pooled ", room)
        } else {
            (
                " Deception ",
                "■ pooled ",
                (left.width as usize).saturating_sub(26),
            )
        };
        let title = Line::from(vec![
            Span::styled(head, th.title),
            Span::styled(pooled, th.bar),
            Span::styled(format!("■ {} ", fit(&sys_id, room)), th.bar_alt),
        ]);
        let inner = framed(f, left, title, true, th);
        let bt = &a.bugtypes;
        let label_w = 24usize.min(inner.width as usize / 3);
        // The widest text after a bar (" 100.0% (12/34)  tie 50.0%") decides the bar width;
        // where even a short bar leaves no room, the tie share is dropped rather than cut.
        let suffix = |r: &crate::view::anatomy::BugTypeRow| {
            (
                format!(
                    " {} ({}/{})",
                    pct_text(r.pooled.rate()),
                    r.pooled.deceived,
                    r.pooled.total
                ),
                format!("  tie {}", pct_text(r.pooled.tie_share())),
            )
        };
        let widest = |with_tie: bool| {
            bt.iter()
                .map(|r| {
                    let (a, b) = suffix(r);
                    a.chars().count() + if with_tie { b.chars().count() } else { 0 }
                })
                .max()
                .unwrap_or(0)
        };
        let room = (inner.width as usize).saturating_sub(label_w + 1);
        let show_tie = room >= widest(true) + 4;
        let bar_w = room.saturating_sub(widest(show_tie)).clamp(1, 40);
        let mut lines = Vec::new();
        let per = 2usize;
        let visible = (inner.height as usize / per).max(1);
        self.page.set(visible);
        let start = self.scroll.min(bt.len().saturating_sub(visible));
        for row in bt.iter().skip(start).take(visible) {
            let pooled = row.pooled.rate();
            lines.push(Line::from(vec![
                // Cut in the middle: `off_by…undary` stays apart from `off_by_one`.
                Span::styled(
                    format!("{:<label_w$} ", fit_middle(row.label(), label_w)),
                    th.accent,
                ),
                Span::styled(bar(pooled, bar_w), th.bar),
                Span::raw(suffix(row).0),
                Span::styled(
                    if show_tie {
                        suffix(row).1
                    } else {
                        String::new()
                    },
                    th.dim,
                ),
            ]));
            if let Some(r) = row.per_system.get(sys) {
                lines.push(Line::from(vec![
                    Span::raw(" ".repeat(label_w + 1)),
                    Span::styled(bar(r.rate(), bar_w), th.bar_alt),
                    Span::raw(format!(" {}", pct_text(r.rate()))),
                ]));
            }
        }
        f.render_widget(Paragraph::new(lines), inner);
        // Rows out of view are counted on the bottom border.
        let below = bt.len().saturating_sub(start + visible);
        if (start > 0 || below > 0) && left.height > 2 {
            let note = format!(" ▲ {start} above · ▼ {below} below (↑/↓) ");
            let w = (note.chars().count() as u16).min(left.width.saturating_sub(4));
            f.render_widget(
                Paragraph::new(Line::styled(fit(&note, w as usize), th.warn)),
                Rect::new(left.x + 2, left.bottom() - 1, w, 1),
            );
        }
    }
}

/// True when the bundle is not all Python (the language views have something to show).
fn multilingual(v: &View) -> bool {
    v.data
        .and_then(|d| d.lb.as_ref())
        .is_some_and(|lb| lb.multilingual())
}

/// `L`: deception by bug type and language (dense systems pooled) on top, deception by
/// language per system below, as heat tables of the report's rows.
fn draw_languages(f: &mut Frame, area: Rect, v: &View, a: &AnatomyView) {
    let th = v.theme;
    if !multilingual(v) {
        let text = "Every query of this bundle is Python: there is no deception by language to \
                    show (L returns).";
        return message(f, area, text, th.dim);
    }
    let bt = crate::report::anatomy::bugtypes_languages_table(a);
    let by = crate::report::anatomy::language_deception_table(a);
    let want = (bt.rows.len() as u16 + 3).min(area.height.saturating_sub(6).max(3));
    let [top, bottom] =
        Layout::vertical([Constraint::Length(want), Constraint::Min(0)]).areas(area);
    let title = Line::from(vec![
        Span::styled(" Deception by bug type and language ", th.title),
        Span::styled("(dense systems pooled; deceived/pairs) ", th.dim),
    ]);
    // Cells hold percentages; the heat scale is a fraction.
    super::domains::heat_table(f, top, v, &bt, title, 0, |x| x / 100.0);
    if bottom.height >= 4 {
        let title = Line::from(vec![
            Span::styled(" Deception by language ", th.title),
            Span::styled("(distractor ≥ canonical) ", th.dim),
        ]);
        super::domains::heat_table(f, bottom, v, &by, title, 0, |x| x / 100.0);
    }
}

/// Deception by edit-size bucket, then every system's overall deception.
fn draw_edit_sizes(f: &mut Frame, right: Rect, v: &View, a: &AnatomyView) {
    let th = v.theme;
    let sys = v.settings.system;
    let bt = &a.bugtypes;
    // Edit-size buckets.
    let inner = framed(
        f,
        right,
        Line::styled(" Deception by edit size ", th.title),
        false,
        th,
    );
    let mut lines = Vec::new();
    let w = inner.width as usize;
    let edits = &a.editsize.rows;
    // Bucket label, pairs and the pooled rate: shortest form that fits.
    for r in edits {
        let rate = pct_text(r.deception.rate());
        let long = format!("{} {}", r.pairs, rate);
        let label_w = w.saturating_sub(long.chars().count() + 1).max(4);
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", fit_pad(&r.bucket, label_w)), th.accent),
            Span::raw(fit(&long, w.saturating_sub(label_w + 1))),
        ]));
    }
    lines.push(Line::styled(
        fit("pairs · dense-pooled deception", w),
        th.dim,
    ));
    // Overall deception of every system (the bug-type rows' overall row).
    if let Some(overall) = bt.last() {
        lines.push(Line::styled(fit("overall, per system", w), th.accent));
        let val_w = 6usize;
        let name_w = w.saturating_sub(val_w + 1).max(3);
        for (i, r) in overall.per_system.iter().enumerate() {
            let st = if i == sys { th.bar_alt } else { th.base };
            lines.push(Line::from(vec![
                Span::styled(format!("{} ", fit_pad(v.system_id(i), name_w)), st),
                Span::raw(format!("{:>val_w$}", pct_text(r.rate()))),
            ]));
        }
    }
    f.render_widget(Paragraph::new(lines), inner);
}

/// The canonical-vs-best-distractor gap histogram of the current system.
fn draw_gaps(f: &mut Frame, bottom: Rect, v: &View, a: &AnatomyView) {
    let th = v.theme;
    let sys = v.settings.system;
    let sys_id = v.system_id(sys).to_string();
    // Gap histogram of the current system.
    let Some(s) = a.anatomy.systems.get(sys) else {
        return;
    };
    let g = &s.gap_summary;
    let summary = format!(
        "gap<0 {} · gap=0 {} · median {:.4} · mean {:.4}",
        pct_text(g.below_zero),
        pct_text(g.zero),
        g.median,
        g.mean
    );
    let title = Line::from(vec![
        Span::styled(format!(" Canonical − best distractor, {sys_id} "), th.title),
        Span::styled(
            {
                // Whole items only: drop the trailing ones that do not fit the border.
                let room = (bottom.width as usize).saturating_sub(sys_id.chars().count() + 34);
                let mut shown = format!("({} queries)", g.n);
                for item in summary.split(" · ") {
                    if shown.chars().count() + item.chars().count() + 3 > room {
                        break;
                    }
                    shown.push_str(if shown.ends_with(')') { " " } else { " · " });
                    shown.push_str(item);
                }
                shown.push(' ');
                shown
            },
            th.dim,
        ),
    ]);
    // Ticks on the bin edges they name, a zero line, counts on the bars (widgets::histogram).
    let [hist, caption] =
        Layout::vertical([Constraint::Min(4), Constraint::Length(1)]).areas(bottom);
    histogram::numeric(f, hist, &g.histogram, th, block(title, false, th));
    f.render_widget(
        Paragraph::new(Line::styled(
            fit(
                " score gap; left of │ (0) a distractor outscores the canonical; bars: queries",
                caption.width as usize,
            ),
            th.dim,
        )),
        caption,
    );
}
