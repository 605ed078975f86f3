//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

/// A file or folder under the workplace's shared data (`shared/data/…`), which sits beside the
/// checkout (`../shared`), or wherever `$EXECSCOPE_SHARED` points. `None` when absent.
pub fn shared_data(rel: &str) -> Option<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("EXECSCOPE_SHARED") {
        roots.push(PathBuf::from(p));
    }
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    roots.push(manifest.join("../shared"));
    roots.push(PathBuf::from("/work/shared"));
    roots
        .into_iter()
        .map(|r| r.join("data").join(rel))
        .find(|p| p.exists())
}

pub mod oracle;
pub mod tui;
