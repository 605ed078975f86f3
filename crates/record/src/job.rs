//! What a caller asks the oracle to run: a [`Job`] is a (code, tests) pair plus what the judge
//! needs to resolve the tests' names — the function(s) under test and an optional trusted setup —
//! and, for a model-written self-test, the contract it runs under.
//!
//! The cache key of a job is still (code, tests) (`keys::code_sha256`, `keys::tests_sha256`): the
//! entry point only decides which of the code's names a test may reach in place of a builtin,
//! and every caller derives it from the same task field, so one pair has one entry.

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
    /// with its contract, so it never shares a key with a suite of the same texts.
    pub fn key(&self) -> (String, String) {
        let code = crate::keys::code_sha256(&self.code);
        let tests = match self.selftest {
            None => crate::keys::tests_sha256(&self.tests),
            Some(c) => {
                let mut t = vec![format!("\u{0}selftest:{c:?}")];
                t.extend(self.tests.iter().cloned());
                crate::keys::tests_sha256(&t)
            }
        };
        (code, tests)
    }

    /// This job with a trusted setup run before each test.
    pub fn setup(mut self, setup: impl Into<String>) -> Job {
        self.setup = setup.into();
        self
    }
}

impl From<(String, Vec<String>)> for Job {
    fn from((code, tests): (String, Vec<String>)) -> Job {
        Job::new(code, tests)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
