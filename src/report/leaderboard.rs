//! The leaderboard view model: one row per system, sorted by exec@1, ties in rank visible.
//! Rendered by `report` (every format, plus the documented JSON schema) and by the dashboard.

use super::table::{Align, Cell, Table};
use crate::engine::Engine;
use crate::metrics::{Metric, TieCounts};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// One leaderboard row.
#[derive(Clone, Debug)]
pub struct LeaderRow {
    /// Index into `Engine::scores` / `Engine::evals`.
    pub system: usize,
    pub id: String,
    pub similarity: String,
    /// 1-based rank by exec@1; systems with equal exec@1 share a rank.
    pub rank: usize,
    /// Shares its rank with another system.
    pub shared_rank: bool,
    /// Metric key (`exec@1`, …, `mrr`) → mean.
    pub metrics: Vec<(String, f64)>,
    /// Domain → exec@1.
    pub per_domain: BTreeMap<String, f64>,
    pub ties: TieCounts,
    /// exec@1 under pessimistic / expected / optimistic tie orders.
    pub exec1_bounds: [f64; 3],
    /// Pairs in the top 10 whose PASS came from the label fallback.
    pub label_fallbacks: usize,
}

impl LeaderRow {
    pub fn metric(&self, key: &str) -> f64 {
        self.metrics
            .iter()
            .find(|(k, _)| k == key)
            .map_or(f64::NAN, |(_, v)| *v)
    }
}

/// The leaderboard of an engine's current evaluation.
#[derive(Clone, Debug)]
pub struct Leaderboard {
    pub ks: Vec<usize>,
    pub policy: String,
    pub rows: Vec<LeaderRow>,
}

/// Metric keys in display order for the given cutoffs.
pub fn metric_keys(ks: &[usize]) -> Vec<(Metric, usize, String)> {
    let mut out = Vec::new();
    for m in Metric::AT_K {
        for (ki, &k) in ks.iter().enumerate() {
            out.push((m, ki, m.key(k)));
        }
    }
    out.push((Metric::Mrr, 0, "mrr".to_string()));
    out
}

pub fn build(engine: &Engine) -> Leaderboard {
    let cfg = engine.config();
    let keys = metric_keys(&cfg.ks);
    let bounds = engine.exec1_bounds();
    let fallbacks = engine.label_fallbacks_in_top(10);
    let k1 = cfg.k_index(1);
    let mut rows: Vec<LeaderRow> = engine
        .evals
        .iter()
        .enumerate()
        .map(|(i, e)| LeaderRow {
            system: i,
            id: e.id.clone(),
            similarity: e.similarity.clone(),
            rank: 0,
            shared_rank: false,
            metrics: keys
                .iter()
                .map(|(m, ki, key)| (key.clone(), e.mean(*m, *ki)))
                .collect(),
            per_domain: k1.map_or_else(BTreeMap::new, |ki| {
                e.per_domain(&engine.bundle, Metric::Exec, ki)
            }),
            ties: e.ties.clone(),
            exec1_bounds: bounds[i],
            label_fallbacks: fallbacks[i],
        })
        .collect();
    let primary = |r: &LeaderRow| {
        if k1.is_some() {
            r.metric("exec@1")
        } else {
            r.metrics.first().map_or(0.0, |m| m.1)
        }
    };
    rows.sort_by(|a, b| {
        primary(b)
            .total_cmp(&primary(a))
            .then_with(|| b.metric("mrr").total_cmp(&a.metric("mrr")))
            .then_with(|| a.id.cmp(&b.id))
    });
    for i in 0..rows.len() {
        let rank = if i > 0 && primary(&rows[i]) == primary(&rows[i - 1]) {
            rows[i - 1].rank
        } else {
            i + 1
        };
        rows[i].rank = rank;
    }
    for i in 0..rows.len() {
        let r = rows[i].rank;
        rows[i].shared_rank = rows.iter().filter(|x| x.rank == r).count() > 1;
    }
    Leaderboard {
        ks: cfg.ks.clone(),
        policy: cfg.policy.as_str().to_string(),
        rows,
    }
}

