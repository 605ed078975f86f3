//! The leaderboard, per-domain and per-language tables and the documented report JSON, formatted from the
//! core's rows ([`crate::view::leaderboard`]); the dashboard shows the same tables.

use super::table::{Align, Table, TableCell};
use crate::analysis::significance::Significance;
use crate::engine::Engine;
use crate::metrics::metric_keys;
use crate::view::Leaderboard;
use serde_json::{json, Map, Value};

/// The leaderboard as a table (rank, system, every metric, tie bounds), with the exec@1
/// intervals and tied-with-leader marks when `sig` is given.
pub fn table(lb: &Leaderboard, sig: Option<&Significance>) -> Table {
    build(lb, sig, false)
}

/// The leaderboard while its bootstrap is still computing: [`table`]'s columns, the interval
/// columns included and shown as "…", so a screen laid out from it does not jump when the
/// intervals arrive.
pub fn pending_table(lb: &Leaderboard) -> Table {
    build(lb, None, true)
}

fn build(lb: &Leaderboard, sig: Option<&Significance>, pending: bool) -> Table {
    let mut t = Table::new("leaderboard", "Leaderboard")
        .column("rank", "rank", Align::Right)
        .column("system", "system", Align::Left)
        .column("sim", "similarity", Align::Left);
    let keys = metric_keys(&lb.ks);
    // The first cell carries its bootstrap and Wilson intervals beside it.
    let ci_cell = sig.and_then(|s| Some((s, s.cell_index(keys.first()?.0)?)));
    // The metric columns, by position in the table (their best values are bold).
    let mut metric_cols = Vec::with_capacity(keys.len());
    for (i, (key, _)) in keys.iter().enumerate() {
        let key = key.to_string();
        metric_cols.push(t.headers.len());
        t = t.column(&key, &key, Align::Right);
        if i == 0 && (ci_cell.is_some() || pending) {
            t = t
                .column("95% CI (bootstrap)", &format!("{key}_ci95"), Align::Left)
                .column("95% CI (Wilson)", &format!("{key}_wilson95"), Align::Left);
        }
    }
    t = t
        .column("exec@1 pess", "exec@1_pessimistic", Align::Right)
        .column("exec@1 opt", "exec@1_optimistic", Align::Right)
        .column("tie@1", "straddling_cutoff_1", Align::Right)
        .column("tied pairs", "tied_pairs", Align::Right);
    let daggers: Vec<Option<Vec<bool>>> = keys
        .iter()
        .map(|&(key, _)| sig.and_then(|s| lb.daggers(s, key)))
        .collect();
    for (ri, r) in lb.rows.iter().enumerate() {
        let mut row = vec![
            TableCell {
                text: if r.shared_rank {
                    format!("={}", r.rank)
                } else {
                    r.rank.to_string()
                },
                value: Some(r.rank as f64),
                integer: true,
                ..TableCell::default()
            },
            TableCell::text(&r.id),
            TableCell::text(r.similarity.to_string()),
        ];
        for (i, (_, v)) in r.metrics.iter().enumerate() {
            let mut c = TableCell::num(*v, 3);
            if let Some(marks) = &daggers[i] {
                c.mark = marks[ri];
            }
            row.push(c);
            if i == 0 && pending {
                row.extend([TableCell::text("…"), TableCell::text("…")]);
            }
            if let (0, Some((s, ci))) = (i, ci_cell) {
                let iv = &s.intervals[ci][r.system];
                let flag = if iv.degenerate { " (degenerate)" } else { "" };
                row.push(TableCell::text(format!(
                    "[{:.3}, {:.3}]{flag}",
                    iv.low, iv.high
                )));
                row.push(TableCell::text(match s.wilson[ci][r.system] {
                    Some((lo, hi)) => format!("[{lo:.3}, {hi:.3}]"),
                    None => "—".to_string(),
                }));
            }
        }
        row.push(TableCell::num(r.exec1_bounds[0], 3));
        row.push(TableCell::num(r.exec1_bounds[2], 3));
        row.push(match lb.ks.iter().position(|&k| k == 1) {
            Some(i) => TableCell::int(r.ties.at_cutoff[i]),
            None => TableCell::text("—"),
        });
        row.push(TableCell {
            text: format!("{}/{}", r.ties.tied_pairs, r.ties.pairs),
            value: Some(r.ties.tied_pairs as f64),
            integer: true,
            ..TableCell::default()
        });
        t.push(row);
    }
    t.mark_best(&metric_cols);
    // The language mix, when the bundle is not all Python (a Python report reads as before).
    let mix = if lb.multilingual() {
        format!(" ({})", crate::view::languages::describe(&lb.languages))
    } else {
        String::new()
    };
    let mut caption = format!(
        "Means over {} queries{mix}; ties in score ordered by the `{}` policy. \"=n\": equal exec@1. \
         exec@1 pess/opt: passing snippets last/first within score ties. \
         tie@1: queries whose exec@1 depends on the order inside a score tie. tied pairs: (query, paired distractor) pairs scored exactly like the canonical.",
        lb.n_queries, lb.policy
    );
    if pending {
        caption.push_str(" Intervals and † marks: computing (…).");
    }
    if let Some(s) = sig {
        let method = keys
            .first()
            .and_then(|k| s.tier(k.0))
            .map(|t| t.method.clone())
            .unwrap_or_default();
        caption.push_str(&format!(
            " Intervals: query-level percentile bootstrap ({} replicates, seed {}) and Wilson score; \
             \"degenerate\" marks a bootstrap interval of zero width (e.g. [1, 1] at the ceiling). \
             †: not distinguishable from the leader on that exec@k ({method}).",
            s.config.replicates, s.config.seed
        ));
    }
    t.caption(caption)
}

