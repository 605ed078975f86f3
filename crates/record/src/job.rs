//! What a caller asks the oracle to run: a [`Job`] is a (code, tests) pair plus what the judge
//! needs to resolve the tests' names — the function(s) under test and an optional trusted setup —
//! and, for a model-written self-test, the contract it runs under.
//!
//! The cache key of a job is still (code, tests) (`keys::code_sha256`, `keys::tests_sha256`): the
//! entry point only decides which of the code's names a test may reach in place of a builtin,
//! and every caller derives it from the same task field, so one pair has one entry.

use crate::Language;
use serde::{Deserialize, Serialize};

/// How a model-written self-test is run (docs/audit.md, "The evidence vector").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SelfTest {
    /// Code, then self-tests, as one `__main__` module (the inline contract).
    Inline,
    /// As inline, with every candidate-named module the texts import served from the code's
    /// names (the restricted module-supply contract).
    Supply,
}

/// One pair to execute.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Job {
    /// The program under test (untrusted: it runs only in the sandbox).
    pub code: String,
    /// The tests; each is Python source run by the trusted judge.
    pub tests: Vec<String>,
    /// The function(s) under test; a test's use of such a name reaches the code even where the
    /// name is a builtin's (MBPP has a function under test named `sum`). Empty: the judge infers
    /// it (docs/threat-model.md, "Names a test can reach").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entry: Vec<String>,
    /// Trusted source run in each test's namespace before the test (a prompt's imports and
    /// helpers, a benchmark's setup code); "" for none. Never sent to the sandbox.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub setup: String,
    /// `Some`: `tests` holds one model-written self-test text, which is untrusted: it runs in
    /// the sandbox, in a process of its own, against the code's process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selftest: Option<SelfTest>,
    /// The language of `code` (absent: Python). For another language `code` is the whole
    /// program as the benchmark gives it (`#include`s, `import`s, a Java class, a Go `package`),
    /// `entry` names its function(s) under test (Java: a method of the class declaring it; Go: a
    /// func), and `tests` stay Python run by the judge: every call of an entry point is a
    /// request to the sandbox, whose child compiled the program with a per-language stub and
    /// answers with data only (docs/languages.md).
    #[serde(default, skip_serializing_if = "is_python")]
    pub language: Language,
    /// `Some`: only whether each segment of the suite passes is wanted (pass@k, `P_b`, `P+`),
    /// so each segment stops at its first test that does not pass and the rest of it is
    /// [`crate::Outcome::NotRun`]. The segments start at test 0 and at each index given (a
    /// base suite followed by a plus suite: `Some(vec![n_base])`). `None`: every test runs
    /// (wherever per-test outcomes are shown). Keyed apart from the full suite ([`Job::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Vec<usize>>,
    /// `Some`: a benchmark's own time convention (EvalPlus's: per input the larger of 1 s and
    /// 4x the reference's time, at most 60 s a suite) in place of the oracle's one budget per
    /// test. Keyed apart ([`Job::key`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budgets: Option<Budgets>,
}

/// Per-test wall budgets, and a cap on each segment's total (segments as [`Job::stop`] draws
/// them; a suite without `stop` is one segment): a test that starts with less of the cap left
/// than its own budget gets what is left, and one that starts with none left is `TIMEOUT`
/// without running.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Budgets {
    /// Per test, its wall budget in milliseconds (a test without one keeps the oracle's).
    pub test_ms: Vec<u32>,
    /// Each segment's total in milliseconds.
    pub segment_ms: u32,
    /// Where segments start besides test 0 (a base suite followed by a plus suite:
    /// `vec![n_base]`), whether or not the job stops at a first failure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub segments: Vec<usize>,
}

impl Budgets {
    /// Per test of `result` (a run of a job with these budgets), whether it ran out of time on
    /// its segment's cap rather than on its own budget: it started with less of the cap left
    /// than its own budget, as the judge counts (each earlier test of the segment by its
    /// recorded milliseconds), and did not pass. EvalPlus writes `timeout` for such a suite (its
    /// process killed from outside) and `fail` for an input over its own limit.
    pub fn capped(&self, result: &crate::SuiteResult) -> Vec<bool> {
        let n = result.outcomes.len();
        let mut out = vec![false; n];
        let mut spent: u64 = 0;
        for (i, o) in result.outcomes.iter().enumerate() {
            if i == 0 || self.segments.contains(&i) {
                spent = 0;
            }
            let left = u64::from(self.segment_ms).saturating_sub(spent);
            let own = self.test_ms.get(i).map_or(u64::MAX, |&m| u64::from(m));
            out[i] = matches!(o, crate::Outcome::Timeout | crate::Outcome::Hang)
                && (left < own || left == 0);
            spent += u64::from(result.test_ms.get(i).copied().unwrap_or(0));
        }
        out
    }
}

