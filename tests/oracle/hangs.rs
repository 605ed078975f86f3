//! Hangs cost their budget and no more: once a test of a pair ran out of time, a later test that
//! starts in a fresh child anyway runs under the hang detector first, and a proof there is its
//! `HANG` without spending the budget (docs/threat-model.md "A hang is proven, not assumed").
//! The verdicts are those of the run-then-detect order in every case; only the cost changes.

use execscope::oracle::{Oracle, OracleConfig, SuiteResult};
use std::time::Duration;

fn run(budget: Duration, code: &str, tests: &[&str]) -> SuiteResult {
    let oracle = Oracle::new(OracleConfig {
        timeout: budget,
        workers: 1,
        ..OracleConfig::default()
    })
    .expect("an oracle at some level");
    let tests: Vec<String> = tests.iter().map(|s| s.to_string()).collect();
    oracle.run(code, &tests).expect("oracle answers")
}

fn words(r: &SuiteResult) -> Vec<String> {
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

#[test]
fn later_hangs_are_proven_without_their_budget() {
    // A budget well above the detector's backstop (5 s): a test that spends its budget records at
    // least 8,000 ms whatever the load; a HANG proven by the detector before any budget is spent
    // ends within the backstop. Test 0 pays its budget (nothing has hung yet), test 1 does not;
    // test 3 starts in the child test 2 left (it ended normally), so it pays its budget again, and
    // test 4 does not.
    let budget = Duration::from_secs(8);
    let code = "def f(x):\n    while x:\n        pass\n    return 0\n";
    let r = run(
        budget,
        code,
        &[
            "assert f(1) == 0",
            "assert f(2) == 0",
            "assert f(0) == 1",
            "assert f(3) == 0",
            "assert f(4) == 0",
        ],
    );
    assert_eq!(words(&r), ["HANG", "HANG", "FAIL", "HANG", "HANG"]);
    let ms = budget.as_millis() as u32;
    assert!(
        r.test_ms[0] >= ms,
        "test 0 spends its budget: {:?}",
        r.test_ms
    );
    assert!(r.test_ms[1] < ms, "test 1 is proven first: {:?}", r.test_ms);
    assert!(
        r.test_ms[3] >= ms,
        "test 3 runs in test 2's child: {:?}",
        r.test_ms
    );
    assert!(r.test_ms[4] < ms, "test 4 is proven first: {:?}", r.test_ms);
}

#[test]
fn a_probe_without_proof_keeps_the_ordinary_verdicts() {
    // After the first HANG every later test in a fresh child is probed: a test that ends under
    // the detector is run again as usual (its verdict is the ordinary run's), a loop whose proof
    // the clock prevents is TIMEOUT (run, out of time, no second detection), a proven one HANG.
    // (The clock is reached through `__import__`: a module of the code's globals outside the
    // detector's fixed list would void every proof, the HANGs' too.)
    let code = "def f(x):\n    \
                    if x == 1:\n        while True:\n            pass\n    \
                    if x == 2:\n        while __import__('time').time() > 0:\n            pass\n    \
                    return x\n";
    let r = run(
        Duration::from_secs(1),
        code,
        &[
            "assert f(1) == 1",
            "assert f(5) == 5",
            "assert f(2) == 2",
            "assert f(1) == 1",
            "assert f(2) == 2",
            "assert f(6) == 0",
            "assert f(7) == 7",
        ],
    );
    assert_eq!(
        words(&r),
        ["HANG", "pass", "TIMEOUT", "HANG", "TIMEOUT", "FAIL", "pass"]
    );
}
