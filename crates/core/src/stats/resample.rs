//! The query-level bootstrap resample plan, shared by every system and metric.
//!
//! Paired comparisons are only paired if both systems are scored on the same resampled query set
//! in each replicate, so the plan is drawn once per (n, B, seed) and reused everywhere. Each
//! replicate is stored as per-query multiplicities (how often query i was drawn) rather than a
//! list of indices: a replicate mean is then a dot product of counts and values, which vectorises
//! (see `kernel`) and keeps the plan at n·B bytes (counts fit in a byte unless some query is
//! drawn > 255 times, in which case the plan silently widens to u32).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use super::kernel::{block_sums, RB};
use super::percentile::interval95;

/// Bootstrap summary of one mean: point estimate and 2.5 / 97.5 type-7 percentiles of the
/// replicate means. Serialises with the release's `confidence_intervals.json` field names.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// Mean of the original (not resampled) values.
    pub mean: f64,
    #[serde(rename = "ci95_low")]
    pub low: f64,
    #[serde(rename = "ci95_high")]
    pub high: f64,
    /// Number of queries.
    pub n: usize,
    /// Number of bootstrap replicates.
    #[serde(rename = "bootstrap_samples")]
    pub b: usize,
    pub seed: u64,
    /// `low == high`: the percentile bootstrap collapsed (e.g. [1, 1] when every query passes).
    /// Such an interval says nothing about unseen risk; show the Wilson interval beside it.
    /// Not part of the release file format, hence not serialised.
    #[serde(skip)]
    pub degenerate: bool,
}

/// Per-replicate multiplicities in blocks of `RB` replicates: `counts[(blk * n + i) * RB + lane]`
/// is how often item i was drawn in replicate `blk * RB + lane` (see `kernel` for why). The last
/// block is padded with all-zero lanes.
#[derive(Debug, Clone)]
enum Counts {
    U8(Vec<u8>),
    U32(Vec<u32>),
}

/// A plan of `b` bootstrap replicates, each `n` query indices drawn uniformly with replacement.
///
/// Replicate `r` is drawn from `ChaCha8Rng::seed_from_u64(seed)` on stream `r`, so the plan is
/// identical on every platform and for every thread count, and replicates can be drawn in parallel.
#[derive(Debug, Clone)]
pub struct Resamples {
    n: usize,
    b: usize,
    seed: u64,
    counts: Counts,
}

impl Resamples {
    /// Draws the plan. `n` must fit in a `u32` (it is a number of queries or tasks).
    ///
    /// # Panics
    /// If `n > u32::MAX`.
    pub fn new(n: usize, b: usize, seed: u64) -> Self {
        let n32 = u32::try_from(n).expect("bootstrap sample size must fit in u32");
        let blocks = b.div_ceil(RB);
        let mut wide = vec![0u32; blocks * n * RB];
        if n > 0 {
            wide.par_chunks_mut(n * RB)
                .enumerate()
                .for_each(|(blk, slab)| {
                    for l in 0..RB.min(b - blk * RB) {
                        let mut rng = ChaCha8Rng::seed_from_u64(seed);
                        rng.set_stream((blk * RB + l) as u64);
                        for _ in 0..n {
                            slab[rng.random_range(0..n32) as usize * RB + l] += 1;
                        }
                    }
                });
        }
        let max = wide.par_iter().copied().max().unwrap_or(0);
        let counts = if max <= u32::from(u8::MAX) {
            Counts::U8(wide.par_iter().map(|&c| c as u8).collect())
        } else {
            Counts::U32(wide)
        };
        Resamples { n, b, seed, counts }
    }

