//! The browser's snippet panel: the selected snippet's highlighted code (or its diff against its
//! canonical with `d`), then the query's tests with the snippet's outcome on each, the snippet's
//! rank under every system, and the edits that make the query's paired distractors.

use super::probe::rank_text;
use super::ranking;
use super::BrowserPane;
use crate::tui::view::{Data, View};
use crate::tui::widgets::chrome::message;
use crate::tui::widgets::chrome::{block, framed};
use crate::tui::widgets::text::{fit_spans, wrap_clip};
use crate::tui::widgets::{code, diff};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

impl BrowserPane {
    /// Snippet `c`: its diff against its canonical (`d`), or its highlighted code with, for a
    /// stored query, the query's tests, its rank under every system and the query's paired
    /// edits under it.
    pub(super) fn draw_code(&self, f: &mut Frame, area: Rect, v: &View, d: &Data, c: usize) {
        let th = v.theme;
        let b = &d.engine.bundle();
        let snip = &b.corpus[c];
        let title_w = area.width.saturating_sub(2) as usize;
        let meta = d.index.distractor.get(&snip.id).map(|&i| &b.distractors[i]);
        let kind = snip
            .bug_type
            .clone()
            .unwrap_or_else(|| snip.label.as_str().to_string());
        if self.diff {
            return draw_diff(f, area, v, d, c);
        }
        let key = (c, th.kind == crate::tui::theme::ThemeKind::Dark, th.mono);
        let mut cache = self.code_cache.borrow_mut();
        if cache.as_ref().is_none_or(|(k, _)| *k != key) {
            *cache = Some((
                key,
                code::numbered(code::highlight(&snip.code, snip.language, th), th),
            ));
        }
        let mut lines = cache.as_ref().map(|(_, l)| l.clone()).unwrap_or_default();
        if v.shared.live.is_none() {
            lines.extend(tests_lines(v, d, c));
            lines.extend(ranks_lines(v, d, c));
            lines.extend(paired_lines(v, d, c));
        }
        let title = Line::from(vec![
            Span::styled(format!(" {} ", snip.id), th.title),
            Span::styled(
                format!(
                    "{kind}{} ",
                    meta.map_or(String::new(), |m| format!(" — {}", m.bug_description))
                ),
                th.dim,
            ),
        ]);
        // The title stays inside the top border: abbreviated with `…`, never cut.
        let title = Line::from(fit_spans(title.spans, title_w));
        f.render_widget(Paragraph::new(lines).block(block(title, false, th)), area);
    }
}

/// Snippet `c`'s diff against its canonical: a distractor's own (the edit its metadata
/// describes, even when it was retrieved for another query), anything else this query's.
fn draw_diff(f: &mut Frame, area: Rect, v: &View, d: &Data, c: usize) {
    let th = v.theme;
    let b = &d.engine.bundle();
    let snip = &b.corpus[c];
    let meta = d.index.distractor.get(&snip.id).map(|&i| &b.distractors[i]);
    let of_query = if v.shared.live.is_none() {
        b.queries[v.shared.query].correct.first().copied()
    } else {
        None
    };
    let kind = snip
        .bug_type
        .clone()
        .unwrap_or_else(|| snip.label.as_str().to_string());
    let own = meta.and_then(|m| b.corpus_row(&m.canonical_id));
    let Some(canon) = own.or(of_query) else {
        let inner = framed(f, area, " diff ", false, th);
        message(f, inner, "no canonical to compare with", th.dim);
        return;
    };
    let size = crate::analysis::deception::edit_size(&b.corpus[canon].code, &snip.code);
    let query_canon = b
        .queries
        .get(v.shared.query)
        .and_then(|q| q.correct.first().copied());
    let title = Line::from(vec![
        Span::styled(" diff ", th.title),
        Span::styled(format!("{} ", b.corpus[canon].id), th.diff_del),
        Span::styled(
            if own.is_some() && own != query_canon {
                "(its own canonical) "
            } else {
                ""
            },
            th.dim,
        ),
        Span::raw("→ "),
        Span::styled(format!("{} ", snip.id), th.diff_add),
        Span::styled(
            format!(
                "({kind}, edit size {size}{}) ",
                meta.map_or(String::new(), |m| format!(", {}", m.operator))
            ),
            th.dim,
        ),
    ]);
    let title_w = area.width.saturating_sub(2) as usize;
    let blk = block(Line::from(fit_spans(title.spans, title_w)), false, th);
    let mut lines = Vec::new();
    // Prose wraps inside the panel (the diff lines below are code: they do not).
    let prose = |text: &str, st| wrap_clip(&[(text.to_string(), st)], title_w, usize::MAX);
    if canon == c {
        lines.extend(prose(
            "the canonical itself — select a distractor to see its edit",
            th.dim,
        ));
    } else {
        if let Some(m) = meta {
            lines.extend(prose(&m.bug_description, th.warn));
        }
        lines.extend(diff::diff_lines(&b.corpus[canon].code, &snip.code, th));
    }
    f.render_widget(Paragraph::new(lines).block(blk), area);
}

