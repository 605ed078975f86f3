//! The score matrix of a dense system: `q · cᵀ` of its query and corpus matrices, cosine (rows
//! scaled by 1/‖row‖ as they are packed into the product) or raw dot, on the fastest GEMM path
//! of this CPU (see [`super::gemm`]); every path gives the same bits.

use super::gemm;
use crate::bundle::{DenseSystem, Similarity};
use ndarray::{s, Array2, ArrayView2, Axis};
use rayon::prelude::*;

/// The factor that L2-normalises a row: 1/‖row‖ (computed in f64, rounded to f32), or None for
/// a zero row (which stays zero; the loader refuses those under cosine).
fn inv_norm(row: ndarray::ArrayView1<f32>) -> Option<f32> {
    let norm = row
        .iter()
        .map(|&x| (x as f64) * (x as f64))
        .sum::<f64>()
        .sqrt();
    factor(norm)
}

fn factor(norm: f64) -> Option<f32> {
    (norm > 0.0).then(|| (1.0 / norm) as f32)
}

/// [`inv_norm`] of every row (1 for a zero row), the same bits: each row's squares are summed
/// in its own order, four rows at a time so the four chains of additions overlap.
fn inv_norms(m: ArrayView2<f32>) -> Vec<f32> {
    let Some(data) = m.as_slice() else {
        return m
            .axis_iter(Axis(0))
            .into_par_iter()
            .map(|r| inv_norm(r).unwrap_or(1.0))
            .collect();
    };
    let d = m.ncols().max(1);
    let mut out = vec![1.0f32; m.nrows()];
    out.par_chunks_mut(4)
        .zip(data.par_chunks(4 * d))
        .for_each(|(out, rows)| {
            let mut acc = [0f64; 4];
            let rows: Vec<&[f32]> = rows.chunks(d).collect();
            if rows.len() == 4 {
                for k in 0..d {
                    for (a, r) in acc.iter_mut().zip(&rows) {
                        *a += (r[k] as f64) * (r[k] as f64);
                    }
                }
            } else {
                for (a, r) in acc.iter_mut().zip(&rows) {
                    *a = r.iter().map(|&x| (x as f64) * (x as f64)).sum();
                }
            }
            for (o, a) in out.iter_mut().zip(acc) {
                *o = factor(a.sqrt()).unwrap_or(1.0);
            }
        });
    out
}

/// L2-normalise every row (cosine); a zero row stays zero (the loader refuses those under cosine).
pub fn normalized(m: ArrayView2<f32>) -> Array2<f32> {
    let mut out = m.to_owned();
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .for_each(|mut row| {
            if let Some(inv) = inv_norm(row.view()) {
                row.mapv_inplace(|x| x * inv);
            }
        });
    out
}

/// Similarity matrix of a dense system: cosine (the dot product of L2-normalised rows) or raw
/// dot. Cosine normalises tile by tile inside the product, so no normalised copy of either
/// matrix is ever made; the values are bit-identical to normalising first.
pub fn dense_scores(sys: &DenseSystem) -> Array2<f32> {
    product_of(sys.similarity, sys.queries.view(), sys.corpus.view())
}

/// [`dense_scores`] of a query and a corpus matrix under a similarity.
pub(super) fn product_of(sim: Similarity, q: ArrayView2<f32>, c: ArrayView2<f32>) -> Array2<f32> {
    match sim {
        Similarity::Cos => {
            let (qi, ci) = (inv_norms(q), inv_norms(c));
            tiled_product(q, c, Some((&qi, &ci)))
        }
        Similarity::Dot => block_product(q, c),
        // Precomputed scores: `c` is the score matrix transposed (see `Similarity::Score`).
        Similarity::Score => c.t().as_standard_layout().into_owned(),
    }
}

/// `q · cᵀ`, computed in parallel over blocks of query rows.
pub fn block_product(q: ArrayView2<f32>, c: ArrayView2<f32>) -> Array2<f32> {
    tiled_product(q, c, None)
}

/// Corpus rows per tile of the product.
const TILE: usize = 1024;

