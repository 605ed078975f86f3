//! What can go wrong starting or talking to the oracle.

use super::IsolationLevel;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("python interpreter: {0}")]
    Python(String),
    #[error("isolation level {level} unavailable: {reason}")]
    Unavailable {
        level: IsolationLevel,
        reason: String,
    },
    /// `auto` found only levels too weak to run untrusted code unasked (`reason` says what to
    /// enable, install or pass); `stronger` says why each stronger level could not start.
    #[error("refusing to run untrusted code at level {level}: {reason}{}", stronger_levels(.stronger))]
    Refused {
        level: IsolationLevel,
        reason: String,
        stronger: Vec<String>,
    },
    #[error("cannot start the harness: {0}")]
    Spawn(String),
    /// A pair in a language whose toolchain this machine lacks (the message names what to
    /// install).
    #[error("{0}")]
    Toolchain(String),
    #[error("harness protocol: {0}")]
    Protocol(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The refusal's note on why each stronger level could not start (empty when none was tried).
pub(super) fn stronger_levels(why: &[String]) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!(" (stronger levels: {})", why.join("; "))
    }
}
