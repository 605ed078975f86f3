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

/// `report --format json`'s mean of every metric per system, under `policy` (None: the default).
fn report_means(root: &Path, cache: &Path, policy: Option<TiePolicy>) -> Value {
    let mut args = vec![
        "report",
        root.to_str().unwrap(),
        "--format",
        "json",
        "--bootstrap",
        "1",
    ];
    if let Some(p) = policy {
        args.extend(["--ties", p.as_str()]);
    }
    let out = run(&args, cache);
    serde_json::from_slice(&out.stdout).expect("report prints JSON")
}

/// The mean over the bundle's queries of `values[query][measure]` (a query a tool leaves out
/// counts 0, as it does for execscope).
fn mean_of(values: &Value, queries: &[String], measure: &str) -> f64 {
    let sum: f64 = queries
        .iter()
        .map(|q| {
            values
                .get(q)
                .and_then(|v| v.get(measure))
                .and_then(Value::as_f64)
                .unwrap_or(0.0)
        })
        .sum();
    sum / queries.len() as f64
}

/// The report's value of metric `key` for `system`.
fn reported(report: &Value, system: &str, key: &str) -> f64 {
    report["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == system)
        .unwrap_or_else(|| panic!("{system} in the report"))["metrics"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("{system} {key}"))
}

/// Export under `policy` (None: the default, `expected`) and check what the manifest says the
/// files reproduce: every tool's per-query values on the runs against the engine under the
/// runs' order and their means against `report` under it; under `expected`, the expected
/// values file against the engine and the default `report`. `ranx` names the test that skips
/// by name when ranx is missing.
fn crosscheck(py: &Path, root: &Path, dir: &Path, policy: Option<TiePolicy>, ranx: &str) {
    let cache = dir.join("cache");
    let name = policy.map_or("default", TiePolicy::as_str);
    let out_dir = dir.join(format!("trec-{name}"));
    let mut args = vec![
        "export",
        root.to_str().unwrap(),
        "--trec",
        out_dir.to_str().unwrap(),
    ];
    if let Some(p) = policy {
        args.extend(["--ties", p.as_str()]);
    }
    run(&args, &cache);
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
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("manifest.json")).unwrap())
            .unwrap();
    let exported: TiePolicy = manifest["policy"].as_str().unwrap().parse().unwrap();
    assert_eq!(exported, policy.unwrap_or(TiePolicy::Expected));
    let order: TiePolicy = manifest["runs"]["order"].as_str().unwrap().parse().unwrap();
    if exported == TiePolicy::Expected {
        assert_eq!(order, TiePolicy::Pessimistic, "{manifest}");
    } else {
        assert_eq!(
            order, exported,
            "the runs are in the exported policy's order"
        );
    }
    let got: Value = serde_json::from_str(&python(py, &["trec", out_dir.to_str().unwrap()]))
        .expect("python prints JSON");
    assert!(got.get("pytrec").is_some(), "pytrec_eval ran");
    if got.get("ranx").is_none() {
        skip(
            ranx,
            "the Python interpreter has no ranx (bash .ci/run installs it): only pytrec_eval compared",
        );
    }
    let e = engine(root, order);
    let report = report_means(root, &cache, Some(order));
    let ks = e.config().ks;
    let queries: Vec<String> = e.bundle().queries.iter().map(|q| q.id.clone()).collect();
    let mut compared = 0;
    for (tool, by_system) in got.as_object().unwrap() {
        for (si, s) in e.scores().iter().enumerate() {
            let values = &by_system[&s.id];
            for (q, query) in e.bundle().queries.iter().enumerate() {
                let tool_value = |m: &str| -> f64 {
                    values
                        .get(&query.id)
                        .and_then(|v| v.get(m))
                        .and_then(Value::as_f64)
                        .unwrap_or(0.0)
                };
                let mine = &e.evals()[si].per_query[q];
                let mut checks = vec![("recip_rank".to_string(), mine.mrr)];
                for (ki, k) in ks.iter().enumerate() {
                    checks.extend([
                        (format!("success_{k}"), mine.exec[ki]),
                        (format!("P_{k}"), mine.execp[ki]),
                        (format!("ndcg_cut_{k}"), mine.ndcg[ki]),
                    ]);
                    if tool == "pytrec" {
                        checks.extend([
                            (format!("graded_success_{k}"), mine.exec[ki]),
                            (format!("graded_P_{k}"), mine.execp[ki]),
                        ]);
                    }
                }
                for (m, want) in checks {
                    let t = tool_value(&m);
                    assert!(
                        (t - want).abs() <= 1e-9,
                        "{tool} {name} {} {} {m}: {t}, execscope {want}",
                        s.id,
                        query.id
                    );
                    compared += 1;
                }
            }
            // The means are the report's numbers under the runs' order.
            for k in &ks {
                for (m, key) in [
                    (format!("success_{k}"), format!("exec@{k}")),
                    (format!("P_{k}"), format!("execp@{k}")),
                    (format!("ndcg_cut_{k}"), format!("ndcg@{k}")),
                ] {
                    let (t, r) = (
                        mean_of(values, &queries, &m),
                        reported(&report, &s.id, &key),
                    );
                    assert!(
                        (t - r).abs() <= 1e-9,
                        "{tool} {name} {} {key}: {t} vs report {r}",
                        s.id
                    );
                }
            }
            let (t, r) = (
                mean_of(values, &queries, "recip_rank"),
                reported(&report, &s.id, "mrr"),
            );
            assert!(
                (t - r).abs() <= 1e-9,
                "{tool} {name} {} mrr: {t} vs report {r}",
                s.id
            );
        }
    }
    assert!(compared > 0);
    if exported != TiePolicy::Expected {
        return;
    }
    // Under expected: the expected values file is the report's, per query and as means.
    let e = engine(root, TiePolicy::Expected);
    let report = report_means(root, &cache, None);
    for (si, s) in e.scores().iter().enumerate() {
        let sys = manifest["systems"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == s.id.as_str())
            .unwrap();
        let file = out_dir.join(sys["expected"].as_str().expect("an expected file"));
        let values: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        for (q, query) in e.bundle().queries.iter().enumerate() {
            let mine = &e.evals()[si].per_query[q];
            let v = &values[&query.id];
            let close = |m: String, want: f64| {
                let got = v[&m].as_f64().unwrap_or(f64::NAN);
                assert!(
                    (got - want).abs() <= 1e-9,
                    "expected {} {} {m}: {got}, execscope {want}",
                    s.id,
                    query.id
                );
            };
            close("recip_rank".into(), mine.mrr);
            for (ki, k) in ks.iter().enumerate() {
                close(format!("success_{k}"), mine.exec[ki]);
                close(format!("P_{k}"), mine.execp[ki]);
                close(format!("ndcg_cut_{k}"), mine.ndcg[ki]);
            }
        }
        for k in &ks {
            for (m, key) in [
                (format!("success_{k}"), format!("exec@{k}")),
                (format!("P_{k}"), format!("execp@{k}")),
                (format!("ndcg_cut_{k}"), format!("ndcg@{k}")),
            ] {
                let (t, r) = (
                    mean_of(&values, &queries, &m),
                    reported(&report, &s.id, &key),
                );
                assert!(
                    (t - r).abs() <= 1e-9,
                    "expected {} {key}: {t} vs report {r}",
                    s.id
                );
            }
        }
        let (t, r) = (
            mean_of(&values, &queries, "recip_rank"),
            reported(&report, &s.id, "mrr"),
        );
        assert!(
            (t - r).abs() <= 1e-9,
            "expected {} mrr: {t} vs report {r}",
            s.id
        );
    }
}

/// Issue 45 item 2: the default export (ties expected) and the deterministic policies, each
/// scored by pytrec_eval and ranx, reproduce what the manifest says to 1e-9, and the default
/// export's expected values reproduce `report` itself.
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
    for policy in [None, Some(TiePolicy::Row)] {
        crosscheck(
            &py,
            &root,
            dir.path(),
            policy,
            "cli::systems_trec::exported_runs_reproduce_the_metrics_in_pytrec_eval (ranx half)",
        );
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
        Some(TiePolicy::Row),
        Some(TiePolicy::Pessimistic),
        Some(TiePolicy::Optimistic),
        None,
    ] {
        crosscheck(
            &py,
            &root,
            dir.path(),
            policy,
            "cli::systems_trec::label_fallbacks_are_listed_and_counted (ranx half)",
        );
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
