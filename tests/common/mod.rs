//! Helpers shared by integration tests.
#![allow(dead_code)]

pub mod oracle;
pub mod shared;
pub mod tiny;
pub mod tui;

#[allow(unused_imports)]
pub use shared::{require_data, require_python, shared_data, skip};

/// The execscope binary as a `Command`, its rank cache in this test run's own directory under
/// `target/` (an integration test never writes into the user's `~/.cache`). Every test that runs
/// the binary starts it here; `tests/layering.rs` fails on one that does not.
pub fn execscope() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_execscope"));
    cmd.env("EXECSCOPE_CACHE_DIR", rank_cache_dir());
    cmd
}

/// Where binaries started by [`execscope`] keep their rank cache.
pub fn rank_cache_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rank-cache")
}
