//! The Ray driver on a two-node local cluster (skips by name without Ray).
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod ray;
