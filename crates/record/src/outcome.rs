//! The execution oracle's result types: the shared contract between the oracle, the cache,
//! the construction pipeline and the audit.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The outcome of one test of a suite.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The assert held.
    Pass,
    /// A bare `AssertionError`: the code ran and gave a wrong value.
    Fail,
    /// An exception raised while evaluating the assert (e.g. `FAIL:TypeError`).
    FailExc(String),
    /// The code itself failed to define or import (e.g. `ERROR:SyntaxError`, `ERROR:NameError`).
    Error(String),
    /// The test ran past its own time budget and no cycle was proven: a resource limit, which
    /// a faster machine might not hit.
    Timeout,
    /// The test's code computed long enough to be probed and, run again under the hang detector
    /// from the same state, was proven to repeat a state it had been in (a deterministic loop
    /// that never ends): the same on any machine.
    Hang,
    /// Not run: the suite was asked to stop at its first non-pass ([`crate::Job::stop`]) and
    /// an earlier test of its segment did not pass. Neither a pass nor a failure: nothing is
    /// known about this test.
    NotRun,
}

impl Outcome {
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }

    /// A plain wrong value (bare `FAIL`), as opposed to a crash.
    pub fn is_plain_fail(&self) -> bool {
        matches!(self, Outcome::Fail)
    }

    /// A failure that depends on the machine: the test ran out of time without a proven hang.
    /// Every other outcome is decided by the code and the test alone.
    pub fn is_resource_limit(&self) -> bool {
        matches!(self, Outcome::Timeout)
    }

    /// The program did not compile (`ERROR:CompileError`, another language than Python).
    pub fn is_compile_error(&self) -> bool {
        matches!(self, Outcome::Error(e) if e == COMPILE_ERROR)
    }

    /// A failure that holds on any machine (anything but `pass` and `TIMEOUT`).
    pub fn is_certain_failure(&self) -> bool {
        !self.is_pass() && !self.is_resource_limit() && !self.is_not_run()
    }

    /// The test was not run (its suite stopped at an earlier non-pass): neither pass nor fail.
    pub fn is_not_run(&self) -> bool {
        matches!(self, Outcome::NotRun)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Pass => f.write_str("pass"),
            Outcome::Fail => f.write_str("FAIL"),
            Outcome::FailExc(e) => write!(f, "FAIL:{e}"),
            Outcome::Error(e) => write!(f, "ERROR:{e}"),
            Outcome::Timeout => f.write_str("TIMEOUT"),
            Outcome::Hang => f.write_str("HANG"),
            Outcome::NotRun => f.write_str(NOT_RUN),
        }
    }
}

impl FromStr for Outcome {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "pass" => Outcome::Pass,
            "FAIL" => Outcome::Fail,
            "TIMEOUT" => Outcome::Timeout,
            "HANG" => Outcome::Hang,
            NOT_RUN => Outcome::NotRun,
            _ => {
                if let Some(e) = s.strip_prefix("FAIL:").filter(|e| is_exc_name(e)) {
                    Outcome::FailExc(e.to_string())
                } else if let Some(e) = s.strip_prefix("ERROR:").filter(|e| is_exc_name(e)) {
                    Outcome::Error(e.to_string())
                } else {
                    return Err(format!("unknown test outcome {s:?}"));
                }
            }
        })
    }
}

/// The word of a test that was not run because its suite stopped at an earlier non-pass.
pub const NOT_RUN: &str = "not-run";

/// The word of a program in another language than Python that did not compile (or, for
/// JavaScript and TypeScript, parse): `ERROR:CompileError` for every test of the pair.
pub const COMPILE_ERROR: &str = "CompileError";

