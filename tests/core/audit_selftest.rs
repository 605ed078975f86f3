//! Every predicate of the evidence vector on hand-written candidates, executed for real in the
//! oracle's sandbox: each exclusion rule of the structural screen S, the inline contract E and
//! restricted module supply E*, the suite verdicts P_b / P+, and the reasons they keep.

use crate::common;

use common::oracle::run;
use execscope::audit::generated::{self, PoolRow, TaskSpec};
use execscope::audit::{Candidate, Mode, PoolSet};
use std::sync::OnceLock;

const ADD: &str = "def add(a, b):\n    return a + b\n";
const GOOD: &str = "assert add(1, 1) == 2\nassert add(2, 3) == 5\nassert add(-4, 4) == 0\n";
const TWO: &str = "assert add(1, 1) == 2\nassert add(2, 3) == 5\n";

fn task() -> TaskSpec {
    TaskSpec {
        prelude: String::new(),
        language: Default::default(),
        task_id: "T/add".into(),
        function_name: "add".into(),
        base: vec![
            "assert add(1, 2) == 3".into(),
            "assert add(0, 0) == 0".into(),
        ],
        plus: vec![
            "assert add(-1, 1) == 0".into(),
            "assert add(7, -2) == 5".into(),
        ],
        ..TaskSpec::default()
    }
}

/// (name, code, self-tests)
fn candidates() -> Vec<(&'static str, String, String)> {
    let c = |n, code: &str, tests: &str| (n, code.to_string(), tests.to_string());
    vec![
        c("good", ADD, GOOD),
        c("constant", ADD, &format!("{TWO}assert True\nassert 1 == 1\n")),
        c("identical", ADD, &format!("{TWO}assert add(1, 2) == add(1, 2)\n")),
        c("duplicate", ADD, &format!("{TWO}assert add(1, 1) == 2\n")),
        c("message-variant", ADD, &format!("{TWO}assert add(1, 1) == 2, 'again'\n")),
        c("call-in-message", ADD, &format!("{TWO}assert True, add(1, 1)\n")),
        c("no-call", ADD, &format!("{TWO}x = 3\nassert x == 3\n")),
        c("not-top-level", ADD, &format!("def test_add():\n    {}\ntest_add()\n", GOOD.trim_end().replace('\n', "\n    "))),
        c("lambda", "add = lambda a, b: a + b\n", GOOD),
        c("nested-def", "if True:\n    def add(a, b):\n        return a + b\n", GOOD),
        c("code-syntax", "def add(a, b)\n    return a + b\n", GOOD),
        c("tests-syntax", ADD, "assert add(1, 1) == 2\nassert add(\n"),
        c("from-solution", ADD, &format!("from solution import add\n{GOOD}")),
        c("import-solution", ADD, "import solution\nassert solution.add(1, 1) == 2\nassert solution.add(2, 3) == 5\nassert solution.add(0, 0) == 0\n"),
        c("your-module", ADD, &format!("from your_module import add\n{GOOD}")),
        c("fn-module", ADD, &format!("from add_module import *\n{GOOD}")),
        c("other-module", ADD, &format!("from my_solution import add\n{GOOD}")),
        c("wrong-expectation", ADD, "assert add(1, 1) == 2\nassert add(2, 3) == 6\nassert add(0, 0) == 0\n"),
        c("self-consistent-wrong", "def add(a, b):\n    return a - b\n", "assert add(3, 1) == 2\nassert add(5, 5) == 0\nassert add(0, 0) == 0\n"),
        c("plus-only-bug", "def add(a, b):\n    return abs(a) + b\n", GOOD.replace("assert add(-4, 4) == 0", "assert add(4, 4) == 8").as_str()),
        c("system-exit", ADD, &format!("import sys\n{GOOD}sys.exit(0)\n")),
        c("tests-timeout", ADD, &format!("{GOOD}while True:\n    pass\n")),
        c("code-raises", &format!("{ADD}raise ValueError('at import')\n"), GOOD),
        c("main-block", &format!("{ADD}if __name__ == '__main__':\n    assert add(1, 1) == 3\n"), GOOD),
    ]
}

/// The `i`-th row (0-based) of a pool of task `T/add`.
fn row(i: usize, code: String, self_tests: String) -> PoolRow {
    PoolRow {
        line: i + 1,
        task_id: "T/add".into(),
        sample_index: i as i64,
        code,
        self_tests,
        cohort: "all".into(),
        whole: false,
        ..PoolRow::default()
    }
}

