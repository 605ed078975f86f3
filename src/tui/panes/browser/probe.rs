//! The browser's live probing: the request the view wants answered (a committed live query, or
//! the current query's edits), the probing service ([`crate::probe::live`]) it is submitted to,
//! the per-system status strip and the edits panel (scores and ranks before → after, verdicts).

use super::*;
use crate::metrics::TiePolicy;
use crate::tui::widgets::text::wrap_clip;
use crate::view::ranking as view_ranking;

/// A typed query's BM25 ranking (no suite, so no verdicts), each row counted at `k` under
/// `policy` (a tie straddling the cutoff counts by its share under expected ties).
pub(super) fn live_rows(live: &[(u32, f64)], k: usize, policy: TiePolicy) -> Vec<RankRow> {
    let scores: Vec<f64> = live.iter().map(|x| x.1).collect();
    let ties: Vec<usize> = scores
        .iter()
        .map(|&s| scores.iter().filter(|&&x| x == s).count())
        .collect();
    let counted = view_ranking::counted(&scores, &ties, k, policy);
    live.iter()
        .zip(ties)
        .zip(counted)
        .map(|((&(c, s), tie), counted)| RankRow {
            corpus: c as usize,
            score: s,
            tie,
            pass: None,
            counted,
            outcomes: None,
        })
        .collect()
}

/// The ranking rows of one system in a probe report, with each row's per-test outcomes: the
/// oracle's verdict for an edited snippet, the execution cache's for the others (stored
/// queries; a free text has no tests), so an edit never turns the tests column into labels.
/// The report ranks in row order; the rows are shown in the order of the report's tie policy
/// (the session's), each counted at `k` ([`crate::view::ranking::arrange`], `counted`).
pub(super) fn report_rows(d: &Data, r: &ProbeReport, s: usize, k: usize) -> Option<Vec<RankRow>> {
    let e = &d.engine;
    let id = &e.scores().get(s)?.id;
    let sp = r.systems.iter().find(|x| &x.id == id && x.status == "ok")?;
    let q = r
        .query_id
        .as_ref()
        .and_then(|qid| e.bundle().queries.iter().position(|x| &x.id == qid));
    let outcomes = |h: &crate::probe::ProbeHit| -> Option<Vec<String>> {
        if h.replaced {
            let v = r.verdicts.iter().find(|v| v.corpus_id == h.corpus_id)?;
            return (!v.outcomes.is_empty()).then(|| v.outcomes.clone());
        }
        d.index.outcomes(e, q?, h.row).map(<[String]>::to_vec)
    };
    let policy = e.config().policy;
    let scores: Vec<f64> = sp.top.iter().map(|h| f64::from(h.score)).collect();
    let passes: Vec<Option<bool>> = sp.top.iter().map(|h| h.pass).collect();
    let order = view_ranking::arrange(&scores, &passes, policy);
    let shown: Vec<&crate::probe::ProbeHit> = order.iter().map(|&i| &sp.top[i]).collect();
    let ties: Vec<usize> = shown.iter().map(|h| h.tie).collect();
    let shown_scores: Vec<f64> = order.iter().map(|&i| scores[i]).collect();
    let counted = view_ranking::counted(&shown_scores, &ties, k, policy);
    Some(
        shown
            .into_iter()
            .zip(counted)
            .map(|(h, counted)| RankRow {
                corpus: h.row,
                score: f64::from(h.score),
                tie: h.tie,
                pass: h.pass,
                counted,
                outcomes: outcomes(h),
            })
            .collect(),
    )
}

impl BrowserPane {
    /// The probe the view wants answered now: the live query's, or the current query's edits.
    pub(super) fn wanted(
        &self,
        d: &Data,
        shared: &crate::tui::view::Shared,
        k: usize,
    ) -> Option<ProbeRequest> {
        match &shared.live {
            Some((text, _))
                if !text.trim().is_empty() && self.live_committed.as_ref() == Some(text) =>
            {
                Some(ProbeRequest {
                    query: ProbeQuery::Text(text.clone()),
                    replace: Vec::new(),
                    systems: None,
                    k,
                    depth: DEPTH,
                })
            }
            Some(_) => None,
            None if shared.query < d.engine.bundle().queries.len() => {
                self.session.request(shared.query, k, DEPTH)
            }
            None => None,
        }
    }