/// The leaderboard as a table (rank, system, every metric, tie bounds).
pub fn table(lb: &Leaderboard) -> Table {
    let mut t = Table::new("leaderboard", "Leaderboard")
        .column("rank", "rank", Align::Right)
        .column("system", "system", Align::Left)
        .column("sim", "similarity", Align::Left);
    let keys = metric_keys(&lb.ks);
    for (_, _, key) in &keys {
        t = t.column(key, key, Align::Right);
    }
    t = t
        .column("exec@1 pess", "exec@1_pessimistic", Align::Right)
        .column("exec@1 opt", "exec@1_optimistic", Align::Right)
        .column("tied pairs", "tied_pairs", Align::Right);
    for r in &lb.rows {
        let mut row = vec![
            Cell {
                text: if r.shared_rank {
                    format!("={}", r.rank)
                } else {
                    r.rank.to_string()
                },
                value: Some(r.rank as f64),
                ..Cell::default()
            },
            Cell::text(&r.id),
            Cell::text(&r.similarity),
        ];
        for (_, v) in &r.metrics {
            row.push(Cell::num(*v, 3));
        }
        row.push(Cell::num(r.exec1_bounds[0], 3));
        row.push(Cell::num(r.exec1_bounds[2], 3));
        row.push(Cell {
            text: format!("{}/{}", r.ties.tied_pairs, r.ties.pairs),
            value: Some(r.ties.tied_pairs as f64),
            ..Cell::default()
        });
        t.push(row);
    }
    let best: Vec<usize> = (3..3 + keys.len()).collect();
    t.mark_best(&best);
    t.caption(format!(
        "Means over queries; ties in score ordered by the `{}` policy. \"=n\": equal exec@1. \
         exec@1 pess/opt: passing snippets last/first within score ties. \
         tied pairs: (query, paired distractor) pairs scored exactly like the canonical.",
        lb.policy
    ))
}

/// Per-domain exec@1 (systems × domains).
pub fn domain_table(lb: &Leaderboard) -> Table {
    let domains: Vec<String> = lb
        .rows
        .first()
        .map(|r| r.per_domain.keys().cloned().collect())
        .unwrap_or_default();
    let mut t = Table::new("domains", "Per-domain exec@1").column("system", "system", Align::Left);
    for d in &domains {
        t = t.column(d, d, Align::Right);
    }
    for r in &lb.rows {
        let mut row = vec![Cell::text(&r.id)];
        for d in &domains {
            row.push(Cell::num(
                r.per_domain.get(d).copied().unwrap_or(f64::NAN),
                3,
            ));
        }
        t.push(row);
    }
    let cols: Vec<usize> = (1..=domains.len()).collect();
    t.mark_best(&cols);
    t.caption(format!(
        "Mean exec@1 over each domain's queries ({} ties).",
        lb.policy
    ))
}

/// The documented report JSON (README, "Report JSON schema").
pub fn json(engine: &Engine, lb: &Leaderboard) -> Value {
    let b = &engine.bundle;
    let systems: Vec<Value> = lb
        .rows
        .iter()
        .map(|r| {
            let mut metrics = Map::new();
            for (k, v) in &r.metrics {
                metrics.insert(k.clone(), json!(v));
            }
            let per_domain: Map<String, Value> = r
                .per_domain
                .iter()
                .map(|(d, v)| (d.clone(), json!({"exec@1": v})))
                .collect();
            json!({
                "id": r.id,
                "similarity": r.similarity,
                "rank": r.rank,
                "metrics": metrics,
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
            })
        })
        .collect();
    json!({
        "bundle": {
            "path": b.root.display().to_string(),
            "n_queries": b.queries.len(),
            "n_corpus": b.corpus.len(),
            "sha256": b.sha256,
            "tests_key_encoding": b.tests_key_encoding,
        },
        "tie_policy": lb.policy,
        "ks": lb.ks,
        "pass_source": {
            "cached_pairs": engine.truth.n_cached(),
            "note": "PASS comes from the execution cache; pairs it lacks fall back to correct_corpus_ids membership",
        },
        "systems": systems,
    })
}
