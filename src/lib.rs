//! execscope: evaluate code retrieval and generation by execution.
//!
//! Data flows one way: [`bundle`] (load, validate, write) → [`rank`] (similarity, BM25, ties)
//! → [`metrics`], [`stats`], [`analysis`], [`audit`] → [`report`] | [`tui`].
//! The construction pipeline is [`mutate`] + [`oracle`] + [`build`].
//! Nothing below `report`/`tui` knows about the terminal.

pub mod analysis;
pub mod atomic;
pub mod audit;
pub mod build;
pub mod bundle;
pub mod cli;
pub mod embed;
pub mod engine;
pub mod fuzz;
pub mod metrics;
pub mod mutate;
pub mod oracle;
pub mod plot;
pub mod probe;
pub mod rank;
pub mod record;
pub mod report;
pub mod shard;
pub mod stats;
pub mod systems;
pub mod tui;

/// The crate version, shown by `--version` and written into runner strings.
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
