//! The browser's ranking panel: the selected query's ranking under the current system (or a
//! live query's, or two systems side by side with `c`), under a title that names the query, the
//! system, k and the tie policy, abbreviated to fit and never cut. A live or edited query's
//! probe state (the typed text, which systems ranked it, why the others could not and what
//! would make them) is written whole above the ranking, wrapped, never in the title.

use super::probe::status_lines;
use super::ranking::{self, RankRow};
use super::{query_ranking, BrowserPane, Focus, RANKING};
use crate::probe::live::LiveState;
use crate::tui::view::{Data, View};
use crate::tui::widgets::chrome::{framed, message};
use crate::tui::widgets::text::fit_spans;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

impl BrowserPane {
    /// The ranking `rows` in `area`; `waiting`: a probe was asked for, so an empty ranking says
    /// what it waits for (or why there is none).
    pub(super) fn draw_ranking(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        rows: &[RankRow],
        waiting: bool,
        state: Option<&LiveState>,
    ) {
        let th = v.theme;
        let Some(d) = v.data else { return };
        let sel = self.rank_index(rows.len());
        let focused = self.focus == Focus::Ranking || v.shared.live.is_some();
        let q = v.shared.query;
        // The title stays inside the top border: what does not fit is abbreviated, never cut.
        let title_w = area.width.saturating_sub(2) as usize;
        let title = Line::from(fit_spans(self.title(v, d).spans, title_w));
        let inner = framed(f, area, title, focused, th);
        // The glyphs' legend on the bottom border (whole items; `?` lists them all).
        if area.height > 2 && area.width > 4 {
            let legend = ranking::legend_line(area.width.saturating_sub(4) as usize);
            f.render_widget(
                Paragraph::new(Line::styled(legend, th.dim)),
                Rect::new(area.x + 2, area.bottom() - 1, area.width - 4, 1),
            );
        }
        // A probe's state above the ranking, whole (at most half the panel).
        let inner = match self.probe_lines(d, v, state, inner.width as usize) {
            Some(lines) if inner.height > 3 => {
                let h = (lines.len() as u16).min(inner.height / 2);
                f.render_widget(
                    Paragraph::new(lines),
                    Rect::new(inner.x, inner.y, inner.width, h),
                );
                Rect::new(inner.x, inner.y + h, inner.width, inner.height - h)
            }
            _ => inner,
        };
        self.page_rank.set(inner.height.saturating_sub(1) as usize);
        if self.compare && v.shared.live.is_none() {
            let other = query_ranking(d, v.settings.compare, q, v.k());
            ranking::side_by_side(
                f,
                inner,
                v,
                d,
                (rows, v.settings.system),
                (other.as_slice(), v.settings.compare),
                sel,
                RANKING,
            );
        } else if rows.is_empty() && waiting {
            let sid = v.system_id(v.settings.system).to_string();
            let why = match state {
                Some(st) if st.busy.is_some() => format!("{} ranking …", v.spinner),
                Some(st) => st
                    .report
                    .as_ref()
                    .and_then(|r| r.systems.iter().find(|x| x.id == sid))
                    .map_or_else(|| format!("{sid}: no results"), |_| String::new()),
                None => format!("{} ranking …", v.spinner),
            };
            message(f, inner, &why, th.dim);
        } else {
            let query = v.shared.live.is_none().then_some(q);
            ranking::render(f, inner, v, d, query, rows, sel, focused, RANKING);
        }
    }

    /// The probe's state for a live query once Enter sent it, or for an edited query (`None`
    /// for a stored query's own ranking, and while a live query is typed: BM25 ranks it as it
    /// is typed and the prompt shows the text).
    fn probe_lines(
        &self,
        d: &Data,
        v: &View,
        state: Option<&LiveState>,
        w: usize,
    ) -> Option<Vec<Line<'static>>> {
        match &v.shared.live {
            Some((text, _)) if self.live_committed.as_ref() == Some(text) => {
                Some(status_lines(d, v, state, Some(text), w))
            }
            Some(_) => None,
            None if self.session.count(v.shared.query) > 0 => {
                Some(status_lines(d, v, state, None, w))
            }
            None => None,
        }
    }

    /// The panel's title: the query (typed, edited or stored), the system whose ranking this
    /// is, k and the tie policy the ranking is ordered and counted by.
    fn title(&self, v: &View, d: &Data) -> Line<'static> {
        let th = v.theme;
        let b = d.engine.bundle();
        let q = v.shared.query;
        let sid = v.system_id(v.settings.system).to_string();
        let settings = Span::styled(format!("(k={}, {} ties) ", v.k(), v.policy()), th.dim);
        match &v.shared.live {
            Some((text, _)) if self.live_committed.as_ref() != Some(text) => Line::from(vec![
                Span::styled(" live BM25 ", th.title),
                Span::styled("(Enter: every system) ", th.dim),
            ]),
            Some(_) => {
                // The rows are BM25's when the selected system cannot rank here: say so.
                let under = if self.live_unavailable(d, v.settings, v.shared) {
                    format!("under BM25 ({sid} unavailable) ")
                } else {
                    format!("under {sid} ")
                };
                Line::from(vec![
                    Span::styled(" live query ", th.title),
                    Span::styled(under, th.accent),
                    settings,
                ])
            }
            None if self.session.count(q) > 0 => Line::from(vec![
                Span::styled(format!(" {} edited ", b.queries[q].id), th.warn),
                Span::styled(format!("under {sid} "), th.accent),
                settings,
            ]),
            None => Line::from(vec![
                Span::styled(format!(" {} ", b.queries[q].id), th.title),
                Span::styled(format!("under {sid} "), th.accent),
                settings,
            ]),
        }
    }
}
