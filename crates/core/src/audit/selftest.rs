//! Self-tests of generated candidates, run by the oracle.
//!
//! The structural screen (`crates/core/assets/selftest_driver.py`) is sent as the *code* of an
//! ordinary oracle pair whose tests each call it with one candidate's texts as string literals
//! (up to [`SCREEN_BATCH`] candidates to a pair); the oracle reports each compared value's repr in
//! `observed`, which carries the answer back. It only parses. A model-written self-test is untrusted code, so it runs as a self-test job
//! ([`execscope_record::SelfTest`]): in the sandbox, in a process of its own, against the
//! candidate's process, which can only return values to it (docs/threat-model.md, "Self-tests").
//!
//! Jobs per candidate: a test of a screen job, the inline run, and the module-supply run only when the screen
//! found a candidate-named import (with no alias the restricted module-supply contract is the
//! inline contract, so E* = E).

use execscope_record::{Job, Outcome, SelfTest, SuiteResult};

/// The screen's source (the screen job's code).
pub const DRIVER: &str = include_str!("../../assets/selftest_driver.py");

/// Assertions the structural screen needs.
pub const MIN_ASSERTIONS: usize = 3;

/// A Python string literal for `s` (JSON string syntax is valid Python; non-ASCII stays UTF-8).
fn py_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "''".into())
}

/// Screens one screen job holds at most: each is one test of the job (the driver is executed
/// afresh for each, as for any test), so a batch costs one sandboxed child and one judge child
/// instead of one of each per candidate. The screen only parses, so its answer depends on its
/// texts alone, never on the batch it ran in.
pub const SCREEN_BATCH: usize = 64;

/// The screen's test for one candidate: parses its code and self-tests, executes neither.
fn screen_test(code: &str, self_tests: &str, function: &str) -> String {
    let (c, t, f) = (py_str(code), py_str(self_tests), py_str(function));
    format!("assert __es_screen({c}, {t}, {f}) == ''")
}

/// One screen job for several candidates, a test each in their order: the answer of the i-th is
/// [`screen_from_test`]`(result, i)`.
pub fn screen_batch_job(items: &[(&str, &str, &str)]) -> Job {
    Job::new(
        DRIVER,
        items.iter().map(|(c, t, f)| screen_test(c, t, f)).collect(),
    )
    .entry("__es_screen")
}

/// The self-test job of `program` (the task's prelude and the candidate) under a contract.
pub fn selftest_job(program: &str, self_tests: &str, function: &str, contract: SelfTest) -> Job {
    Job {
        selftest: Some(contract),
        ..Job::new(program, vec![self_tests.to_string()]).entry(function)
    }
}

/// The structural screen's findings (C and S with their reasons).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Screen {
    pub code_compiles: bool,
    pub code_error: Option<String>,
    pub tests_compile: bool,
    pub tests_error: Option<String>,
    /// The target is defined by a top-level `def` of the code module.
    pub defines_target: bool,
    /// Distinct, non-constant, non-identical top-level assertions calling the target.
    pub counted: usize,
    pub constant: usize,
    pub identical: usize,
    pub duplicate: usize,
    pub no_call: usize,
    /// Candidate-named modules the texts import (served under module supply).
    pub aliases: Vec<String>,
}

impl Screen {
    /// S: both modules compile, the target is defined at top level, ≥ 3 counted assertions.
    pub fn passes(&self) -> bool {
        self.code_compiles
            && self.tests_compile
            && self.defines_target
            && self.counted >= MIN_ASSERTIONS
    }

    /// Why S holds or fails, in words.
    pub fn reason(&self) -> String {
        let mut why = Vec::new();
        if !self.code_compiles {
            why.push(format!(
                "code does not compile ({})",
                self.code_error.as_deref().unwrap_or("?")
            ));
        }
        if !self.tests_compile {
            why.push(format!(
                "self-tests do not compile ({})",
                self.tests_error.as_deref().unwrap_or("?")
            ));
        }
        if self.code_compiles && !self.defines_target {
            why.push("no top-level def of the target".into());
        }
        if self.tests_compile && self.counted < MIN_ASSERTIONS {
            let mut excl = Vec::new();
            for (n, what) in [
                (self.constant, "constant"),
                (self.identical, "identical-expression"),
                (self.duplicate, "duplicate"),
                (self.no_call, "not calling the target"),
            ] {
                if n > 0 {
                    excl.push(format!("{n} {what}"));
                }
            }
            let tail = if excl.is_empty() {
                String::new()
            } else {
                format!("; excluded: {}", excl.join(", "))
            };
            why.push(format!(
                "{} counted assertion(s) < {MIN_ASSERTIONS}{tail}",
                self.counted
            ));
        }
        if why.is_empty() {
            format!("pass ({} counted assertions)", self.counted)
        } else {
            why.join("; ")
        }
    }
}

