//! `results/<system>.json` in the release's own schema, so the release's scripts can read what we
//! write: the core's [`crate::view::release`] rows (always under the `row` tie policy, the
//! release's behaviour, whatever the display policy is) as JSON. Each file also records the
//! settings it was computed under (`tie_policy`, `tie_eps`, `settings`), so a folder holding
//! both it and `leaderboard.json` (whose `tie_policy` is the report's) explains why their
//! headline numbers differ. Readers of the release's schema ignore the extra keys.

use crate::atomic::write_atomic;
use crate::view::release::results_config;
use crate::view::release::SystemResults;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The release-schema document of one system.
pub fn system_json(r: &SystemResults) -> Value {
    let mut metrics = Map::new();
    for m in &r.metrics {
        let k = m.k;
        metrics.insert(format!("exec@{k}"), json!(m.exec));
        metrics.insert(format!("precision@{k}"), json!(m.precision));
        metrics.insert(format!("ndcg@{k}"), json!(m.ndcg));
        metrics.insert(format!("exec_ndcg_gap@{k}"), json!(m.exec_ndcg_gap));
    }
    let per_query: Vec<Value> = r
        .per_query
        .iter()
        .map(|q| {
            let top: Vec<Value> = q
                .top
                .iter()
                .map(|s| {
                    json!({
                        "rank": s.rank,
                        "corpus_id": s.corpus_id,
                        "label": s.label.as_str(),
                        "bug_type": s.bug_type,
                        "similarity": s.similarity,
                        "passes_all_tests": s.passes_all_tests,
                        "test_results": s.test_results,
                    })
                })
                .collect();
            json!({
                "query_id": q.query_id,
                "query": q.query,
                "correct_corpus_ids": q.correct_corpus_ids,
                "top_results": top,
            })
        })
        .collect();
    let cfg = results_config();
    json!({
        "model": r.model,
        "n_queries": r.n_queries,
        "n_corpus": r.n_corpus,
        "ks": r.ks,
        "tie_policy": cfg.policy.as_str(),
        "tie_eps": cfg.tie_eps,
        "settings": format!(
            "the release's schema: {} ties (tied snippets in corpus row order), exact ties, \
             cutoffs {:?}, whatever --ties the report ran under; leaderboard.json states its own \
             tie_policy; PASS from the execution cache, labels where it lacks a pair",
            cfg.policy.as_str(),
            cfg.ks
        ),
        "metrics": metrics,
        "per_query": per_query,
    })
}

/// Write `results/<system>.json` for every system under `root`, atomically. Returns the paths.
pub fn write_all(results: &[SystemResults], root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for r in results {
        let path = root.join("results").join(format!("{}.json", r.model));
        let text = serde_json::to_string_pretty(&system_json(r)).map_err(std::io::Error::other)?;
        write_atomic(&path, text.as_bytes()).map_err(|e| {
            std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()))
        })?;
        out.push(path);
    }
    Ok(out)
}
