//! The evaluation settings are kept, not inferred: every combination of `--ties`, `--ks` and
//! `--no-bm25` (plus ε, bootstrap and seed) is echoed exactly by `report --format json`, on a bundle
//! with systems and on one without any (where nothing could be inferred from results).
//! Definitions: docs/metrics.md, "Evaluation settings, kept and echoed".

use crate::common;

use serde_json::Value;
use std::path::Path;

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny");

fn report_json(bundle: &Path, extra: &[&str]) -> Value {
    let out = common::execscope()
        .arg("report")
        .arg(bundle)
        .args(["--format", "json", "--bootstrap", "20"])
        .args(extra)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{extra:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{extra:?}: not JSON: {e}"))
}

/// The tiny fixture's data and results without its embeddings (and without the checksum file
/// that lists them): a bundle with no stored rankings at all.
fn bundle_without_systems() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "data/queries.jsonl",
        "data/corpus.jsonl",
        "data/distractor_metadata.jsonl",
        "data/execution_cache.jsonl",
    ] {
        let to = dir.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(TINY).join(rel), &to).unwrap();
    }
    dir
}

fn check_echo(v: &Value, ties: &str, ks: &[u64], bm25: bool, what: &str) {
    assert_eq!(v["tie_policy"], ties, "{what}");
    let got: Vec<u64> = v["ks"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no ks"))
        .iter()
        .map(|k| k.as_u64().unwrap())
        .collect();
    assert_eq!(got, ks, "{what}");
    assert_eq!(v["bm25"], bm25, "{what}");
    assert_eq!(v["bootstrap"]["replicates"], 20, "{what}");
    let systems = v["systems"].as_array().unwrap();
    assert_eq!(
        systems.iter().any(|s| s["id"] == "BM25"),
        bm25,
        "{what}: BM25 listed"
    );
    for s in systems {
        let metrics = s["metrics"].as_object().unwrap();
        for k in ks {
            for m in ["exec", "execp", "ndcg"] {
                assert!(metrics.contains_key(&format!("{m}@{k}")), "{what}: {m}@{k}");
            }
        }
        // Only the requested cutoffs, plus MRR.
        assert_eq!(metrics.len(), 3 * ks.len() + 1, "{what}: {metrics:?}");
    }
}

#[test]
fn every_combination_is_echoed_exactly() {
    let tiny = Path::new(TINY);
    let empty = bundle_without_systems();
    let cutoffs: [(&str, &[u64]); 4] = [
        ("3", &[3]),
        ("1", &[1]),
        ("10,2,2,0", &[2, 10]),
        ("1,3,5,10", &[1, 3, 5, 10]),
    ];
    for ties in ["row", "expected", "pessimistic", "optimistic"] {
        for (ks_arg, ks) in cutoffs {
            for no_bm25 in [false, true] {
                let mut args = vec!["--ties", ties, "--ks", ks_arg];
                if no_bm25 {
                    args.push("--no-bm25");
                }
                let what = format!("tiny {args:?}");
                check_echo(&report_json(tiny, &args), ties, ks, !no_bm25, &what);
            }
        }
    }
    // No systems at all: nothing to infer from, the settings are still the ones given.
    for ties in ["row", "pessimistic"] {
        let v = report_json(empty.path(), &["--no-bm25", "--ties", ties, "--ks", "3"]);
        check_echo(&v, ties, &[3], false, "no systems");
        assert_eq!(v["systems"].as_array().unwrap().len(), 0);
    }
}

#[test]
fn eps_and_seed_are_echoed() {
    let v = report_json(
        Path::new(TINY),
        &["--tie-eps", "0.25", "--seed", "7", "--no-bm25"],
    );
    assert_eq!(v["tie_eps"], 0.25);
    assert_eq!(v["bootstrap"]["seed"], 7);
    assert_eq!(v["tie_policy"], "expected");
}

#[test]
fn ks_without_a_cutoff_is_refused() {
    let out = common::execscope()
        .args(["report", TINY, "--ks", "0", "--no-bm25"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--ks"));
}