/// The driver's string answer from an `observed` repr (`'...'`), if complete.
fn unrepr(observed: Option<&str>) -> Option<String> {
    let s = observed?;
    let inner = s
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|r| r.strip_suffix('"')))?;
    Some(inner.to_string())
}

/// Parses the screen's `key=value` answer.
pub fn parse_screen(answer: &str) -> Result<Screen, String> {
    let mut s = Screen::default();
    let mut seen = 0;
    for tok in answer.split(' ') {
        let (k, v) = tok
            .split_once('=')
            .ok_or_else(|| format!("bad screen token {tok:?}"))?;
        let num = || v.parse::<usize>().map_err(|_| format!("bad count {tok:?}"));
        let flag = |v: &str| -> Result<(bool, Option<String>), String> {
            match v.split_once(':') {
                Some((b, e)) => Ok((b == "1", Some(e.to_string()))),
                None => Ok((v == "1", None)),
            }
        };
        match k {
            "c" => (s.code_compiles, s.code_error) = flag(v)?,
            "t" => (s.tests_compile, s.tests_error) = flag(v)?,
            "def" => s.defines_target = v == "1",
            "n" => s.counted = num()?,
            "const" => s.constant = num()?,
            "ident" => s.identical = num()?,
            "dup" => s.duplicate = num()?,
            "nocall" => s.no_call = num()?,
            "other" => {}
            "alias" => {
                s.aliases = v
                    .split(',')
                    .filter(|a| !a.is_empty())
                    .map(str::to_string)
                    .collect()
            }
            _ => return Err(format!("unknown screen key {k:?}")),
        }
        seen += 1;
    }
    if seen < 10 {
        return Err(format!("truncated screen answer {answer:?}"));
    }
    Ok(s)
}

/// The screen of the `i`-th candidate of a [`screen_batch_job`].
pub fn screen_from_test(result: &SuiteResult, i: usize) -> Result<Screen, String> {
    let outcome = result
        .outcomes
        .get(i)
        .ok_or_else(|| format!("screen {i} has no outcome"))?;
    let answer = unrepr(result.observed.get(i).and_then(|o| o.as_deref()))
        .ok_or_else(|| format!("screen gave no answer ({outcome})"))?;
    parse_screen(&answer)
}

/// A contract's verdict from a self-test job's result: completed, and the reason (`pass`,
/// `tests:AssertionError`, `code:ModuleNotFoundError`, `compile-tests:SyntaxError`, `TIMEOUT`,
/// `ERROR:SIGKILL`, …).
pub fn run_from(result: &SuiteResult) -> (bool, String) {
    let Some(outcome) = result.outcomes.first() else {
        return (false, "no outcome".into());
    };
    let compile = |e: &str| matches!(e, "SyntaxError" | "IndentationError" | "TabError");
    let why = match outcome {
        Outcome::Pass => return (true, "pass".into()),
        Outcome::Fail => "tests:AssertionError".to_string(),
        Outcome::FailExc(e) if compile(e) => format!("compile-tests:{e}"),
        Outcome::FailExc(e) => format!("tests:{e}"),
        Outcome::Error(e) if compile(e) => format!("compile-code:{e}"),
        Outcome::Error(e) if e.starts_with("SIG") || e == "ProcessExit" || e == "OracleKilled" => {
            outcome.to_string()
        }
        Outcome::Error(e) => format!("code:{e}"),
        o => o.to_string(),
    };
    (false, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_answer_parses_and_explains() {
        let s = parse_screen(
            "c=1 t=1 def=1 n=2 const=1 ident=0 dup=1 nocall=0 other=0 alias=solution,your_module",
        )
        .unwrap();
        assert!(!s.passes());
        assert_eq!(s.aliases, vec!["solution", "your_module"]);
        assert_eq!(
            s.reason(),
            "2 counted assertion(s) < 3; excluded: 1 constant, 1 duplicate"
        );
        let s = parse_screen(
            "c=0:SyntaxError t=1 def=0 n=3 const=0 ident=0 dup=0 nocall=0 other=0 alias=",
        )
        .unwrap();
        assert_eq!(s.code_error.as_deref(), Some("SyntaxError"));
        assert!(!s.passes());
        assert!(parse_screen("c=1 t=1 def=1 n=3").is_err());
    }

    #[test]
    fn literal_escapes_are_python_compatible() {
        assert_eq!(py_str("a\"b\\c\nd"), r#""a\"b\\c\nd""#);
        assert_eq!(unrepr(Some("'ok'")).as_deref(), Some("ok"));
        assert_eq!(unrepr(Some("'trunc")), None);
    }
}