    /// The probing service's state when it answers (or is answering) exactly `want`.
    pub(super) fn live_state(&self, want: &ProbeRequest) -> Option<LiveState> {
        let st = self.live.as_ref()?.state();
        (st.request.as_ref() == Some(want)).then_some(st)
    }

    /// Submit `want` unless it is what was last submitted under the same tie policy.
    pub(super) fn submit(&mut self, d: &Data, want: &ProbeRequest) {
        let policy = d.engine.config().policy;
        if self
            .live_sent
            .as_ref()
            .is_some_and(|(r, p)| r == want && *p == policy)
        {
            return;
        }
        let service = self.live.get_or_insert_with(|| LiveProbe::start(None));
        service.submit(d.engine.clone(), want.clone());
        self.live_sent = Some((want.clone(), policy));
    }

    /// Busy while the service works, and once more after it answers, so the answer is drawn.
    pub(super) fn probe_busy(&self) -> bool {
        let Some(service) = self.live.as_ref() else {
            return false;
        };
        let st = service.state();
        if st.busy.is_some() {
            return true;
        }
        if st.seq != self.ticked_done.get() {
            self.ticked_done.set(st.seq);
            return true;
        }
        false
    }
}

/// The probing service's state in whole words for a panel `w` columns wide, drawn above the
/// ranking of a live or edited query (never in its title, where it would be cut): the typed
/// query (`query`), the work in progress, the systems that ranked it, each unavailable system
/// by its whole name with why and what would make it rank (systems sharing a reason named
/// together), and any error. Wrapped at words; nothing is cut.
pub(super) fn status_lines(
    d: &Data,
    v: &View,
    st: Option<&LiveState>,
    query: Option<&str>,
    w: usize,
) -> Vec<Line<'static>> {
    let th = v.theme;
    let mut paras: Vec<(String, ratatui::style::Style)> = Vec::new();
    if let Some(q) = query {
        paras.push((format!("query: {q}"), th.accent));
    }
    let Some(st) = st else {
        paras.push((
            format!("{} waiting for the probing service", v.spinner),
            th.dim,
        ));
        return wrap_clip(&paras, w, usize::MAX);
    };
    if let Some(b) = &st.busy {
        // Work over a second shows its elapsed time (a model load takes 8–15 s).
        let secs = st.busy_since.map_or(0, |t| t.elapsed().as_secs());
        let b = if secs >= 1 {
            format!("{b} {secs} s")
        } else {
            b.clone()
        };
        paras.push((format!("{} {b}", v.spinner), th.warn));
    }
    if let Some(r) = &st.report {
        let ok: Vec<&str> = d
            .engine
            .scores()
            .iter()
            .filter(|s| r.systems.iter().any(|x| x.id == s.id && x.status == "ok"))
            .map(|s| s.id.as_str())
            .collect();
        if !ok.is_empty() {
            let took = match (&st.busy, st.elapsed) {
                (None, Some(t)) => format!(" ({} ms)", t.as_millis()),
                _ => String::new(),
            };
            paras.push((format!("✓ ranked by {}{took}", ok.join(", ")), th.good));
        }
        for (why, ids) in unavailable(d, r) {
            paras.push((format!("✗ {}: {why}", ids.join(", ")), th.bad));
        }
    }
    if let Some(e) = &st.error {
        paras.push((format!("error: {e}"), th.bad));
    }
    wrap_clip(&paras, w, usize::MAX)
}

/// The systems a probe report could not rank with, grouped by what would make them rank: the
/// embedding environment's remedy (`execscope probe --setup`) for those that need it, else each
/// system's own reason.
fn unavailable(d: &Data, r: &ProbeReport) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for s in d.engine.scores() {
        let Some(x) = r.systems.iter().find(|x| x.id == s.id && x.status != "ok") else {
            continue;
        };
        let why = x.reason.clone().unwrap_or_else(|| "unavailable".into());
        let why = if why.contains("embedding environment") {
            "need a model: `execscope probe --setup` (≈7 GB, once); the next query uses it"
                .to_string()
        } else {
            why
        };
        match out.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ids)) => ids.push(s.id.clone()),
            None => out.push((why, vec![s.id.clone()])),
        }
    }
    out
}