/// Per-domain exec@1 (systems × domains).
pub fn domain_table(lb: &Leaderboard) -> Table {
    let rows = lb.domain_rows();
    let mut t = Table::new("domains", "Per-domain exec@1").column("system", "system", Align::Left);
    for (d, _) in rows.first().map_or(&[][..], |r| &r.exec1[..]) {
        t = t.column(d, d, Align::Right);
    }
    for r in &rows {
        let mut row = vec![TableCell::text(&r.id)];
        row.extend(r.exec1.iter().map(|(_, v)| TableCell::num(*v, 3)));
        t.push(row);
    }
    let cols: Vec<usize> = (1..t.headers.len()).collect();
    t.mark_best(&cols);
    t.caption(format!(
        "Mean exec@1 over each domain's queries ({} ties).",
        lb.policy
    ))
}

/// Per-language exec@1 (systems × the queries' languages, in report order).
pub fn language_table(lb: &Leaderboard) -> Table {
    let rows = lb.language_rows();
    let mut t =
        Table::new("languages", "Per-language exec@1").column("system", "system", Align::Left);
    for (l, n) in &lb.languages {
        t = t.column(
            &format!("{} ({n})", l.display_name()),
            l.as_str(),
            Align::Right,
        );
    }
    for r in &rows {
        let mut row = vec![TableCell::text(&r.id)];
        row.extend(r.exec1.iter().map(|(_, v)| TableCell::num(*v, 3)));
        t.push(row);
    }
    let cols: Vec<usize> = (1..t.headers.len()).collect();
    t.mark_best(&cols);
    t.caption(format!(
        "Mean exec@1 over each language's queries (their number in the header; {} ties).",
        lb.policy
    ))
}

/// The documented report JSON (README, "Report JSON schema").
pub fn json(engine: &Engine, lb: &Leaderboard, sig: Option<&Significance>) -> Value {
    let b = engine.bundle();
    let systems: Vec<Value> = lb
        .rows
        .iter()
        .map(|r| {
            let mut metrics = Map::new();
            for (k, v) in &r.metrics {
                metrics.insert(k.to_string(), json!(v));
            }
            let per_domain: Map<String, Value> = r
                .per_domain
                .iter()
                .map(|(d, v)| (d.clone(), json!({"exec@1": v})))
                .collect();
            let mut intervals = Map::new();
            let mut tied = Map::new();
            if let Some(s) = sig {
                for (ci, c) in s.cells.iter().enumerate() {
                    let iv = &s.intervals[ci][r.system];
                    let mut o = json!({
                        "mean": iv.mean, "ci95_low": iv.low, "ci95_high": iv.high,
                        "degenerate": iv.degenerate,
                    });
                    if let Some((lo, hi)) = s.wilson[ci][r.system] {
                        o["wilson_low"] = json!(lo);
                        o["wilson_high"] = json!(hi);
                    }
                    intervals.insert(c.key.to_string(), o);
                    if let Some(t) = s.tier(c.key) {
                        tied.insert(c.key.to_string(), json!(t.tied[r.system]));
                    }
                }
            }
            let mut system = json!({
                "id": r.id,
                "similarity": r.similarity.as_str(),
                "rank": r.rank,
                "metrics": metrics,
                "intervals": intervals,
                "tied_with_leader": tied,
                "per_domain": per_domain,
                "ties": {
                    "tied_pairs": r.ties.tied_pairs,
                    "pairs": r.ties.pairs,
                    "top1_tied": r.ties.top1_tied,
                    "straddling_cutoff": lb.ks.iter().zip(&r.ties.at_cutoff)
                        .map(|(k, n)| (format!("@{k}"), json!(n))).collect::<Map<_, _>>(),
                    "exec@1_pessimistic": r.exec1_bounds[0],
                    "exec@1_expected": r.exec1_bounds[1],
                    "exec@1_optimistic": r.exec1_bounds[2],
                },
                "label_fallbacks_top10": r.label_fallbacks,
            });
            // Only for a bundle that is not all Python, whose JSON stays what it was.
            if lb.multilingual() {
                let per_language: Map<String, Value> = r
                    .per_language
                    .iter()
                    .map(|(l, v)| (l.as_str().to_string(), json!({"exec@1": v})))
                    .collect();
                system["per_language"] = Value::Object(per_language);
            }
            system
        })
        .collect();
    let mut out = json!({
        "bundle": {
            "path": b.root.display().to_string(),
            "n_queries": b.queries.len(),
            "n_corpus": b.corpus.len(),
            "sha256": b.sha256,
            "tests_key_encoding": b.tests_key_encoding,
        },
        "tie_policy": lb.policy.as_str(),
        "tie_eps": engine.config().tie_eps,
        "ks": lb.ks,
        "bm25": engine.includes_bm25(),
        "pass_source": {
            "cached_pairs": engine.truth().n_cached(),
            "note": "PASS comes from the execution cache; pairs it lacks fall back to correct_corpus_ids membership",
        },
        "bootstrap": sig.map(|s| json!({"replicates": s.config.replicates, "seed": s.config.seed,
            "tiers": s.tiers.first().map(|(_, t)| t.method.clone())})),
        "systems": systems,
    });
    if lb.multilingual() {
        let mix: Map<String, Value> = lb
            .languages
            .iter()
            .map(|(l, n)| (l.as_str().to_string(), json!(n)))
            .collect();
        out["bundle"]["languages"] = Value::Object(mix);
    }
    out
}
