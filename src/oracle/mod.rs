//! The execution oracle: sandboxed Python execution of (code, tests) pairs, and its cache.

pub mod outcome;

pub use outcome::{IsolationLevel, Outcome, SuiteResult};
