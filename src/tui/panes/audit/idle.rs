//! The Audit pane before a run: what the audit will do, the key that starts it, the isolation it
//! runs under and the pool it would take, in the session's tie order (scrolled with ↑/↓); under
//! expected ties, which have no single pool order, why it will not run and what to press.

use super::{AuditPane, K, MAX_VISIBLE};
use crate::metrics::TiePolicy;
use crate::tui::view::{Data, View};
use crate::tui::widgets::chrome::{framed, message};
use crate::tui::widgets::text::fit;
use crate::view::ranking::order_note;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// The pool an audit of one system would take, before it runs: per query its top [`K`] in the
/// pool order of the session's tie policy (the core's `audit::retrieval::pool_order`, as the
/// audit takes it), each pair's cached verdict if the execution cache has it.
#[derive(Clone, Debug, Default)]
pub struct Preview {
    /// Per query: (query row, per rank `Some(passes)` if cached, `None` if the oracle must run it).
    pub pools: Vec<(usize, Vec<Option<bool>>)>,
    /// Per query: the pool's corpus rows, in pool order.
    pub rows: Vec<Vec<usize>>,
    pub pairs: usize,
    pub cached: usize,
}

impl Preview {
    /// The pool of system `s` under `policy`; `None` under expected ties (no single order).
    pub fn build(d: &Data, s: usize, policy: TiePolicy) -> Option<Preview> {
        let e = &d.engine;
        let mut p = Preview::default();
        for q in 0..e.bundle().queries.len() {
            let top = crate::audit::retrieval::pool_order(e, s, q, K, policy)?;
            let marks: Vec<Option<bool>> = top
                .iter()
                .map(|&c| e.cache_index().verdict(e.bundle(), q, c as usize))
                .collect();
            p.rows.push(top.iter().map(|&c| c as usize).collect());
            p.pairs += marks.len();
            p.cached += marks.iter().filter(|m| m.is_some()).count();
            p.pools.push((q, marks));
        }
        Some(p)
    }
}

/// How the oracle will isolate the pairs it runs (the same choice as `execscope build`).
fn isolation_text() -> String {
    match std::env::var("EXECSCOPE_ISOLATION") {
        Ok(s) if !s.trim().is_empty() => format!("{s} (set by EXECSCOPE_ISOLATION)"),
        _ => "auto: the strongest level that passes a start-up probe (userns, then bubblewrap, \
              then netns); weaker isolation is refused unless asked for (docs/threat-model.md)"
            .to_string(),
    }
}

/// What the pane says under expected ties: the audit's own refusal, and the key that picks an
/// order.
pub fn no_single_order(sys: &str) -> String {
    format!(
        "The audit needs one pool order, and the session's tie policy `expected` averages \
         over every order of a score tie: there is no single top {K} of {sys} to audit \
         (`execscope audit --ties expected` refuses too). Press t for the next tie policy \
         (pessimistic, then optimistic, row): the audit then takes each query's top {K} in \
         that order, and every pane shows that policy's numbers."
    )
}

/// Every query's pool rank by rank, one column per order: the snippet there and its cached
/// verdict (`?`: to run).
fn every_pair(v: &View, d: &Data, pools: &[(TiePolicy, Preview)]) -> Vec<Line<'static>> {
    let th = v.theme;
    let b = d.engine.bundle();
    let cw = (b
        .corpus
        .iter()
        .map(|c| c.id.chars().count())
        .max()
        .unwrap_or(6)
        + 4)
    .max(13);
    let mut head = "    ".to_string();
    for (p, _) in pools {
        head.push_str(&format!(" {:<w$}", p.as_str(), w = cw - 1));
    }
    let mut out = vec![Line::styled(head, th.header)];
    let Some((_, first)) = pools.first() else {
        return out;
    };
    for (qi, (q, _)) in first.pools.iter().enumerate() {
        let query = &b.queries[*q];
        out.push(Line::from(vec![
            Span::styled(format!("{} ", query.id), th.accent),
            Span::styled(query.function_name.clone(), th.dim),
        ]));
        for r in 0..K {
            let mut spans = vec![Span::raw(format!("  {:>2}", r + 1))];
            for (_, pre) in pools {
                let (Some(&c), Some(mk)) = (pre.rows[qi].get(r), pre.pools[qi].1.get(r)) else {
                    spans.push(Span::raw(" ".repeat(cw)));
                    continue;
                };
                let (g, st) = match mk {
                    Some(true) => ("✓", th.good),
                    Some(false) => ("✗", th.bad),
                    None => ("?", th.warn),
                };
                let id = &b.corpus[c].id;
                spans.push(Span::raw(format!(" {id} ")));
                spans.push(Span::styled(g, st));
                spans.push(Span::raw(
                    " ".repeat(cw.saturating_sub(id.chars().count() + 3)),
                ));
            }
            out.push(Line::from(spans));
        }
    }
    out
}

