//! Each of the five gates refuses a bad task with line, task id and reason, and the run goes on
//! (real python3, real oracle). Fixture lines are commented in the expectations below.

use execscope::build::{build, BuildOptions, BuildReport, Gate, REPORT_FILE};
use execscope::oracle::{Oracle, OracleConfig};
use std::path::Path;
use std::time::Duration;

fn oracle() -> Oracle {
    Oracle::new(OracleConfig {
        timeout: Duration::from_secs(3),
        ..OracleConfig::default()
    })
    .expect("oracle")
}

/// Builds `tests/fixtures/<name>.jsonl` into a fresh directory.
fn build_fixture(name: &str) -> (tempfile::TempDir, BuildReport) {
    let dir = tempfile::tempdir().unwrap();
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.jsonl"));
    let report = build(&tasks, dir.path(), &oracle(), &BuildOptions::default()).unwrap();
    (dir, report)
}

/// (line, task id, gate, reason) of every refusal.
fn refusals(report: &BuildReport) -> Vec<(usize, &str, Gate, &str)> {
    report
        .refusals
        .iter()
        .map(|r| (r.line, r.task_id.as_str(), r.gate, r.reason.as_str()))
        .collect()
}

#[test]
fn every_gate_refuses_with_line_task_and_reason() {
    let (dir, report) = build_fixture("tasks_gates");
    let got = refusals(&report);
    let expect: [(usize, &str, Gate, &str); 9] = [
        (2, "", Gate::Schema, "invalid JSON"),
        (3, "small_clamp", Gate::Schema, "duplicate task_id (first on line 1)"),
        (4, "unparsable", Gate::Schema, "test 1 does not parse as Python"),
        (5, "few_tests", Gate::Schema, "2 test(s); at least 3 are required"),
        (6, "no_def", Gate::AstSemantics, "canonical does not define `f4` at top level (defines: g4)"),
        (7, "no_call", Gate::AstSemantics, "test 2 does not call `f5`"),
        (8, "wrong_canon", Gate::CanonicalExecution, "canonical fails 1 of 3 tests: test 1 FAIL"),
        (9, "too_simple", Gate::DistractorExecution, "admits only 0 distinct failing mutants"),
        (11, "vowel_share", Gate::CorpusIntegrity, "canonical defines `count_vowels`, the function of task `small_count_vowels` (line 10), and passes all of its tests"),
    ];
    assert_eq!(got.len(), expect.len(), "{got:#?}");
    for (g, e) in got.iter().zip(&expect) {
        assert_eq!((g.0, g.1, g.2), (e.0, e.1, e.2), "{g:?}");
        assert!(
            g.3.starts_with(e.3),
            "line {}: {:?} should start with {:?}",
            g.0,
            g.3,
            e.3
        );
    }
    // The two good tasks still made it, in file order.
    assert_eq!(report.tasks_read, 11);
    assert_eq!(report.tasks_kept, 2);
    for g in Gate::ALL {
        let want = expect.iter().filter(|e| e.2 == g).count();
        assert_eq!(report.refused_by_gate[g.as_str()], want, "{g}");
    }
    // The summary names line, task and reason.
    let text = report.to_string();
    assert!(
        text.contains("line 8 `wrong_canon`: refused at gate canonical_execution: canonical fails")
    );
    assert!(text.contains("line 2 `(no task_id)`: refused at gate schema: invalid JSON"));
    // The collision that passed, and the report file with every refusal.
    assert!(report
        .collisions
        .iter()
        .any(|c| c.task_id == "vowel_share" && c.passes_all_tests));
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(REPORT_FILE)).unwrap()).unwrap();
    assert_eq!(json["refusals"].as_array().unwrap().len(), 9);
    assert_eq!(json["refusals"][6]["gate"], "canonical_execution");
    // The refused gate-5 task's kept mutants are logged as refused, with the rest of its drops.
    assert!(report
        .dropped
        .iter()
        .any(|d| d.task_id == "vowel_share" && d.reason == "task_refused"));
}