/// Whether `s` can be the name in `FAIL:<name>` / `ERROR:<name>`: an identifier of at most 64
/// ASCII characters. (The judge only ever produces names of a fixed vocabulary: builtin and
/// common-stdlib exception names, signal names, `Other`, `Unjudged`, `ProcessExit`,
/// `OracleKilled`, `OutputLimit`, [`COMPILE_ERROR`]; this check keeps any other text out of
/// outcome strings.)
pub fn is_exc_name(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && s.len() <= 64
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Text that came from a snippet (an `observed` repr, a message) made safe to show: control and
/// invisible formatting characters (bidi overrides, zero-width) escaped as `\u{..}`, at most
/// `max_chars` characters kept.
pub fn escape_text(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for ch in s.chars().take(max_chars) {
        let invisible =
            matches!(ch as u32, 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2069 | 0xFEFF);
        if ch.is_control() || invisible {
            out.push_str(&format!("\\u{{{:x}}}", ch as u32));
        } else {
            out.push(ch);
        }
    }
    out
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// How strongly a run was isolated, weakest first. Every result says which level it ran under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IsolationLevel {
    /// Fresh process, rlimits, timeout with process-group kill, private temp working directory.
    Rlimits,
    /// The above plus a new network namespace (no network).
    Netns,
    /// bubblewrap: read-only root, private /tmp, no network, new namespaces.
    Bubblewrap,
    /// execscope's own sandbox, for any user: a user namespace (when not root) with new mount,
    /// pid, network, IPC and UTS namespaces, a read-only root holding only the system dirs and
    /// the interpreter, private size-capped /tmp, plus Landlock and a seccomp filter where the
    /// kernel has them.
    Userns,
}

impl fmt::Display for IsolationLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IsolationLevel::Rlimits => "rlimits",
            IsolationLevel::Netns => "netns",
            IsolationLevel::Bubblewrap => "bubblewrap",
            IsolationLevel::Userns => "userns",
        })
    }
}

/// The result of running one (code, tests) pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SuiteResult {
    /// One per test, in order.
    pub outcomes: Vec<Outcome>,
    /// Per test, a short `repr` of the value the assert compared (the left operand of a top-level
    /// comparison, or the asserted expression), truncated; `None` when it could not be evaluated.
    /// Used to tell behaviourally identical mutants apart.
    pub observed: Vec<Option<String>>,
    pub isolation: IsolationLevel,
    /// Wall time of the suite in milliseconds.
    pub wall_ms: u64,
    /// Per test, its wall time in milliseconds as the harness measured it: the run its verdict
    /// comes from, without a hang probe, detection or replay before it (at least its budget for a
    /// test that ran out of time; what proving it took for a HANG; empty when the harness died).
    /// Used to check the canonical's cost
    /// against the budget; never part of a verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub test_ms: Vec<u32>,
    /// A suite run with [`crate::Job::stop`]: the tests (0-based) at which a segment stopped,
    /// their outcomes saying how; the rest of each such segment is [`Outcome::NotRun`]. Empty:
    /// every test that was asked for ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stopped: Vec<usize>,
}

impl SuiteResult {
    pub fn passes_all(&self) -> bool {
        !self.outcomes.is_empty() && self.outcomes.iter().all(Outcome::is_pass)
    }

    /// Whether a segment of the suite stopped at a non-pass (some test was not run).
    pub fn is_stopped(&self) -> bool {
        !self.stopped.is_empty()
    }

