//! The panes' chrome: bordered blocks with fitted titles, centred rectangles and messages. Below
//! the panes and the frame alike (both draw with them), so neither imports the other for it.

use super::text::fit_spans;
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui::Frame;

/// A bordered block with the pane's title style; `focused` brightens the border.
pub fn block<'a>(title: impl Into<Line<'a>>, focused: bool, th: &Theme) -> Block<'a> {
    Block::bordered()
        .title(title)
        .border_style(if focused { th.accent } else { th.dim })
}

/// A title in at most `w` columns: abbreviated with `…` at a word boundary (see
/// [`fit_spans`]), never cut by the block's corner.
pub fn fit_title<'a>(title: impl Into<Line<'a>>, w: u16) -> Line<'static> {
    let spans = title
        .into()
        .spans
        .into_iter()
        .map(|s| Span::styled(s.content.into_owned(), s.style))
        .collect();
    Line::from(fit_spans(spans, w as usize))
}

/// Draws a [`block`] around `area` and returns the area inside its border (what a pane fills).
pub fn framed<'a>(
    f: &mut Frame,
    area: Rect,
    title: impl Into<Line<'a>>,
    focused: bool,
    th: &Theme,
) -> Rect {
    let blk = block(fit_title(title, area.width.saturating_sub(2)), focused, th);
    let inner = blk.inner(area);
    f.render_widget(blk, area);
    inner
}

/// Bold style for emphasis (key numbers).
pub fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

/// A centred rectangle of at most `w` × `h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A centred message (waiting, empty states), wrapped at word boundaries when it is wider than
/// the area rather than cut.
pub fn message(f: &mut Frame, area: Rect, text: &str, style: Style) {
    let w = area.width.max(1) as usize;
    let lines = (text.chars().count().div_ceil(w) as u16 + 1).min(area.height.max(1));
    let y = area.y + area.height.saturating_sub(lines) / 2;
    let r = Rect::new(area.x, y, area.width, lines);
    f.render_widget(
        Paragraph::new(text.to_string())
            .style(style)
            .alignment(ratatui::layout::Alignment::Center)
            .wrap(Wrap { trim: true }),
        r,
    );
}
