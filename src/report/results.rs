//! `results/<system>.json` in the release's own schema, so the release's scripts can read what we
//! write. Always computed under the `row` tie policy (the release's behaviour), whatever the
//! display policy is.

use crate::atomic::write_atomic;
use crate::engine::Engine;
use crate::metrics::{evaluate, EvalConfig, Metric, TiePolicy};
use crate::rank;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

const KS: [usize; 4] = [1, 3, 5, 10];

/// The release-schema document of one system.
pub fn system_results(engine: &Engine, system: usize) -> Value {
    let b = engine.bundle();
    let scores = &engine.scores()[system];
    let cfg = EvalConfig {
        policy: TiePolicy::Row,
        ..EvalConfig::default()
    }
    .with_ks(&KS);
    let eval = evaluate(b, engine.truth(), scores, &cfg);
    let mut metrics = Map::new();
    for (ki, k) in KS.iter().enumerate() {
        let exec = eval.mean(Metric::Exec, ki);
        let ndcg = eval.mean(Metric::Ndcg, ki);
        metrics.insert(format!("exec@{k}"), json!(exec));
        metrics.insert(
            format!("precision@{k}"),
            json!(eval.mean(Metric::ExecP, ki)),
        );
        metrics.insert(format!("ndcg@{k}"), json!(ndcg));
        metrics.insert(format!("exec_ndcg_gap@{k}"), json!(exec - ndcg));
    }
    let per_query: Vec<Value> = b
        .queries
        .iter()
        .enumerate()
        .map(|(q, query)| {
            let row = scores.row(q);
            let top: Vec<Value> = rank::top_k(row, 10)
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    let s = &b.corpus[c as usize];
                    let outcomes = engine
                        .cache_index()
                        .outcomes(b, q, c as usize)
                        .map(|o| json!(o))
                        .unwrap_or(Value::Array(Vec::new()));
                    json!({
                        "rank": i + 1,
                        "corpus_id": s.id,
                        "label": s.label.as_str(),
                        "bug_type": s.bug_type.clone().unwrap_or_default(),
                        "similarity": row[c as usize],
                        "passes_all_tests": engine.truth().passes(q, c as usize),
                        "test_results": outcomes,
                    })
                })
                .collect();
            json!({
                "query_id": query.id,
                "query": query.text,
                "correct_corpus_ids": query.correct.iter().map(|&c| b.corpus[c].id.clone()).collect::<Vec<_>>(),
                "top_results": top,
            })
        })
        .collect();
    json!({
        "model": scores.id,
        "n_queries": b.queries.len(),
        "n_corpus": b.corpus.len(),
        "ks": KS,
        "metrics": metrics,
        "per_query": per_query,
    })
}

/// Write `results/<system>.json` for every system under `root`, atomically. Returns the paths.
pub fn write_all(engine: &Engine, root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for s in 0..engine.scores().len() {
        let path = root
            .join("results")
            .join(format!("{}.json", engine.scores()[s].id));
        let doc = system_results(engine, s);
        let text = serde_json::to_string_pretty(&doc).map_err(std::io::Error::other)?;
        write_atomic(&path, text.as_bytes())?;
        out.push(path);
    }
    Ok(out)
}
