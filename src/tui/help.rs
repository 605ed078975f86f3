//! The help overlay (`?`): the active pane's glyphs and the command registry's sections, laid
//! out in columns when they fit the screen, else in one column that scrolls. Below the app (which
//! asks how far the help scrolls) and the frame (which draws it); it reads only the registry,
//! the panes' legends and the theme.

use super::commands;
use super::panes::{Pane, PaneId};
use super::theme::Theme;
use super::widgets::text::{fit, wrap_words};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

/// What the help is made of: the theme, the tabs and the active one (whose glyphs come first).
pub struct Help<'a> {
    pub theme: &'a Theme,
    pub panes: &'a [Box<dyn Pane>],
    pub tab: usize,
}

/// How the help overlay lays out the command registry in the area inside its border.
enum HelpLayout {
    /// Every section fits: side by side in columns.
    Columns(Vec<Vec<Line<'static>>>),
    /// Too short for that: one column, every help text in full, scrolled `page` rows at a time.
    Scrolled {
        lines: Vec<Line<'static>>,
        page: usize,
    },
}

/// The help's sections as lines for a column `col_w` wide: a section title, then each command's
/// keys with its help text wrapped under itself (a key list wider than the key column gets a line
/// of its own).
fn sections(h: &Help, col_w: usize) -> Vec<Vec<Line<'static>>> {
    let th = h.theme;
    let panes: Vec<(PaneId, &'static str)> =
        h.panes.iter().map(|p| (p.kind(), p.title())).collect();
    let mut sections = Vec::new();
    // What the active pane's glyphs mean, first (the pane's bottom-border legend points here).
    let pane = &h.panes[h.tab];
    if !pane.legend().is_empty() {
        let mut lines = vec![Line::styled(
            fit(&format!("Glyphs on {}", pane.title()), col_w),
            th.title,
        )];
        for (g, meaning) in pane.legend() {
            lines.extend(key_lines(g, meaning, col_w, th));
        }
        sections.push(lines);
    }
    for (title, cmds) in commands::help(&panes) {
        let mut lines = vec![Line::styled(fit(&title, col_w), th.title)];
        for (k, h) in cmds {
            lines.extend(key_lines(k, h, col_w, th));
        }
        sections.push(lines);
    }
    sections
}

/// A key (or glyph) and its text, wrapped under a 7-column gutter; a long key on its own line.
fn key_lines(k: &str, text: &str, col_w: usize, th: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut key = Span::styled(format!(" {k:<6}"), th.accent);
    if k.chars().count() > 6 {
        lines.push(Line::from(key.clone()));
        key = Span::raw(" ".repeat(7));
    }
    for (i, part) in wrap_words(text, col_w.saturating_sub(7))
        .into_iter()
        .enumerate()
    {
        let lead = if i == 0 {
            key.clone()
        } else {
            Span::raw(" ".repeat(7))
        };
        lines.push(Line::from(vec![lead, Span::raw(part)]));
    }
    lines
}

/// The columns the help is split into inside `inner` (three on a wide screen, else two).
fn columns(inner: Rect, n: usize) -> std::rc::Rc<[Rect]> {
    Layout::horizontal(vec![Constraint::Ratio(1, n as u32); n])
        .spacing(2)
        .split(inner)
}

/// The help in `inner`: in columns when every command fits, else one scrolled column.
fn layout(help: &Help, inner: Rect) -> HelpLayout {
    let h = inner.height as usize;
    let ncols = if inner.width >= 120 { 3 } else { 2 };
    // The narrowest column of the ncols layout: text sized for it fits in fewer, wider columns.
    let col_w = columns(inner, ncols)
        .iter()
        .map(|a| a.width)
        .min()
        .unwrap_or(0) as usize;
    let secs = sections(help, col_w);
    let total: usize = secs.iter().map(Vec::len).sum();
    let per = total.div_ceil(ncols).max(h / 2);
    let mut cols: Vec<Vec<Line>> = vec![Vec::new()];
    for sec in secs {
        let cur = cols.last_mut().expect("one column");
        if !cur.is_empty() && cur.len() + sec.len() > per && cols.len() < ncols {
            cols.push(Vec::new());
        }
        cols.last_mut().expect("one column").extend(sec);
    }
    if cols.iter().all(|c| c.len() <= h) {
        return HelpLayout::Columns(cols);
    }
    HelpLayout::Scrolled {
        // (One column of margin on the right, as between the columns.)
        lines: sections(help, inner.width.saturating_sub(1) as usize)
            .into_iter()
            .flatten()
            .collect(),
        page: h,
    }
}

/// The overlay's frame in the panes' area `body`, and the area inside it.
fn overlay_frame(body: Rect) -> (Block<'static>, Rect) {
    let blk = Block::bordered().title(" help — ? or Esc closes ");
    let inner = blk.inner(body);
    (blk, inner)
}

/// How far the help overlay scrolls in the panes' area `body`: (largest offset, page height).
/// Zero when everything fits.
pub fn room(help: &Help, body: Rect) -> (usize, usize) {
    match layout(help, overlay_frame(body).1) {
        HelpLayout::Columns(_) => (0, 0),
        HelpLayout::Scrolled { lines, page } => (lines.len().saturating_sub(page), page),
    }
}

pub fn draw(f: &mut Frame, area: Rect, help: &Help, scroll: usize) {
    let th = help.theme;
    f.render_widget(Clear, area);
    let (blk, inner) = overlay_frame(area);
    let mut blk = blk.border_style(th.accent).style(th.base);
    match layout(help, inner) {
        HelpLayout::Columns(cols) => {
            f.render_widget(blk, area);
            let areas = columns(inner, cols.len());
            for (lines, a) in cols.into_iter().zip(areas.iter()) {
                f.render_widget(Paragraph::new(lines), *a);
            }
        }
        HelpLayout::Scrolled { page: 0, .. } => f.render_widget(blk, area),
        HelpLayout::Scrolled { lines, page } => {
            // Where the view is, and that there is more below (or above), on the bottom border.
            let n = lines.len();
            let top = scroll.min(n.saturating_sub(page));
            let last = (top + page).min(n);
            let hint = if last < n {
                "↓ j/PgDn for more"
            } else {
                "↑ k/PgUp back"
            };
            let note = format!(" lines {}–{last} of {n} · {hint} ", top + 1);
            blk = blk.title_bottom(
                Line::styled(fit(&note, area.width.saturating_sub(2) as usize), th.accent)
                    .right_aligned(),
            );
            f.render_widget(blk, area);
            let shown: Vec<Line> = lines.into_iter().skip(top).take(page).collect();
            f.render_widget(Paragraph::new(shown), inner);
        }
    }
}
