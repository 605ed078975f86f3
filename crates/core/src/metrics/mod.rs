//! Retrieval metrics exactly as `docs/metrics.md` defines them: exec@k, execp@k, nDCG@k
//! (the release's ideal-DCG formula), MRR — per query, mean, and per domain — under a tie policy.

pub mod cache;
mod key;
pub mod layout;
mod registry;
mod ties;
pub mod truth;

pub use key::{metric_keys, MetricKey};
pub use registry::{MetricDef, REGISTRY};
pub use ties::TiePolicy;
pub use truth::{PassSource, Truth};

use crate::bundle::Bundle;
use crate::rank::{ties::snap_row, Scoring, SystemScores};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The default cutoffs.
pub const DEFAULT_KS: [usize; 4] = [1, 3, 5, 10];

/// What to compute.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalConfig {
    /// Cutoffs, ascending and unique.
    pub ks: Vec<usize>,
    pub policy: TiePolicy,
    /// Near-tie tolerance (0 = exact ties only).
    pub tie_eps: f32,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            ks: DEFAULT_KS.to_vec(),
            policy: TiePolicy::Expected,
            tie_eps: 0.0,
        }
    }
}

impl EvalConfig {
    /// Normalise cutoffs: sorted, unique, zero removed.
    pub fn with_ks(mut self, ks: &[usize]) -> Self {
        let mut ks: Vec<usize> = ks.iter().copied().filter(|&k| k > 0).collect();
        ks.sort_unstable();
        ks.dedup();
        self.ks = ks;
        self
    }

    pub fn k_index(&self, k: usize) -> Option<usize> {
        self.ks.iter().position(|&x| x == k)
    }
}

/// A metric family (what the program knows of each: [`REGISTRY`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    Exec,
    ExecP,
    Ndcg,
    Mrr,
}

/// One query's metric values (each vector indexed like `EvalConfig::ks`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryEval {
    pub exec: Vec<f64>,
    pub execp: Vec<f64>,
    pub ndcg: Vec<f64>,
    pub mrr: f64,
    /// Per k: exec@k differs between the pessimistic and optimistic orders of a tie group
    /// (a tie with a passing snippet straddles the cutoff).
    pub tie_at_cutoff: Vec<bool>,
    /// The rank-1 snippet shares its score with another snippet.
    pub top1_tied: bool,
}

impl QueryEval {
    /// Every value of one metric, at each cutoff in order (one value for a metric without
    /// cutoff): what the evaluation cache stores, metric by metric in registry order.
    pub fn values(&self, metric: Metric) -> &[f64] {
        match metric {
            Metric::Exec => &self.exec,
            Metric::ExecP => &self.execp,
            Metric::Ndcg => &self.ndcg,
            Metric::Mrr => std::slice::from_ref(&self.mrr),
        }
    }

    /// A query's evaluation from each metric's [`QueryEval::values`] (`values(metric)`, asked
    /// for every metric of the registry) and its tie flags; `None` when a metric without cutoff
    /// has other than one value.
    pub fn from_values(
        mut values: impl FnMut(Metric) -> Vec<f64>,
        tie_at_cutoff: Vec<bool>,
        top1_tied: bool,
    ) -> Option<QueryEval> {
        let mrr = match values(Metric::Mrr).as_slice() {
            [v] => *v,
            _ => return None,
        };
        Some(QueryEval {
            exec: values(Metric::Exec),
            execp: values(Metric::ExecP),
            ndcg: values(Metric::Ndcg),
            mrr,
            tie_at_cutoff,
            top1_tied,
        })
    }

    pub fn get(&self, metric: Metric, ki: usize) -> f64 {
        match metric {
            Metric::Exec => self.exec[ki],
            Metric::ExecP => self.execp[ki],
            Metric::Ndcg => self.ndcg[ki],
            Metric::Mrr => self.mrr,
        }
    }
}

/// Evaluate one query from its score row.
pub fn eval_query(row: &[f32], passing: &[u32], relevant: &[u32], cfg: &EvalConfig) -> QueryEval {
    eval_from_layout(row, &layout::layout(row, passing), passing, relevant, cfg)
}

/// [`eval_query`] given the passing snippets' layout (`pass_layout` = `layout(row, passing)`).
fn eval_from_layout(
    row: &[f32],
    pass_layout: &[layout::TargetGroup],
    passing: &[u32],
    relevant: &[u32],
    cfg: &EvalConfig,
) -> QueryEval {
    let rel_owned;
    let rel_layout = if relevant == passing {
        pass_layout
    } else {
        rel_owned = layout::layout(row, relevant);
        &rel_owned
    };
    let p = cfg.policy;
    QueryEval {
        exec: cfg
            .ks
            .iter()
            .map(|&k| layout::exec_at(pass_layout, k, p))
            .collect(),
        execp: cfg
            .ks
            .iter()
            .map(|&k| layout::execp_at(pass_layout, k, p))
            .collect(),
        ndcg: cfg
            .ks
            .iter()
            .map(|&k| layout::ndcg_at(rel_layout, k, p))
            .collect(),
        mrr: layout::reciprocal_rank(pass_layout, p),
        tie_at_cutoff: cfg
            .ks
            .iter()
            .map(|&k| {
                layout::exec_at(pass_layout, k, TiePolicy::Pessimistic)
                    != layout::exec_at(pass_layout, k, TiePolicy::Optimistic)
            })
            .collect(),
        top1_tied: top_is_tied(row),
    }
}

