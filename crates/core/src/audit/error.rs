//! Why an audit could not be assembled: typed, so the CLI adds context and the dashboard shows it.

use crate::bundle::BundleError;
use execscope_record::BatchError;

/// An audit failure. Input errors name the file and line (`pool.jsonl:7: ...`).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A task or pool file could not be read (missing, not a regular file, not UTF-8, ...).
    #[error(transparent)]
    Read(#[from] BundleError),
    /// A row of a task or pool file is malformed or inconsistent; `at` is `file:line` or `file`.
    #[error("{at}: {msg}")]
    Input { at: String, msg: String },
    /// The settings cannot produce an audit (unknown system, `--k 0`, an order-free tie policy).
    #[error("{0}")]
    Settings(String),
    /// The bundle's execution cache holds an outcome that does not parse.
    #[error("cached outcomes of query {query}: {msg}")]
    Cache { query: String, msg: String },
    /// Executing the pairs failed.
    #[error(transparent)]
    Run(#[from] BatchError),
    /// The system's score matrix could be neither read nor computed.
    #[error(transparent)]
    Scores(#[from] crate::rank::ScoresError),
}

impl AuditError {
    pub(crate) fn input(at: impl std::fmt::Display, msg: impl Into<String>) -> AuditError {
        AuditError::Input {
            at: at.to_string(),
            msg: msg.into(),
        }
    }
}
