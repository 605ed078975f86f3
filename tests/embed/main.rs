//! Sentence-embedding systems: `execscope embed`, live probes, and embedding shards (each skips by name without the embedding environment).
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod cli;
mod live_no_env;
mod probe_live;
mod shard;
