//! Pure statistics: bootstrap intervals, exact tests, multiple-comparison correction and rank
//! correlation over per-query (or per-task) vectors. No I/O, no terminal, no knowledge of bundles:
//! callers hand in `&[f64]` vectors, one value per query in a fixed query order shared by every
//! system, and get numbers back. Everything is deterministic for a seed, whatever the thread count.
//!
//! Definitions: `docs/statistics.md`.

mod batch;
mod binomial;
mod cluster;
mod kernel;
mod pairwise;
mod percentile;
mod rank_corr;
mod resample;

pub use batch::{intervals_all, pair_indices, pairwise_all, MetricCell, PairRow};
pub use binomial::{binom_test_two_sided, mcnemar_exact, wilson, Z95};
pub use cluster::{
    cluster_bootstrap_fraction, cluster_bootstrap_unconditional, cluster_bootstrap_with_plan,
    ClusterInterval, CLUSTER_DRAWS,
};
pub use pairwise::{
    holm, is_zero_one, mcnemar_tie_averaged, pairwise, tied_with_leader, Discordance, LeaderTies,
    PairResult, TieAveraged,
};
pub use percentile::percentile_type7;
pub use rank_corr::{average_ranks, spearman};
pub use resample::{Interval, Resamples};

/// Replicates used by the release's query-level bootstrap.
pub const DEFAULT_REPLICATES: usize = 5_000;
/// Seed used by the release's bootstrap and pairwise tests.
pub const RELEASE_SEED: u64 = 20260510;
/// Significance level for "tied with the leader".
pub const ALPHA: f64 = 0.05;

#[cfg(test)]
mod proptests;
