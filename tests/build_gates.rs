//! Each of the five gates refuses a bad task with line, task id and reason, and the run goes on
//! (real python3, real oracle). Fixture lines are commented in the expectations below.

use execscope::build::{build, BuildOptions, Gate, REPORT_FILE};
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

#[test]
fn every_gate_refuses_with_line_task_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tasks_gates.jsonl");
    let report = build(&tasks, dir.path(), &oracle(), &BuildOptions::default()).unwrap();

    let got: Vec<(usize, &str, Gate, &str)> = report
        .refusals
        .iter()
        .map(|r| (r.line, r.task_id.as_str(), r.gate, r.reason.as_str()))
        .collect();
    let expect: [(usize, &str, Gate, &str); 9] = [
        (2, "", Gate::Schema, "invalid JSON"),
        (3, "small_clamp", Gate::Schema, "duplicate task_id (first on line 1)"),
        (4, "two_asserts", Gate::Schema, "test 1 is not a single assert statement: has 2 statements"),
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
