//! Uncertainty for an engine's evaluation: bootstrap intervals of every metric cell of every
//! system, Wilson intervals for exec@k, all system pairs, and "tied with the leader" tiers.
//!
//! Under a deterministic tie policy exec@k is 0/1 per query and pairs get the exact McNemar test
//! (tiers: McNemar against the leader, Holm across the comparisons). Under `expected`, per-query
//! exec@k values are pass probabilities over the orders of score ties; pairs then get the exact
//! McNemar p averaged over those orders (`stats::mcnemar_tie_averaged`, defined in
//! docs/significance-under-ties.md) and the tiers use it the same way, so p-values and marks
//! exist under every policy. Intervals are the paired bootstrap on the per-query values in both
//! cases. Every table says which test produced its marks.

use crate::engine::Engine;
use crate::metrics::{metric_keys, Metric, SystemEval};
use crate::stats::{self, Interval, MetricCell, PairRow, Resamples};

/// Bootstrap settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigConfig {
    pub replicates: usize,
    pub seed: u64,
}

impl Default for SigConfig {
    fn default() -> Self {
        SigConfig {
            replicates: stats::DEFAULT_REPLICATES,
            seed: stats::RELEASE_SEED,
        }
    }
}

/// One metric cell (metric at a cutoff).
#[derive(Clone, Debug, PartialEq)]
pub struct CellKey {
    pub metric: Metric,
    /// Index into the evaluation's ks (0 for MRR).
    pub ki: usize,
    /// `exec@1`, …, `mrr`.
    pub key: String,
    /// Per-query values are 0/1 (exec@k under a deterministic tie policy).
    pub binary: bool,
    /// Which paired test the pairs of this cell carry.
    pub test: PairTest,
}

/// The paired test behind a cell's p-values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairTest {
    /// Exact McNemar on 0/1 outcomes.
    ExactMcNemar,
    /// Exact McNemar averaged over the orders of score ties (pass probabilities per query).
    TieAveragedMcNemar,
    /// Continuous metric: paired bootstrap interval only.
    BootstrapOnly,
}

impl PairTest {
    /// One line naming the test, for captions.
    pub fn describe(self) -> &'static str {
        match self {
            PairTest::ExactMcNemar => "exact McNemar on the discordant counts (two-sided)",
            PairTest::TieAveragedMcNemar => {
                "exact McNemar averaged over the orders of score ties (per-query values are pass probabilities; docs/significance-under-ties.md)"
            }
            PairTest::BootstrapOnly => "continuous metric: paired bootstrap only",
        }
    }

    /// Short name for narrow places.
    pub fn short(self) -> &'static str {
        match self {
            PairTest::ExactMcNemar => "McNemar",
            PairTest::TieAveragedMcNemar => "tie-averaged McNemar",
            PairTest::BootstrapOnly => "bootstrap",
        }
    }

    pub fn has_p(self) -> bool {
        self != PairTest::BootstrapOnly
    }
}

/// Tier of systems not distinguishable from the leader on one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Tier {
    pub leader: usize,
    /// Per system: tied with the leader (leader included).
    pub tied: Vec<bool>,
    /// Per system: the p-value (Holm-adjusted McNemar) when that test was used.
    pub adjusted_p: Vec<Option<f64>>,
    /// Which test decided.
    pub method: String,
}

/// All uncertainty results for an engine.
#[derive(Clone, Debug)]
pub struct Significance {
    pub config: SigConfig,
    pub policy: String,
    pub cells: Vec<CellKey>,
    /// `intervals[cell][system]`.
    pub intervals: Vec<Vec<Interval>>,
    /// `wilson[cell][system]` for exec@k cells (successes rounded to whole queries under
    /// `expected`).
    pub wilson: Vec<Vec<Option<(f64, f64)>>>,
    /// Every pair (a < b by system index) with one result per cell.
    pub pairs: Vec<PairRow>,
    /// One tier per exec@k cell (index into `cells`).
    pub tiers: Vec<(usize, Tier)>,
}

impl Significance {
    pub fn compute(engine: &Engine, cfg: SigConfig) -> Significance {
        Significance::from_evals(engine.evals(), cfg)
    }

