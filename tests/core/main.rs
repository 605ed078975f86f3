//! The core: bundle loading and its errors, ranking, metrics under ties, statistics against SciPy, the engine, cross-checks against independent implementations, and the audit's accounting.
//!
//! One test binary per area (linked once, not once per file); each module was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;

mod audit_accounting;
mod audit_planted;
mod audit_retrieval;
mod audit_selftest;
mod bundle_cache_index;
mod bundle_check;
mod bundle_confine;
mod bundle_empty_and_scale;
mod bundle_errors;
mod bundle_load;
mod bundle_npy;
mod bundle_roundtrip;
mod bundle_untrusted;
mod density_props;
mod embedded_bundle;
mod engine_tiny;
mod metrics_ties;
mod rank_cache;
mod ranking_view;
mod reference_crosscheck;
mod significance_ties;
mod stats_scipy;
