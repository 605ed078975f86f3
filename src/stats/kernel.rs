//! The hot loop of every bootstrap: per-replicate weighted sums `Σ_i count[r][i] · value[i]`.
//!
//! The plan stores counts in blocks of 16 replicates, item-major inside a block
//! (`counts[(block * n + i) * RB + lane]`): a block is one contiguous, cache-resident slab, and for
//! one item the counts of its 16 replicates are adjacent, so they are converted to f64 once and
//! multiplied into up to 8 value columns at a time, vectorised across replicates. Each (replicate, column) sum is
//! accumulated strictly in item order starting from 0.0, whatever the block sizes, thread count or
//! number of columns processed together — so a single `mean_ci` call and a whole-leaderboard
//! batch give bit-identical replicate means. Values are expected finite: a non-finite value makes
//! every replicate of its column non-finite (0 · ∞ is NaN), which surfaces as a NaN interval.

/// Replicates per block (vector lanes).
pub(super) const RB: usize = 16;
/// Value columns per pass over a block's counts.
const CB: usize = 8;

/// Sums of every column for the replicates of one block (`block.len() == n * RB`).
/// Returns `[column * RB + lane]`; lanes past the plan's end hold zero counts and are ignored.
pub(super) fn block_sums<C>(block: &[C], columns: &[&[f64]]) -> Vec<f64>
where
    C: Copy,
    f64: From<C>,
{
    let mut out = vec![0.0; columns.len() * RB];
    for (jc, cols) in columns.chunks(CB).enumerate() {
        let mut acc = [[0.0f64; RB]; CB];
        let mut cf = [0.0f64; RB];
        for (i, row) in block.chunks_exact(RB).enumerate() {
            for l in 0..RB {
                cf[l] = f64::from(row[l]);
            }
            for (a, col) in acc.iter_mut().zip(cols) {
                let v = col[i];
                for l in 0..RB {
                    a[l] += cf[l] * v;
                }
            }
        }
        for (j, a) in acc.iter().take(cols.len()).enumerate() {
            let at = (jc * CB + j) * RB;
            out[at..at + RB].copy_from_slice(a);
        }
    }
    out
}