/// `q · cᵀ`: by [`gemm::product_into`] where the CPU runs one of its kernels (AVX-512F or
/// AVX2/FMA), else in parallel blocks of query rows, each multiplied tile by tile of corpus rows by
/// `matrixmultiply` (the same bits). With `scale = (qs, cs)` row i of q is multiplied by qs[i] and
/// row j of c by cs[j] as the tiles are packed (exactly as a scaled copy would hold them, so the
/// product is bit-identical to one over scaled copies: every output element is the same sequence
/// of operations whatever the tiling).
fn tiled_product(
    q: ArrayView2<f32>,
    c: ArrayView2<f32>,
    scale: Option<(&[f32], &[f32])>,
) -> Array2<f32> {
    let nq = q.nrows();
    let nc = c.nrows();
    let d = q.ncols();
    let mut out = Array2::<f32>::zeros((nq, nc));
    if nq == 0 || nc == 0 {
        return out;
    }
    if gemm::product_into(q, scale.map(|s| s.0), c, scale.map(|s| s.1), out.view_mut()) {
        return out;
    }
    // Otherwise (CPUs without AVX2/FMA) `matrixmultiply`, one block of query rows per thread:
    // each call packs the corpus once, so fewer, larger blocks run faster (on 2 cores, 939 rows
    // in 2 blocks ≈ 1.4–1.6× the speed of 8).
    let threads = rayon::current_num_threads().max(1);
    let block = nq.div_ceil(threads).max(16);
    out.axis_chunks_iter_mut(Axis(0), block)
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut chunk)| {
            let start = i * block;
            let rows = chunk.nrows();
            let qb = q.slice(s![start..start + rows, ..]);
            let Some((qs, cs)) = scale else {
                ndarray::linalg::general_mat_mul(1.0, &qb, &c.t(), 0.0, &mut chunk);
                return;
            };
            let mut qn = qb.to_owned();
            for (mut r, &f) in qn.axis_iter_mut(Axis(0)).zip(&qs[start..start + rows]) {
                r.mapv_inplace(|x| x * f);
            }
            let mut tile = Array2::<f32>::zeros((TILE.min(nc), d));
            let mut c0 = 0;
            while c0 < nc {
                let c1 = (c0 + TILE).min(nc);
                let mut t = tile.slice_mut(s![..c1 - c0, ..]);
                t.assign(&c.slice(s![c0..c1, ..]));
                for (mut r, &f) in t.axis_iter_mut(Axis(0)).zip(&cs[c0..c1]) {
                    r.mapv_inplace(|x| x * f);
                }
                let mut o = chunk.slice_mut(s![.., c0..c1]);
                ndarray::linalg::general_mat_mul(1.0, &qn, &t.t(), 0.0, &mut o);
                c0 = c1;
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn cosine_and_dot_scores_by_hand() {
        let sys = |sim| DenseSystem {
            id: "t".into(),
            similarity: sim,
            queries: array![[2.0f32, 0.0]],
            corpus: array![[1.0f32, 0.0], [0.0, 3.0], [3.0, 4.0]],
            invocation: None,
        };
        let cos = dense_scores(&sys(Similarity::Cos));
        assert_eq!(cos.row(0).to_vec(), vec![1.0, 0.0, 0.6]);
        let dot = dense_scores(&sys(Similarity::Dot));
        assert_eq!(dot.row(0).to_vec(), vec![2.0, 0.0, 6.0]);
    }

    #[test]
    fn block_product_matches_plain_dot() {
        let q = Array2::from_shape_fn((37, 5), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
        let c = Array2::from_shape_fn((23, 5), |(i, j)| ((i * 5 + j) % 7) as f32 - 3.0);
        assert_eq!(block_product(q.view(), c.view()), q.dot(&c.t()));
    }

    /// The four-row norms are each row's own norm, bit for bit (zero rows, a short last group,
    /// a strided view).
    #[test]
    fn inv_norms_match_one_row_at_a_time() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut m = Array2::from_shape_fn((11, 37), |_| rng.random_range(-3.0f32..3.0));
        m.row_mut(5).fill(0.0);
        let want: Vec<f32> = m
            .axis_iter(Axis(0))
            .map(|r| inv_norm(r).unwrap_or(1.0))
            .collect();
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&inv_norms(m.view())), bits(&want));
        let t = m.t().to_owned();
        assert_eq!(bits(&inv_norms(t.t())), bits(&want));
    }

    /// The tiled cosine equals the product of normalised copies bit for bit, over several tiles
    /// and uneven query blocks.
    #[test]
    fn tiled_cosine_is_bit_identical_to_normalised_copies() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut m = |r, c| Array2::from_shape_fn((r, c), |_| rng.random_range(-1.0f32..1.0));
        let sys = DenseSystem {
            id: "t".into(),
            similarity: Similarity::Cos,
            queries: m(77, 130),
            corpus: m(2 * TILE + 37, 130),
            invocation: None,
        };
        let want = normalized(sys.queries.view()).dot(&normalized(sys.corpus.view()).t());
        let got = dense_scores(&sys);
        assert!(got
            .iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}
