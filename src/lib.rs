//! execscope: evaluate code retrieval and generation by execution.
//!
//! This crate holds the front ends (the CLI, the dashboard, the report formats and the figures)
//! over the workspace's layers, re-exported here under their module names:
//! [`record`] (outcomes, keys, atomic files) → [`oracle`] (the sandbox and the judge) →
//! the core ([`bundle`], [`rank`], [`metrics`], [`stats`], [`store`] (every on-disk cache), [`analysis`], [`audit`], [`engine`],
//! [`systems`], [`view`]: the typed rows every front end reads) → [`build`] ([`mutate`],
//! [`shard`], [`fuzz`]) and [`embed`] ([`probe`]) → [`report`] | [`tui`] | [`plot`] | [`cli`],
//! with [`retrieval_audit`] (the oracle-backed retrieval audit the front ends share). See
//! docs/architecture.md.

pub use execscope_build::{self as build, fuzz, mutate, shard};
pub use execscope_core::{
    analysis, audit, bundle, engine, metrics, rank, stats, store, systems, view,
};
pub use execscope_embed::{self as embed, probe};
pub use execscope_oracle as oracle;
pub use execscope_record::{self as record, atomic, version};

pub mod cli;
pub mod highlight;
pub mod plot;
pub mod report;
pub mod retrieval_audit;
pub mod tui;
