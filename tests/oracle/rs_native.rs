//! HumanEval-X Rust tests translated from their native `assert!`s (`build::formats::rsnative`)
//! are the judge's: the red team's Rust candidates for `add` (tests/fixtures/redteam/rust:
//! `std::process::exit(0)`, printed markers, at-exit and panic hooks, an `assert!` redefined, a
//! `PartialEq` forgery, the test read from the source file) pass none of them, and the honest
//! program passes all. The fork that outlives its pair is left to the red-team suite (it checks
//! the host after it).

use execscope::build::formats::rsnative;
use execscope::record::Language;

/// HumanEval-X's Rust/53 test without its random inputs, with the forms the translation
/// reproduces: `assert!(.. == ..)`, `assert_eq!`, `assert_ne!`, a `let` with a type, a loop and a
/// compound assignment, integer division (`7 / 2` is 3).
const NATIVE: &str = "
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_add() {
        assert!(add(0, 1) == 1);
        assert_eq!(add(2, 3), 5);
        assert_ne!(add(5, 7), 13);
        let x: i32 = 7 / 2;
        let y: i32 = -7 % 4;
        assert!(add(x, y) == x + y);
        let mut s = 0;
        for i in 0..3 {
            s += i;
        }
        assert!(!(add(s, 1) != 4));
    }

}
";

#[test]
fn a_rust_candidate_that_exits_or_prints_passes_no_native_test() {
    let test = "rs_native::a_rust_candidate_that_exits_or_prints_passes_no_native_test";
    let o = crate::common::oracle::oracle();
    if let Some(why) = o.language_unavailable(Language::Rust) {
        crate::common::skip(test, &why);
        return;
    }
    let tests = rsnative::tests(NATIVE, "add", "fn add(x:i32, y:i32) -> i32{\n").unwrap();
    assert_eq!(tests.len(), 5);
    // No Rust of the test is in them: no macro, no test function, no `mod`.
    assert!(
        tests
            .iter()
            .all(|t| !t.contains("assert!(") && !t.contains("test_add") && !t.contains("mod ")),
        "{tests:?}"
    );
    // The fourth: 7 / 2 is 3 and -7 % 4 is -3 in Rust (Python's would be -7 // 4 == -2, 1).
    assert!(
        tests[3].contains("_v_x = _rs_op('/', 7, 2, 'i32')")
            && tests[3].contains("_v_y = _rs_op('%', -7, 4, 'i32')"),
        "{}",
        tests[3]
    );
    let programs: Vec<_> = crate::redteam::languages::programs()
        .into_iter()
        .filter(|p| p.language == Language::Rust && p.name != "fork_daemon")
        .collect();
    assert!(programs.len() >= 8, "{} programs", programs.len());
    let jobs: Vec<_> = programs
        .iter()
        .map(|p| {
            execscope::oracle::Job::new(p.code.clone(), tests.clone())
                .entry("add")
                .language(Language::Rust)
        })
        .collect();
    let mut failures = Vec::new();
    for (p, r) in programs.iter().zip(o.run_batch(&jobs, &|_| {})) {
        let r = r.unwrap();
        let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
        let passes = r.outcomes.iter().filter(|x| x.is_pass()).count();
        // The third, `assert_ne!(add(5, 7), 13)`, holds for any wrong sum that is not 13.
        let forged = r
            .outcomes
            .iter()
            .enumerate()
            .any(|(i, x)| i != 2 && x.is_pass());
        if p.honest() && passes != tests.len() {
            failures.push(format!(
                "{}: the correct program did not pass: {got:?}",
                p.name
            ));
        }
        if !p.honest() && forged {
            failures.push(format!("{}: a wrong program passed: {got:?}", p.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