impl AuditPane {
    /// Before a run: what the audit will do, the key that starts it, the isolation it runs
    /// under, and the pool it would audit (with what the execution cache already knows).
    pub(super) fn draw_idle(&self, f: &mut Frame, area: Rect, v: &View, d: &Data, sys: &str) {
        let th = v.theme;
        let policy = v.policy();
        let key = (d.gen, v.settings.system, policy);
        let Some((_, pools)) = self.preview.as_ref().filter(|(k, _)| *k == key) else {
            message(f, area, &v.pending("the audit's pool"), th.accent);
            return;
        };
        if policy == TiePolicy::Expected {
            return self.draw_orders(f, area, v, d, sys, pools);
        }
        let Some((_, p)) = pools.first() else { return };
        let inner = framed(
            f,
            area,
            Line::styled(
                format!(" Audit of {sys} — not run yet ({}) ", order_note(policy)),
                th.title,
            ),
            true,
            th,
        );
        let lines = self.intro(v, Some(p), sys);
        // Rows the wrapped text takes: the character count's, plus one row of slack for word
        // wrapping of each line that wraps more than once.
        let w = inner.width.max(1) as usize;
        let text_h = lines
            .iter()
            .map(|l| {
                let rows = l.width().div_ceil(w).max(1);
                rows + usize::from(rows > 2)
            })
            .sum::<usize>()
            .min(inner.height as usize) as u16;
        let para = Paragraph::new(lines).wrap(Wrap { trim: true });
        let [top, rest] =
            Layout::vertical([Constraint::Length(text_h + 1), Constraint::Min(0)]).areas(inner);
        f.render_widget(para, top);
        if rest.height >= 2 {
            self.draw_pool(f, rest, v, d, p);
        }
    }