    /// Number of items (queries, tasks) per replicate.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Number of replicates.
    pub fn b(&self) -> usize {
        self.b
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// How often each item was drawn in replicate `r` (sums to `n`).
    pub fn replicate_counts(&self, r: usize) -> Vec<u32> {
        assert!(r < self.b, "replicate {r} out of range");
        let (blk, lane) = (r / RB, r % RB);
        let items = (0..self.n).map(|i| (blk * self.n + i) * RB + lane);
        match &self.counts {
            Counts::U8(c) => items.map(|k| u32::from(c[k])).collect(),
            Counts::U32(c) => items.map(|k| c[k]).collect(),
        }
    }

    /// The indices drawn in replicate `r`, as an ascending multiset. The draw order is not kept:
    /// no statistic here depends on it. Used to hand the exact plan to an independent checker.
    pub fn replicate_indices(&self, r: usize) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.n);
        for (i, c) in self.replicate_counts(r).into_iter().enumerate() {
            out.extend(std::iter::repeat_n(i as u32, c as usize));
        }
        out
    }

    /// Sum of `values` over each replicate's drawn items (with multiplicity), one per replicate.
    ///
    /// # Panics
    /// If `values.len() != n` — every vector must be in the plan's query order.
    pub fn replicate_sums(&self, values: &[f64]) -> Vec<f64> {
        self.replicate_sums_many(&[values])
            .pop()
            .unwrap_or_default()
    }

    /// [`Self::replicate_sums`] of many columns in one pass over the plan (`result[column][r]`);
    /// bit-identical to calling it column by column.
    ///
    /// # Panics
    /// If a column's length is not `n`.
    pub fn replicate_sums_many(&self, columns: &[&[f64]]) -> Vec<Vec<f64>> {
        for c in columns {
            assert_eq!(
                c.len(),
                self.n,
                "per-query vector has {} values but the resample plan has {} queries",
                c.len(),
                self.n
            );
        }
        let (b, m) = (self.b, columns.len());
        let mut out = vec![vec![0.0; b]; m];
        if self.n == 0 || m == 0 || b == 0 {
            return out;
        }
        let slab = self.n * RB;
        let blocks: Vec<Vec<f64>> = match &self.counts {
            Counts::U8(c) => c
                .par_chunks_exact(slab)
                .map(|blk| block_sums(blk, columns))
                .collect(),
            Counts::U32(c) => c
                .par_chunks_exact(slab)
                .map(|blk| block_sums(blk, columns))
                .collect(),
        };
        for (blk, sums) in blocks.iter().enumerate() {
            let r0 = blk * RB;
            let rb = RB.min(b - r0);
            for (j, o) in out.iter_mut().enumerate() {
                o[r0..r0 + rb].copy_from_slice(&sums[j * RB..j * RB + rb]);
            }
        }
        out
    }

    /// Mean of `values` in each replicate.
    pub fn replicate_means(&self, values: &[f64]) -> Vec<f64> {
        self.replicate_means_many(&[values])
            .pop()
            .unwrap_or_default()
    }

    /// [`Self::replicate_means`] of many columns in one pass (`result[column][r]`).
    pub fn replicate_means_many(&self, columns: &[&[f64]]) -> Vec<Vec<f64>> {
        let n = self.n as f64;
        let mut sums = self.replicate_sums_many(columns);
        sums.iter_mut().flatten().for_each(|s| *s /= n);
        sums
    }

    /// Interval of `values` given its replicate means on this plan (consumed as scratch).
    pub(crate) fn interval_from_means(&self, values: &[f64], mut means: Vec<f64>) -> Interval {
        let (low, high) = interval95(&mut means);
        Interval {
            mean: mean(values),
            low,
            high,
            n: self.n,
            b: self.b,
            seed: self.seed,
            degenerate: low == high,
        }
    }

    /// Percentile bootstrap 95% interval of the mean of `values` (one per query, plan order).
    /// With `n == 0` or `b == 0` the affected fields are NaN.
    pub fn mean_ci(&self, values: &[f64]) -> Interval {
        self.interval_from_means(values, self.replicate_means(values))
    }

    /// Paired bootstrap of the mean difference `a − b`: returns `(delta, low, high)` where delta
    /// is the mean of the per-query differences and the interval takes, in every replicate, the
    /// same resampled queries for both systems.
    ///
    /// A replicate mean is linear in the values, so the replicate mean of `a − b` is the
    /// difference of the two replicate means; batch callers ([`super::pairwise_all`]) compute
    /// each system's replicate means once and reuse them for every pair, with the same result.
    pub fn paired_diff_ci(&self, a: &[f64], b: &[f64]) -> (f64, f64, f64) {
        assert_eq!(a.len(), b.len(), "paired vectors differ in length");
        let (low, high) = diff_interval(&self.replicate_means(a), &self.replicate_means(b));
        (mean_diff(a, b), low, high)
    }
}

/// Percentile interval of the replicate differences `ra − rb`.
pub(crate) fn diff_interval(ra: &[f64], rb: &[f64]) -> (f64, f64) {
    let mut d: Vec<f64> = ra.iter().zip(rb).map(|(x, y)| x - y).collect();
    interval95(&mut d)
}

/// Mean of the per-query differences `a − b`; NaN when empty.
pub(crate) fn mean_diff(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() {
        return f64::NAN;
    }
    a.iter().zip(b).map(|(x, y)| x - y).sum::<f64>() / a.len() as f64
}

