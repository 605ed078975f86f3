//! Suites stopped at their first failure (issue 46 item 1): what is recorded when only whether a
//! suite passes is wanted. Each segment (base, plus) ends at its first test that does not pass
//! and its later tests are `not-run`, never a pass or a failure; the stopped result is keyed
//! apart from the full one, a full result serves a stop request (cut the same way) and never the
//! reverse; and an audit of the same pool gives the same verdicts both ways.

use execscope::audit::account::{audit, AuditConfig};
use execscope::audit::generated::{build_suites, parse_pool, parse_tasks, Runner, Suites};
use execscope::audit::{Mode, PoolSet};
use execscope::build::exec::{MemoRow, Runner as Memo};
use execscope::oracle::{Job, Oracle, OracleConfig, Outcome, SuiteResult};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| {
        Oracle::new(OracleConfig {
            timeout: Duration::from_secs(1),
            workers: 2,
            ..OracleConfig::default()
        })
        .expect("an oracle at some level")
    })
}

fn strings(r: &SuiteResult) -> Vec<String> {
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

/// `f` is wrong on 1 and loops forever on 2.
const LOOPS_ON_TWO: &str = "def f(x):\n    if x == 2:\n        while True:\n            pass\n    return 0 if x == 1 else x\n";

fn tests(xs: &[i32]) -> Vec<String> {
    xs.iter().map(|x| format!("assert f({x}) == {x}")).collect()
}

#[test]
fn each_segment_stops_at_its_first_failure_and_the_rest_is_not_run() {
    // Base [0, 1, 2], plus [3, 1, 2]: each stops at its `f(1)`, so neither loop runs.
    let full = Job::new(LOOPS_ON_TWO, tests(&[0, 1, 2, 3, 1, 2])).entry("f");
    let stop = full.clone().stop_at_first_failure(vec![3]);
    let s = oracle().run_job(&stop).expect("oracle answers");
    assert_eq!(
        strings(&s),
        ["pass", "FAIL", "not-run", "pass", "FAIL", "not-run"]
    );
    assert_eq!(s.stopped, [1, 4]);
    assert_eq!((s.test_ms[2], s.test_ms[5]), (0, 0));
    assert_eq!((&s.observed[2], &s.observed[5]), (&None, &None));
    assert!(!s.passes_all());
    // The full suite runs the loops; cut at its first failures it is the stopped run.
    let f = oracle().run_job(&full).expect("oracle answers");
    assert!(
        matches!(f.outcomes[2], Outcome::Hang | Outcome::Timeout),
        "{f:?}"
    );
    assert!(f.stopped.is_empty());
    let cut = f.stopped_at_first_failure(&[3]);
    assert_eq!(strings(&cut), strings(&s));
    assert_eq!(cut.observed, s.observed);
    assert_eq!(cut.stopped, s.stopped);
    // The flag absent, nothing is stopped: a passing suite runs every test either way.
    let ok = Job::new("def f(x):\n    return x\n", tests(&[0, 1, 2])).entry("f");
    let a = oracle().run_job(&ok).unwrap();
    let b = oracle()
        .run_job(&ok.clone().stop_at_first_failure(vec![]))
        .unwrap();
    assert_eq!(
        (strings(&a), strings(&b)),
        (vec!["pass".to_string(); 3], vec!["pass".to_string(); 3])
    );
    assert!(b.stopped.is_empty());
}

#[test]
fn a_test_that_ends_the_process_stops_its_segment_too() {
    // Whoever records the failure (the judge, or execscope for a child that is gone), the rest
    // of the segment is not run and the next segment runs.
    let code = "import os\ndef f(x):\n    if x == 1:\n        os._exit(3)\n    return x\n";
    let job = Job::new(code, tests(&[0, 1, 2, 3]))
        .entry("f")
        .stop_at_first_failure(vec![3]);
    let r = oracle().run_job(&job).expect("oracle answers");
    let o = strings(&r);
    assert_eq!(o[0], "pass");
    assert!(
        !r.outcomes[1].is_pass() && !r.outcomes[1].is_not_run(),
        "{o:?}"
    );
    assert_eq!(o[2..], ["not-run", "pass"]);
    assert_eq!(r.stopped, [1]);
}

#[test]
fn a_full_row_serves_a_stop_request_and_a_stopped_row_never_a_full_one() {
    let dir = tempfile::tempdir().unwrap();
    let full = Job::new("def f(x):\n    return 0\n", tests(&[0, 1, 2])).entry("f");
    let stop = full.clone().stop_at_first_failure(vec![2]);
    let result = |o: &[&str]| SuiteResult {
        outcomes: o.iter().map(|s| s.parse().unwrap()).collect(),
        observed: vec![None; o.len()],
        isolation: execscope::oracle::IsolationLevel::Rlimits,
        wall_ms: 1,
        test_ms: vec![1; o.len()],
        stopped: vec![],
    };
    let row = |job: &Job, r: SuiteResult| {
        let (c, t) = job.key();
        let m = MemoRow {
            code_sha256: c,
            tests_sha256: t,
            runner: "r".into(),
            result: r,
        };
        serde_json::to_string(&m).unwrap() + "\n"
    };
    let replay = |text: String| {
        let path = dir.path().join("memo.jsonl");
        std::fs::write(&path, text).unwrap();
        let mut m = Memo::replay(
            "r".into(),
            execscope::oracle::IsolationLevel::Rlimits,
            Duration::from_secs(1),
        );
        m.load_memo_file(&path, false);
        m
    };
    // Only the full row: the stop request is served, cut at its first failure per segment.
    let mut m = replay(row(&full, result(&["pass", "FAIL", "FAIL"])));
    let got = m.run("suites", std::slice::from_ref(&stop));
    let got = got[0].as_ref().expect("served by the full row");
    assert_eq!(strings(got), ["pass", "FAIL", "FAIL"]);
    assert_eq!(got.stopped, [1, 2]);
    let mut m = replay(row(&full, result(&["FAIL", "FAIL", "pass"])));
    let got = m.run("suites", std::slice::from_ref(&stop));
    assert_eq!(
        strings(got[0].as_ref().unwrap()),
        ["FAIL", "not-run", "pass"]
    );
    assert_eq!((m.reused, m.pending), (1, 0));
    // Only a stopped row: the full request is not served (pending, with no oracle to run it).
    let mut stopped = result(&["FAIL", "not-run", "pass"]);
    stopped.stopped = vec![0];
    let mut m = replay(row(&stop, stopped));
    assert!(m.run("suites", std::slice::from_ref(&full))[0].is_err());
    assert_eq!((m.reused, m.pending), (0, 1));
    assert!(m.run("suites", std::slice::from_ref(&stop))[0].is_ok());
}

const TASKS: &str = r#"{"task_id": "t/0", "function_name": "f", "base_tests": ["assert f(0) == 0", "assert f(1) == 1", "assert f(2) == 2"], "plus_tests": ["assert f(3) == 3", "assert f(4) == 4"]}
{"task_id": "t/1", "function_name": "g", "base_tests": ["assert g('a') == 'A'", "assert g('b') == 'B'"], "plus_tests": ["assert g('') == ''"]}"#;

/// Per task: a correct candidate, one wrong on a base test, one wrong only on the plus suite,
/// one that loops on a base test, one that does not import.
fn pool() -> String {
    let rows = [
        ("t/0", "def f(x):\n    return x\n"),
        ("t/0", "def f(x):\n    return 0 if x == 1 else x\n"),
        ("t/0", "def f(x):\n    return x if x < 3 else -1\n"),
        ("t/0", LOOPS_ON_TWO),
        ("t/0", "def f(x) return x\n"),
        ("t/1", "def g(s):\n    return s.upper()\n"),
        ("t/1", "def g(s):\n    return s\n"),
        ("t/1", "def g(s):\n    return s[0].upper()\n"),
        (
            "t/1",
            "def g(s):\n    while s == 'b':\n        pass\n    return s.upper()\n",
        ),
        (
            "t/1",
            "import nonexistent_module_xyz\ndef g(s):\n    return s\n",
        ),
    ];
    let mut out = String::new();
    for (i, (task, code)) in rows.iter().enumerate() {
        let line = serde_json::json!({
            "task_id": task, "sample_index": i % 5, "code": code,
            "self_tests": if i % 2 == 0 { "" } else { "assert True\n" },
        });
        out.push_str(&(line.to_string() + "\n"));
    }
    out
}

fn audited(suites: Suites) -> PoolSet {
    let tasks = parse_tasks(Path::new("tasks.jsonl"), TASKS).expect("tasks parse");
    let rows = parse_pool(Path::new("pool.jsonl"), &pool()).expect("pool parses");
    let runner: &Runner<'_> =
        &|jobs| execscope::oracle::lazy::BatchError::collect(oracle().run_batch(jobs, &|_| {}));
    let mode = Mode::Generated {
        pool: "pool.jsonl".into(),
        tasks: "tasks.jsonl".into(),
    };
    build_suites(&tasks, &rows, runner, mode, suites, Default::default()).expect("audit builds")
}

#[test]
fn an_audit_gives_the_same_verdicts_with_suites_stopped_and_with_every_test() {
    let all = audited(Suites::AllTests);
    let stop = audited(Suites::StopAtFirstFailure);
    let mut not_run = 0;
    for (ca, cs) in all.cohorts.iter().zip(&stop.cohorts) {
        for (ta, ts) in ca.tasks.iter().zip(&cs.tasks) {
            for (a, s) in ta.candidates.iter().zip(&ts.candidates) {
                // Every verdict with its reason (C, S, E, E*, P_b, P+), the admissions, P+.
                assert_eq!(a.evidence, s.evidence, "{} {}", ta.task_id, a.label);
                assert_eq!((&a.admitted, a.pass), (&s.admitted, s.pass));
                // Per test: the same outcome, or not run after a failure of its suite.
                for (x, y) in a.tests.iter().zip(&s.tests) {
                    if y.outcome.is_not_run() {
                        not_run += 1;
                        assert!(!x.outcome.is_not_run());
                    } else {
                        assert_eq!(x.outcome, y.outcome, "{} {}", ta.task_id, a.label);
                    }
                }
                assert!(a.tests.iter().all(|t| !t.outcome.is_not_run()));
            }
        }
    }
    // The loops, and tests after each failure, were not run.
    assert!(not_run >= 6, "{not_run}");
    // pass@k, the admission and order tables: the same numbers.
    let cfg = AuditConfig {
        draws: 50,
        ..AuditConfig::default()
    };
    assert_eq!(
        serde_json::to_value(audit(&all, &cfg)).unwrap(),
        serde_json::to_value(audit(&stop, &cfg)).unwrap()
    );
    // The output says so; every candidate but the two correct ones stopped somewhere.
    assert!(
        stop.provenance
            .iter()
            .any(|p| p.starts_with("stopped at first failure: 8 of 10 suites")),
        "{:?}",
        stop.provenance
    );
    assert!(!all.provenance.iter().any(|p| p.contains("stopped at")));
}