/// The query's tests with snippet `c`'s cached outcome on each.
fn tests_lines(v: &View, d: &Data, c: usize) -> Vec<Line<'static>> {
    let th = v.theme;
    let q = v.shared.query;
    let query = &d.engine.bundle().queries[q];
    let outcomes = d.index.outcomes(&d.engine, q, c);
    let mut lines = vec![
        Line::raw(""),
        Line::styled(
            format!(
                "{}'s tests{}",
                query.id,
                if outcomes.is_some() {
                    " (this snippet's outcome)"
                } else {
                    " (not in the execution cache for this snippet)"
                }
            ),
            th.header,
        ),
    ];
    for (i, t) in query.tests.iter().enumerate() {
        let (g, st) = match outcomes.and_then(|o| o.get(i)) {
            Some(o) => ranking::outcome_glyph(o, v),
            None => ('·', th.dim),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {g} "), st),
            Span::styled(t.clone(), th.dim),
        ]));
    }
    lines
}

/// Where every system ranks snippet `c` on the query (rank 1 = best), under the session's tie
/// policy (expected: the mean over its tie's positions).
fn ranks_lines(v: &View, d: &Data, c: usize) -> Vec<Line<'static>> {
    let th = v.theme;
    let q = v.shared.query;
    let b = d.engine.bundle();
    let mut lines = vec![
        Line::raw(""),
        Line::styled(
            format!(
                "{} on {} under every system ({} ties)",
                b.corpus[c].id,
                b.queries[q].id,
                v.policy()
            ),
            th.header,
        ),
    ];
    let idw = d
        .engine
        .scores()
        .iter()
        .map(|s| s.id.chars().count())
        .max()
        .unwrap_or(4);
    for (s, sys) in d.engine.scores().iter().enumerate() {
        let sc = sys.row(q)[c];
        let (rank, tied) = crate::view::ranking::rank_in(&d.engine, s, q, c);
        let tie = if tied > 1 {
            format!(" (tie of {tied})")
        } else {
            String::new()
        };
        let mut line = Line::from(vec![
            Span::styled(format!(" {:<idw$} ", sys.id), th.accent),
            Span::raw(format!("rank {}{tie}  score {sc:.4}", rank_text(rank))),
        ]);
        if s == v.settings.system {
            line = line.style(th.selected_unfocused);
        }
        lines.push(line);
    }
    lines
}

/// The edits that make the query's paired distractors (the changed lines only; cut at the
/// panel's bottom on a small screen): what the systems had to tell apart.
fn paired_lines(v: &View, d: &Data, c: usize) -> Vec<Line<'static>> {
    let th = v.theme;
    let b = d.engine.bundle();
    let query = &b.queries[v.shared.query];
    let Some(&canon) = query.correct.first() else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    for &p in query.paired.iter().filter(|&&p| p != c) {
        let ps = &b.corpus[p];
        let desc = d.index.distractor.get(&ps.id).map_or(String::new(), |&i| {
            format!(" — {}", b.distractors[i].bug_description)
        });
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(format!("{} → {} ", b.corpus[canon].id, ps.id), th.header),
            Span::styled(
                format!("{}{desc}", ps.bug_type.as_deref().unwrap_or("")),
                th.dim,
            ),
        ]));
        lines.extend(
            diff::diff_lines(&b.corpus[canon].code, &ps.code, th)
                .into_iter()
                .filter(|l| {
                    l.spans
                        .first()
                        .is_some_and(|s| s.content.starts_with(['-', '+']))
                }),
        );
    }
    lines
}
