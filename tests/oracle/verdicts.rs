//! Verdicts that do not depend on the machine, and real code judged as its field judges it:
//! a budget per test (later tests keep their own outcomes after a timeout), a proven `HANG` told
//! from a `TIMEOUT`, the full text-stream interface of the pair's `sys.stdout`, and a task
//! `prelude` run before generated candidates. Every test runs real python3 in the real oracle.

use execscope::audit::generated::{build, parse_pool, parse_tasks, Runner};
use execscope::audit::Mode;
use execscope::oracle::{Oracle, OracleConfig, SuiteResult};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

/// Each test's budget here (the default is 2 s; shorter keeps this file quick).
const BUDGET: Duration = Duration::from_secs(1);

fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| {
        Oracle::new(OracleConfig {
            timeout: BUDGET,
            workers: 2,
            ..OracleConfig::default()
        })
        .expect("an oracle at some level")
    })
}

fn run(code: &str, tests: &[&str]) -> SuiteResult {
    let tests: Vec<String> = tests.iter().map(|s| s.to_string()).collect();
    oracle().run(code, &tests).expect("oracle answers")
}

fn outcomes(code: &str, tests: &[&str]) -> Vec<String> {
    run(code, tests)
        .outcomes
        .iter()
        .map(|o| o.to_string())
        .collect()
}

#[test]
fn every_test_after_a_timeout_gets_its_own_outcome() {
    // Test 3 never ends; tests 4 and 5 still run (in a fresh process) and are judged.
    let code = "def f(x):\n    while x:\n        pass\n    return 0\n";
    let o = outcomes(
        code,
        &[
            "assert f(0) == 0",
            "assert f(0) == 1",
            "assert f(1) == 0",
            "assert f(0) == 0",
            "assert f(0) == 2",
        ],
    );
    assert_eq!(o, ["pass", "FAIL", "HANG", "pass", "FAIL"]);
}

#[test]
fn a_slow_test_costs_only_its_own_budget() {
    // Two tests that each end by themselves but take longer than the budget: both TIMEOUT (a
    // terminating loop is never a proven hang), and the quick tests around them pass.
    let code = "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n";
    let r = run(
        code,
        &[
            "assert f(3) == 3",
            "assert f(10 ** 10) == 10 ** 10",
            "assert f(5) == 5",
            "assert f(10 ** 10) == 10 ** 10",
            "assert f(7) == 7",
        ],
    );
    let o: Vec<String> = r.outcomes.iter().map(|o| o.to_string()).collect();
    assert_eq!(o, ["pass", "TIMEOUT", "pass", "TIMEOUT", "pass"]);
    assert_eq!(r.test_ms.len(), 5, "a wall time per test");
    assert!(r.test_ms[1] as u128 >= BUDGET.as_millis());
}

#[test]
fn brute_force_with_many_quick_tests_all_pass() {
    // 40 tests of a few milliseconds each: far more than one budget in total, each far below
    // its own budget, so none can turn into TIMEOUT with load.
    let code = "def count_primes(n):\n    c = 0\n    for k in range(2, n):\n        \
                if all(k % d for d in range(2, int(k ** 0.5) + 1)):\n            c += 1\n    \
                return c\n";
    let tests: Vec<String> = (0..40)
        .map(|i| {
            let n = 2000 + i;
            let want = (2..n)
                .filter(|&k| (2..).take_while(|d| d * d <= k).all(|d| k % d != 0))
                .count();
            format!("assert count_primes({n}) == {want}")
        })
        .collect();
    let r = oracle().run(code, &tests).expect("oracle answers");
    assert!(r.passes_all(), "{:?}", r.outcomes);
}

#[test]
fn proven_hangs_and_unproven_timeouts() {
    let hang = |code: &str| outcomes(code, &["assert f(1) == 1"])[0].clone();
    // Deterministic loops that come back to a state they were in: HANG.
    assert_eq!(hang("def f(n):\n    while True:\n        pass\n"), "HANG");
    assert_eq!(
        hang("def f(n):\n    while True: pass\n"),
        "HANG",
        "one line"
    );
    assert_eq!(
        hang("def f(n):\n    a = 0\n    while True:\n        a = 1 - a\n"),
        "HANG",
        "a cycle of two states"
    );
    assert_eq!(
        hang("def f(n):\n    i = 0\n    while i < n:\n        n += 0\n    return i\n"),
        "HANG",
        "no progress"
    );
    assert_eq!(
        hang("def f(n):\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n"),
        "HANG"
    );
    assert_eq!(
        hang("x = 0\nwhile x < 1:\n    pass\ndef f(n):\n    return n\n"),
        "HANG"
    );
    // Not provable: each ends (or may end) by itself, or its state is out of sight.
    assert_eq!(
        hang("import itertools\ndef f(n):\n    for _ in itertools.repeat(0, 10 ** 12):\n        pass\n    return 1\n"),
        "TIMEOUT",
        "the for loop's iterator advances although the locals repeat"
    );
    assert_eq!(
        hang("import random\ndef f(n):\n    while random.random() < 2:\n        pass\n"),
        "TIMEOUT",
        "randomness ends the detection"
    );
    assert_eq!(
        hang("def f(n):\n    while __import__('time').time() > 0:\n        pass\n"),
        "TIMEOUT",
        "so does the clock"
    );
    assert_eq!(
        hang("import math\ndef f(n):\n    math.c = 0\n    while True:\n        math.c += 1\n        if math.c > 10 ** 12:\n            return 1\n"),
        "TIMEOUT",
        "state kept in a module changes every turn"
    );
    assert_eq!(
        hang("def g():\n    while True:\n        yield 0\ndef f(n):\n    return sum(g())\n"),
        "TIMEOUT",
        "the consumer in C holds the growing state"
    );
    assert_eq!(
        hang("def f(n):\n    return sum(range(10 ** 15))\n"),
        "TIMEOUT",
        "a loop inside C gives no events"
    );
    assert_eq!(
        hang("class C:\n    k = 0\ndef f(n):\n    while C.k < 10 ** 12:\n        C.k += 1\n"),
        "TIMEOUT",
        "a class attribute that grows"
    );
    assert_eq!(
        hang("def f(n, acc=[]):\n    while len(acc) < 10 ** 12:\n        acc.append(0)\n"),
        "TIMEOUT",
        "a default list that grows"
    );
}

