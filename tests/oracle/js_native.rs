//! HumanEval-X JavaScript tests translated from their native `console.assert`s
//! (`build::formats::jsnative`) are the judge's: the red team's JavaScript candidates for `add`
//! (tests/fixtures/redteam/javascript: printed markers, every form of exit, silenced output, a
//! `valueOf` forgery, the test read from the source) pass none of them, and the honest program
//! passes all. The fork that outlives its pair is left to the red-team suite (it checks the
//! host after it).

use execscope::build::formats::jsnative;
use execscope::record::Language;

/// A native HumanEval-X test in the shape of JavaScript/53's (its fixed asserts), with the forms
/// the translation reproduces: `===` on a number, `JSON.stringify` of an array, `!`, a loop.
const NATIVE: &str = "const testAdd = () => {
  console.assert(add(0, 1) === 1)
  console.assert(add(2, 3) === 5)
  console.assert(JSON.stringify([add(5, 7)]) === JSON.stringify([12.0]))
  console.assert(!(add(7, 5) !== 12))
  let s = 0
  for (let i = 0; i < 3; i++) {
    s += i
  }
  console.assert(add(s, 1) == '4')
}

testAdd()
";

#[test]
fn a_javascript_candidate_that_prints_or_exits_passes_no_native_test() {
    let test = "js_native::a_javascript_candidate_that_prints_or_exits_passes_no_native_test";
    let o = crate::common::oracle::oracle();
    if let Some(why) = o.language_unavailable(Language::JavaScript) {
        crate::common::skip(test, &why);
        return;
    }
    let tests = jsnative::tests(NATIVE, "add").unwrap();
    assert_eq!(tests.len(), 5);
    // No JavaScript of the test is in them (the semantics name `console.assert`s in a comment).
    assert!(
        tests
            .iter()
            .all(|t| !t.contains("console.assert(") && !t.contains("testAdd")),
        "{tests:?}"
    );
    let programs: Vec<_> = crate::redteam::languages::programs()
        .into_iter()
        .filter(|p| p.language == Language::JavaScript && p.name != "fork_daemon")
        .collect();
    assert!(programs.len() >= 8, "{} programs", programs.len());
    let jobs: Vec<_> = programs
        .iter()
        .map(|p| {
            execscope::oracle::Job::new(p.code.clone(), tests.clone())
                .entry("add")
                .language(Language::JavaScript)
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
