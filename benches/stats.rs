//! Paper-scale statistics: 939 queries, 24 systems, 12 metric cells (exec / execp / nDCG ×
//! k = 1, 3, 5, 10), B = 5,000 replicates.
//!   (a) every system's interval in every cell (288 intervals), including drawing the plan;
//!   (b) all 276 system pairs × 12 cells (3,312 paired tests) on a prebuilt plan.
//! Baseline in the same run: a naive implementation that draws fresh indices for every call and
//! gathers values per replicate (parallel over calls, so the ratio measures the shared-plan
//! count kernel, not the thread count). The naive (b) runs on one cell only (276 pairs) —
//! compare it with `b_pairs_one_cell`.

use std::sync::OnceLock;

use divan::{black_box, Bencher};
use execscope::stats::{
    intervals_all, pair_indices, pairwise_all, percentile_type7, MetricCell, Resamples,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

const N: usize = 939;
const SYSTEMS: usize = 24;
const B: usize = 5_000;
const SEED: u64 = 20260510;
const KS: [usize; 4] = [1, 3, 5, 10];

fn main() {
    divan::main();
}

/// `cells[c][s]` = per-query vector; cells 0..4 exec@k, 4..8 execp@k, 8..12 nDCG@k.
struct Data {
    cells: Vec<Vec<Vec<f64>>>,
}

// indexes 12 parallel cell groups by system and query; iterators would obscure it
#[allow(clippy::needless_range_loop)]
fn data() -> &'static Data {
    static D: OnceLock<Data> = OnceLock::new();
    D.get_or_init(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut cells = vec![vec![vec![0.0; N]; SYSTEMS]; 12];
        for s in 0..SYSTEMS {
            let skill = 0.05 + 0.3 * s as f64 / SYSTEMS as f64;
            for q in 0..N {
                // rank of the canonical: 1 with probability `skill`, else spread over 2..=15
                let rank = if rng.random_bool(skill) {
                    1
                } else {
                    rng.random_range(2..=15usize)
                };
                let extra = rng.random_range(0..=1usize); // another passing snippet nearby
                for (ki, &k) in KS.iter().enumerate() {
                    let hit = rank <= k;
                    let passing = usize::from(hit) + usize::from(hit && extra == 1 && k > rank);
                    cells[ki][s][q] = f64::from(u8::from(hit));
                    cells[4 + ki][s][q] = passing as f64 / k as f64;
                    cells[8 + ki][s][q] = if hit {
                        1.0 / ((rank + 1) as f64).log2()
                    } else {
                        0.0
                    };
                }
            }
        }
        Data { cells }
    })
}

fn metric_cells(d: &Data) -> Vec<MetricCell<'_>> {
    d.cells
        .iter()
        .enumerate()
        .map(|(c, sys)| MetricCell {
            binary: c < 4,
            per_system: sys.iter().map(|v| v.as_slice()).collect(),
        })
        .collect()
}

fn plan() -> &'static Resamples {
    static P: OnceLock<Resamples> = OnceLock::new();
    P.get_or_init(|| Resamples::new(N, B, SEED))
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn plan_draw() -> Resamples {
    Resamples::new(N, B, SEED)
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn a_all_intervals(bencher: Bencher) {
    let cells = metric_cells(data());
    bencher.bench(|| {
        let plan = Resamples::new(N, B, SEED);
        intervals_all(black_box(&cells), &plan)
    });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn a_all_intervals_naive(bencher: Bencher) {
    let d = data();
    bencher.bench(|| {
        d.cells
            .par_iter()
            .flat_map(|sys| sys.par_iter())
            .map(|v| naive_ci(black_box(v), None))
            .collect::<Vec<_>>()
    });
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn b_all_pairs(bencher: Bencher) {
    let cells = metric_cells(data());
    let plan = plan();
    bencher.bench(|| pairwise_all(black_box(&cells), plan));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn b_pairs_one_cell(bencher: Bencher) {
    let cells = metric_cells(data());
    let one = &cells[..1];
    let plan = plan();
    bencher.bench(|| pairwise_all(black_box(one), plan));
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn b_pairs_one_cell_naive(bencher: Bencher) {
    let sys = &data().cells[0];
    bencher.bench(|| {
        pair_indices(SYSTEMS)
            .into_par_iter()
            .map(|(a, b)| naive_ci(black_box(&sys[a]), Some(&sys[b])))
            .collect::<Vec<_>>()
    });
}

/// The straightforward version: fresh index draws per call, gather per replicate, sort.
fn naive_ci(a: &[f64], b: Option<&[f64]>) -> (f64, f64) {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let n = a.len();
    let mut means: Vec<f64> = (0..B)
        .map(|_| {
            let idx: Vec<usize> = (0..n).map(|_| rng.random_range(0..n)).collect();
            let s: f64 = idx.iter().map(|&i| a[i] - b.map_or(0.0, |b| b[i])).sum();
            s / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    (
        percentile_type7(&means, 0.025),
        percentile_type7(&means, 0.975),
    )
}
