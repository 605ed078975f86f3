//! A small valid task file builds into a bundle that `bundle::load` and `bundle::check` accept;
//! ids, labels, outcomes, stacked rows and determinism; `exec verify` and `check --oracle` catch
//! a tampered cache row and a broken reference (real python3, real oracle).

use crate::common;

use execscope::build::{build, health, verify, BuildOptions, BuildReport, STACKED_FILE};
use execscope::bundle::{self, CheckStatus, Label, LoadOptions};
use execscope::oracle::{Oracle, OracleConfig, VerifySelection};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| {
        Oracle::new(OracleConfig {
            timeout: Duration::from_secs(3),
            ..OracleConfig::default()
        })
        .expect("oracle")
    })
}

fn tasks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tasks_small.jsonl")
}

fn opts() -> BuildOptions {
    BuildOptions {
        stacked: true,
        reuse: false,
        ..BuildOptions::default()
    }
}

/// One build shared by the tests of this file.
fn built() -> &'static (tempfile::TempDir, BuildReport) {
    static B: OnceLock<(tempfile::TempDir, BuildReport)> = OnceLock::new();
    B.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let r = build(&tasks(), dir.path(), oracle(), &opts()).unwrap();
        (dir, r)
    })
}

use common::copy_dir;

#[test]
fn bundle_loads_and_every_check_passes() {
    let (dir, report) = built();
    assert_eq!(report.tasks_kept, 5, "{report}");
    assert!(report.refusals.is_empty());
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let check = bundle::check(dir.path());
    for item in &check.items {
        // A built bundle has no embeddings yet: the only allowed warning.
        let allowed = item.status == CheckStatus::Pass
            || (item.name == "files present"
                && item.status == CheckStatus::Warn
                && item.detail == "optional files absent: embeddings/*.npz");
        assert!(allowed, "{}: {:?} {}", item.name, item.status, item.detail);
    }
    assert!(check.get("cache coverage").is_some());
    assert!(check.get("distractor metadata").is_some());

    // Ids: q_0001.. in task order; canonical then its distractors.
    let ids: Vec<&str> = b.queries.iter().map(|q| q.id.as_str()).collect();
    assert_eq!(ids, ["q_0001", "q_0002", "q_0003", "q_0004", "q_0005"]);
    let mut next = 1;
    for q in &b.queries {
        assert_eq!(q.correct.len(), 1);
        assert_eq!(q.paired.len(), 4, "{}", q.id);
        let rows: Vec<usize> = q.correct.iter().chain(&q.paired).copied().collect();
        for row in rows {
            assert_eq!(b.corpus[row].id, format!("c_{next:04}"));
            next += 1;
        }
        assert_eq!(b.corpus[q.correct[0]].label, Label::Correct);
        assert!(b.corpus[q.correct[0]].bug_type.is_none());
        assert_eq!(q.metadata["seed"], 20260510);
    }
    assert_eq!(b.corpus.len(), 25);
    assert_eq!(b.queries[3].entry_id, "small_lowest_bit");
    assert_eq!(b.queries[3].domain, "bit_manipulation");
    assert_eq!(b.queries[3].function_name, "lowest_set_bit");

    // Canonicals pass, distractors fail, according to the cache written by the build.
    for q in &b.queries {
        for &row in q.correct.iter().chain(&q.paired) {
            let s = &b.corpus[row];
            let rec = b
                .cache
                .iter()
                .find(|r| {
                    r.code_sha256 == bundle::code_sha256(&s.code)
                        && r.tests_sha256 == bundle::tests_sha256(&q.tests)
                })
                .unwrap_or_else(|| panic!("no cache row for {}", s.id));
            assert_eq!(rec.passes_all_tests, s.label == Label::Correct, "{}", s.id);
            assert!(rec.runner.starts_with("execscope-oracle/"));
        }
    }
    // The table totals agree with the corpus.
    let total: usize = report.distractors_by_bug_type.iter().map(|(_, n)| n).sum();
    assert_eq!(total, 20);
    assert_eq!(report.queries_with_4, 5);
}