pub(super) fn rank_text(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

impl BrowserPane {
    /// The edits panel: per system, each edited snippet's (and the canonical's) score and rank
    /// before → after, then the oracle's per-test verdict on every edited snippet.
    pub(super) fn draw_probe(&self, f: &mut Frame, area: Rect, v: &View, r: Option<&ProbeReport>) {
        let th = v.theme;
        let q = v.shared.query;
        let n = self.session.count(q);
        let edits = format!("{n} edit{}", if n == 1 { "" } else { "s" });
        let full = format!(
            "{edits} (u undoes; scratch {}) ",
            self.session.log_path().display()
        );
        // The scratch path only where the border has room for it whole.
        let note = if full.chars().count() + 9 <= area.width as usize {
            full
        } else {
            format!("{edits} (u undoes) ")
        };
        let title = Line::from(vec![
            Span::styled(" probe ", th.title),
            Span::styled(note, th.dim),
        ]);
        let blk = block(title, false, th);
        let Some(r) = r else {
            let inner = blk.inner(area);
            f.render_widget(blk, area);
            message(f, inner, &format!("{} probing …", v.spinner), th.dim);
            return;
        };
        let mut lines = Vec::new();
        if r.query_edited {
            lines.push(Line::from(vec![
                Span::styled("query: ", th.warn),
                Span::raw(r.query_text.clone()),
            ]));
        }
        for vd in &r.verdicts {
            let mut spans = vec![Span::styled(
                format!(
                    "{} {} ",
                    vd.corpus_id,
                    if vd.passes_all { "PASS" } else { "FAIL" }
                ),
                if vd.passes_all { th.good } else { th.bad },
            )];
            for o in &vd.outcomes {
                let (g, st) = ranking::outcome_glyph(o, v);
                spans.push(Span::styled(g.to_string(), st));
            }
            if let Some(so) = &vd.stored_outcomes {
                spans.push(Span::styled("  was ", th.dim));
                for o in so {
                    let (g, st) = ranking::outcome_glyph(o, v);
                    spans.push(Span::styled(g.to_string(), st));
                }
            }
            if vd.outcomes.is_empty() {
                spans.push(Span::styled(format!(" {}", vd.runner), th.warn));
            }
            lines.push(Line::from(spans));
        }
        let k = r.k;
        // Whole system names in a column as wide as the longest.
        let idw = r
            .systems
            .iter()
            .map(|x| x.id.chars().count())
            .max()
            .unwrap_or(4)
            + 1;
        for sp in &r.systems {
            if sp.status != "ok" {
                lines.push(Line::from(vec![
                    Span::styled(format!("{:<idw$}", sp.id), th.accent),
                    Span::styled(sp.reason.clone().unwrap_or_default(), th.dim),
                ]));
                continue;
            }
            let mut spans = vec![Span::styled(format!("{:<idw$}", sp.id), th.accent)];
            if let (Some(a), Some(b)) = (sp.exec_before, sp.exec_after) {
                spans.push(Span::raw(format!("exec@{k} {a:.2}→{b:.2} ")));
            }
            for t in sp
                .tracked
                .iter()
                .filter(|t| t.replaced || t.role == "canonical")
            {
                spans.push(Span::styled(
                    format!(
                        " {}{} {:.4}→{:.4} rank {}→{} pool {}→{}",
                        t.corpus_id,
                        if t.replaced { "*" } else { "" },
                        t.score_before,
                        t.score_after,
                        rank_text(t.rank_before),
                        rank_text(t.rank_after),
                        rank_text(t.pool_rank_before),
                        rank_text(t.pool_rank_after)
                    ),
                    if t.rank_after < t.rank_before {
                        th.good
                    } else if t.rank_after > t.rank_before {
                        th.bad
                    } else {
                        th.dim
                    },
                ));
            }
            lines.push(Line::from(spans));
        }
        // Every line wraps inside the panel: the edited query and each system's reason are
        // read back whole, never cut at the border.
        f.render_widget(
            Paragraph::new(lines)
                .block(blk)
                .wrap(ratatui::widgets::Wrap { trim: false }),
            area,
        );
    }
}
