//! `execscope probe` and the live-probing core on the embedded bundle: replacing a query's
//! canonical with one of its own distractors reproduces that distractor's stored score, rank and
//! cached verdict; a fixed version passes; the live query vectors equal the stored ones. Tests that
//! need the embedding environment skip by name when it is absent (CI has none).

use crate::common;

use execscope::embed::{ModelSpec, Role, Worker};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn bundle() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle")
}

use common::embed_env_or_skip as env_or_skip;

fn probe_json(env_dir: &Path, args: &[&str]) -> Value {
    let out = common::execscope()
        .env("EXECSCOPE_EMBED_ENV", env_dir)
        .env(
            "EXECSCOPE_CACHE_DIR",
            std::env::temp_dir().join("execscope-probe-cache"),
        )
        .arg("probe")
        .arg(bundle())
        .args(["--format", "json", "--no-setup"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// (code, edit) of a corpus snippet and its distractor metadata.
fn snippet(id: &str) -> String {
    let text = std::fs::read_to_string(bundle().join("data/corpus.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["corpus_id"] == id)
        .map(|v| v["code"].as_str().unwrap().to_string())
        .unwrap()
}

fn tracked<'a>(sys: &'a Value, id: &str) -> &'a Value {
    sys["tracked"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["corpus_id"] == id)
        .unwrap()
}

/// q_0001's canonical c_0001 replaced by its distractor c_0003's code: under every system the
/// edited row scores as c_0003 did (dense: exactly, since a byte-identical text takes its stored
/// vector; BM25, whose corpus statistics are recomputed, ties c_0003 exactly), takes c_0003's place among the others (optimistic policy:
/// the twins tie, so the edited row ranks where c_0003 now ranks, which is its stored rank less
/// one when the canonical stood above it), and the oracle gives c_0003's cached outcomes.
#[test]
fn replacing_the_canonical_with_a_distractor_gives_the_distractor() {
    let Some(env) = env_or_skip("replacing_the_canonical_with_a_distractor_gives_the_distractor")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("d.py");
    std::fs::write(&file, snippet("c_0003")).unwrap();
    let arg = format!("c_0001={}", file.display());
    let r = probe_json(
        &env.dir,
        &[
            "--query-id",
            "q_0001",
            "--replace",
            &arg,
            "--ties",
            "optimistic",
        ],
    );
    let systems = r["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 5, "four dense systems and BM25");
    for sys in systems {
        assert_eq!(sys["status"], "ok", "{sys}");
        let edited = tracked(sys, "c_0001");
        let twin = tracked(sys, "c_0003");
        let canon_before = edited["score_before"].as_f64().unwrap();
        let d_before = twin["score_before"].as_f64().unwrap();
        let got = edited["score_after"].as_f64().unwrap();
        if sys["kind"] == "dense" {
            assert_eq!(got, d_before, "{}: the stored vector's score", sys["id"]);
            assert_eq!(twin["score_after"], twin["score_before"]);
        }
        assert!(
            (got - twin["score_after"].as_f64().unwrap()).abs() <= 1e-5,
            "{}: edited row and its twin differ",
            sys["id"]
        );
        if sys["kind"] != "dense" {
            continue; // BM25's other scores move with the re-indexed corpus statistics.
        }
        let d_rank = twin["rank_before"].as_f64().unwrap();
        let above = if canon_before > d_before { 1.0 } else { 0.0 };
        assert_eq!(
            edited["rank_after"].as_f64().unwrap(),
            d_rank - above,
            "{}",
            sys["id"]
        );
    }
    let v = &r["verdicts"][0];
    assert_eq!(v["corpus_id"], "c_0001");
    assert!(
        v["cached_outcomes"].is_array(),
        "the cache holds c_0003 on q_0001's suite"
    );
    assert_eq!(v["outcomes"], v["cached_outcomes"]);
    assert_eq!(v["passes_all"], false);
}

/// The distractor with its edit undone (plus a comment, so the text is new) passes every test.
#[test]
fn a_fixed_distractor_passes() {
    let meta = std::fs::read_to_string(bundle().join("data/distractor_metadata.jsonl")).unwrap();
    let m: Value = meta
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["corpus_id"] == "c_0002")
        .unwrap();
    let code = snippet("c_0002");
    let start = m["edit"]["start"].as_u64().unwrap() as usize;
    let after = m["edit"]["after"].as_str().unwrap();
    let before = m["edit"]["before"].as_str().unwrap();
    assert_eq!(&code[start..start + after.len()], after);
    let fixed = format!(
        "{}{}{}\n# fixed by hand\n",
        &code[..start],
        before,
        &code[start + after.len()..]
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("fixed.py");
    std::fs::write(&file, fixed).unwrap();
    let arg = format!("c_0002={}", file.display());
    // BM25 only: runs without the embedding environment.
    let r = probe_json(
        &tmp.path().join("no-env"),
        &[
            "--query-id",
            "q_0001",
            "--replace",
            &arg,
            "--systems",
            "BM25",
        ],
    );
    let v = &r["verdicts"][0];
    assert_eq!(v["passes_all"], true, "{v}");
    assert!(v["outcomes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o == "pass"));
    assert_eq!(v["cached_outcomes"], Value::Null);
    let bm25 = &r["systems"][0];
    assert_eq!(bm25["id"], "BM25");
    assert_eq!(tracked(bm25, "c_0002")["replaced"], true);
    assert!(bm25["exec_after"].as_f64().unwrap() >= bm25["exec_before"].as_f64().unwrap());
}

/// Without the embedding environment a free query still ranks under BM25, and every dense
/// system says which model it would need instead of disappearing.
#[test]
fn without_the_environment_dense_systems_say_what_they_need() {
    let tmp = tempfile::tempdir().unwrap();
    let r = probe_json(
        &tmp.path().join("no-env"),
        &["--query", "sort a list of tuples"],
    );
    let systems = r["systems"].as_array().unwrap();
    assert_eq!(systems.len(), 5);
    for sys in systems {
        if sys["kind"] == "bm25" {
            assert_eq!(sys["status"], "ok");
            assert_eq!(sys["top"].as_array().unwrap().len(), 10);
        } else {
            assert_eq!(sys["status"], "unavailable");
            let why = sys["reason"].as_str().unwrap();
            assert!(why.contains("is not loaded"), "{why}");
        }
    }
    // An unedited stored query needs no model: its stored rankings are shown as they are.
    let r = probe_json(
        &tmp.path().join("no-env"),
        &["--query-id", "q_0002", "--k", "3"],
    );
    for sys in r["systems"].as_array().unwrap() {
        assert_eq!(sys["status"], "ok");
        assert_eq!(sys["exec_before"], sys["exec_after"]);
    }
}

/// Re-embedding every stored query through the worker gives the stored vectors (cosine ≥ 0.9999
/// per row) for each of the four models.
#[test]
fn live_query_vectors_match_the_stored_ones() {
    let Some(env) = env_or_skip("live_query_vectors_match_the_stored_ones") else {
        return;
    };
    let b = execscope::bundle::load(&bundle(), &Default::default()).unwrap();
    let texts: Vec<String> = b.queries.iter().map(|q| q.text.clone()).collect();
    let mut worker = Worker::spawn(&env).unwrap();
    assert_eq!(b.systems.len(), 4);
    for sys in &b.systems {
        let spec: ModelSpec =
            execscope::embed::spec_for_system(&sys.id, sys.invocation.as_ref()).unwrap();
        let live = worker.encode(&spec, Role::Query, &texts).unwrap();
        assert_eq!(live.dim(), sys.queries.dim());
        for (i, (a, s)) in live.rows().into_iter().zip(sys.queries.rows()).enumerate() {
            let dot: f64 = a
                .iter()
                .zip(s)
                .map(|(x, y)| f64::from(*x) * f64::from(*y))
                .sum();
            let na: f64 = a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            let ns: f64 = s.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            let cos = dot / (na * ns);
            assert!(cos >= 0.9999, "{} query row {i}: cosine {cos}", sys.id);
        }
    }
}