/// More than one snippet has the row's highest score (NaN ignored, as `f32::max` does).
fn top_is_tied(row: &[f32]) -> bool {
    // The maximum over 8 lanes, then the count of equal scores: both loops vectorise.
    let mut lanes = [f32::NEG_INFINITY; 8];
    let chunks = row.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for (m, &s) in lanes.iter_mut().zip(c) {
            if s > *m {
                *m = s;
            }
        }
    }
    let top = lanes
        .into_iter()
        .chain(rest.iter().copied())
        .fold(f32::NEG_INFINITY, f32::max);
    row.iter().filter(|&&s| s == top).count() > 1
}

/// Counts of score ties for one system.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TieCounts {
    /// (query, paired distractor) pairs scored exactly like the query's first canonical.
    pub tied_pairs: usize,
    /// All (query, paired distractor) pairs.
    pub pairs: usize,
    /// Queries whose rank-1 snippet is tied.
    pub top1_tied: usize,
    /// Per k: queries with a tie straddling the cutoff that decides exec@k.
    pub at_cutoff: Vec<usize>,
}

/// One system evaluated over a bundle.
#[derive(Clone, Debug)]
pub struct SystemEval {
    pub id: String,
    pub similarity: Scoring,
    pub config: EvalConfig,
    pub per_query: Vec<QueryEval>,
    pub ties: TieCounts,
}

impl SystemEval {
    /// Unweighted mean over queries (0 for an empty bundle).
    pub fn mean(&self, metric: Metric, ki: usize) -> f64 {
        mean_of(self.per_query.iter().map(|q| q.get(metric, ki)))
    }

    /// Per-query values of one metric cell, in query order.
    pub fn column(&self, metric: Metric, ki: usize) -> Vec<f64> {
        self.per_query.iter().map(|q| q.get(metric, ki)).collect()
    }

    /// Mean of a metric over the queries of each language the bundle has (languages in report
    /// order, [`Bundle::languages`]).
    pub fn per_language(
        &self,
        bundle: &Bundle,
        metric: Metric,
        ki: usize,
    ) -> Vec<(crate::bundle::Language, f64)> {
        bundle
            .languages()
            .into_iter()
            .map(|l| {
                let values = bundle
                    .queries
                    .iter()
                    .zip(&self.per_query)
                    .filter(|(q, _)| q.language == l)
                    .map(|(_, e)| e.get(metric, ki));
                (l, mean_of(values))
            })
            .collect()
    }

    /// Mean of a metric over the queries of each domain (domains in bundle order).
    pub fn per_domain(&self, bundle: &Bundle, metric: Metric, ki: usize) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for d in bundle.domains() {
            let mean = mean_of(
                bundle
                    .queries
                    .iter()
                    .zip(&self.per_query)
                    .filter(|(q, _)| q.domain == d)
                    .map(|(_, e)| e.get(metric, ki)),
            );
            out.insert(d, mean);
        }
        out
    }
}

/// Mean exec@k of one system under the pessimistic, expected and optimistic tie policies, each
/// exactly what [`evaluate`] under that policy gives (same per-query values, summed in the same
/// order), from one target layout per query instead of three full evaluations.
pub fn exec_at_policies(
    bundle: &Bundle,
    truth: &Truth,
    scores: &SystemScores,
    tie_eps: f32,
    k: usize,
) -> [f64; 3] {
    let per_query: Vec<[f64; 3]> = (0..bundle.queries.len())
        .into_par_iter()
        .map(|q| {
            let mut snapped;
            let mut row = scores.row(q);
            if tie_eps > 0.0 {
                snapped = row.to_vec();
                snap_row(&mut snapped, tie_eps);
                row = &snapped;
            }
            exec_under_policies(&layout::layout(row, truth.passing(q)), k)
        })
        .collect();
    [0, 1, 2].map(|i| mean_of(per_query.iter().map(|v| v[i])))
}

fn mean_of(it: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for v in it {
        sum += v;
        n += 1;
    }
    if n == 0 {
        0.0
    } else {
        sum / n as f64
    }
}

/// Evaluate one system over every query of the bundle (parallel over queries).
pub fn evaluate(
    bundle: &Bundle,
    truth: &Truth,
    scores: &SystemScores,
    cfg: &EvalConfig,
) -> SystemEval {
    let results: Vec<QueryResult> = (0..bundle.queries.len())
        .into_par_iter()
        .map(|q| {
            let (eval, _, tied, pairs) = query_parts(bundle, truth, scores.row(q), q, cfg);
            (eval, tied, pairs)
        })
        .collect();
    system_eval(scores, cfg, results)
}