/// The end (exclusive) of the segment holding test `i` of a suite of `n` tests whose segments
/// start at 0 and at each index of `stop`.
pub fn segment_end(stop: &[usize], i: usize, n: usize) -> usize {
    stop.iter()
        .copied()
        .filter(|&b| b > i)
        .min()
        .unwrap_or(n)
        .min(n)
}

impl Job {
    /// A job whose entry point the judge infers.
    pub fn new(code: impl Into<String>, tests: Vec<String>) -> Job {
        Job {
            code: code.into(),
            tests,
            ..Job::default()
        }
    }

    /// This job with `name` as its function under test (an empty name is ignored).
    pub fn entry(mut self, name: &str) -> Job {
        if !name.is_empty() && !self.entry.iter().any(|e| e == name) {
            self.entry.push(name.to_string());
        }
        self
    }

    /// The pair's cache key (`code_sha256`, `tests_sha256`). A self-test job's tests are keyed
    /// with its contract, so it never shares a key with a suite of the same texts; a job in
    /// another language than Python with its language (a text can be a program in two languages,
    /// JavaScript and TypeScript at least, with different verdicts), so a Python job's key is
    /// what it always was.
    pub fn key(&self) -> (String, String) {
        let code = crate::keys::code_sha256(&self.code);
        let mut marks = Vec::new();
        if let Some(c) = self.selftest {
            marks.push(format!("\u{0}selftest:{c:?}"));
        }
        if !self.language.is_python() {
            marks.push(format!("\u{0}language:{}", self.language));
        }
        if let Some(stop) = &self.stop {
            marks.push(format!("\u{0}stop-at-first-failure:{stop:?}"));
        }
        if let Some(b) = &self.budgets {
            marks.push(format!(
                "\u{0}budgets-ms:{:?}/segment:{}/starts:{:?}",
                b.test_ms, b.segment_ms, b.segments
            ));
        }
        let tests = if marks.is_empty() {
            crate::keys::tests_sha256(&self.tests)
        } else {
            marks.extend(self.tests.iter().cloned());
            crate::keys::tests_sha256(&marks)
        };
        (code, tests)
    }

    /// This job with its code in `language`.
    pub fn language(mut self, language: Language) -> Job {
        self.language = language;
        self
    }

    /// This job stopping each segment at its first non-pass (segments start at 0 and at each
    /// index of `segments`): see [`Job::stop`].
    pub fn stop_at_first_failure(mut self, segments: Vec<usize>) -> Job {
        self.stop = Some(segments);
        self
    }

    /// This job under per-test budgets: see [`Job::budgets`].
    pub fn budgets(mut self, budgets: Budgets) -> Job {
        self.budgets = Some(budgets);
        self
    }

    /// The job that runs every test (the same job without [`Job::stop`]): its result serves a
    /// stop request, never the other way round.
    pub fn full(&self) -> Job {
        Job {
            stop: None,
            ..self.clone()
        }
    }

    /// This job with a trusted setup run before each test.
    pub fn setup(mut self, setup: impl Into<String>) -> Job {
        self.setup = setup.into();
        self
    }
}

fn is_python(l: &Language) -> bool {
    l.is_python()
}