#[test]
fn distractors_fail_and_canonicals_pass_on_re_execution() {
    let (dir, _) = built();
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let mut jobs = Vec::new();
    let mut want = Vec::new();
    for q in &b.queries {
        for &row in q.correct.iter().chain(&q.paired) {
            jobs.push(b.job(b.query_row(&q.id).unwrap(), row));
            want.push(b.corpus[row].label == Label::Correct);
        }
    }
    let results = oracle().run_batch(&jobs, &|_| {});
    for ((r, w), job) in results.iter().zip(&want).zip(&jobs) {
        let (r, code) = (r.as_ref().unwrap(), &job.code);
        assert_eq!(r.passes_all(), *w, "{code}");
        if !w {
            // Selection keeps only mutants with at least one wrong value.
            assert!(r.outcomes.iter().any(|o| o.is_plain_fail()), "{code}");
        }
    }
}

#[test]
fn stacked_rows_fail_their_suites() {
    let (dir, report) = built();
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let text = std::fs::read_to_string(dir.path().join(STACKED_FILE)).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stats = report.stacked.as_ref().unwrap();
    assert_eq!(rows.len(), stats.kept);
    assert!(!rows.is_empty());
    let mut jobs = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["stacked_id"], format!("s_{:04}", i + 1));
        let q = &b.queries[b.query_row(r["query_id"].as_str().unwrap()).unwrap()];
        let parts = r["parts"].as_array().unwrap();
        let n = r["n_edits"].as_u64().unwrap() as usize;
        assert!((2..=4).contains(&n) && parts.len() == n);
        for p in parts {
            let row = b.corpus_row(p.as_str().unwrap()).unwrap();
            assert!(q.paired.contains(&row), "part of another query");
        }
        assert_eq!(r["canonical_id"], b.corpus[q.correct[0]].id.as_str());
        jobs.push(
            execscope::oracle::Job::new(r["code"].as_str().unwrap(), q.tests.clone())
                .entry(&q.function_name),
        );
    }
    for (r, row) in oracle().run_batch(&jobs, &|_| {}).iter().zip(&rows) {
        let r = r.as_ref().unwrap();
        assert!(!r.passes_all(), "{}", row["stacked_id"]);
        let outcomes: Vec<String> = r.outcomes.iter().map(|o| o.to_string()).collect();
        assert_eq!(serde_json::json!(outcomes), row["outcomes"]);
    }
}

#[test]
fn two_builds_are_byte_identical() {
    let (first, _) = built();
    let dir = tempfile::tempdir().unwrap();
    build(&tasks(), dir.path(), oracle(), &opts()).unwrap();
    for rel in [
        "data/queries.jsonl",
        "data/corpus.jsonl",
        "data/distractor_metadata.jsonl",
        "data/execution_cache.jsonl",
        STACKED_FILE,
        "SHA256SUMS",
    ] {
        let a = std::fs::read(first.path().join(rel)).unwrap();
        let b = std::fs::read(dir.path().join(rel)).unwrap();
        assert!(a == b, "{rel} differs between two builds");
    }
    // A rebuild into the same directory reuses every result and writes the same files.
    let again = build(
        &tasks(),
        dir.path(),
        oracle(),
        &BuildOptions {
            stacked: true,
            ..BuildOptions::default()
        },
    )
    .unwrap();
    assert_eq!(again.pairs_executed, 0);
    assert!(again.pairs_reused > 0);
    let a = std::fs::read(first.path().join("data/execution_cache.jsonl")).unwrap();
    let b = std::fs::read(dir.path().join("data/execution_cache.jsonl")).unwrap();
    assert!(a == b);
}

