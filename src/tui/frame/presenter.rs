//! The presenter's views: zoom (`z`, the active pane on the whole screen) and big numbers (`B`,
//! the headline cells of the leaderboard in block digits, their † kept).

use super::{draw_body, draw_overlays, draw_prompt};
use crate::tui::app::{App, Mode};
use crate::tui::commands;
use crate::tui::presenter::{big_rows, big_width, headline, Headline, HeadlineSystem, GLYPH_ROWS};
use crate::tui::widgets::chrome::{bold, centered, message};
use crate::tui::widgets::text::{fit, fit_spans};
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// A presenter view's screen: cleared in the theme's base style, a body (where clicks land) and
/// a one-line bar below it.
fn presenter_screen(f: &mut Frame, app: &App) -> [Rect; 2] {
    let area = f.area();
    f.render_widget(Block::default().style(app.settings.theme.base), area);
    let [body, bar] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(area);
    app.hits.set_body(body);
    [body, bar]
}

/// Presenter zoom (`z`): the active pane on the whole screen, no tab bar; one bottom line says
/// how to leave and which pane this is (the live query's prompt takes it while typing).
pub(super) fn draw_zoom(f: &mut Frame, app: &App) {
    let th = &app.settings.theme;
    let v = app.view();
    let [body, bar] = presenter_screen(f, app);
    draw_body(f, body, app);
    if app.mode == Mode::Prompt {
        draw_prompt(f, bar, app);
    } else {
        let mut spans = Vec::new();
        for (k, label) in commands::zoom_bar() {
            spans.push(Span::styled(format!(" {k}"), th.accent));
            spans.push(Span::styled(format!(" {label} "), th.dim));
        }
        spans.push(Span::raw("│ "));
        spans.push(Span::styled(
            format!("{} {}", app.tab + 1, app.panes[app.tab].title()),
            th.title,
        ));
        if !app.busy().is_empty() {
            spans.push(Span::styled(
                format!(" │ {} {}", v.spinner, app.busy().join(", ")),
                th.warn,
            ));
        }
        if let Some(s) = &app.status {
            spans.push(Span::styled(format!(" │ {s}"), th.good));
        }
        let spans = fit_spans(spans, bar.width as usize);
        f.render_widget(Paragraph::new(Line::from(spans)), bar);
    }
    draw_overlays(f, body, app);
}

/// Presenter big numbers (`B`): the leader's and the runner-up's headline cells of the
/// leaderboard table ([`crate::tui::presenter::headline`]) in block digits, centred, their names
/// under them, a † after a number not distinguishable from the leader's (and what † means);
/// in normal type when the screen is too small for the digits.
pub(super) fn draw_big(f: &mut Frame, app: &App) {
    let th = &app.settings.theme;
    let v = app.view();
    let [body, bar] = presenter_screen(f, app);
    let mut spans = vec![Span::raw(" ")];
    for (k, label) in commands::big_bar() {
        spans.push(Span::styled(k, th.accent));
        spans.push(Span::styled(format!(" {label}  "), th.dim));
    }
    f.render_widget(
        Paragraph::new(Line::from(fit_spans(spans, bar.width as usize))),
        bar,
    );
    let Some(h) = headline(&v) else {
        let what = if app.data.is_none() {
            format!("loading bundle {}", app.bundle_name)
        } else {
            "computing the leaderboard".to_string()
        };
        message(f, body, &format!("{} {what} …", v.spinner), th.accent);
        return;
    };
    let big = Big {
        h: &h,
        digits: th.accent.add_modifier(Modifier::BOLD),
        dim: th.dim,
        title: th.title,
        dagger: th.warn,
    };
    match big.level(body) {
        Level::Normal => big.normal(f, body),
        level => big.blocks(f, body, level),
    }
}

/// How the big numbers fit: in normal type, exec@1 in block digits, or exec@10 too.
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Normal,
    Exec1,
    Both,
}

/// The headline and the styles it is drawn in.
struct Big<'a> {
    h: &'a Headline,
    digits: Style,
    dim: Style,
    title: Style,
    dagger: Style,
}