fn pools() -> &'static PoolSet {
    static P: OnceLock<PoolSet> = OnceLock::new();
    P.get_or_init(|| {
        let rows: Vec<PoolRow> = candidates()
            .into_iter()
            .enumerate()
            .map(|(i, (_, code, tests))| row(i, code, tests))
            .collect();
        generated::build(
            &[task()],
            &rows,
            &run,
            Mode::Generated {
                pool: "hand".into(),
                tasks: "hand".into(),
            },
        )
        .expect("build")
    })
}

fn cand(name: &str) -> &'static Candidate {
    let i = candidates()
        .iter()
        .position(|c| c.0 == name)
        .expect("known name");
    &pools().cohorts[0].tasks[0].candidates[i]
}

/// The evidence vector as `C S E E* P_b P+` with `-` for a failing verdict.
fn vector(name: &str) -> String {
    let c = cand(name);
    pools()
        .evidence_names
        .iter()
        .zip(&c.evidence)
        .map(|(n, v)| if v.ok { n.as_str() } else { "-" })
        .collect::<Vec<_>>()
        .join(" ")
}

fn reason(name: &str, which: &str) -> String {
    let i = pools()
        .evidence_names
        .iter()
        .position(|n| n == which)
        .unwrap();
    cand(name).evidence[i].reason.clone()
}

