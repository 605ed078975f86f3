//! The browser's left column: the query list (filtered with `/`, each query's result under the
//! current system) and, below it, the selected query with every system's result on it.

use super::{filtered, BrowserPane, Focus, QUERIES};
use crate::tui::actions::Hit;
use crate::tui::theme::Theme;
use crate::tui::view::{Data, View};
use crate::tui::widgets::chrome::{block, framed};
use crate::tui::widgets::scroll_offset;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

impl BrowserPane {
    pub(super) fn draw_list(&self, f: &mut Frame, area: Rect, v: &View, d: &Data) {
        let th = v.theme;
        let b = &d.engine.bundle();
        let list = filtered(d, &self.filter);
        let title = if self.filter.is_empty() {
            Line::from(vec![
                Span::styled(" Queries ", th.title),
                Span::styled(format!("{} ", list.len()), th.dim),
            ])
        } else {
            Line::from(vec![
                Span::styled(" /", th.accent),
                Span::raw(format!("{} ", self.filter)),
                Span::styled(format!("{}/{} ", list.len(), b.queries.len()), th.dim),
            ])
        };
        let inner = framed(
            f,
            area,
            title,
            self.focus == Focus::Queries && v.shared.live.is_none(),
            th,
        );
        let h = inner.height.saturating_sub(1) as usize;
        self.page_list.set(h);
        let k = v.k();
        let ki = v.settings.k_index;
        let eval = &d.engine.evals()[v.settings.system.min(d.engine.evals().len() - 1)];
        // The id column as wide as the longest id, so the function name keeps the rest.
        let id_w = b
            .queries
            .iter()
            .map(|q| q.id.chars().count())
            .max()
            .unwrap_or(2)
            .clamp(2, 14);
        let mut lines = vec![Line::styled(
            crate::tui::widgets::text::fit(
                &format!(" {:<id_w$} {:<6} function", "id", format!("exec@{k}")),
                inner.width as usize,
            ),
            th.header,
        )];
        let pos = list.iter().position(|&q| q == v.shared.query);
        let offset = pos.map_or(0, |p| scroll_offset(p, h));
        let w = inner.width as usize;
        for (i, &q) in list.iter().enumerate().skip(offset).take(h) {
            let query = &b.queries[q];
            let val = eval.per_query.get(q).map_or(f64::NAN, |e| e.exec[ki]);
            let (mark, st) = exec_mark(val, th);
            let mark = mark.map_or_else(|| format!("{val:>5.2} "), |m| format!("  {m}   "));
            let name = if query.function_name.is_empty() {
                query.domain.as_str()
            } else {
                query.function_name.as_str()
            };
            let head = format!(" {:<id_w$} ", query.id);
            let rest_w = w.saturating_sub(head.chars().count() + 7);
            // A name that does not fit is cut at a character, not back to a word (`set…` told
            // nothing); the selected query's full name is in the panel below.
            let mut line = Line::from(vec![
                Span::raw(head),
                Span::styled(mark, st),
                Span::raw(format!(" {}", cut_chars(name, rest_w))),
            ]);
            if Some(i) == pos {
                line = line.style(if self.focus == Focus::Queries {
                    th.selected
                } else {
                    th.selected_unfocused
                });
            }
            v.hits.push(
                Rect::new(inner.x, inner.y + 1 + (i - offset) as u16, inner.width, 1),
                Hit::Row {
                    list: QUERIES,
                    index: i,
                },
            );
            lines.push(line);
        }
        if list.is_empty() {
            lines.push(Line::styled(" no query matches", th.dim));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }

    /// The selected query: id, domain and function, its text, its tests and pool, and every
    /// system's exec@k on it (the current system marked).
    pub(super) fn draw_query_detail(&self, f: &mut Frame, area: Rect, v: &View, d: &Data) {
        let th = v.theme;
        let b = d.engine.bundle();
        let Some(query) = b.queries.get(v.shared.query) else {
            return;
        };
        let ki = v.settings.k_index;
        let mut head = vec![
            Span::styled(format!("{} ", query.function_name), th.accent),
            Span::styled(query.domain.clone(), th.dim),
        ];
        if !query.language.is_python() {
            head.push(Span::styled(
                format!(" · {}", query.language.display_name()),
                th.accent,
            ));
        }
        let mut lines = vec![Line::from(head)];
        // An edited query text is what the probe ranks: shown whole, the stored one under it.
        let edited = self
            .session
            .current(v.shared.query, &crate::probe::session::Target::Query);
        match edited {
            Some(t) => {
                lines.push(Line::from(vec![
                    Span::styled("edited: ", th.warn),
                    Span::raw(t.to_string()),
                ]));
                lines.push(Line::styled(format!("stored: {}", query.text), th.dim));
            }
            None => lines.push(Line::raw(query.text.clone())),
        }
        lines.push(Line::styled(
            format!(
                "{} tests · {} paired distractors",
                query.tests.len(),
                query.paired.len()
            ),
            th.dim,
        ));
        let stored = if self.session.count(v.shared.query) > 0 {
            " (stored query, before the edits)"
        } else {
            ""
        };
        lines.push(Line::styled(
            format!("exec@{} per system{stored}", v.k()),
            th.header,
        ));
        for (s, (sys, ev)) in d.engine.scores().iter().zip(d.engine.evals()).enumerate() {
            let val = ev
                .per_query
                .get(v.shared.query)
                .map_or(f64::NAN, |e| e.exec[ki]);
            let (mark, st) = exec_mark(val, th);
            let mark = mark.unwrap_or('~');
            let mut line = Line::from(vec![
                Span::styled(format!(" {mark} "), st),
                Span::raw(format!("{val:.2} ")),
                Span::raw(sys.id.clone()),
            ]);
            if s == v.settings.system {
                line = line.style(th.selected_unfocused);
            }
            lines.push(line);
        }
        let title = Line::styled(format!(" {} ", query.id), th.title);
        f.render_widget(
            Paragraph::new(lines)
                .wrap(ratatui::widgets::Wrap { trim: true })
                .block(block(title, false, th)),
            area,
        );
    }
}

/// `s` in at most `w` characters, cut at a character and ending in `…` when it does not fit.
fn cut_chars(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
    if w > 0 {
        t.push('…');
    }
    t
}

/// A query's exec@k under one system as a mark: `✓` solved, `✗` not, `None` for a value between
/// (a tie-averaged expectation), with the style the value is shown in.
fn exec_mark(val: f64, th: &Theme) -> (Option<char>, Style) {
    if val == 1.0 {
        (Some('✓'), th.good)
    } else if val == 0.0 {
        (Some('✗'), th.bad)
    } else {
        (None, th.warn)
    }
}
