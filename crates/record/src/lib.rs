//! The execution record: the vocabulary the oracle produces and the bundle stores, in the crate
//! below both (it depends on no other workspace crate).
//!
//! [`ExecRecord`] is one row of a bundle's execution cache, keyed by [`keys::code_sha256`] and
//! [`keys::tests_sha256`]; its outcomes are [`Outcome`]s ([`outcome`], with the isolation levels
//! every result records). The oracle writes records and the bundle loader reads them, so both
//! depend on this crate and neither on the other. Also here: [`Language`] (the candidate's
//! language, the one place where it enters every layer), [`atomic`] (every file written
//! through a temporary file and a rename), the [`Runner`] trait through which the core runs code
//! without knowing the sandbox, [`BatchError`], and the workspace [`version`].

pub mod atomic;
pub mod job;
pub mod keys;
pub mod language;
pub mod outcome;

pub use job::{Budgets, Job, SelfTest};
pub use language::Language;
pub use outcome::{IsolationLevel, Outcome, SuiteResult};

use serde::{Deserialize, Serialize};

/// One row of `data/execution_cache.jsonl`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecRecord {
    pub code_sha256: String,
    pub tests_sha256: String,
    /// One per test: `pass`, `FAIL`, `FAIL:<Exc>`, `TIMEOUT`, `ERROR:<Exc>`.
    pub outcomes: Vec<String>,
    pub passes_all_tests: bool,
    #[serde(default)]
    pub runner: String,
}

/// The workspace version, shown by `--version` and written into runner strings.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// What the core asks of whatever executes code: run (code, tests) pairs and say under what
/// contract. The oracle implements it; the core never names the oracle, so its sandbox crates
/// stay out of the core's build.
pub trait Runner: Sync {
    /// Runs every pair (results in input order); `progress` gets the number finished so far.
    fn run_pairs(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, String>>;
    /// The cache's `runner` field for the rows this runner produces.
    fn runner_string(&self) -> String;
    /// The `runner` field of rows of jobs in `language` (the toolchain, its flags and the
    /// compile budget join it for another language than Python); by default [`Runner::runner_string`].
    fn runner_string_for(&self, language: Language) -> String {
        let _ = language;
        self.runner_string()
    }
}

/// Why a batch of pairs has no complete set of results.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The oracle could not start (no interpreter, no adequate isolation level, ...).
    #[error("starting the oracle: {0}")]
    Start(String),
    /// The runner answered a different number of pairs than it was given.
    #[error("the runner returned {got} results for {want} pairs")]
    Count { got: usize, want: usize },
    /// The runner answered a pair with a different number of outcomes than it has tests.
    #[error("the runner returned {got} outcomes for a pair of {want} tests")]
    Outcomes { got: usize, want: usize },
    /// One pair could not be executed (the harness died, the protocol broke).
    #[error("oracle failed on pair {index}: {message}")]
    Failed { index: usize, message: String },
    /// A sharded runner was asked for pairs another shard owns and no memo holds.
    #[error("{pairs} pair(s) belong to other shards")]
    Pending { pairs: usize },
}

impl BatchError {
    /// The per-pair results of a runner's batch as one result (the first failure wins).
    pub fn collect<E: std::fmt::Display>(
        results: Vec<Result<SuiteResult, E>>,
    ) -> Result<Vec<SuiteResult>, BatchError> {
        results
            .into_iter()
            .enumerate()
            .map(|(index, r)| {
                r.map_err(|e| BatchError::Failed {
                    index,
                    message: e.to_string(),
                })
            })
            .collect()
    }
}

/// A task's `prelude` (e.g. the imports of a prompt) and a snippet joined as the one program the
/// oracle runs, as HumanEval-style harnesses join prompt and completion. An empty or blank
/// prelude leaves the code as it is.
pub fn with_prelude(prelude: &str, code: &str) -> String {
    if prelude.trim().is_empty() {
        return code.to_string();
    }
    let mut s = prelude.to_string();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(code);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prelude_joins_as_one_program() {
        assert_eq!(with_prelude("", "x = 1\n"), "x = 1\n");
        assert_eq!(with_prelude("  \n", "x = 1\n"), "x = 1\n");
        assert_eq!(
            with_prelude("from typing import List", "def f(): pass\n"),
            "from typing import List\ndef f(): pass\n"
        );
        assert_eq!(with_prelude("import math\n", "y\n"), "import math\ny\n");
    }
}
