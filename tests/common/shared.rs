//! Where the external data lives (`../shared/data` beside the checkout, or the directory named by
//! `EXECSCOPE_SHARED_DATA`), which Python the cross-checks use (`EXECSCOPE_PYTHON`), and how a test
//! that cannot run says so by name.
//!
//! A skip is one line `skipped: <test>: <reason>` written straight to the process's stderr (not
//! through `eprintln!`, which the test harness captures for passing tests), so `cargo test` shows it
//! without `--nocapture`; `.ci/run` collects these lines into its summary. When
//! `EXECSCOPE_SKIP_LOG` names a file the line is appended there too. See `docs/testing.md`.
//!
//! Also included by the benches (`#[path = "../tests/common/shared.rs"]`), so it uses std only.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;

/// Environment variable naming the external data directory (the folder holding `mbpp-bundle/`
/// and `humaneval-tasks.jsonl`).
pub const DATA_ENV: &str = "EXECSCOPE_SHARED_DATA";
/// Environment variable naming the Python interpreter of the cross-checks (a virtualenv's).
pub const PYTHON_ENV: &str = "EXECSCOPE_PYTHON";

/// The external data directory: `$EXECSCOPE_SHARED_DATA` when set and non-empty, else
/// `<crate>/../shared/data`. It may not exist.
pub fn data_dir() -> PathBuf {
    match std::env::var_os(DATA_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"),
    }
}

/// A file or folder of the external data, `None` when absent.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let p = data_dir().join(rel);
    p.exists().then_some(p)
}

/// Prints `skipped: <test>: <reason>` where the test output shows it (see the module docs).
pub fn skip(test: &str, reason: &str) {
    let line = format!("skipped: {test}: {reason}\n");
    // One write of a short line: whole even when tests run in parallel.
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    if let Some(log) = std::env::var_os("EXECSCOPE_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// The external data file `rel`, or `None` after reporting `test` as skipped.
pub fn require_data(test: &str, rel: &str) -> Option<PathBuf> {
    let found = shared_data(rel);
    if found.is_none() {
        skip(
            test,
            &format!(
                "needs the external data {rel} (looked in {}; set {DATA_ENV} to point elsewhere)",
                data_dir().display()
            ),
        );
    }
    found
}

/// A Python interpreter that imports every module of `modules`, or `None` after reporting `test`
/// as skipped.
///
/// With `EXECSCOPE_PYTHON` set (as `.ci/run` does, to its virtualenv) that interpreter must have
/// the modules: a missing one fails the test instead of skipping it, so CI never skips a
/// cross-check. Without it, `python3` is tried and the test is skipped when it lacks a module.
pub fn require_python(test: &str, modules: &[&str]) -> Option<PathBuf> {
    let configured = std::env::var_os(PYTHON_ENV).filter(|p| !p.is_empty());
    let python = configured
        .clone()
        .map_or_else(|| PathBuf::from("python3"), PathBuf::from);
    let probe = format!("import {}", modules.join(", "));
    let ok = Command::new(&python)
        .args(["-c", &probe])
        .output()
        .map(|o| o.status.success());
    match (ok, configured) {
        (Ok(true), _) => Some(python),
        (res, Some(_)) => panic!(
            "{test}: {PYTHON_ENV}={} cannot `{probe}` ({}); install the modules into that \
             interpreter (bash .ci/run builds a virtualenv with them)",
            python.display(),
            match res {
                Ok(_) => "import failed".to_string(),
                Err(e) => e.to_string(),
            }
        ),
        (_, None) => {
            skip(
                test,
                &format!(
                    "python3 cannot `{probe}` (set {PYTHON_ENV} to an interpreter that can; \
                     bash .ci/run makes one)"
                ),
            );
            None
        }
    }
}