    /// Under expected ties: why the audit will not run, what it does, and the pool it would
    /// take under each order it can take (each named: numbers of another setting than the
    /// session's, for comparison), query by query side by side.
    fn draw_orders(
        &self,
        f: &mut Frame,
        area: Rect,
        v: &View,
        d: &Data,
        sys: &str,
        pools: &[(TiePolicy, Preview)],
    ) {
        let th = v.theme;
        let inner = framed(
            f,
            area,
            Line::styled(format!(" Audit of {sys} — needs one pool order "), th.title),
            true,
            th,
        );
        let mut lines = vec![Line::styled(no_single_order(sys), th.warn), Line::raw("")];
        lines.extend(self.intro(v, None, sys).into_iter().skip(1));
        lines.push(Line::styled(
            "The pool under each order the audit can take (not the session's numbers):",
            th.header,
        ));
        for (p, pre) in pools {
            lines.push(Line::raw(format!(
                "{p} order: {} pairs; {} in the execution cache, {} to run",
                pre.pairs,
                pre.cached,
                pre.pairs - pre.cached
            )));
        }
        let w = inner.width.max(1) as usize;
        let text_h = lines
            .iter()
            .map(|l| {
                let rows = l.width().div_ceil(w).max(1);
                rows + usize::from(rows > 2)
            })
            .sum::<usize>()
            .min(inner.height as usize) as u16;
        let [top, rest] =
            Layout::vertical([Constraint::Length(text_h + 1), Constraint::Min(0)]).areas(inner);
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), top);
        if rest.height < 2 {
            return;
        }
        let b = d.engine.bundle();
        let nq = pools.first().map_or(0, |(_, p)| p.pools.len());
        // Room for every pair: each rank's snippet under each order, side by side.
        if nq * (K + 1) < rest.height as usize {
            self.pool_page.set(0);
            return f.render_widget(Paragraph::new(every_pair(v, d, pools)), rest);
        }
        let idw = b
            .queries
            .iter()
            .map(|q| q.id.chars().count())
            .max()
            .unwrap_or(6);
        let mut head = format!("{:<idw$} ", "");
        for (p, _) in pools {
            head.push_str(&format!(" {:<w$}", p.as_str(), w = K + 1));
        }
        let mut out = vec![Line::styled(fit(&head, rest.width as usize), th.header)];
        let page = (rest.height as usize).saturating_sub(2).max(1);
        self.pool_page.set(page);
        let top_q = self.pool_top.min(nq.saturating_sub(page));
        for qi in top_q..(top_q + page).min(nq) {
            let q = pools[0].1.pools[qi].0;
            let mut spans = vec![Span::raw(format!("{:<idw$} ", b.queries[q].id))];
            for (_, pre) in pools {
                spans.push(Span::raw(" "));
                for mk in &pre.pools[qi].1 {
                    spans.push(match mk {
                        Some(true) => Span::styled("✓", th.good),
                        Some(false) => Span::styled("✗", th.bad),
                        None => Span::styled("?", th.warn),
                    });
                }
                spans.push(Span::raw(" ".repeat(K + 1 - pre.pools[qi].1.len())));
            }
            out.push(Line::from(spans));
        }
        if nq > page {
            out.push(Line::styled(
                fit(
                    &format!(
                        "▲ {top_q} above · ▼ {} below (↑/↓ scroll)",
                        nq.saturating_sub(top_q + page)
                    ),
                    rest.width as usize,
                ),
                th.dim,
            ));
        }
        f.render_widget(Paragraph::new(out), rest);
    }

    /// The idle view's text: the key, what the audit does, its pool (when there is one) and
    /// isolation.
    fn intro(&self, v: &View, p: Option<&Preview>, sys: &str) -> Vec<Line<'static>> {
        let th = v.theme;
        let m = self.visible;
        let order = order_note(v.policy());
        let mut lines = vec![
            Line::from(vec![
                Span::styled("Press Enter", th.accent),
                Span::raw(format!(" to audit {sys}'s retrieval ")),
                Span::styled(format!("(v: visible tests m = {m}, 1–{MAX_VISIBLE})"), th.dim),
            ]),
            Line::raw(format!(
                "What it does: {sys}'s top {K} snippets per query form the candidate pool; the first {m} tests of each suite serve as self-tests, the whole suite as the oracle. It counts how often each admission rule (take the top k; take the first candidate passing the self-tests) returns a snippet that passes the whole suite."
            )),
        ];
        if let Some(p) = p {
            lines.push(Line::from(vec![
                Span::styled("Pool: ", th.accent),
                Span::raw(format!(
                    "{} queries × top {K} = {} pairs; {} in the execution cache, {} to run in the oracle sandbox",
                    p.pools.len(), p.pairs, p.cached, p.pairs - p.cached
                )),
            ]));
            lines.push(Line::from(vec![
                Span::styled("Pool order: ", th.accent),
                Span::raw(format!("{order}, the session's tie policy (t changes it)")),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled("Isolation: ", th.accent),
            Span::raw(isolation_text()),
        ]));
        lines
    }

    /// The pool, one line per query (✓ cached pass, ✗ cached fail, ? to run), from the query
    /// ↑/↓ scrolled to; every pair on its own line where all of them fit.
    fn draw_pool(&self, f: &mut Frame, rest: Rect, v: &View, d: &Data, p: &Preview) {
        let th = v.theme;
        let b = d.engine.bundle();
        let mut out = vec![Line::styled(
            fit(
                &format!("pool, ranks 1–{K}: ✓ pass · ✗ fail (cached) · ? to run"),
                rest.width as usize,
            ),
            th.header,
        )];
        let every = p.pools.iter().map(|(_, m)| m.len() + 1).sum::<usize>() + 1;
        if every <= rest.height as usize {
            for ((q, marks), rows) in p.pools.iter().zip(&p.rows) {
                let query = &b.queries[*q];
                out.push(Line::from(vec![
                    Span::styled(format!("{} ", query.id), th.accent),
                    Span::styled(query.function_name.clone(), th.dim),
                ]));
                for (r, (mk, &c)) in marks.iter().zip(rows).enumerate() {
                    let (g, st, what) = match mk {
                        Some(true) => ("✓", th.good, "passes (cached)"),
                        Some(false) => ("✗", th.bad, "fails (cached)"),
                        None => ("?", th.warn, "to run in the sandbox"),
                    };
                    let role = if query.correct.contains(&c) {
                        "canonical".to_string()
                    } else {
                        b.corpus[c]
                            .bug_type
                            .clone()
                            .unwrap_or_else(|| b.corpus[c].label.as_str().to_string())
                    };
                    out.push(Line::from(vec![
                        Span::raw(format!("  {:>2} {} ", r + 1, b.corpus[c].id)),
                        Span::styled(format!("{g} "), st),
                        Span::styled(format!("{what:<22}"), st),
                        Span::styled(role, th.dim),
                    ]));
                }
            }
            self.pool_page.set(0);
            f.render_widget(Paragraph::new(out), rest);
            return;
        }
        let nq = p.pools.len();
        // One line each for the header and the "more" note.
        let page = (rest.height as usize).saturating_sub(2).max(1);
        self.pool_page.set(page);
        let top = self.pool_top.min(nq.saturating_sub(page));
        let idw = p
            .pools
            .iter()
            .map(|(q, _)| b.queries[*q].id.chars().count())
            .max()
            .unwrap_or(6);
        for (q, marks) in p.pools.iter().skip(top).take(page) {
            let query = &b.queries[*q];
            let mut spans = vec![Span::raw(format!("{:<idw$}  ", query.id))];
            for mk in marks {
                spans.push(match mk {
                    Some(true) => Span::styled("✓", th.good),
                    Some(false) => Span::styled("✗", th.bad),
                    None => Span::styled("?", th.warn),
                });
            }
            spans.push(Span::styled(
                format!(
                    "{}  {}",
                    " ".repeat(K + 1 - marks.len()),
                    query.function_name
                ),
                th.dim,
            ));
            out.push(Line::from(spans));
        }
        if nq > page {
            let below = nq.saturating_sub(top + page);
            out.push(Line::styled(
                fit(
                    &format!("▲ {top} above · ▼ {below} below (↑/↓ scroll)"),
                    rest.width as usize,
                ),
                th.dim,
            ));
        }
        f.render_widget(Paragraph::new(out), rest);
    }
}
