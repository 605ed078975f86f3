//! A benchmark's own time convention (issue 46 item 2): a job may carry each test's budget and a
//! cap on each segment's total ([`Job::budgets`]) in place of the oracle's one budget per test.
//! A budget shorter than the oracle's ends a test the oracle alone would have let pass, a longer
//! one lets pass a test the oracle alone would have ended (the sandbox's CPU limit and the host's
//! backstop widen with it), and a test that starts with less of its segment's cap left than its
//! own budget gets what is left.

use execscope::oracle::{Budgets, Job, Oracle, OracleConfig, SuiteResult};
use std::time::Duration;

/// An oracle with a 1 s budget per test, no hang probe and no detection (the code sleeps: only
/// budgets decide here).
fn oracle() -> Oracle {
    Oracle::new(OracleConfig {
        timeout: Duration::from_secs(1),
        probe: Some(Duration::from_secs(60)),
        detect: Duration::ZERO,
        workers: 1,
        ..OracleConfig::default()
    })
    .expect("an oracle at some level")
}

const SLEEPS: &str = "import time\ndef f(x):\n    time.sleep(x)\n    return x\n";

fn words(r: &SuiteResult) -> Vec<String> {
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

fn job(sleeps: &[&str]) -> Job {
    let tests = sleeps
        .iter()
        .map(|x| format!("assert f({x}) == {x}"))
        .collect();
    Job::new(SLEEPS, tests).entry("f")
}

#[test]
fn each_test_runs_under_its_own_budget() {
    let o = oracle();
    let plain = job(&["0.6", "1.5", "0.05"]);
    // The oracle's 1 s: the 1.5 s sleep runs out of time.
    let r = o.run_job(&plain).expect("oracle answers");
    assert_eq!(words(&r), ["pass", "TIMEOUT", "pass"]);
    // 0.2 s for the first test, 3 s for the second, the third (no budget given) the oracle's.
    let timed = plain.budgets(Budgets {
        test_ms: vec![200, 3000],
        segment_ms: 60_000,
        segments: vec![],
    });
    let r = o.run_job(&timed).expect("oracle answers");
    assert_eq!(words(&r), ["TIMEOUT", "pass", "pass"]);
    assert!(
        r.test_ms[0] >= 200 && r.test_ms[1] >= 1500,
        "{:?}",
        r.test_ms
    );
}

#[test]
fn a_segment_cap_bounds_its_tests_together() {
    // Base [0.8, 0.8, 0.8], plus [0.8]; 2 s each test, 2 s each segment: the base's third test
    // starts with at most 0.4 s of the cap left and runs out of it; the plus segment starts anew.
    let timed = job(&["0.8", "0.8", "0.8", "0.8"]).budgets(Budgets {
        test_ms: vec![2000; 4],
        segment_ms: 2000,
        segments: vec![3],
    });
    let r = oracle().run_job(&timed).expect("oracle answers");
    assert_eq!(words(&r), ["pass", "pass", "TIMEOUT", "pass"]);
    assert!(r.test_ms[2] < 800, "{:?}", r.test_ms);
    // Stopped at the first failure: the same verdicts, nothing after the base's timeout.
    let stopped = timed.clone().stop_at_first_failure(vec![3]);
    let r = oracle().run_job(&stopped).expect("oracle answers");
    assert_eq!(words(&r), ["pass", "pass", "TIMEOUT", "pass"]);
}