    /// From evaluations of the same queries (all under one configuration).
    pub fn from_evals(evals: &[SystemEval], cfg: SigConfig) -> Significance {
        let ecfg = evals.first().map(|e| e.config.clone()).unwrap_or_default();
        let deterministic = ecfg.policy.is_deterministic();
        let columns: Vec<Vec<Vec<f64>>> = metric_keys(&ecfg.ks)
            .iter()
            .map(|(metric, ki, _)| evals.iter().map(|e| e.column(*metric, *ki)).collect())
            .collect();
        let cells: Vec<CellKey> = metric_keys(&ecfg.ks)
            .into_iter()
            .zip(&columns)
            .map(|((metric, ki, key), cols)| {
                let zero_one = cols.iter().all(|v| stats::is_zero_one(v));
                CellKey {
                    metric,
                    ki,
                    key,
                    binary: metric.is_binary() && deterministic,
                    test: match (metric.is_binary(), zero_one) {
                        (false, _) => PairTest::BootstrapOnly,
                        (true, true) => PairTest::ExactMcNemar,
                        (true, false) => PairTest::TieAveragedMcNemar,
                    },
                }
            })
            .collect();
        let n = evals.first().map_or(0, |e| e.per_query.len());
        let plan = Resamples::new(n, cfg.replicates, cfg.seed);
        let metric_cells: Vec<MetricCell<'_>> = cells
            .iter()
            .zip(&columns)
            .map(|(c, cols)| MetricCell {
                binary: c.test.has_p(),
                per_system: cols.iter().map(Vec::as_slice).collect(),
            })
            .collect();
        let intervals = stats::intervals_all(&metric_cells, &plan);
        let pairs = stats::pairwise_all(&metric_cells, &plan);
        let wilson = cells
            .iter()
            .zip(&columns)
            .map(|(c, cols)| {
                cols.iter()
                    .map(|v| {
                        (c.metric == Metric::Exec).then(|| {
                            let succ = v.iter().sum::<f64>().round() as u64;
                            stats::wilson(succ, v.len() as u64, stats::Z95)
                        })
                    })
                    .collect()
            })
            .collect();
        let mut tiers = Vec::new();
        for (ci, c) in cells.iter().enumerate() {
            if c.metric != Metric::Exec || evals.is_empty() {
                continue;
            }
            let cols = &columns[ci];
            let means: Vec<f64> = cols.iter().map(|v| mean(v)).collect();
            let leader = (0..means.len())
                .max_by(|&a, &b| means[a].total_cmp(&means[b]).then(b.cmp(&a)))
                .unwrap_or(0);
            let tier = if c.test.has_p() {
                let slices: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
                let t = stats::tied_with_leader(&slices, leader, stats::ALPHA);
                Tier {
                    leader,
                    tied: (0..cols.len()).map(|s| t.tied.contains(&s)).collect(),
                    adjusted_p: t.adjusted_p,
                    method: if c.test == PairTest::ExactMcNemar {
                        "exact McNemar vs the leader, Holm-corrected, α = 0.05".into()
                    } else {
                        "exact McNemar averaged over tie orders vs the leader, Holm-corrected, α = 0.05".into()
                    },
                }
            } else {
                let tied = (0..cols.len())
                    .map(|s| {
                        if s == leader {
                            return true;
                        }
                        let (_, lo, hi) = plan.paired_diff_ci(&cols[leader], &cols[s]);
                        lo <= 0.0 && hi >= 0.0
                    })
                    .collect();
                Tier {
                    leader,
                    tied,
                    adjusted_p: vec![None; cols.len()],
                    method: format!(
                        "paired bootstrap 95% interval of the difference to the leader contains 0 ({} replicates; McNemar does not apply to expected values)",
                        cfg.replicates
                    ),
                }
            };
            tiers.push((ci, tier));
        }
        Significance {
            config: cfg,
            policy: ecfg.policy.as_str().to_string(),
            cells,
            intervals,
            wilson,
            pairs,
            tiers,
        }
    }

    pub fn cell_index(&self, key: &str) -> Option<usize> {
        self.cells.iter().position(|c| c.key == key)
    }

    /// The tier of an exec@k cell.
    pub fn tier(&self, key: &str) -> Option<&Tier> {
        let ci = self.cell_index(key)?;
        self.tiers.iter().find(|(c, _)| *c == ci).map(|(_, t)| t)
    }
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}
