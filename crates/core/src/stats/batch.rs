//! Whole-leaderboard helpers: every interval and every system pair over many metric cells,
//! in parallel, on one shared resample plan (so all comparisons are paired on the same draws).

use rayon::prelude::*;

use super::pairwise::{is_zero_one, pair_from_replicates_with, PairResult};
use super::resample::{Interval, Resamples};

/// One metric cell (e.g. exec@1) across systems: `per_system[s]` is system s's per-query vector.
#[derive(Debug, Clone)]
pub struct MetricCell<'a> {
    /// Binary metric (exec@k): adds a McNemar test to pair results — exact when every system's
    /// values are 0/1, averaged over tie orders when any holds pass probabilities (decided once
    /// for the whole cell).
    pub binary: bool,
    pub per_system: Vec<&'a [f64]>,
}

/// All cells' results for one system pair `(a, b)`, `a < b` by system index.
#[derive(Debug, Clone, PartialEq)]
pub struct PairRow {
    pub a: usize,
    pub b: usize,
    /// One result per cell, in the order the cells were given.
    pub cells: Vec<PairResult>,
}

/// All pairs `(a, b)` with `a < b` of `n` systems, lexicographic. Pass systems sorted by name to
/// get the release's `"A vs B"` (A < B in byte order) keys in order.
pub fn pair_indices(n: usize) -> Vec<(usize, usize)> {
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect()
}

/// Bootstrap interval of every system in every cell: `result[cell][system]`.
pub fn intervals_all(cells: &[MetricCell<'_>], plan: &Resamples) -> Vec<Vec<Interval>> {
    cells
        .par_iter()
        .map(|cell| {
            let reps = plan.replicate_means_many(&cell.per_system);
            cell.per_system
                .iter()
                .zip(reps)
                .map(|(v, r)| plan.interval_from_means(v, r))
                .collect()
        })
        .collect()
}

/// Every system pair on every cell. Results are identical to calling
/// [`pairwise`](super::pairwise) one by one: each system's replicate means are computed once per
/// cell and each pair's replicate differences taken from them (the replicate mean is linear).
///
/// # Panics
/// If cells list different numbers of systems.
pub fn pairwise_all(cells: &[MetricCell<'_>], plan: &Resamples) -> Vec<PairRow> {
    let n_sys = cells.first().map_or(0, |c| c.per_system.len());
    assert!(
        cells.iter().all(|c| c.per_system.len() == n_sys),
        "every metric cell must list the same systems"
    );
    let reps: Vec<Vec<Vec<f64>>> = cells
        .par_iter()
        .map(|c| plan.replicate_means_many(&c.per_system))
        .collect();
    let zero_one: Vec<bool> = cells
        .iter()
        .map(|c| c.per_system.iter().all(|v| is_zero_one(v)))
        .collect();
    pair_indices(n_sys)
        .into_par_iter()
        .map(|(a, b)| PairRow {
            a,
            b,
            cells: cells
                .iter()
                .zip(&reps)
                .zip(&zero_one)
                .map(|((c, r), &z)| {
                    pair_from_replicates_with(
                        c.per_system[a],
                        c.per_system[b],
                        &r[a],
                        &r[b],
                        c.binary,
                        z,
                    )
                })
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_indices_order() {
        assert_eq!(pair_indices(3), vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(pair_indices(24).len(), 276);
        assert!(pair_indices(1).is_empty());
    }

    #[test]
    fn batch_equals_single_calls() {
        let plan = Resamples::new(5, 300, 2);
        let s0 = [1.0, 0.0, 1.0, 1.0, 0.0];
        let s1 = [0.0, 0.0, 1.0, 1.0, 1.0];
        let s2 = [0.5, 0.25, 1.0, 0.0, 0.0];
        let cells = vec![
            MetricCell {
                binary: true,
                per_system: vec![&s0, &s1, &s2],
            },
            MetricCell {
                binary: false,
                per_system: vec![&s2, &s0, &s1],
            },
        ];
        let rows = pairwise_all(&cells, &plan);
        use crate::stats::pairwise;
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[1].cells[0], pairwise(&s0, &s2, true, &plan));
        assert_eq!(rows[1].cells[1], pairwise(&s2, &s1, false, &plan));
        let cis = intervals_all(&cells, &plan);
        assert_eq!(cis[1][0], plan.mean_ci(&s2));
    }
}
