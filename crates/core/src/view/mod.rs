//! The one view model: every table, figure and pane reads the typed rows defined here, built
//! from the engine's results in the core. The report formats them, the figures draw them, the
//! dashboard's panes render them; none computes or re-derives a number.
//!
//! - [`leaderboard`]: the leaderboard rows, per-domain rows, where each system stands against the
//!   leader (the one † rule) and the forest series.
//! - [`anatomy`]: the failure anatomy's rows (misses, density, bug types, deception by domain,
//!   edit size with its Spearman ρ, gaps, difficulty).
//! - [`languages`]: the same sliced by the queries' language (the mix, exec@1 per language,
//!   deception per language and by bug type per language).
//! - [`pairs`]: system pairs on one metric cell, named (the pairs table) or as a matrix (the
//!   figure and the Pairs pane).
//! - suite strength ([`Snapshot::suites`]): how many mutants each task's tests kill, from the
//!   build report.
//! - [`ranking`]: one query's ranking under the tie policy in force, each shown row counted
//!   inside the cutoff or not (or by its share, under expected ties).
//! - [`release`]: the release's own schema (`results/<system>.json`, `tests/*.json`), always
//!   under row ties.
//!
//! [`Snapshot`] holds the parts of one evaluation, each computed the first time it is read (so a
//! report of one table computes only what that table needs); the dashboard computes the same
//! parts with the same constructors in background jobs.

pub mod anatomy;
pub mod languages;
pub mod leaderboard;
pub mod pairs;
pub mod ranking;
pub mod release;

pub use anatomy::AnatomyView;
pub use leaderboard::{ForestPoint, LeaderRow, Leaderboard, Standing};
pub use pairs::{NamedPair, PairMatrix};

use crate::analysis::significance::{SigConfig, Significance};
use crate::analysis::suites::SuiteStrength;
use crate::bundle::BundleError;
use crate::engine::Engine;
use crate::metrics::SystemEval;
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
    results_evals: OnceLock<Vec<SystemEval>>,
    release_statistics: OnceLock<Significance>,
    suites: OnceLock<Result<Option<SuiteStrength>, BundleError>>,
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
            results_evals: OnceLock::new(),
            release_statistics: OnceLock::new(),
            suites: OnceLock::new(),
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

    /// The bundle's test-suite strength, read from its build report once; `None` when the
    /// bundle has no build report (not built by `execscope build`).
    pub fn suites(&self) -> Result<Option<&SuiteStrength>, &BundleError> {
        self.suites
            .get_or_init(|| crate::analysis::suites::from_bundle(self.engine.bundle()))
            .as_ref()
            .map(Option::as_ref)
    }

    /// Every system's `results/<system>.json` ([`release::results_config`]).
    pub fn release_results(&self) -> Vec<release::SystemResults> {
        self.results_evals()
            .iter()
            .enumerate()
            .map(|(s, e)| release::system_results(self.engine, s, e))
            .collect()
    }

    /// The statistics of `tests/pairwise_tests.json` and `tests/confidence_intervals.json`
    /// (pairs included) under [`release::statistics_config`], with this snapshot's bootstrap
    /// settings.
    pub fn release_statistics(&self) -> &Significance {
        self.release_statistics.get_or_init(|| {
            let cfg = release::statistics_config(&self.engine.config());
            if cfg == release::results_config() {
                Significance::from_evals(self.results_evals(), &cfg, self.sig_cfg)
            } else {
                Significance::from_evals(&self.engine.evaluate_all(&cfg), &cfg, self.sig_cfg)
            }
        })
    }

    fn results_evals(&self) -> &[SystemEval] {
        self.results_evals
            .get_or_init(|| self.engine.evaluate_all(&release::results_config()))
    }
}
