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
use crate::metrics::{metric_keys, EvalConfig, Metric, MetricKey, SystemEval, TiePolicy};
use crate::stats::{self, Interval, MetricCell, PairResult, PairRow, Resamples};
use crate::store::codec::{Reader, Writer};
use rayon::prelude::*;

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

/// One metric cell (metric at a cutoff) and the test its pairs carry.
#[derive(Clone, Debug, PartialEq)]
pub struct CellKey {
    /// `exec@1`, …, `mrr`.
    pub key: MetricKey,
    /// Index into the evaluation's ks (0 for MRR).
    pub ki: usize,
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
    /// The test of a cell whose systems' per-query values are `columns`: McNemar for a binary
    /// metric, exact when every value is 0/1 and averaged over tie orders otherwise; the
    /// bootstrap alone for a continuous metric.
    fn of_cell(metric: Metric, columns: &[Vec<f64>]) -> PairTest {
        let zero_one = columns.iter().all(|v| stats::is_zero_one(v));
        match (metric.is_binary(), zero_one) {
            (false, _) => PairTest::BootstrapOnly,
            (true, true) => PairTest::ExactMcNemar,
            (true, false) => PairTest::TieAveragedMcNemar,
        }
    }

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
    /// The tie policy of the evaluation the intervals and tests were computed from.
    pub policy: TiePolicy,
    pub cells: Vec<CellKey>,
    /// `intervals[cell][system]`.
    pub intervals: Vec<Vec<Interval>>,
    /// `wilson[cell][system]` for exec@k cells (successes rounded to whole queries under
    /// `expected`).
    pub wilson: Vec<Vec<Option<(f64, f64)>>>,
    /// Every pair (a < b by system index) with one result per cell; `None` when only the
    /// leaderboard's part was computed ([`Significance::compute_leaderboard`]: the 276 pairs of
    /// 24 systems cost more than everything else here, and a leaderboard reads none of them).
    pub pairs: Option<Vec<PairRow>>,
    /// One tier per exec@k cell (index into `cells`).
    pub tiers: Vec<(usize, Tier)>,
}

impl Significance {
    /// Everything, pairs included, through the engine's cache when it has one
    /// ([`Engine::memoized`]): reopening an unchanged bundle under the same settings reads the
    /// stored tables (every number bit for bit) instead of resampling again. The leaderboard's
    /// part and the pairs are stored apart, so a report that filled the first computes only the
    /// pairs here.
    pub fn compute(engine: &Engine, cfg: SigConfig) -> Significance {
        let mut s = Significance::compute_leaderboard(engine, cfg);
        s.add_pairs(engine);
        s
    }

    /// Intervals, Wilson intervals and tiers, without the pairs (`pairs` is `None`).
    pub fn compute_leaderboard(engine: &Engine, cfg: SigConfig) -> Significance {
        let n = engine.evals().len();
        engine.memoized(
            "significance-core",
            &sig_key(cfg),
            || Significance::from_evals_without_pairs(engine.evals(), &engine.config(), cfg),
            Significance::encode,
            |b| Significance::decode(b, n).filter(|s| s.config == cfg && s.pairs.is_none()),
        )
    }

    /// Compute the pairs if they are missing (through the engine's cache, like
    /// [`Significance::compute`]).
    pub fn add_pairs(&mut self, engine: &Engine) {
        if self.pairs.is_some() {
            return;
        }
        let (cfg, n, cells) = (self.config, engine.evals().len(), self.cells.len());
        self.pairs = Some(engine.memoized(
            "pairwise",
            &sig_key(cfg),
            || pairs_from_evals(engine.evals(), &engine.config(), cfg),
            |p| {
                let mut w = Writer::default();
                encode_pairs(&mut w, p);
                w.0
            },
            |b| {
                let mut r = Reader(b);
                decode_pairs(&mut r, n, cells).filter(|_| r.done())
            },
        ));
    }

