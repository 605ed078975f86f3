//! The red team in every language (issue 44): each program of `tests/fixtures/redteam/<language>`
//! is a candidate for HumanEval/53 (`add`) that the benchmark's own harness would record passing
//! although the function is wrong (exit 0 in every form, printed markers, silenced output, static
//! initialisers, at-exit and panic hooks, operator and macro tricks, the test read from the
//! source file, the caller's stack, a fork that outlives the pair; the README there says which
//! file does what). Run as `Job::language` with HumanEval/53's own Python tests, at every level
//! the machine offers (as root, and again as `nobody` through `setpriv`), none may pass, every
//! outcome is a word, the host is unchanged (no daemon left, canary and cache intact) and the
//! honest program passes every test. A language whose toolchain is missing here is skipped with
//! its reason.

use super::{confined, levels, marker, Host};
use execscope::oracle::{Job, Outcome};
use execscope::record::Language;
use std::path::{Path, PathBuf};

/// HumanEval/53's `check`, as published.
const CHECK: &str = "METADATA = {}


def check(candidate):
    import random

    assert candidate(0, 1) == 1
    assert candidate(1, 0) == 1
    assert candidate(2, 3) == 5
    assert candidate(5, 7) == 12
    assert candidate(7, 5) == 12

    for i in range(100):
        x, y = random.randint(0, 1000), random.randint(0, 1000)
        assert candidate(x, y) == x + y
";

/// One candidate of the fixtures.
pub(crate) struct Program {
    pub language: Language,
    pub name: String,
    pub code: String,
}

impl Program {
    pub fn entry(&self) -> &'static str {
        if self.language == Language::Go {
            "Add"
        } else {
            "add"
        }
    }

    pub fn honest(&self) -> bool {
        self.name == "honest"
    }

    /// The job: the program, a plain assert and HumanEval/53's check, `add` the entry point.
    pub fn job(&self) -> Job {
        let e = self.entry();
        Job::new(
            self.code.clone(),
            vec![
                format!("assert {e}(2, 3) == 5"),
                format!("{CHECK}\n\ncheck({e})\n"),
            ],
        )
        .entry(e)
        .language(self.language)
    }
}

pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/redteam")
}

/// Every program of the fixtures, `@MARKER@` replaced by this run's daemon marker.
pub(crate) fn programs() -> Vec<Program> {
    let mut out = Vec::new();
    for l in Language::ALL.into_iter().filter(|l| !l.is_python()) {
        let dir = fixtures().join(l.as_str());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            let name = f.file_stem().unwrap().to_string_lossy().to_string();
            let code = std::fs::read_to_string(&f)
                .unwrap()
                .replace("@MARKER@", marker());
            out.push(Program {
                language: l,
                name,
                code,
            });
        }
    }
    out
}

pub(super) fn run() {
    let host = Host::new();
    let all = programs();
    assert!(all.len() >= 50, "{} programs", all.len());
    let oracles = levels();
    assert!(!oracles.is_empty());
    let mut failures: Vec<String> = Vec::new();
    for o in &oracles {
        let level = o.isolation();
        let conf = confined(o);
        eprintln!(
            "red team in every language at {level} ({}; {}), confined: {conf}",
            o.privileges(),
            o.isolation_detail()
        );
        let mut run: Vec<&Program> = Vec::new();
        for l in Language::ALL.into_iter().filter(|l| !l.is_python()) {
            match o.language_unavailable(l) {
                Some(why) => crate::common::skip(
                    &format!("redteam::languages ({}) at {level}", l.as_str()),
                    &why,
                ),
                None => run.extend(all.iter().filter(|p| p.language == l)),
            }
        }
        let jobs: Vec<Job> = run.iter().map(|p| p.job()).collect();
        let results = o.run_batch(&jobs, &|_| {});
        for (p, r) in run.iter().zip(results) {
            let case = format!("{}/{} at {level}", p.language.as_str(), p.name);
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    failures.push(format!("{case}: the oracle failed: {e}"));
                    continue;
                }
            };
            let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
            eprintln!("  {case}: {got:?}");
            if r.isolation != level {
                failures.push(format!("{case}: recorded at {}", r.isolation));
            }
            for s in &got {
                let back: Outcome = s.parse().expect("an outcome parses");
                assert_eq!(&back.to_string(), s);
            }
            let passes = r.outcomes.iter().filter(|x| x.is_pass()).count();
            if p.honest() && passes != r.outcomes.len() {
                failures.push(format!("{case}: the correct program did not pass: {got:?}"));
            }
            if !p.honest() && passes > 0 {
                failures.push(format!("{case}: a wrong program passed: {got:?}"));
            }
        }
        host.check_unchanged("the red team in every language", level, conf);
        // The oracle still works after every hostile pair.
        let ok = o
            .run(
                "def add(a, b):\n    return a + b\n",
                &["assert add(2, 3) == 5".to_string()],
            )
            .unwrap();
        assert_eq!(ok.outcomes, [Outcome::Pass], "after the batch at {level}");
    }
    assert!(
        failures.is_empty(),
        "not contained:\n{}",
        failures.join("\n")
    );
}