#[test]
fn verify_detects_a_tampered_cache_row() {
    let (src, _) = built();
    let dir = tempfile::tempdir().unwrap();
    copy_dir(src.path(), dir.path());
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    // The clean copy agrees (own pairs only: the canonicals and kept distractors, plus stacked).
    let clean = verify::verify_bundle(dir.path(), oracle(), VerifySelection::All, &|_| {}).unwrap();
    assert!(
        clean.report.disagreements.is_empty(),
        "{:?}",
        clean.report.disagreements
    );
    // Every row of a built bundle is a pair it ships the texts of.
    assert_eq!(clean.unrecoverable, 0);
    assert_eq!(clean.report.checked, clean.cache_rows);
    // Flip the canonical of q_0002 to a failure in the cache.
    let q = &b.queries[1];
    let key = bundle::code_sha256(&b.corpus[q.correct[0]].code);
    let path = dir.path().join("data/execution_cache.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut hit = 0;
    let tampered: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            if v["code_sha256"] == key.as_str() {
                hit += 1;
                v["outcomes"][0] = "FAIL".into();
                v["passes_all_tests"] = false.into();
            }
            v.to_string()
        })
        .collect();
    assert_eq!(hit, 1);
    std::fs::write(&path, tampered.join("\n") + "\n").unwrap();
    let v = verify::verify_bundle(dir.path(), oracle(), VerifySelection::All, &|_| {}).unwrap();
    assert_eq!(
        v.report.disagreements.len(),
        1,
        "{:?}",
        v.report.disagreements
    );
    let d = &v.report.disagreements[0];
    assert_eq!(
        v.labels[d.pair],
        format!("q_0002 × {}", b.corpus[q.correct[0]].id)
    );
    assert_eq!(d.cached[0], "FAIL");
    assert_eq!(d.now.as_ref().unwrap()[0], "pass");
}

#[test]
fn oracle_health_flags_a_broken_reference() {
    let (src, _) = built();
    let b = bundle::load(src.path(), &LoadOptions::default()).unwrap();
    let h = health::oracle_health(&b, oracle(), &|_| {});
    assert_eq!(h.len(), 5);
    for q in &h {
        assert!(q.ok(), "{q:?}");
        let control = q.control.as_ref().unwrap();
        assert!(control.iter().any(|o| o == "FAIL:ExecscopeNegativeControl"));
        assert!(
            control.iter().any(|o| o == "pass"),
            "only the chosen input raises"
        );
    }
    // Break q_0001's reference: clamp_value no longer clamps from below.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(src.path(), dir.path());
    let path = dir.path().join("data/corpus.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    let broken = first.replace("return lo\\n", "return hi\\n");
    assert_ne!(broken, first);
    std::fs::write(&path, text.replacen(first, &broken, 1)).unwrap();
    let b = bundle::load(
        dir.path(),
        &LoadOptions {
            verify_checksums: false,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    let h = health::oracle_health(&b, oracle(), &|_| {});
    assert!(!h[0].reference_ok());
    assert!(h[1..].iter().all(|q| q.ok()));
    // Through the binary: exit code 1 and the query named.
    let out = common::execscope()
        .args(["check", "--oracle"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("REFERENCE FAILS q_0001 × c_0001"),
        "{stdout}"
    );
}

#[test]
fn a_suite_that_never_looks_at_the_result_does_not_reject_the_control() {
    let code = "def f(x):\n    return x + 1\n";
    let strong: Vec<String> = vec!["assert f(1) == 2".into(), "assert f(5) == 6".into()];
    let c = health::negative_control(code, "f", &strong).unwrap();
    let r = oracle().run(&c, &strong).unwrap();
    assert_eq!(
        r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
        ["FAIL:ExecscopeNegativeControl", "pass"]
    );
    // A lambda of the test stays in the judge (the code gets a stand-in it can call, not read):
    // the control takes any such stand-in for the chosen input's lambda.
    let code2 = "def apply(g, x):\n    return g(x)\n";
    let lam: Vec<String> = vec![
        "assert apply(lambda v: v * 2, 3) == 6".into(),
        "assert apply(lambda v: v + 2, 3) == 5".into(),
        "assert apply(lambda v: v * 2, 3) == 6 and apply(len, [1]) == 1".into(),
    ];
    let c = health::negative_control(code2, "apply", &lam).unwrap();
    let r = oracle().run(&c, &lam).unwrap();
    assert_eq!(
        r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
        [
            "FAIL:ExecscopeNegativeControl",
            "FAIL:ExecscopeNegativeControl",
            "FAIL:ExecscopeNegativeControl"
        ]
    );
    // Never calls f: the control (and any wrong f) passes.
    let weak: Vec<String> = vec![
        "assert callable(f)".into(),
        "assert (lambda: f(1)) is not None".into(),
    ];
    assert!(health::negative_control(code, "f", &weak).is_some());
    let c = health::negative_control(code, "f", &weak).unwrap();
    assert!(oracle().run(&c, &weak).unwrap().passes_all());
}
