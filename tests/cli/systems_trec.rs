//! Independent checks of fusion and export (tests/trec_crosscheck.py): RRF of BM25 and a dense
//! system equals a few lines of numpy/scipy, and the exported qrels and runs give execscope's
//! exec@k (success@k), execp@k (P@k), nDCG@k and MRR (recip_rank) in pytrec_eval, trec_eval's
//! own code, to 1e-9 under every deterministic tie policy.

use crate::common;

use common::{require_python, skip};
use execscope::bundle;
use execscope::metrics::TiePolicy;
use ndarray_npy::WriteNpyExt;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/trec_crosscheck.py");

fn run(args: &[&str], cache: &Path) -> Output {
    let out = common::execscope()
        .args(args)
        .env("EXECSCOPE_CACHE_DIR", cache)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn python(py: &Path, args: &[&str]) -> String {
    let out = Command::new(py)
        .arg(SCRIPT)
        .args(args)
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "python {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A copy of the embedded bundle with one dense system (no SHA256SUMS, which lists the others).
fn embedded_copy(dir: &Path, system: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle");
    let root = dir.join("bundle");
    for rel in bundle::files::list_files(&src).unwrap() {
        if rel.starts_with("data/")
            || rel == format!("embeddings/{system}.npz")
            || rel == "results/invocation_table.json"
        {
            let to = root.join(&rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(src.join(&rel), to).unwrap();
        }
    }
    root
}

use common::open_engine as engine;

/// pytrec_eval, or a visible skip when the interpreter lacks it.
fn pytrec(test: &str) -> Option<PathBuf> {
    let py = require_python(test, &["numpy", "scipy"])?;
    let has = Command::new(&py)
        .args(["-c", "import pytrec_eval"])
        .status()
        .is_ok_and(|s| s.success());
    if !has {
        skip(
            test,
            "the Python interpreter has no pytrec_eval (bash .ci/run installs pytrec-eval-terrier)",
        );
        return None;
    }
    Some(py)
}

#[test]
fn rrf_of_bm25_and_a_dense_system_equals_numpy() {
    let Some(py) = require_python(
        "rrf_of_bm25_and_a_dense_system_equals_numpy",
        &["numpy", "scipy"],
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = embedded_copy(dir.path(), "paraphrase-MiniLM-L3-v2");
    let cache = dir.path().join("cache");
    let r = root.to_str().unwrap();
    run(
        &[
            "fuse",
            r,
            "--name",
            "hybrid",
            "--method",
            "rrf",
            "BM25",
            "paraphrase-MiniLM-L3-v2",
        ],
        &cache,
    );
    let e = engine(&root, TiePolicy::Row);
    let mut paths = Vec::new();
    for id in ["BM25", "paraphrase-MiniLM-L3-v2"] {
        let p = dir.path().join(format!("{id}.npy"));
        let s = &e.scores()[e.system_index(id).unwrap()];
        s.scores
            .matrix()
            .write_npy(std::fs::File::create(&p).unwrap())
            .unwrap();
        paths.push(p);
    }
    let fused = root.join("embeddings/hybrid.npz");
    let out = python(
        &py,
        &[
            "rrf",
            paths[0].to_str().unwrap(),
            paths[1].to_str().unwrap(),
            fused.to_str().unwrap(),
            "60",
        ],
    );
    assert_eq!(out.trim(), "0 0.0", "cells differing, largest difference");
    // BM25 ties are frequent on this corpus, so the comparison covers shared ranks.
    let bm25 = &e.scores()[e.system_index("BM25").unwrap()];
    let tied = (0..e.bundle().queries.len())
        .filter(|&q| {
            let row = bm25.row(q);
            let mut v = row.to_vec();
            v.sort_by(|a, b| b.total_cmp(a));
            v.windows(2).take(50).any(|w| w[0] == w[1])
        })
        .count();
    assert!(
        tied > 10,
        "only {tied} queries with BM25 ties in the top 50"
    );
}

/// Export under `policy` and compare pytrec_eval's per-query values with the engine's.
fn crosscheck(py: &Path, root: &Path, dir: &Path, policy: TiePolicy) {
    let cache = dir.join("cache");
    let out_dir = dir.join(format!("trec-{policy}"));
    run(
        &[
            "export",
            root.to_str().unwrap(),
            "--trec",
            out_dir.to_str().unwrap(),
            "--ties",
            policy.as_str(),
        ],
        &cache,
    );
    // The graded qrels grade every passing pair 2 and the tasks' own near misses 1.
    let count = |file: &str, rel: &str| {
        std::fs::read_to_string(out_dir.join(file))
            .unwrap()
            .lines()
            .filter(|l| l.rsplit(' ').next() == Some(rel))
            .count()
    };
    assert_eq!(
        count("qrels.graded.txt", "2"),
        count("qrels.pass.txt", "1"),
        "grade 2 is exactly the passing pairs"
    );
    assert!(count("qrels.graded.txt", "1") > 0, "no near miss graded 1");
    let got: Value = serde_json::from_str(&python(py, &["trec", out_dir.to_str().unwrap()]))
        .expect("python prints JSON");
    let e = engine(root, policy);
    let bounds = (policy == TiePolicy::Expected).then(|| {
        (
            engine(root, TiePolicy::Pessimistic),
            engine(root, TiePolicy::Optimistic),
        )
    });
    let ks = e.config().ks;
    let mut compared = 0;
    for (si, s) in e.scores().iter().enumerate() {
        for (q, query) in e.bundle().queries.iter().enumerate() {
            let tool = |m: String| -> f64 {
                got[&s.id]
                    .get(&query.id)
                    .and_then(|v| v.get(&m))
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
            };
            let mine = &e.evals()[si].per_query[q];
            if let Some((pess, opt)) = &bounds {
                // trec_eval breaks the open ties one way: between the policy's bounds.
                for (ki, k) in ks.iter().enumerate() {
                    let t = tool(format!("success_{k}"));
                    let (lo, hi) = (
                        pess.evals()[si].per_query[q].exec[ki],
                        opt.evals()[si].per_query[q].exec[ki],
                    );
                    assert!(lo <= t && t <= hi, "{} {} exec@{k}", s.id, query.id);
                }
                continue;
            }
            for (ki, k) in ks.iter().enumerate() {
                for (m, want) in [
                    (format!("success_{k}"), mine.exec[ki]),
                    (format!("P_{k}"), mine.execp[ki]),
                    (format!("ndcg_cut_{k}"), mine.ndcg[ki]),
                    (format!("graded_success_{k}"), mine.exec[ki]),
                    (format!("graded_P_{k}"), mine.execp[ki]),
                ] {
                    let t = tool(m.clone());
                    assert!(
                        (t - want).abs() <= 1e-9,
                        "{policy} {} {} {m}: pytrec_eval {t}, execscope {want}",
                        s.id,
                        query.id
                    );
                    compared += 1;
                }
            }
            for m in ["recip_rank", "graded_recip_rank"] {
                let t = tool(m.into());
                assert!(
                    (t - mine.mrr).abs() <= 1e-9,
                    "{policy} {} {} {m}: pytrec_eval {t}, execscope {}",
                    s.id,
                    query.id,
                    mine.mrr
                );
            }
        }
    }
    if bounds.is_none() {
        assert!(compared > 0);
    }
}

#[test]
fn exported_runs_reproduce_the_metrics_in_pytrec_eval() {
    let Some(py) = pytrec("exported_runs_reproduce_the_metrics_in_pytrec_eval") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = embedded_copy(dir.path(), "paraphrase-MiniLM-L3-v2");
    let cache = dir.path().join("cache");
    let r = root.to_str().unwrap();
    run(
        &[
            "fuse",
            r,
            "--name",
            "hybrid",
            "--method",
            "combsum",
            "BM25",
            "paraphrase-MiniLM-L3-v2",
        ],
        &cache,
    );
    // `optimistic` is checked on the fixture below (each policy here costs a full export).
    for policy in [TiePolicy::Row, TiePolicy::Pessimistic, TiePolicy::Expected] {
        crosscheck(&py, &root, dir.path(), policy);
    }
}

/// On the hand-made fixture, with one canonical's cache row removed: its verdict comes from the
/// label, the side file says so, and the numbers still agree.
#[test]
fn label_fallbacks_are_listed_and_counted() {
    let Some(py) = pytrec("label_fallbacks_are_listed_and_counted") else {
        return;
    };
    let (dir, root) = common::tiny::copy_tiny(false);
    let b = bundle::load(&root, &bundle::LoadOptions::default()).unwrap();
    let hash = bundle::code_sha256(&b.corpus[b.queries[0].correct[0]].code);
    common::tiny::edit(&root, "data/execution_cache.jsonl", |s| {
        s.lines()
            .filter(|l| !l.contains(&hash))
            .map(|l| format!("{l}\n"))
            .collect()
    });
    for policy in [
        TiePolicy::Row,
        TiePolicy::Pessimistic,
        TiePolicy::Optimistic,
    ] {
        crosscheck(&py, &root, dir.path(), policy);
    }
    let side = std::fs::read_to_string(dir.path().join("trec-row/label-fallbacks.tsv")).unwrap();
    let want = format!(
        "{}\t{}\tpass",
        b.queries[0].id, b.corpus[b.queries[0].correct[0]].id
    );
    assert_eq!(side.lines().nth(1), Some(want.as_str()), "{side}");
    assert_eq!(side.lines().count(), 2);
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("trec-row/manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["label_fallbacks"]["pairs"], 1);
    assert_eq!(manifest["policy"], "row");
}