#[test]
fn text_streams_have_the_full_interface() {
    // doctest.testmod() at top level (HumanEval completions do this), the stream's encoding and
    // errors, writelines, buffer and isatty: all behave as under a terminal-less interpreter.
    let code = "import sys, doctest\n\
                def add(a, b):\n    \"\"\"\n    >>> add(1, 2)\n    3\n    \"\"\"\n    return a + b\n\
                doctest.testmod()\n\
                def enc():\n    return (sys.stdout.encoding, sys.stderr.errors)\n\
                def lines():\n    sys.stdout.writelines(['a\\n', 'b\\n'])\n    \
                sys.stdout.buffer.write(b'x')\n    sys.stdout.flush()\n    \
                return sys.stdout.isatty()\n";
    let o = outcomes(
        code,
        &[
            "assert add(2, 3) == 5",
            "assert enc() == ('utf-8', 'strict')",
            "assert lines() is False",
        ],
    );
    assert_eq!(o, ["pass", "pass", "pass"]);
}

fn audit_pool(tasks: &str, pool: &str) -> execscope::audit::PoolSet {
    let tasks = parse_tasks(Path::new("tasks.jsonl"), tasks).expect("tasks parse");
    let rows = parse_pool(Path::new("pool.jsonl"), pool).expect("pool parses");
    let runner: &Runner<'_> =
        &|jobs| execscope::oracle::lazy::BatchError::collect(oracle().run_batch(jobs, &|_| {}));
    let mode = Mode::Generated {
        pool: "pool.jsonl".into(),
        tasks: "tasks.jsonl".into(),
    };
    build(&tasks, &rows, runner, mode).expect("audit builds")
}

#[test]
fn a_prelude_runs_before_every_generated_candidate() {
    // The completion relies on the prompt's `from typing import List`, as HumanEval
    // completions do; the task carries it as its prelude.
    let pool = r#"{"task_id": "t", "sample_index": 0, "code": "def total(xs: List[int]) -> int:\n    return sum(xs)\n", "self_tests": "assert total([1, 2]) == 3\n"}"#;
    let with = r#"{"task_id": "t", "function_name": "total", "prelude": "from typing import List\n", "base_tests": ["assert total([1, 2, 3]) == 6", "assert total([]) == 0"]}"#;
    let without = r#"{"task_id": "t", "function_name": "total", "base_tests": ["assert total([1, 2, 3]) == 6", "assert total([]) == 0"]}"#;
    let outcome_strings = |set: &execscope::audit::PoolSet| -> Vec<String> {
        set.cohorts[0].tasks[0].candidates[0]
            .tests
            .iter()
            .map(|t| t.outcome.to_string())
            .collect()
    };
    let a = audit_pool(with, pool);
    assert_eq!(outcome_strings(&a), ["pass", "pass"]);
    assert!(a.cohorts[0].tasks[0].candidates[0].pass);
    // The candidate's own text is what the audit shows (the prelude is not pasted into it).
    assert!(!a.cohorts[0].tasks[0].candidates[0]
        .code
        .contains("from typing"));
    let b = audit_pool(without, pool);
    assert_eq!(outcome_strings(&b), ["ERROR:NameError", "ERROR:NameError"]);
    assert!(!b.cohorts[0].tasks[0].candidates[0].pass);
}

#[test]
fn a_prelude_that_is_not_a_string_is_an_error_naming_the_line() {
    let bad = "\n{\"task_id\": \"t\", \"function_name\": \"f\", \"prelude\": 3, \"tests\": [\"assert f()\"]}";
    let e = parse_tasks(Path::new("tasks.jsonl"), bad).unwrap_err();
    assert!(e.to_string().contains("tasks.jsonl:2"), "{e}");
}
