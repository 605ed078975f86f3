//! The release's own schema, whatever the display policy: `results/<system>.json` (per system,
//! per query top 10, under the release's cutoffs) and the statistics of `tests/*.json` (the
//! report's cutoffs), both under the `row` tie policy, the release's rule. The two evaluations
//! are defined here once; when their settings coincide (the default) they are one evaluation.

use crate::bundle::Label;
use crate::engine::Engine;
use crate::metrics::{EvalConfig, Metric, SystemEval, TiePolicy, DEFAULT_KS};
use crate::rank;

/// How deep each query's ranking goes in `results/<system>.json`.
pub const RESULTS_DEPTH: usize = 10;

/// The settings of `results/<system>.json`: row ties, the release's cutoffs (the defaults
/// [`DEFAULT_KS`] follow them), exact ties.
pub fn results_config() -> EvalConfig {
    EvalConfig {
        policy: TiePolicy::Row,
        ..EvalConfig::default()
    }
    .with_ks(&DEFAULT_KS)
}

/// The settings of the release-schema statistics (`tests/pairwise_tests.json`,
/// `tests/confidence_intervals.json`): the report's cutoffs and near-tie tolerance, row ties.
pub fn statistics_config(report: &EvalConfig) -> EvalConfig {
    EvalConfig {
        policy: TiePolicy::Row,
        ..report.clone()
    }
}

/// One system's `results/<system>.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemResults {
    /// The system id (`model` in the file).
    pub model: String,
    pub n_queries: usize,
    pub n_corpus: usize,
    pub ks: Vec<usize>,
    /// Per cutoff, in `ks` order.
    pub metrics: Vec<CutoffMetrics>,
    pub per_query: Vec<QueryResults>,
}

/// A system's means at one cutoff under row ties.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutoffMetrics {
    pub k: usize,
    pub exec: f64,
    pub precision: f64,
    pub ndcg: f64,
    /// exec@k − nDCG@k (the release's `exec_ndcg_gap@k`).
    pub exec_ndcg_gap: f64,
}

/// One query's top [`RESULTS_DEPTH`] under a system.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryResults {
    pub query_id: String,
    pub query: String,
    pub correct_corpus_ids: Vec<String>,
    pub top: Vec<RankedSnippet>,
}

/// One snippet of a query's ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedSnippet {
    /// 1-based.
    pub rank: usize,
    pub corpus_id: String,
    pub label: Label,
    /// Empty on canonicals.
    pub bug_type: String,
    /// The system's score.
    pub similarity: f32,
    pub passes_all_tests: bool,
    /// The cached per-test outcomes (empty when the cache lacks the pair).
    pub test_results: Vec<String>,
}

/// System `system`'s results, from its evaluation under [`results_config`].
pub fn system_results(engine: &Engine, system: usize, eval: &SystemEval) -> SystemResults {
    let b = engine.bundle();
    let scores = &engine.scores()[system];
    let ks = eval.config.ks.clone();
    let metrics = ks
        .iter()
        .enumerate()
        .map(|(ki, &k)| {
            let exec = eval.mean(Metric::Exec, ki);
            let ndcg = eval.mean(Metric::Ndcg, ki);
            CutoffMetrics {
                k,
                exec,
                precision: eval.mean(Metric::ExecP, ki),
                ndcg,
                exec_ndcg_gap: exec - ndcg,
            }
        })
        .collect();
    let per_query = b
        .queries
        .iter()
        .enumerate()
        .map(|(q, query)| {
            let row = scores.row(q);
            let top = rank::top_k(row, RESULTS_DEPTH)
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let c = c as usize;
                    let s = &b.corpus[c];
                    RankedSnippet {
                        rank: i + 1,
                        corpus_id: s.id.clone(),
                        label: s.label,
                        bug_type: s.bug_type.clone().unwrap_or_default(),
                        similarity: row[c],
                        passes_all_tests: engine.truth().passes(q, c),
                        test_results: engine
                            .cache_index()
                            .outcomes(b, q, c)
                            .map(<[String]>::to_vec)
                            .unwrap_or_default(),
                    }
                })
                .collect();
            QueryResults {
                query_id: query.id.clone(),
                query: query.text.clone(),
                correct_corpus_ids: query
                    .correct
                    .iter()
                    .map(|&c| b.corpus[c].id.clone())
                    .collect(),
                top,
            }
        })
        .collect();
    SystemResults {
        model: scores.id.clone(),
        n_queries: b.queries.len(),
        n_corpus: b.corpus.len(),
        ks,
        metrics,
        per_query,
    }
}