/// Admissions as `C S E A E* A* P_b` with `-` for not admitted.
fn admitted(name: &str) -> String {
    pools()
        .predicates
        .iter()
        .zip(&cand(name).admitted)
        .map(|(n, &a)| if a { n.as_str() } else { "-" })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_well_formed_correct_candidate_passes_everything() {
    assert_eq!(vector("good"), "C S E E* P_b P+");
    assert_eq!(admitted("good"), "C S E A E* A* P_b");
    assert_eq!(reason("good", "S"), "pass (3 counted assertions)");
    assert_eq!(reason("good", "E"), "pass");
    assert!(reason("good", "E*").contains("no candidate-named import"));
}

#[test]
fn each_exclusion_rule_of_the_structural_screen() {
    for (name, why) in [
        (
            "constant",
            "2 counted assertion(s) < 3; excluded: 2 constant",
        ),
        (
            "identical",
            "2 counted assertion(s) < 3; excluded: 1 identical-expression",
        ),
        (
            "duplicate",
            "2 counted assertion(s) < 3; excluded: 1 duplicate",
        ),
        (
            "no-call",
            "2 counted assertion(s) < 3; excluded: 1 not calling the target",
        ),
        ("not-top-level", "0 counted assertion(s) < 3"),
        ("lambda", "no top-level def of the target"),
        ("nested-def", "no top-level def of the target"),
    ] {
        assert_eq!(vector(name), "C - E E* P_b P+", "{name}");
        assert_eq!(reason(name, "S"), why, "{name}");
        assert_eq!(admitted(name), "C - E - E* - P_b", "{name}");
    }
}

#[test]
fn duplicates_compare_whole_assert_nodes_and_calls_count_only_in_the_expression() {
    // Same expression, different message: a distinct assertion AST.
    assert_eq!(vector("message-variant"), "C S E E* P_b P+");
    // A call in the message does not make a constant assertion count.
    assert_eq!(
        reason("call-in-message", "S"),
        "2 counted assertion(s) < 3; excluded: 1 constant"
    );
}

#[test]
fn syntax_errors_fail_compilation_screen_and_execution_with_reasons() {
    assert_eq!(vector("code-syntax"), "- - - - - -");
    assert_eq!(reason("code-syntax", "C"), "SyntaxError");
    assert_eq!(reason("code-syntax", "E"), "compile-code:SyntaxError");
    assert_eq!(
        reason("code-syntax", "P_b"),
        "ERROR:SyntaxError on base test 1"
    );
    assert_eq!(
        reason("code-syntax", "P+"),
        "base: ERROR:SyntaxError on base test 1"
    );
    assert_eq!(vector("tests-syntax"), "C - - - P_b P+");
    assert_eq!(
        reason("tests-syntax", "S"),
        "self-tests do not compile (SyntaxError)"
    );
    assert_eq!(reason("tests-syntax", "E"), "compile-tests:SyntaxError");
}

#[test]
fn inline_import_of_the_candidate_module_fails_and_module_supply_completes() {
    for name in [
        "from-solution",
        "import-solution",
        "your-module",
        "fn-module",
    ] {
        assert_eq!(vector(name), "C S - E* P_b P+", "{name}");
        assert_eq!(admitted(name), "C S - - E* A* P_b", "{name}");
        assert_eq!(reason(name, "E"), "tests:ModuleNotFoundError", "{name}");
    }
    assert_eq!(reason("from-solution", "E*"), "pass (served solution)");
    assert_eq!(reason("fn-module", "E*"), "pass (served add_module)");
    // A module not named like the candidate's own gets no adaptation.
    assert_eq!(vector("other-module"), "C S - - P_b P+");
    assert!(reason("other-module", "E*").starts_with("tests:ModuleNotFoundError"));
}

#[test]
fn wrong_expectations_and_wrong_code_land_in_their_cells() {
    // Correct code, one wrong expectation: an excluded pass.
    assert_eq!(vector("wrong-expectation"), "C S - - P_b P+");
    assert_eq!(reason("wrong-expectation", "E"), "tests:AssertionError");
    // Wrong code with self-consistent self-tests: admitted, fails the base suite.
    assert_eq!(vector("self-consistent-wrong"), "C S E E* - -");
    assert_eq!(
        reason("self-consistent-wrong", "P_b"),
        "FAIL on base test 1"
    );
    // Passes the base suite, fails an added test: admitted ∧ P_b ∧ ¬P+.
    assert_eq!(vector("plus-only-bug"), "C S E E* P_b -");
    assert_eq!(reason("plus-only-bug", "P+"), "FAIL on plus test 1");
}

#[test]
fn exits_timeouts_and_import_time_errors_keep_their_class() {
    assert_eq!(vector("system-exit"), "C S - - P_b P+");
    assert_eq!(reason("system-exit", "E"), "tests:SystemExit");
    assert_eq!(vector("tests-timeout"), "C S - - P_b P+");
    assert_eq!(reason("tests-timeout", "E"), "TIMEOUT");
    assert_eq!(vector("code-raises"), "C S - - - -");
    assert_eq!(reason("code-raises", "E"), "code:ValueError");
    assert_eq!(
        reason("code-raises", "P_b"),
        "ERROR:ValueError on base test 1"
    );
    // Self-tests run as __main__ (a script's guard fires); the suite's per-test namespaces do not.
    assert_eq!(vector("main-block"), "C S - - P_b P+");
    assert_eq!(reason("main-block", "E"), "code:AssertionError");
}

#[test]
fn per_test_outcomes_are_kept_for_the_view() {
    let c = cand("plus-only-bug");
    let suites: Vec<&str> = c.tests.iter().map(|t| t.suite).collect();
    assert_eq!(suites, ["base", "base", "plus", "plus"]);
    let outs: Vec<String> = c.tests.iter().map(|t| t.outcome.to_string()).collect();
    assert_eq!(outs, ["pass", "pass", "FAIL", "pass"]);
}

#[test]
fn screens_batched_into_jobs_come_back_to_their_own_rows() {
    // More distinct candidates than one screen job holds, each with its own number of distinct
    // asserts (so its screen's reason names it), a syntax error in the second job, and a row that
    // repeats an earlier one (screened once): every row gets its own screen, and the screens take
    // two jobs.
    use execscope::audit::selftest::SCREEN_BATCH;
    let n = SCREEN_BATCH + 6;
    let mut rows: Vec<PoolRow> = (0..n)
        .map(|i| {
            let asserts = i % 5;
            let tests: String = (0..asserts)
                .map(|k| format!("assert add({i}, {k}) == {}\n", i + k))
                .collect();
            let code = if i == SCREEN_BATCH + 2 {
                "def add(a, b)\n    return a + b\n".to_string()
            } else {
                format!("{ADD}# candidate {i}\n")
            };
            row(i, code, tests)
        })
        .collect();
    rows.push(row(n, rows[3].code.clone(), rows[3].self_tests.clone()));
    let screen_jobs = std::sync::atomic::AtomicUsize::new(0);
    let counting = |jobs: &[execscope::oracle::Job]| {
        let screens = jobs
            .iter()
            .filter(|j| j.entry.iter().any(|e| e == "__es_screen"))
            .count();
        screen_jobs.fetch_add(screens, std::sync::atomic::Ordering::Relaxed);
        run(jobs)
    };
    let pools = generated::build(
        &[task()],
        &rows,
        &counting,
        Mode::Generated {
            pool: "batched".into(),
            tasks: "hand".into(),
        },
    )
    .expect("build");
    assert_eq!(screen_jobs.into_inner(), 2);
    let s = pools.evidence_names.iter().position(|n| n == "S").unwrap();
    let cands = &pools.cohorts[0].tasks[0].candidates;
    assert_eq!(cands.len(), n + 1);
    for (i, c) in cands.iter().enumerate() {
        let k = if i == n { 3 } else { i } % 5;
        let want = if i == SCREEN_BATCH + 2 {
            "code does not compile (SyntaxError); ".to_string()
                + &format!("{k} counted assertion(s) < 3")
        } else if k >= 3 {
            format!("pass ({k} counted assertions)")
        } else {
            format!("{k} counted assertion(s) < 3")
        };
        assert_eq!(c.evidence[s].reason, want, "row {i}");
    }
}