impl From<(String, Vec<String>)> for Job {
    fn from((code, tests): (String, Vec<String>)) -> Job {
        Job::new(code, tests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-counted: a base suite of three tests (1 s each, cap 2.5 s) and a plus suite of two
    /// (1 s each, cap 1.5 s, its own count from 0).
    #[test]
    fn a_timeout_on_the_segments_cap_is_told_from_one_on_its_own_budget() {
        use crate::{IsolationLevel, Outcome, SuiteResult};
        let b = Budgets {
            test_ms: vec![1000; 5],
            segment_ms: 2500,
            segments: vec![3],
        };
        let run = |outcomes: Vec<Outcome>, test_ms: Vec<u32>| SuiteResult {
            observed: vec![None; outcomes.len()],
            outcomes,
            isolation: IsolationLevel::Rlimits,
            wall_ms: 0,
            test_ms,
            stopped: vec![],
        };
        let (p, t) = (Outcome::Pass, Outcome::Timeout);
        // Base: 0.9 s + 0.9 s spent, test 2 starts with 0.7 s of the cap left (< its 1 s): the
        // cap's. Plus: test 3 starts the count again and times out on its own 1 s budget.
        let r = run(
            vec![p.clone(), p.clone(), t.clone(), t.clone(), Outcome::NotRun],
            vec![900, 900, 700, 1000, 0],
        );
        assert_eq!(b.capped(&r), vec![false, false, true, false, false]);
        // 0.5 s spent: test 1 starts with 2 s left, times out on its own budget.
        let r = run(
            vec![p.clone(), t.clone(), p.clone(), p.clone(), p.clone()],
            vec![500, 1000, 400, 10, 10],
        );
        assert_eq!(b.capped(&r), vec![false; 5]);
        // A pass is never the cap's, even one that ran on what was left; a test that starts
        // with nothing left (TIMEOUT without running, 0 ms) is.
        let r = run(
            vec![p.clone(), p.clone(), p.clone(), p.clone(), t.clone()],
            vec![100, 100, 100, 2500, 0],
        );
        assert_eq!(b.capped(&r), vec![false, false, false, false, true]);
    }

    #[test]
    fn builder_keeps_one_entry_per_name() {
        let j = Job::new("def f(): pass", vec!["assert f() is None".into()])
            .entry("f")
            .entry("f")
            .entry("");
        assert_eq!(j.entry, vec!["f".to_string()]);
        assert!(j.setup.is_empty() && j.selftest.is_none());
        let back: Job = serde_json::from_str(&serde_json::to_string(&j).unwrap()).unwrap();
        assert_eq!(back, j);
        let plain = j.key();
        assert_eq!(plain.1, crate::keys::tests_sha256(&j.tests));
        let st = Job {
            selftest: Some(SelfTest::Inline),
            ..j.clone()
        };
        assert_ne!(st.key(), plain, "a self-test never shares a suite's key");
        let supply = Job {
            selftest: Some(SelfTest::Supply),
            ..j
        };
        assert_ne!(supply.key(), st.key());
    }

    #[test]
    fn a_language_other_than_python_is_stored_and_keyed_python_as_before() {
        let py = Job::new("x", vec!["assert f() == 1".into()]).entry("f");
        assert!(!serde_json::to_string(&py).unwrap().contains("language"));
        let js = py.clone().language(Language::JavaScript);
        let ts = py.clone().language(Language::TypeScript);
        let text = serde_json::to_string(&js).unwrap();
        assert!(text.contains("\"language\":\"javascript\""), "{text}");
        assert_eq!(serde_json::from_str::<Job>(&text).unwrap(), js);
        assert_eq!(py.key().1, crate::keys::tests_sha256(&py.tests));
        assert_eq!(js.key().0, py.key().0, "the code key is the text's");
        let mut marked = vec!["\u{0}language:javascript".to_string()];
        marked.extend(py.tests.iter().cloned());
        assert_eq!(js.key().1, crate::keys::tests_sha256(&marked));
        assert_ne!(js.key(), ts.key());
        assert_ne!(js.key(), py.key());
    }

    #[test]
    fn a_stopped_suite_is_keyed_apart_from_the_full_one_and_by_its_segments() {
        let full = Job::new("x", vec!["assert f() == 1".into(), "assert f()".into()]).entry("f");
        let stop = full.clone().stop_at_first_failure(vec![1]);
        assert_eq!(full.key().1, crate::keys::tests_sha256(&full.tests));
        assert_eq!(stop.key().0, full.key().0);
        assert_ne!(stop.key(), full.key());
        assert_ne!(stop.key(), full.clone().stop_at_first_failure(vec![]).key());
        assert_eq!(stop.full(), full);
        assert!(!serde_json::to_string(&full).unwrap().contains("stop"));
        let text = serde_json::to_string(&stop).unwrap();
        assert_eq!(serde_json::from_str::<Job>(&text).unwrap(), stop);
        assert_eq!(segment_end(&[1], 0, 2), 1);
        assert_eq!(segment_end(&[1], 1, 2), 2);
        assert_eq!(segment_end(&[], 0, 2), 2);
        assert_eq!(segment_end(&[5], 0, 2), 2);
    }

    #[test]
    fn per_test_budgets_are_keyed_apart_and_absent_from_a_plain_job() {
        let j = Job::new(
            "x",
            vec!["assert f() == 1".into(), "assert f() == 2".into()],
        )
        .entry("f");
        assert!(!serde_json::to_string(&j).unwrap().contains("budgets"));
        let b = Budgets {
            test_ms: vec![1000, 4000],
            segment_ms: 60_000,
            segments: vec![1],
        };
        let timed = j.clone().budgets(b.clone());
        let text = serde_json::to_string(&timed).unwrap();
        assert!(
            text.contains(
                "\"budgets\":{\"test_ms\":[1000,4000],\"segment_ms\":60000,\"segments\":[1]}"
            ),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Job>(&text).unwrap(), timed);
        assert_eq!(timed.key().0, j.key().0);
        let mut marked = vec!["\u{0}budgets-ms:[1000, 4000]/segment:60000/starts:[1]".to_string()];
        marked.extend(j.tests.iter().cloned());
        assert_eq!(timed.key().1, crate::keys::tests_sha256(&marked));
        let other = j.clone().budgets(Budgets {
            segment_ms: 30_000,
            ..b
        });
        assert_ne!(other.key(), timed.key());
        // A full row under the convention serves only a stopped job under the same convention.
        let stopped = timed.clone().stop_at_first_failure(vec![1]);
        assert_eq!(stopped.full().key(), timed.key());
    }
}