    /// The exact binary form kept by the cache (see [`crate::store::codec`]).
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.usize(self.config.replicates);
        w.u64(self.config.seed);
        w.str(self.policy.as_str());
        w.usize(self.cells.len());
        for c in &self.cells {
            w.usize(usize::from(c.key.metric.def().code));
            w.usize(c.ki);
            w.str(&c.key.to_string());
            w.flag(c.binary);
            w.usize(match c.test {
                PairTest::ExactMcNemar => 0,
                PairTest::TieAveragedMcNemar => 1,
                PairTest::BootstrapOnly => 2,
            });
        }
        for row in &self.intervals {
            w.usize(row.len());
            for i in row {
                for v in [i.mean, i.low, i.high] {
                    w.f64(v);
                }
                w.usize(i.n);
                w.usize(i.b);
                w.u64(i.seed);
                w.flag(i.degenerate);
            }
        }
        for row in &self.wilson {
            w.usize(row.len());
            for x in row {
                w.flag(x.is_some());
                if let Some((lo, hi)) = x {
                    w.f64(*lo);
                    w.f64(*hi);
                }
            }
        }
        w.flag(self.pairs.is_some());
        if let Some(p) = &self.pairs {
            encode_pairs(&mut w, p);
        }
        w.usize(self.tiers.len());
        for (ci, t) in &self.tiers {
            w.usize(*ci);
            w.usize(t.leader);
            w.usize(t.tied.len());
            for &x in &t.tied {
                w.flag(x);
            }
            w.usize(t.adjusted_p.len());
            for &p in &t.adjusted_p {
                w.opt_f64(p);
            }
            w.str(&t.method);
        }
        w.0
    }

    /// Read [`Significance::encode`]'s form back, for `n_systems` systems; None for anything
    /// malformed or of another shape.
    pub fn decode(bytes: &[u8], n_systems: usize) -> Option<Significance> {
        let mut r = Reader(bytes);
        let config = SigConfig {
            replicates: r.usize()?,
            seed: r.u64()?,
        };
        let policy: TiePolicy = r.str()?.parse().ok()?;
        let n_cells = r.count(1)?;
        let mut cells = Vec::with_capacity(n_cells);
        for _ in 0..n_cells {
            let metric = Metric::from_code(r.usize()? as u64)?;
            let ki = r.usize()?;
            let key: MetricKey = r
                .str()?
                .parse()
                .ok()
                .filter(|k: &MetricKey| k.metric == metric)?;
            let binary = r.flag()?;
            let test = match r.usize()? {
                0 => PairTest::ExactMcNemar,
                1 => PairTest::TieAveragedMcNemar,
                2 => PairTest::BootstrapOnly,
                _ => return None,
            };
            cells.push(CellKey {
                key,
                ki,
                binary,
                test,
            });
        }
        let mut intervals = Vec::with_capacity(n_cells);
        for _ in 0..n_cells {
            if r.usize()? != n_systems {
                return None;
            }
            let mut row = Vec::with_capacity(n_systems);
            for _ in 0..n_systems {
                row.push(Interval {
                    mean: r.f64()?,
                    low: r.f64()?,
                    high: r.f64()?,
                    n: r.usize()?,
                    b: r.usize()?,
                    seed: r.u64()?,
                    degenerate: r.flag()?,
                });
            }
            intervals.push(row);
        }
        let mut wilson = Vec::with_capacity(n_cells);
        for _ in 0..n_cells {
            if r.usize()? != n_systems {
                return None;
            }
            let mut row = Vec::with_capacity(n_systems);
            for _ in 0..n_systems {
                row.push(match r.flag()? {
                    true => Some((r.f64()?, r.f64()?)),
                    false => None,
                });
            }
            wilson.push(row);
        }
        let pairs = match r.flag()? {
            true => Some(decode_pairs(&mut r, n_systems, n_cells)?),
            false => None,
        };
        let n_tiers = r.count(8)?;
        let mut tiers = Vec::with_capacity(n_tiers);
        for _ in 0..n_tiers {
            let ci = r.usize()?;
            let leader = r.usize()?;
            let n = r.count(1)?;
            let tied = (0..n).map(|_| r.flag()).collect::<Option<Vec<_>>>()?;
            let n = r.count(1)?;
            let adjusted_p = (0..n).map(|_| r.opt_f64()).collect::<Option<Vec<_>>>()?;
            let method = r.str()?;
            tiers.push((
                ci,
                Tier {
                    leader,
                    tied,
                    adjusted_p,
                    method,
                },
            ));
        }
        r.done().then_some(Significance {
            config,
            policy,
            cells,
            intervals,
            wilson,
            pairs,
            tiers,
        })
    }

    /// From evaluations of the same queries, all under `eval` (whose cutoffs and tie policy
    /// decide the cells and tests: they are the caller's settings, never guessed from the
    /// evaluations, so a bundle without systems still has the cells it was asked for), pairs
    /// included.
    pub fn from_evals(evals: &[SystemEval], eval: &EvalConfig, cfg: SigConfig) -> Significance {
        let mut s = Significance::from_evals_without_pairs(evals, eval, cfg);
        s.pairs = Some(pairs_from_evals(evals, eval, cfg));
        s
    }

    /// [`Significance::from_evals`] without the pairs.
    pub fn from_evals_without_pairs(
        evals: &[SystemEval],
        eval: &EvalConfig,
        cfg: SigConfig,
    ) -> Significance {
        let (cells, columns) = cells_of(evals, eval);
        let n = evals.first().map_or(0, |e| e.per_query.len());
        let plan = Resamples::new(n, cfg.replicates, cfg.seed);
        // The intervals and the tiers are independent: computed side by side (each also in
        // parallel inside), so the McNemar tests of the tiers do not run alone after the
        // bootstrap. Every value is computed as it would be one after the other.
        let (intervals, tiers) = rayon::join(
            || stats::intervals_all(&metric_cells(&cells, &columns), &plan),
            || {
                cells
                    .par_iter()
                    .enumerate()
                    .filter(|(_, c)| c.key.metric == Metric::Exec && !evals.is_empty())
                    .map(|(ci, c)| (ci, tier_of(c, &columns[ci], &plan, cfg)))
                    .collect::<Vec<_>>()
            },
        );
        let wilson = cells
            .iter()
            .zip(&columns)
            .map(|(c, cols)| {
                cols.iter()
                    .map(|v| {
                        (c.key.metric == Metric::Exec).then(|| {
                            let succ = v.iter().sum::<f64>().round() as u64;
                            stats::wilson(succ, v.len() as u64, stats::Z95)
                        })
                    })
                    .collect()
            })
            .collect();
        Significance {
            config: cfg,
            policy: eval.policy,
            cells,
            intervals,
            wilson,
            pairs: None,
            tiers,
        }
    }

    /// Where cell `key` is in `cells`, `intervals` and every pair's results.
    pub fn cell_index(&self, key: MetricKey) -> Option<usize> {
        self.cells.iter().position(|c| c.key == key)
    }

    /// The tier of an exec@k cell.
    pub fn tier(&self, key: MetricKey) -> Option<&Tier> {
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

/// What besides the evaluations keys the cached tables: the bootstrap's replicates and seed.
fn sig_key(cfg: SigConfig) -> Vec<u8> {
    let mut what = Vec::new();
    what.extend_from_slice(&(cfg.replicates as u64).to_le_bytes());
    what.extend_from_slice(&cfg.seed.to_le_bytes());
    what
}

/// The tier of one exec@k cell (`cols`: every system's per-query values): which systems are tied
/// with the leader, by McNemar against it (Holm-corrected) where the cell has a p-value, by the
/// paired bootstrap otherwise.
fn tier_of(c: &CellKey, cols: &[Vec<f64>], plan: &Resamples, cfg: SigConfig) -> Tier {
    let means: Vec<f64> = cols.iter().map(|v| mean(v)).collect();
    let leader = (0..means.len())
        .max_by(|&a, &b| means[a].total_cmp(&means[b]).then(b.cmp(&a)))
        .unwrap_or(0);
    if c.test.has_p() {
        let slices: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
        let t = stats::tied_with_leader(&slices, leader, stats::ALPHA);
        Tier {
            leader,
            tied: (0..cols.len()).map(|s| t.tied.contains(&s)).collect(),
            adjusted_p: t.adjusted_p,
            method: if c.test == PairTest::ExactMcNemar {
                "exact McNemar vs the leader, Holm-corrected, α = 0.05".into()
            } else {
                "exact McNemar averaged over tie orders vs the leader, Holm-corrected, α = 0.05"
                    .into()
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
    }
}

/// Every metric cell of the evaluations with its test, and `columns[cell][system]`: each
/// system's per-query values on it.
fn cells_of(evals: &[SystemEval], eval: &EvalConfig) -> (Vec<CellKey>, Vec<Vec<Vec<f64>>>) {
    let deterministic = eval.policy.is_deterministic();
    let keys = metric_keys(&eval.ks);
    let columns: Vec<Vec<Vec<f64>>> = keys
        .iter()
        .map(|(key, ki)| evals.iter().map(|e| e.column(key.metric, *ki)).collect())
        .collect();
    let cells = keys
        .into_iter()
        .zip(&columns)
        .map(|((key, ki), cols)| CellKey {
            key,
            ki,
            binary: key.metric.is_binary() && deterministic,
            test: PairTest::of_cell(key.metric, cols),
        })
        .collect();
    (cells, columns)
}

/// The paired test the pairs of metric cell (`metric`, k index `ki`) carry, from the
/// evaluations' per-query values: what [`Significance`] will choose, known before its bootstrap
/// runs (the dashboard's Pairs pane names it while the job is still running).
pub fn pair_test(evals: &[SystemEval], metric: Metric, ki: usize) -> PairTest {
    let cols: Vec<Vec<f64>> = evals.iter().map(|e| e.column(metric, ki)).collect();
    PairTest::of_cell(metric, &cols)
}

fn metric_cells<'a>(cells: &[CellKey], columns: &'a [Vec<Vec<f64>>]) -> Vec<MetricCell<'a>> {
    cells
        .iter()
        .zip(columns)
        .map(|(c, cols)| MetricCell {
            binary: c.test.has_p(),
            per_system: cols.iter().map(Vec::as_slice).collect(),
        })
        .collect()
}

/// Every system pair on every cell.
fn pairs_from_evals(evals: &[SystemEval], eval: &EvalConfig, cfg: SigConfig) -> Vec<PairRow> {
    let (cells, columns) = cells_of(evals, eval);
    let n = evals.first().map_or(0, |e| e.per_query.len());
    let plan = Resamples::new(n, cfg.replicates, cfg.seed);
    stats::pairwise_all(&metric_cells(&cells, &columns), &plan)
}

fn encode_pairs(w: &mut Writer, pairs: &[PairRow]) {
    w.usize(pairs.len());
    for p in pairs {
        w.usize(p.a);
        w.usize(p.b);
        w.usize(p.cells.len());
        for r in &p.cells {
            for v in [r.a_only, r.b_only, r.both, r.neither] {
                w.u64(v);
            }
            for v in [r.a_rate, r.b_rate, r.delta] {
                w.f64(v);
            }
            w.opt_f64(r.mcnemar_exact_p);
            w.opt_f64(r.mcnemar_tie_averaged_p);
            w.opt_f64(r.tie_orders_rejecting);
            w.f64(r.bootstrap_ci_95[0]);
            w.f64(r.bootstrap_ci_95[1]);
        }
    }
}

/// [`encode_pairs`]'s form for `n_systems` systems and `n_cells` cells; None if malformed.
fn decode_pairs(r: &mut Reader, n_systems: usize, n_cells: usize) -> Option<Vec<PairRow>> {
    let n_pairs = r.count(24)?;
    if n_pairs != n_systems * n_systems.saturating_sub(1) / 2 {
        return None;
    }
    let mut pairs = Vec::with_capacity(n_pairs);
    for _ in 0..n_pairs {
        let (a, b) = (r.usize()?, r.usize()?);
        if r.usize()? != n_cells {
            return None;
        }
        let mut results = Vec::with_capacity(n_cells);
        for _ in 0..n_cells {
            results.push(PairResult {
                a_only: r.u64()?,
                b_only: r.u64()?,
                both: r.u64()?,
                neither: r.u64()?,
                a_rate: r.f64()?,
                b_rate: r.f64()?,
                delta: r.f64()?,
                mcnemar_exact_p: r.opt_f64()?,
                mcnemar_tie_averaged_p: r.opt_f64()?,
                tie_orders_rejecting: r.opt_f64()?,
                bootstrap_ci_95: [r.f64()?, r.f64()?],
            });
        }
        pairs.push(PairRow {
            a,
            b,
            cells: results,
        });
    }
    Some(pairs)
}
