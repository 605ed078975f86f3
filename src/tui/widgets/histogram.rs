//! A vertical histogram (ratatui BarChart) whose bar width adapts to the space available.

use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Bar, BarChart, BarGroup, Block};
use ratatui::Frame;

/// Bars with optional labels (shown only when the bars are wide enough to hold them).
pub fn render(f: &mut Frame, area: Rect, bars: &[(String, u64)], th: &Theme, block: Block) {
    let inner = block.inner(area);
    let n = bars.len().max(1) as u16;
    let gap = u16::from(inner.width >= n * 3);
    let width = ((inner.width.saturating_sub(gap * n)) / n).max(1);
    let labels = bars
        .iter()
        .all(|(l, _)| l.chars().count() <= width as usize);
    let bs: Vec<Bar> = bars
        .iter()
        .map(|(l, v)| {
            let b = Bar::new(*v).style(th.bar).value_style(th.tab_active);
            if labels {
                b.label(Line::from(l.clone()))
            } else {
                b
            }
        })
        .collect();
    let chart = BarChart::default()
        .block(block)
        .data(BarGroup::new(bs))
        .bar_width(width)
        .bar_gap(gap);
    f.render_widget(chart, area);
}
