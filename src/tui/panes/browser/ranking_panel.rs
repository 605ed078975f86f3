//! The browser's ranking panel: the selected query's ranking under the current system (or a
//! live query's, or two systems side by side with `c`), under a title that names the query, the
//! system, k and the probing state, abbreviated to fit and never cut.

use super::probe::{enable_hint, status_spans};
use super::ranking::{self, RankRow};
use super::{query_ranking, BrowserPane, Focus, RANKING};
use crate::probe::live::LiveState;
use crate::tui::view::View;
use crate::tui::widgets::chrome::framed;
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::text::{fit, fit_spans};
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
        let title = self.title(v, d, state, title_w);
        let title = Line::from(fit_spans(title.spans, title_w));
        let inner = framed(f, area, title, focused, th);
        // The glyphs' legend on the bottom border (whole items; `?` lists them all).
        if area.height > 2 && area.width > 4 {
            let legend = ranking::legend_line(area.width.saturating_sub(4) as usize);
            f.render_widget(
                Paragraph::new(Line::styled(legend, th.dim)),
                Rect::new(area.x + 2, area.bottom() - 1, area.width - 4, 1),
            );
        }
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
                Some(st) => match (st.busy.as_deref(), &st.report, &st.error) {
                    (Some(b), _, _) => format!("{} {b} …", v.spinner),
                    (None, Some(r), _) => r
                        .systems
                        .iter()
                        .find(|x| x.id == sid)
                        .and_then(|x| x.reason.clone())
                        .map_or_else(|| format!("{sid}: no results"), |w| format!("{sid}: {w}")),
                    (None, None, Some(e)) => e.clone(),
                    _ => String::new(),
                },
                None => format!("{} ranking …", v.spinner),
            };
            message(f, inner, &why, th.dim);
        } else {
            let query = v.shared.live.is_none().then_some(q);
            // A live query that some systems could not rank says once what enables them.
            let hint = v
                .shared
                .live
                .as_ref()
                .and_then(|_| enable_hint(state))
                .filter(|_| inner.height > 3);
            let inner = match hint {
                Some(h) => {
                    f.render_widget(
                        Paragraph::new(Line::styled(fit(&h, inner.width as usize), th.warn)),
                        Rect::new(inner.x, inner.y, inner.width, 1),
                    );
                    Rect::new(inner.x, inner.y + 1, inner.width, inner.height - 1)
                }
                None => inner,
            };
            ranking::render(f, inner, v, d, query, rows, sel, focused, RANKING);
        }
    }

    /// The panel's title: the query (typed, edited or stored), the system whose ranking this
    /// is, k and the order inside score ties the session's tie policy shows.
    fn title(
        &self,
        v: &View,
        d: &crate::tui::view::Data,
        state: Option<&LiveState>,
        title_w: usize,
    ) -> Line<'static> {
        let th = v.theme;
        let b = d.engine.bundle();
        let q = v.shared.query;
        match &v.shared.live {
            Some((text, _)) if self.live_committed.as_ref() != Some(text) => Line::from(vec![
                Span::styled(" live BM25: ", th.title),
                Span::raw(format!("\"{text}\" ")),
            ]),
            Some((text, _)) => {
                let sid = v.system_id(v.settings.system);
                // The rows are BM25's when the selected system cannot rank here: say so.
                let under = if self.live_unavailable(d, v.settings, v.shared) {
                    format!("under BM25 ({sid} unavailable) ")
                } else {
                    format!("under {sid} ")
                };
                let mut spans = vec![
                    Span::styled(" live: ", th.title),
                    Span::raw(format!("\"{text}\" ")),
                    Span::styled(under, th.accent),
                ];
                let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                spans.extend(status_spans(d, v, state, title_w.saturating_sub(used)));
                Line::from(spans)
            }
            None if self.session.count(q) > 0 => {
                let mut spans = vec![
                    Span::styled(format!(" {} edited ", b.queries[q].id), th.warn),
                    Span::styled(
                        format!("under {} ", v.system_id(v.settings.system)),
                        th.accent,
                    ),
                    Span::styled(format!("(k={}, {} ties) ", v.k(), v.policy()), th.dim),
                ];
                let used: usize = spans.iter().map(|s| s.content.chars().count()).sum();
                spans.extend(status_spans(d, v, state, title_w.saturating_sub(used)));
                Line::from(spans)
            }
            None => Line::from(vec![
                Span::styled(format!(" {} ", b.queries[q].id), th.title),
                Span::styled(
                    format!("under {} ", v.system_id(v.settings.system)),
                    th.accent,
                ),
                Span::styled(format!("(k={}, {} ties) ", v.k(), v.policy()), th.dim),
            ]),
        }
    }
}