/// The spec-grounding rules (tests/fixtures/tasks_spec.jsonl): a mutant editing only a `def`-line
/// default the query does not state is refused before execution, with the reason in the report;
/// a stated default is not; an `independent` implementation that fails a test refuses its task,
/// naming the test; the report counts distractors failing exactly one test, which is checked here
/// against the shipped execution cache.
#[test]
fn signature_and_independent_gates() {
    use execscope::bundle::model::{code_sha256, tests_sha256};
    let (dir, report) = build_fixture("tasks_spec");
    let got = refusals(&report);
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(
        (got[0].0, got[0].1, got[0].2),
        (3, "over_specific", Gate::IndependentExecution)
    );
    assert_eq!(
        got[0].3,
        "independent fails 1 of 4 tests: test 2 FAIL: assert round_half_up(2.5) == 3"
    );
    assert_eq!(
        (got[1].0, got[1].1, got[1].2),
        (4, "bad_independent", Gate::Schema)
    );
    assert_eq!(
        got[1].3,
        "field `independent` must be a string, got a number"
    );
    assert_eq!((got[2].0, got[2].2), (5, Gate::IndependentExecution));
    assert_eq!(got[2].3, "independent does not define `f5` at top level");
    assert_eq!(report.refused_by_gate["independent_execution"], 2);
    assert_eq!(report.tasks_kept, 2);
    assert_eq!(report.tasks_with_independent, 1);

    // Default `step=2` → 1 and → 3: refused for the task whose query does not state it, not
    // executed (no outcomes), and counted among the drops.
    let sig: Vec<_> = report
        .dropped
        .iter()
        .filter(|d| d.reason == "signature_unstated")
        .collect();
    assert_eq!(sig.len(), 2, "{sig:#?}");
    for d in &sig {
        assert_eq!(d.task_id, "unstated_default");
        assert_eq!((d.line, d.before.as_str()), (1, "2"));
        assert!(d.outcomes.is_empty());
        let why = d.detail.as_deref().unwrap();
        assert!(
            why.starts_with("edits only the default of `step` in `def take_every`"),
            "{why}"
        );
        assert!(why.contains("does not state the default `2`"), "{why}");
    }
    assert_eq!(report.drops_by_reason["signature_unstated"], 2);
    // The stated default's mutants went through execution like any other.
    assert!(report
        .dropped
        .iter()
        .filter(|d| d.task_id == "stated_default")
        .all(|d| d.reason != "signature_unstated"));
    let read = |rel: &str| std::fs::read_to_string(dir.path().join(rel)).unwrap();
    let corpus: Vec<serde_json::Value> = read("data/corpus.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let queries: Vec<serde_json::Value> = read("data/queries.jsonl")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let unstated_rows: Vec<&serde_json::Value> = corpus
        .iter()
        .filter(|s| s["source_entry_id"] == "unstated_default" && s["label"] == "incorrect")
        .collect();
    assert!(unstated_rows.len() >= 3);
    for s in unstated_rows {
        let first = s["code"].as_str().unwrap().lines().next().unwrap();
        assert_eq!(first, "def take_every(xs, step=2):");
    }

    // Distractors failing exactly one test: the report's count and histogram agree with the
    // outcomes in the shipped execution cache.
    let cache: std::collections::HashMap<(String, String), Vec<String>> =
        read("data/execution_cache.jsonl")
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let key = (
                    v["code_sha256"].as_str().unwrap().to_string(),
                    v["tests_sha256"].as_str().unwrap().to_string(),
                );
                let o = v["outcomes"].as_array().unwrap();
                (key, o.iter().map(|x| x.as_str().unwrap().into()).collect())
            })
            .collect();
    let mut hist = std::collections::BTreeMap::new();
    let mut ones = 0;
    for s in corpus.iter().filter(|s| s["label"] == "incorrect") {
        let q = queries
            .iter()
            .find(|q| q["entry_id"] == s["source_entry_id"])
            .unwrap();
        let tests: Vec<String> = serde_json::from_value(q["test_suite"].clone()).unwrap();
        let outcomes = &cache[&(
            code_sha256(s["code"].as_str().unwrap()),
            tests_sha256(&tests),
        )];
        let failing = outcomes.iter().filter(|o| *o != "pass").count();
        *hist.entry(failing).or_insert(0usize) += 1;
        ones += usize::from(failing == 1);
    }
    assert_eq!(
        report.distractors_by_failing_tests,
        hist.into_iter().collect::<Vec<_>>()
    );
    assert_eq!(report.distractors_failing_one_test, ones);
    assert_eq!(report.failing_one_test.len(), ones);
    assert!(report.to_string().contains(&format!(
        "distractors failing exactly one test: {ones} of {}",
        report.corpus - 2
    )));
}

/// Builds the given task lines (JSON objects) into a fresh directory; the report, or the error
/// text when every task was refused.
fn build_lines(tasks: &[serde_json::Value]) -> Result<BuildReport, String> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tasks.jsonl");
    let text: String = tasks.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(&file, text).unwrap();
    build(
        &file,
        &dir.path().join("out"),
        &oracle(),
        &BuildOptions::default(),
    )
    .map_err(|e| format!("{e:#}"))
}

#[test]
fn a_canonical_whose_verdicts_depend_on_the_hash_seed_is_refused() {
    // The first element of a set built from these strings: 'banana' under PYTHONHASHSEED=0 (the
    // oracle's own) and 2, 'cherry' under 1.
    let task = serde_json::json!({
        "task_id": "set_order", "function_name": "first_of", "domain": "",
        "query": "Return some element of the set of the given words.",
        "canonical": "def first_of(words):\n    return list(set(words))[0]\n",
        "tests": [
            "assert first_of(['apple', 'banana', 'cherry', 'date']) == 'banana'",
            "assert first_of(['x']) == 'x'",
            "assert first_of(['y', 'y']) == 'y'",
        ],
    });
    let err = build_lines(&[task]).expect_err("its only task is refused");
    assert!(
        err.contains("verdicts depend on the string hash seed")
            && err.contains("PYTHONHASHSEED=1")
            && err.contains("test 1 is FAIL"),
        "{err}"
    );
}

#[test]
fn a_canonical_tested_with_pytest_approx_is_admitted() {
    let task = serde_json::json!({
        "task_id": "approx_mean", "function_name": "mean_of", "domain": "math_numerical",
        "query": "Return the arithmetic mean of a non-empty list of numbers.",
        "prelude": "import pytest",
        "canonical": "def mean_of(xs):\n    total = 0.0\n    count = 0\n    for x in xs:\n        total += x\n        count += 1\n    return total / count\n",
        "tests": [
            "assert mean_of([0.1, 0.2]) == pytest.approx(0.15)",
            "assert mean_of([1, 2, 3, 4]) == pytest.approx(2.5, abs=1e-9)",
            "assert mean_of([1e9, 1e9 + 1]) == pytest.approx(1e9 + 0.5, rel=1e-12)",
            "assert mean_of([-2.5]) == pytest.approx(-2.5)",
        ],
    });
    match build_lines(&[task]) {
        Ok(report) => assert!(
            report
                .refusals
                .iter()
                .all(|r| r.gate != Gate::CanonicalExecution),
            "{:#?}",
            report.refusals
        ),
        Err(e) => assert!(
            !e.contains("canonical fails") && !e.contains("hash seed"),
            "the canonical itself must pass: {e}"
        ),
    }
}