impl Big<'_> {
    /// Header + blank, then per column: label, digits, blank, name, rank/CI, [blank, label,
    /// digits]; the † legend last.
    fn height(&self, level: Level) -> u16 {
        let rows = GLYPH_ROWS as u16;
        let has10 = self.h.systems.iter().any(|s| s.exec10.is_some());
        let legend = u16::from(self.h.dagger.is_some()) * 2;
        legend
            + match level {
                Level::Both => 2 + 1 + rows + 1 + 1 + 1 + 1 + 1 + rows,
                _ => 2 + 1 + rows + 1 + 1 + 1 + u16::from(has10),
            }
    }

    fn level(&self, body: Rect) -> Level {
        let h = self.h;
        let col_w = body.width / h.systems.len().max(1) as u16;
        // A † takes two more columns beside the digits.
        let widest = h
            .systems
            .iter()
            .flat_map(|s| std::iter::once(&s.exec1).chain(s.exec10.as_ref()))
            .map(|t| big_width(t) + 2)
            .max()
            .unwrap_or(0) as u16;
        let drawable = h.systems.iter().all(|s| {
            big_rows(&s.exec1).is_some() && s.exec10.as_ref().is_none_or(|t| big_rows(t).is_some())
        });
        let fits_w = drawable && widest + 2 <= col_w;
        let has10 = h.systems.iter().any(|s| s.exec10.is_some());
        if fits_w && has10 && body.height >= self.height(Level::Both) {
            Level::Both
        } else if fits_w && body.height >= self.height(Level::Exec1) {
            Level::Exec1
        } else {
            Level::Normal
        }
    }

    fn header(&self, w: u16) -> Line<'static> {
        Line::styled(
            fit(
                &format!("ties: {} · {} queries", self.h.policy, self.h.n_queries),
                w as usize,
            ),
            self.title,
        )
    }

    fn detail(s: &HeadlineSystem) -> String {
        let mut t = format!("rank {}", s.rank);
        if let Some(ci) = &s.ci {
            t.push_str(&format!(" · 95% CI {ci}"));
        }
        t
    }

    /// Normal type: one block per system, stacked (the cells' text keeps its †).
    fn normal(&self, f: &mut Frame, body: Rect) {
        let mark = |tied: bool| if tied { "†" } else { "" };
        let mut lines = vec![self.header(body.width), Line::raw("")];
        for s in &self.h.systems {
            lines.push(Line::styled(s.id.clone(), bold()));
            let mut nums = format!("exec@1 {}{}", s.exec1, mark(s.exec1_tied));
            if let Some(e) = &s.exec10 {
                nums.push_str(&format!("  exec@10 {e}{}", mark(s.exec10_tied)));
            }
            lines.push(Line::styled(nums, self.digits));
            lines.push(Line::styled(Self::detail(s), self.dim));
            lines.push(Line::raw(""));
        }
        if let Some(d) = &self.h.dagger {
            lines.push(Line::styled(d.clone(), self.dagger));
        }
        let used = (lines.len() as u16).min(body.height);
        f.render_widget(
            Paragraph::new(lines)
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true }),
            centered(body, body.width, used),
        );
    }

    /// `t` in block digits, a normal-size † beside its first row where `tied`.
    fn digits(&self, t: &str, tied: bool) -> Vec<Line<'static>> {
        big_rows(t)
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, row)| {
                let mark = match (tied, i) {
                    (false, _) => "",
                    (true, 0) => " †",
                    (true, _) => "  ",
                };
                Line::from(vec![
                    Span::styled(row, self.digits),
                    Span::styled(mark, self.dagger),
                ])
            })
            .collect()
    }

    /// Block digits, one column per system.
    fn blocks(&self, f: &mut Frame, body: Rect, level: Level) {
        let r = centered(body, body.width, self.height(level));
        f.render_widget(
            Paragraph::new(self.header(r.width)).alignment(Alignment::Center),
            Rect::new(r.x, r.y, r.width, 1),
        );
        let n = self.h.systems.len().max(1) as u16;
        let col_w = body.width / n;
        let legend_h = u16::from(self.h.dagger.is_some()) * 2;
        for (i, s) in self.h.systems.iter().enumerate() {
            let col = Rect::new(
                r.x + i as u16 * col_w,
                r.y + 2,
                col_w,
                r.height.saturating_sub(2 + legend_h),
            );
            let mut lines = vec![Line::styled("exec@1", self.dim)];
            lines.extend(self.digits(&s.exec1, s.exec1_tied));
            lines.push(Line::raw(""));
            lines.push(Line::styled(fit(&s.id, col_w as usize), bold()));
            lines.push(Line::styled(
                fit(&Self::detail(s), col_w as usize),
                self.dim,
            ));
            match (&s.exec10, level) {
                (Some(e), Level::Both) => {
                    lines.push(Line::raw(""));
                    lines.push(Line::styled("exec@10", self.dim));
                    lines.extend(self.digits(e, s.exec10_tied));
                }
                (Some(e), _) => {
                    let mark = if s.exec10_tied { "†" } else { "" };
                    lines.push(Line::styled(format!("exec@10 {e}{mark}"), self.dim))
                }
                (None, _) => {}
            }
            f.render_widget(Paragraph::new(lines).alignment(Alignment::Center), col);
        }
        if let Some(d) = &self.h.dagger {
            f.render_widget(
                Paragraph::new(Line::styled(fit(d, r.width as usize), self.dagger))
                    .alignment(Alignment::Center),
                Rect::new(r.x, r.bottom().saturating_sub(1), r.width, 1),
            );
        }
    }
}