    /// This result as a run that stops each segment at its first non-pass would record it
    /// (segments start at 0 and at each of `stop`'s indices): the tests after such a test in
    /// its segment become [`Outcome::NotRun`], with no observed value and no time. A full
    /// run serves a stop request this way, giving the same bytes as the stopped run.
    pub fn stopped_at_first_failure(&self, stop: &[usize]) -> SuiteResult {
        let mut r = self.clone();
        r.stopped.clear();
        let mut skip_to = 0;
        for i in 0..r.outcomes.len() {
            if i < skip_to {
                r.outcomes[i] = Outcome::NotRun;
                if let Some(o) = r.observed.get_mut(i) {
                    *o = None;
                }
                if let Some(ms) = r.test_ms.get_mut(i) {
                    *ms = 0;
                }
            } else if !r.outcomes[i].is_pass() && !r.outcomes[i].is_not_run() {
                r.stopped.push(i);
                skip_to = crate::job::segment_end(stop, i, r.outcomes.len());
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_strings_round_trip() {
        for s in [
            "pass",
            "FAIL",
            "FAIL:TypeError",
            "ERROR:NameError",
            "TIMEOUT",
            "HANG",
            "ERROR:CompileError",
            "not-run",
        ] {
            let o: Outcome = s.parse().unwrap();
            assert_eq!(o.to_string(), s);
        }
        assert!("ERROR:CompileError"
            .parse::<Outcome>()
            .unwrap()
            .is_compile_error());
        assert!(!"FAIL:CompileError"
            .parse::<Outcome>()
            .unwrap()
            .is_compile_error());
        assert!("nope".parse::<Outcome>().is_err());
        // A name is an identifier, never free text.
        for bad in [
            "FAIL:",
            "FAIL:LEAK=secret",
            "ERROR:a b",
            "FAIL:\u{1b}[31m",
            "FAIL:1x",
        ] {
            assert!(bad.parse::<Outcome>().is_err(), "{bad:?}");
        }
        assert!(format!("FAIL:{}", "A".repeat(65))
            .parse::<Outcome>()
            .is_err());
    }

    #[test]
    fn a_full_result_stopped_at_first_failure_by_hand() {
        let o = |s: &str| s.parse::<Outcome>().unwrap();
        let full = SuiteResult {
            outcomes: [
                "pass",
                "FAIL",
                "pass",
                "TIMEOUT",
                "pass",
                "FAIL:ValueError",
                "pass",
            ]
            .map(o)
            .to_vec(),
            observed: (0..7).map(|i| Some(i.to_string())).collect(),
            isolation: IsolationLevel::Rlimits,
            wall_ms: 9,
            test_ms: vec![1, 2, 3, 4, 5, 6, 7],
            stopped: vec![],
        };
        // Segments [0, 3) and [3, 7): the first stops at test 1, the second at test 3.
        let s = full.stopped_at_first_failure(&[3]);
        let got: Vec<String> = s.outcomes.iter().map(|x| x.to_string()).collect();
        assert_eq!(
            got,
            ["pass", "FAIL", "not-run", "TIMEOUT", "not-run", "not-run", "not-run"]
        );
        assert_eq!(s.stopped, [1, 3]);
        assert_eq!(s.test_ms, [1, 2, 0, 4, 0, 0, 0]);
        assert_eq!(s.observed[2], None);
        assert_eq!(s.observed[1].as_deref(), Some("1"));
        assert!(s.is_stopped() && !s.passes_all());
        assert!(!Outcome::NotRun.is_pass() && !Outcome::NotRun.is_certain_failure());
        assert!(!Outcome::NotRun.is_resource_limit());
        // One segment: everything after the first non-pass; a passing suite is not stopped.
        let one = full.stopped_at_first_failure(&[]);
        assert_eq!(one.stopped, [1]);
        assert!(one.outcomes[2..].iter().all(Outcome::is_not_run));
        let pass = SuiteResult {
            outcomes: vec![Outcome::Pass; 2],
            observed: vec![None; 2],
            test_ms: vec![],
            stopped: vec![],
            ..full
        };
        assert_eq!(pass.stopped_at_first_failure(&[1]), pass);
    }

    #[test]
    fn escape_text_neutralises_terminal_and_bidi() {
        assert_eq!(escape_text("a\u{1b}[2Jb", 200), "a\\u{1b}[2Jb");
        assert_eq!(escape_text("x\u{202e}y\n", 200), "x\\u{202e}y\\u{a}");
        assert_eq!(escape_text("abcdef", 3), "abc");
        assert_eq!(escape_text("héllo", 200), "héllo");
    }
}