/// One query's evaluation with its (tied, all) paired distractor counts.
type QueryResult = (QueryEval, usize, usize);

/// One query's evaluation, the passing layout it came from, and its (tied, all) paired
/// distractor counts, from its score row (snapped to `cfg.tie_eps` first).
fn query_parts(
    bundle: &Bundle,
    truth: &Truth,
    raw: &[f32],
    q: usize,
    cfg: &EvalConfig,
) -> (QueryEval, Vec<layout::TargetGroup>, usize, usize) {
    let snapped;
    let mut row = raw;
    if cfg.tie_eps > 0.0 {
        let mut v = raw.to_vec();
        snap_row(&mut v, cfg.tie_eps);
        snapped = v;
        row = &snapped;
    }
    let pass_layout = layout::layout(row, truth.passing(q));
    let eval = eval_from_layout(row, &pass_layout, truth.passing(q), truth.relevant(q), cfg);
    let query = &bundle.queries[q];
    let (mut tied, mut pairs) = (0, 0);
    if let Some(&canon) = query.correct.first() {
        for &d in &query.paired {
            pairs += 1;
            if row[d] == row[canon] {
                tied += 1;
            }
        }
    }
    (eval, pass_layout, tied, pairs)
}

/// The per-query results gathered in query order, with the tie counts summed.
fn system_eval(scores: &SystemScores, cfg: &EvalConfig, results: Vec<QueryResult>) -> SystemEval {
    let mut ties = TieCounts {
        at_cutoff: vec![0; cfg.ks.len()],
        ..TieCounts::default()
    };
    let mut per_query = Vec::with_capacity(results.len());
    for (e, tied, pairs) in results {
        ties.tied_pairs += tied;
        ties.pairs += pairs;
        ties.top1_tied += usize::from(e.top1_tied);
        for (c, &t) in ties.at_cutoff.iter_mut().zip(&e.tie_at_cutoff) {
            *c += usize::from(t);
        }
        per_query.push(e);
    }
    SystemEval {
        id: scores.id.clone(),
        similarity: scores.similarity,
        config: cfg.clone(),
        per_query,
        ties,
    }
}

/// exec@k under the pessimistic, expected and optimistic orders, from a passing layout.
fn exec_under_policies(pass_layout: &[layout::TargetGroup], k: usize) -> [f64; 3] {
    [
        TiePolicy::Pessimistic,
        TiePolicy::Expected,
        TiePolicy::Optimistic,
    ]
    .map(|p| layout::exec_at(pass_layout, k, p))
}

/// Label fallbacks among one score row's top `k`.
fn row_fallbacks(truth: &Truth, row: &[f32], q: usize, k: usize) -> usize {
    crate::rank::top_k(row, k)
        .into_iter()
        .filter(|&c| truth.source(q, c as usize) == PassSource::Label)
        .count()
}

/// Per system: how many (query, snippet) pairs in its top `k` got their PASS verdict from the
/// label fallback instead of the execution cache.
pub fn label_fallbacks(truth: &Truth, scores: &SystemScores, k: usize) -> usize {
    (0..truth.n_queries())
        .into_par_iter()
        .map(|q| row_fallbacks(truth, scores.row(q), q, k))
        .sum()
}

/// [`evaluate`] with the leaderboard's extra columns ([`cache::Evaluated`]): exec@1 under the
/// three tie orders and the label fallbacks in the top [`cache::FALLBACK_DEPTH`]. One pass per
/// score row does all of it; every number is what [`evaluate`], [`exec_at_policies`] and
/// [`label_fallbacks`] give one by one (the same per-query values, summed in the same order).
pub fn evaluate_full(
    bundle: &Bundle,
    truth: &Truth,
    scores: &SystemScores,
    cfg: &EvalConfig,
) -> cache::Evaluated {
    let results: Vec<(QueryResult, [f64; 3], usize)> = (0..bundle.queries.len())
        .into_par_iter()
        .map(|q| {
            let raw = scores.row(q);
            let (eval, pass_layout, tied, pairs) = query_parts(bundle, truth, raw, q, cfg);
            let bounds = exec_under_policies(&pass_layout, 1);
            let fallbacks = row_fallbacks(truth, raw, q, cache::FALLBACK_DEPTH);
            ((eval, tied, pairs), bounds, fallbacks)
        })
        .collect();
    let exec1_bounds = [0, 1, 2].map(|i| mean_of(results.iter().map(|r| r.1[i])));
    let label_fallbacks = results.iter().map(|r| r.2).sum();
    let e = system_eval(scores, cfg, results.into_iter().map(|r| r.0).collect());
    cache::Evaluated {
        per_query: e.per_query,
        ties: e.ties,
        exec1_bounds,
        label_fallbacks,
    }
}
