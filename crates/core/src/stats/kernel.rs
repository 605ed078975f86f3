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
///
/// Compiled three times, for AVX-512, AVX2 and the baseline, and chosen at run time: wider
/// vectors do the same multiplications and additions in the same order (Rust never fuses a
/// multiply and an add), so every path gives the same bits.
pub(super) fn block_sums<C>(block: &[C], columns: &[&[f64]]) -> Vec<f64>
where
    C: Copy,
    f64: From<C>,
{
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { block_sums_avx512(block, columns) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { block_sums_avx2(block, columns) };
        }
    }
    block_sums_generic(block, columns)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn block_sums_avx512<C>(block: &[C], columns: &[&[f64]]) -> Vec<f64>
where
    C: Copy,
    f64: From<C>,
{
    block_sums_generic(block, columns)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_sums_avx2<C>(block: &[C], columns: &[&[f64]]) -> Vec<f64>
where
    C: Copy,
    f64: From<C>,
{
    block_sums_generic(block, columns)
}

#[inline(always)]
fn block_sums_generic<C>(block: &[C], columns: &[&[f64]]) -> Vec<f64>
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every compiled path gives the baseline's bits (on counts and values that make rounding
    /// matter: thirds, large and tiny magnitudes).
    #[test]
    fn every_path_gives_the_same_bits() {
        let n = 257;
        let counts: Vec<u16> = (0..n * RB).map(|i| ((i * 7919) % 5) as u16).collect();
        let cols: Vec<Vec<f64>> = (0..11)
            .map(|c| {
                (0..n)
                    .map(|i| ((i * 31 + c * 17) % 97) as f64 / 3.0 * 10f64.powi((i % 7) as i32 - 3))
                    .collect()
            })
            .collect();
        let refs: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        let base = bits(block_sums_generic(&counts, &refs));
        assert_eq!(bits(block_sums(&counts, &refs)), base);
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                assert_eq!(bits(unsafe { block_sums_avx2(&counts, &refs) }), base);
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                assert_eq!(bits(unsafe { block_sums_avx512(&counts, &refs) }), base);
            }
        }
    }
}
