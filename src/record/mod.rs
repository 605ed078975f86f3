//! The execution record: the vocabulary the oracle produces and the bundle stores, below both.
//!
//! [`ExecRecord`] is one row of a bundle's execution cache, keyed by [`keys::code_sha256`] and
//! [`keys::tests_sha256`]; its outcomes are [`Outcome`]s. The oracle writes records and the bundle
//! loader reads them, so both depend on this module and neither on the other.

pub mod keys;
pub mod outcome;

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
