//! execscope's core: everything between a bundle on disk and the numbers every front end shows.
//!
//! Data flows one way: [`bundle`] (load, validate, write) → [`rank`] (similarity, BM25, ties)
//! → [`metrics`], [`stats`], [`analysis`], [`audit`] → [`engine`] (the loaded bundle with its
//! rankings and evaluations) and [`systems`] (imports, fusion, exports) → [`view`] (the typed rows
//! every table, figure and pane reads). The core knows nothing
//! of terminals, figures, argument parsing or the sandbox: it runs code only through the
//! [`execscope_record::Runner`] a caller hands it.

pub mod analysis;
pub mod audit;
pub mod bundle;
pub mod engine;
pub mod metrics;
pub mod rank;
pub mod stats;
pub mod store;
pub mod systems;
pub mod view;
