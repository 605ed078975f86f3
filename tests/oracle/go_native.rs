//! HumanEval-X Go tests translated from their native testify asserts
//! (`build::formats::gonative`) are the judge's: the red team's Go candidates for `Add`
//! (tests/fixtures/redteam/go: `os.Exit(0)`, `syscall.Exit(0)`, printed `PASS` markers, an
//! `init` that exits, a `TestMain` of its own, the caller inspected, the test read from the
//! source) pass none of them, and the honest program passes all. The fork that outlives its pair
//! is left to the red-team suite (it checks the host after it).

use execscope::build::formats::gonative;
use execscope::record::Language;

/// A native HumanEval-X test in the shape of Go/53's (its fixed asserts), with forms the
/// translation reproduces: `assert.Equal` of an `int`, of a `[]int` literal holding a call, of a
/// comparison, and a loop's setup.
const NATIVE: &str = "func TestAdd(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(1, Add(0, 1))
    assert.Equal(5, Add(2, 3))
    assert.Equal([]int{12}, []int{Add(5, 7)})
    assert.Equal(true, Add(7, 5) == 12)
    s := 0
    for i := 0; i < 3; i++ {
        s += i
    }
    assert.Equal(4, Add(s, 1))
}
";

#[test]
fn a_go_candidate_that_exits_or_prints_passes_no_native_test() {
    let test = "go_native::a_go_candidate_that_exits_or_prints_passes_no_native_test";
    let o = crate::common::oracle::oracle();
    if let Some(why) = o.language_unavailable(Language::Go) {
        crate::common::skip(test, &why);
        return;
    }
    let programs: Vec<_> = crate::redteam::languages::programs()
        .into_iter()
        .filter(|p| p.language == Language::Go && p.name != "fork_daemon")
        .collect();
    assert!(programs.len() >= 8, "{} programs", programs.len());
    let honest = programs.iter().find(|p| p.honest()).unwrap();
    let sig = gonative::signature(&honest.code, "Add").unwrap();
    let tests = gonative::tests(NATIVE, "Add", &sig).unwrap();
    assert_eq!(tests.len(), 5);
    // No Go of the test is in them (the semantics before each name `assert.Equal` in a
    // comment).
    assert!(
        tests.iter().all(|t| {
            let body = &t[gonative::SEMANTICS.len()..];
            t.starts_with(gonative::SEMANTICS)
                && !body.contains("assert.Equal")
                && !body.contains("TestAdd")
                && !body.contains("Add(")
        }),
        "{tests:?}"
    );
    let jobs: Vec<_> = programs
        .iter()
        .map(|p| {
            execscope::oracle::Job::new(p.code.clone(), tests.clone())
                .entry("Add")
                .language(Language::Go)
        })
        .collect();
    let mut failures = Vec::new();
    for (p, r) in programs.iter().zip(o.run_batch(&jobs, &|_| {})) {
        let r = r.unwrap();
        let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
        let passes = r.outcomes.iter().filter(|x| x.is_pass()).count();
        if p.honest() && passes != tests.len() {
            failures.push(format!(
                "{}: the correct program did not pass: {got:?}",
                p.name
            ));
        }
        if !p.honest() && passes > 0 {
            failures.push(format!("{}: a wrong program passed: {got:?}", p.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