/// Plain mean; NaN for an empty slice.
pub(crate) fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_replicate_draws_n_items() {
        let plan = Resamples::new(37, 50, 7);
        for r in 0..50 {
            assert_eq!(plan.replicate_counts(r).iter().sum::<u32>(), 37);
            assert_eq!(plan.replicate_indices(r).len(), 37);
        }
    }

    #[test]
    fn same_seed_same_plan_other_seed_other_plan() {
        let a = Resamples::new(20, 10, 1);
        let b = Resamples::new(20, 10, 1);
        let c = Resamples::new(20, 10, 2);
        assert_eq!(a.replicate_counts(3), b.replicate_counts(3));
        assert_ne!(
            (0..10).map(|r| a.replicate_counts(r)).collect::<Vec<_>>(),
            (0..10).map(|r| c.replicate_counts(r)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn replicate_mean_is_count_weighted() {
        let plan = Resamples::new(5, 4, 3);
        let v = [0.5, 1.0, 2.0, 4.0, 8.0];
        let means = plan.replicate_means(&v);
        for (r, m) in means.iter().enumerate() {
            let idx = plan.replicate_indices(r);
            let by_hand = idx.iter().map(|&i| v[i as usize]).sum::<f64>() / 5.0;
            assert!((m - by_hand).abs() < 1e-15);
        }
    }

    #[test]
    fn independent_of_thread_count() {
        let v: Vec<f64> = (0..101).map(|i| ((i * 37) % 11) as f64 / 10.0).collect();
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| Resamples::new(101, 300, 9).mean_ci(&v))
        };
        assert_eq!(run(1), run(3));
    }

    #[test]
    fn batch_columns_bit_identical_to_single() {
        // 37 replicates: two full 16-lane blocks and a partial one; 11 columns: a full and a
        // partial column chunk.
        let plan = Resamples::new(29, 37, 8);
        let cols: Vec<Vec<f64>> = (0..11)
            .map(|j| {
                (0..29)
                    .map(|i| ((i * 13 + j * 7) % 10) as f64 / 9.0)
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = cols.iter().map(|c| c.as_slice()).collect();
        let many = plan.replicate_means_many(&refs);
        for (j, c) in cols.iter().enumerate() {
            assert_eq!(many[j], plan.replicate_means(c));
        }
    }

    #[test]
    fn wide_counts_when_an_item_is_drawn_often() {
        // A count > 255 needs heavy collisions that a uniform plan never produces; exercise the
        // kernel on u32 counts directly: 3 items × one 16-lane block, lanes 0 and 1 used.
        let mut block = vec![0u32; 3 * RB];
        for (i, (c0, c1)) in [(300, 0), (2, 1), (0, 5)].into_iter().enumerate() {
            block[i * RB] = c0;
            block[i * RB + 1] = c1;
        }
        let sums = super::super::kernel::block_sums(&block, &[&[1.0, 2.0, 4.0]]);
        assert_eq!(&sums[..3], &[300.0 + 2.0 * 2.0, 2.0 * 1.0 + 4.0 * 5.0, 0.0]);
        let plan = Resamples::new(1, 3, 1);
        assert_eq!(plan.replicate_counts(2), vec![1]);
    }

    #[test]
    fn ceiling_is_degenerate() {
        let plan = Resamples::new(10, 100, 5);
        let ci = plan.mean_ci(&[1.0; 10]);
        assert_eq!((ci.mean, ci.low, ci.high), (1.0, 1.0, 1.0));
        assert!(ci.degenerate);
        let ci = plan.mean_ci(&[1., 0., 1., 1., 0., 1., 1., 1., 0., 1.]);
        assert!(!ci.degenerate && ci.low < ci.mean && ci.mean < ci.high);
    }

    #[test]
    fn two_item_plan_hand_checked() {
        // With n = 2 each replicate mean of [0, 1] is 0, 0.5 or 1; the interval must be built from
        // exactly these replicate means.
        let plan = Resamples::new(2, 1000, 11);
        let mut means = plan.replicate_means(&[0.0, 1.0]);
        assert!(means.iter().all(|m| [0.0, 0.5, 1.0].contains(m)));
        let ci = plan.mean_ci(&[0.0, 1.0]);
        let (lo, hi) = interval95(&mut means);
        assert_eq!((ci.low, ci.high), (lo, hi));
        assert_eq!((ci.low, ci.high), (0.0, 1.0));
    }

    #[test]
    fn paired_diff_matches_difference_of_vectors() {
        let plan = Resamples::new(6, 200, 4);
        let a = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0];
        let b = [0.0, 0.0, 1.0, 0.0, 1.0, 0.0];
        let (d, lo, hi) = plan.paired_diff_ci(&a, &b);
        assert!((d - 2.0 / 6.0).abs() < 1e-15);
        // replicate by replicate, the difference of means equals the mean of differences
        let diff: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
        let ci = plan.mean_ci(&diff);
        assert!((lo - ci.low).abs() < 1e-15 && (hi - ci.high).abs() < 1e-15);
    }

    #[test]
    fn empty_plan_gives_nan_not_panic() {
        let plan = Resamples::new(0, 10, 1);
        let ci = plan.mean_ci(&[]);
        assert!(ci.mean.is_nan() && ci.low.is_nan());
        let plan = Resamples::new(3, 0, 1);
        assert!(plan.mean_ci(&[1.0, 0.0, 1.0]).low.is_nan());
    }

    #[test]
    fn serialises_with_release_names() {
        let ci = Resamples::new(2, 10, 20260510).mean_ci(&[1.0, 1.0]);
        let j = serde_json::to_value(ci).unwrap();
        let keys: Vec<_> = j.as_object().unwrap().keys().cloned().collect();
        assert_eq!(
            keys,
            [
                "mean",
                "ci95_low",
                "ci95_high",
                "n",
                "bootstrap_samples",
                "seed"
            ]
        );
    }
}
