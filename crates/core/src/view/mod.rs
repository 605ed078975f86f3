//! The one view model: every table, figure and pane reads the typed rows defined here, built
//! from the engine's results in the core. The report formats them, the figures draw them, the
//! dashboard's panes render them; none computes or re-derives a number.
//!
//! - [`leaderboard`]: the leaderboard rows, per-domain rows, where each system stands against the
//!   leader (the one † rule) and the forest series.
//! - [`anatomy`]: the failure anatomy's rows (misses, density, bug types, deception by domain,
//!   edit size with its Spearman ρ, gaps, difficulty).
//! - [`pairs`]: system pairs on one metric cell, named (the pairs table) or as a matrix (the
//!   figure and the Pairs pane).
//!
//! [`Snapshot`] holds the parts of one evaluation, each computed the first time it is read (so a
//! report of one table computes only what that table needs); the dashboard computes the same
//! parts with the same constructors in background jobs.

pub mod anatomy;
pub mod leaderboard;
pub mod pairs;

pub use anatomy::AnatomyView;
pub use leaderboard::{ForestPoint, LeaderRow, Leaderboard, Standing};
pub use pairs::{NamedPair, PairMatrix};

use crate::analysis::significance::{SigConfig, Significance};
use crate::engine::Engine;
use std::sync::OnceLock;

/// The view of one engine's evaluation under one bootstrap setting: each part computed at most
/// once, on first use (from any thread: figures are drawn in parallel).
pub struct Snapshot<'e> {
    engine: &'e Engine,
    sig_cfg: SigConfig,
    leaderboard: OnceLock<Leaderboard>,
    significance: OnceLock<Significance>,
    with_pairs: OnceLock<Significance>,
    anatomy: OnceLock<AnatomyView>,
}

impl<'e> Snapshot<'e> {
    pub fn new(engine: &'e Engine, sig_cfg: SigConfig) -> Snapshot<'e> {
        Snapshot {
            engine,
            sig_cfg,
            leaderboard: OnceLock::new(),
            significance: OnceLock::new(),
            with_pairs: OnceLock::new(),
            anatomy: OnceLock::new(),
        }
    }

    pub fn engine(&self) -> &'e Engine {
        self.engine
    }

    /// The bootstrap settings of the intervals, tiers and pairs.
    pub fn sig_config(&self) -> SigConfig {
        self.sig_cfg
    }

    pub fn leaderboard(&self) -> &Leaderboard {
        self.leaderboard
            .get_or_init(|| Leaderboard::build(self.engine))
    }

    /// The leaderboard's significance: intervals, Wilson intervals and tiers, no pairs (a
    /// report that prints no pair computes none).
    pub fn significance(&self) -> &Significance {
        self.significance
            .get_or_init(|| Significance::compute_leaderboard(self.engine, self.sig_cfg))
    }

    /// The significance with every system pair (the pairs table, the pairs figure).
    pub fn significance_with_pairs(&self) -> &Significance {
        self.with_pairs.get_or_init(|| {
            let mut s = self.significance().clone();
            s.add_pairs(self.engine);
            s
        })
    }

    pub fn anatomy(&self) -> &AnatomyView {
        self.anatomy.get_or_init(|| AnatomyView::build(self.engine))
    }
}
