//! The score GEMM on AVX2/FMA: `out = (q·diag(qs)) · (c·diag(cs))ᵀ`, bit for bit what
//! `matrixmultiply`'s sgemm computes on the same inputs, at close to the FMA units' peak.
//!
//! # Why the bits are the same
//!
//! `matrixmultiply` (0.3, AVX2/FMA path) computes every output element the same way whatever the
//! matrix shapes and blocking: the inner dimension is cut into blocks of [`KC`] = 256 (the last one
//! shorter); within a block an accumulator starts at +0 and takes one fused multiply-add per k, in
//! increasing k; the first block's accumulator is stored as `fma(1, acc, +0)` (= `acc + 0`, which
//! turns a −0 into +0), and every later block adds its accumulator to the stored value with one
//! rounding (`fma(1, acc, c)` = `c + acc`). Its AVX-512 kernel does the same per element. This
//! kernel does exactly those operations per element, only blocked for more independent
//! accumulators: 6 query rows × 16 corpus rows (12 ymm accumulators, against `matrixmultiply`'s 8),
//! which keeps both FMA pipes busy through their latency. Scaling by `qs`/`cs` (cosine's 1/‖row‖)
//! happens as the panels are packed, one f32 multiply per element, exactly as a scaled copy would
//! hold it. Tests compare every shape class (partial row and column panels, k not a multiple of
//! 256, k < 256) with `matrixmultiply` bit for bit.
//!
//! # Blocking
//!
//! For each 256-wide block of k, the corpus is packed once into 16-row panels (k-major, 16 KB a
//! panel; 4.8 MB for 4,695 rows, shared by the threads, in L3), the threads splitting the panels.
//! Then each thread packs its blocks of at most `MC` = 240 query rows into 6-row panels (in L2) and
//! walks every corpus panel (in L1 while it meets all the block's query panels).

use ndarray::{ArrayView2, ArrayViewMut2};

/// Inner-dimension block: fixed by the arithmetic (see the module docs), not a tuning knob.
pub const KC: usize = 256;
/// Query rows per micro-tile.
const MR: usize = 6;
/// Corpus rows per micro-tile (two ymm registers).
const NR: usize = 16;
/// Most query rows in one block (a multiple of MR): 240 KB of packed rows at k = 256, held in L2
/// while each 16-row corpus panel (16 KB, L1) meets all of them.
const MC: usize = 240;

/// Whether this CPU can run this kernel (x86_64 with AVX2 and FMA).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether [`product_into`] takes this kernel: where AVX2/FMA is the widest path. With AVX-512F,
/// `matrixmultiply`'s 16 × 16 AVX-512 kernel (same bits) is faster, so it keeps the product.
pub fn preferred() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        available() && !std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `out[i][j] = Σ_k (q[i][k]·qs[i]) (c[j][k]·cs[j])` in `matrixmultiply`'s order of operations
/// (a missing scale is 1 and not applied). `out` must be in standard (row-major, contiguous rows)
/// layout; its previous contents are overwritten. Returns false, touching nothing, when this
/// kernel is not [`preferred`] here or `out` is not row-major.
pub fn product_into(
    q: ArrayView2<f32>,
    qs: Option<&[f32]>,
    c: ArrayView2<f32>,
    cs: Option<&[f32]>,
    out: ArrayViewMut2<f32>,
) -> bool {
    preferred() && product_with_kernel(q, qs, c, cs, out)
}

/// [`product_into`] on this kernel wherever the CPU has AVX2/FMA (the tests compare it with
/// `matrixmultiply` on every such CPU, AVX-512 ones included).
fn product_with_kernel(
    q: ArrayView2<f32>,
    qs: Option<&[f32]>,
    c: ArrayView2<f32>,
    cs: Option<&[f32]>,
    mut out: ArrayViewMut2<f32>,
) -> bool {
    let (m, d) = q.dim();
    let n = c.nrows();
    assert_eq!(c.ncols(), d, "inner dimensions differ");
    assert_eq!(out.dim(), (m, n), "output shape");
    assert!(qs.is_none_or(|s| s.len() == m) && cs.is_none_or(|s| s.len() == n));
    if !available() {
        return false;
    }
    let Some(out) = out.as_slice_mut() else {
        return false;
    };
    if m == 0 || n == 0 {
        return true;
    }
    if d == 0 {
        out.fill(0.0);
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    // SAFETY: AVX2 and FMA were detected above; every pointer the kernel touches stays inside
    // the packed buffers or `out` (rows × n, checked above).
    unsafe {
        x86::product(&Operand::new(q, qs), &Operand::new(c, cs), out, n);
    }
    true
}

/// A matrix operand: rows with their optional scale.
struct Operand<'a> {
    m: ArrayView2<'a, f32>,
    scale: Option<&'a [f32]>,
}

impl<'a> Operand<'a> {
    fn new(m: ArrayView2<'a, f32>, scale: Option<&'a [f32]>) -> Self {
        Operand { m, scale }
    }

    /// Pack rows `r0..r0+rows` × k `k0..k0+kc` into panels of `w` rows, k-major within a panel
    /// (`dst[p·kc·w + k·w + r]`), rows past the end as zeros. Each element is scaled by its row's
    /// factor with one f32 multiply, as a scaled copy would hold it.
    fn pack(&self, dst: &mut [f32], r0: usize, rows: usize, k0: usize, kc: usize, w: usize) {
        let panels = rows.div_ceil(w);
        debug_assert_eq!(dst.len(), panels * kc * w);
        if !rows.is_multiple_of(w) {
            // The last panel's missing rows are zeros (their products are never stored).
            let tail = &mut dst[(panels - 1) * kc * w..panels * kc * w];
            for o in tail.chunks_exact_mut(w) {
                o[rows % w..].fill(0.0);
            }
        }
        for p in 0..panels {
            let (first, last) = (r0 + p * w, (r0 + (p + 1) * w).min(r0 + rows));
            let out = &mut dst[p * kc * w..(p + 1) * kc * w];
            // Contiguous rows: walk k outermost so the panel is written in order.
            let srcs: Option<Vec<&[f32]>> = (first..last)
                .map(|r| self.m.row(r).to_slice().map(|x| &x[k0..k0 + kc]))
                .collect();
            match (srcs, self.scale) {
                #[cfg(target_arch = "x86_64")]
                (Some(srcs), scale) if w == NR && srcs.len() == NR => {
                    for half in 0..2 {
                        let rows: &[&[f32]; 8] = srcs[half * 8..half * 8 + 8].try_into().unwrap();
                        let f = scale.map(|s| -> &[f32; 8] {
                            s[first + half * 8..first + half * 8 + 8]
                                .try_into()
                                .unwrap()
                        });
                        // SAFETY: `pack` runs only inside `x86::product`, whose caller checked
                        // AVX2/FMA; `pack8` stays inside `out` (kc rows of w = 16).
                        unsafe { x86::pack8(out, w, half * 8, rows, f, kc) };
                    }
                }
                (Some(srcs), None) => {
                    for (k, o) in out.chunks_exact_mut(w).enumerate() {
                        for (o, src) in o.iter_mut().zip(&srcs) {
                            *o = src[k];
                        }
                    }
                }
                (Some(srcs), Some(s)) => {
                    let f = &s[first..last];
                    for (k, o) in out.chunks_exact_mut(w).enumerate() {
                        for ((o, src), &f) in o.iter_mut().zip(&srcs).zip(f) {
                            *o = src[k] * f;
                        }
                    }
                }
                (None, scale) => {
                    for r in first..last {
                        let f = scale.map(|s| s[r]);
                        let row = self.m.row(r);
                        for k in 0..kc {
                            let x = row[k0 + k];
                            out[k * w + r - first] = f.map_or(x, |f| x * f);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{Operand, KC, MC, MR, NR};
    use rayon::prelude::*;
    use std::arch::x86_64::*;

    /// The whole product, on the current rayon pool: per k-block, the corpus is packed once
    /// (its panels split between the threads) into a buffer all threads read, then each block of
    /// query rows is packed by the thread that owns its output rows and met by every panel.
    pub(super) unsafe fn product(q: &Operand, c: &Operand, out: &mut [f32], n: usize) {
        let (m, d) = q.m.dim();
        let threads = rayon::current_num_threads().max(1);
        // At least one query block per thread, none over MC rows, each a multiple of MR.
        let blocks = m.div_ceil(MC).max(threads).min(m.div_ceil(MR));
        let mc = m.div_ceil(blocks).next_multiple_of(MR);
        let panels = n.div_ceil(NR);
        let mut bp = vec![0f32; panels * KC.min(d) * NR];
        for (kb, k0) in (0..d).step_by(KC).enumerate() {
            let kc = KC.min(d - k0);
            let bp = &mut bp[..panels * kc * NR];
            bp.par_chunks_mut(kc * NR).enumerate().for_each(|(p, dst)| {
                c.pack(dst, p * NR, NR.min(n - p * NR), k0, kc, NR);
            });
            let bp = &*bp;
            out.par_chunks_mut(mc * n)
                .enumerate()
                .for_each_init(Vec::new, |ap, (ib, o)| {
                    let rows = o.len() / n;
                    ap.resize(rows.div_ceil(MR) * kc * MR, 0.0);
                    q.pack(ap, ib * mc, rows, k0, kc, MR);
                    // SAFETY: as for `product` (AVX2/FMA detected by the caller); `ap`, `bp`
                    // and `o` hold exactly the panels and rows `block` walks.
                    unsafe { block(ap, bp, o, n, kc, kb == 0) };
                });
        }
    }

    /// One block of query rows (`o`: its rows of the output) against every corpus panel.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block(ap: &[f32], bp: &[f32], o: &mut [f32], n: usize, kc: usize, first: bool) {
        let rows = o.len() / n;
        for j0 in (0..n).step_by(NR) {
            let b = bp.as_ptr().add(j0 * kc);
            let cols = NR.min(n - j0);
            for i0 in (0..rows).step_by(MR) {
                let a = ap.as_ptr().add(i0 * kc);
                let dst = o.as_mut_ptr().add(i0 * n + j0);
                tile(kc, a, b, dst, n, MR.min(rows - i0), cols, first);
            }
        }
    }

    /// Eight contiguous rows' `kc` values (each times its factor, one f32 multiply, when `f` is
    /// given) into columns `col..col + 8` of a k-major panel of width `w`: 8 × 8 blocks are
    /// loaded a row at a time, transposed in registers and stored a k at a time.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn pack8(
        out: &mut [f32],
        w: usize,
        col: usize,
        rows: &[&[f32]; 8],
        f: Option<&[f32; 8]>,
        kc: usize,
    ) {
        assert!(col + 8 <= w && out.len() >= kc * w && rows.iter().all(|r| r.len() >= kc));
        let scale = f.map(|f| f.map(|x| _mm256_set1_ps(x)));
        let full = kc / 8 * 8;
        for k in (0..full).step_by(8) {
            let mut r: [__m256; 8] =
                std::array::from_fn(|i| _mm256_loadu_ps(rows[i].as_ptr().add(k)));
            if let Some(sc) = &scale {
                for (r, s) in r.iter_mut().zip(sc) {
                    *r = _mm256_mul_ps(*r, *s);
                }
            }
            let t = transpose8(r);
            for (j, v) in t.iter().enumerate() {
                _mm256_storeu_ps(out.as_mut_ptr().add((k + j) * w + col), *v);
            }
        }
        for k in full..kc {
            for (i, row) in rows.iter().enumerate() {
                let x = row[k];
                out[k * w + col + i] = f.map_or(x, |f| x * f[i]);
            }
        }
    }

    /// Columns of an 8 × 8 block given as its rows: `out[j][i] = r[i][j]`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn transpose8(r: [__m256; 8]) -> [__m256; 8] {
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ]
    }

    /// One 6 × 16 tile over one k-block: accumulate, then store (`first`: acc + 0) or add to
    /// what is stored. `rows`/`cols` below 6/16 store only that corner.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile(
        kc: usize,
        a: *const f32,
        b: *const f32,
        dst: *mut f32,
        ld: usize,
        rows: usize,
        cols: usize,
        first: bool,
    ) {
        // The tile's output lines are read back (or first written) after the k loop: fetch them
        // now, while the loop runs (they are usually out of L2 by then).
        for r in 0..rows {
            let p = dst.add(r * ld);
            _mm_prefetch::<_MM_HINT_T0>(p.cast());
            _mm_prefetch::<_MM_HINT_T0>(p.add(cols - 1).cast());
        }
        let mut acc = [[_mm256_setzero_ps(); 2]; MR];
        for k in 0..kc {
            let b0 = _mm256_loadu_ps(b.add(k * NR));
            let b1 = _mm256_loadu_ps(b.add(k * NR + 8));
            let ak = a.add(k * MR);
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm256_broadcast_ss(&*ak.add(r));
                acc[0] = _mm256_fmadd_ps(x, b0, acc[0]);
                acc[1] = _mm256_fmadd_ps(x, b1, acc[1]);
            }
        }
        if rows == MR && cols == NR {
            for (r, acc) in acc.iter().enumerate() {
                let p = dst.add(r * ld);
                for (h, &v) in acc.iter().enumerate() {
                    let p = p.add(h * 8);
                    let base = if first {
                        _mm256_setzero_ps()
                    } else {
                        _mm256_loadu_ps(p)
                    };
                    _mm256_storeu_ps(p, _mm256_add_ps(base, v));
                }
            }
            return;
        }
        let mut buf = [[0f32; NR]; MR];
        for (r, acc) in acc.iter().enumerate() {
            _mm256_storeu_ps(buf[r].as_mut_ptr(), acc[0]);
            _mm256_storeu_ps(buf[r].as_mut_ptr().add(8), acc[1]);
        }
        for (r, row) in buf.iter().enumerate().take(rows) {
            let p = dst.add(r * ld);
            for (j, &v) in row.iter().enumerate().take(cols) {
                let base = if first { 0.0 } else { *p.add(j) };
                *p.add(j) = base + v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};

    fn mm(q: &Array2<f32>, c: &Array2<f32>) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((q.nrows(), c.nrows()));
        ndarray::linalg::general_mat_mul(1.0, q, &c.t(), 0.0, &mut out);
        out
    }

    fn scaled(m: &Array2<f32>, s: &[f32]) -> Array2<f32> {
        let mut m = m.clone();
        for (mut r, &f) in m.rows_mut().into_iter().zip(s) {
            r.mapv_inplace(|x| x * f);
        }
        m
    }

    /// Every shape class against `matrixmultiply`, bit for bit: partial 6-row and 16-column
    /// panels, k below, at and above 256 and not a multiple of it, blocks past MC and NC, scaled
    /// and unscaled operands, and signed zeros.
    #[test]
    fn bit_identical_to_matrixmultiply() {
        if !available() {
            eprintln!("skipped bit_identical_to_matrixmultiply: this CPU has no AVX2/FMA");
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let shapes = [
            (1, 1, 1),
            (5, 7, 3),
            (6, 16, 256),
            (13, 37, 255),
            (7, 17, 257),
            (100, 1030, 300),
            (97, 40, 768),
            (20, 33, 1100),
        ];
        for &(m, n, d) in &shapes {
            let mut r = |rows, cols| {
                Array2::from_shape_fn((rows, cols), |_| match rng.random_range(0..20) {
                    0 => 0.0,
                    1 => -0.0,
                    _ => rng.random_range(-1.0f32..1.0),
                })
            };
            let (q, c) = (r(m, d), r(n, d));
            let qs: Vec<f32> = (0..m).map(|i| 0.5 + i as f32 * 0.37).collect();
            let cs: Vec<f32> = (0..n).map(|j| 1.3 - j as f32 * 0.001).collect();
            for scale in [false, true] {
                let want = if scale {
                    mm(&scaled(&q, &qs), &scaled(&c, &cs))
                } else {
                    mm(&q, &c)
                };
                let mut got = Array2::<f32>::from_elem((m, n), f32::NAN);
                let (a, b) = if scale {
                    (Some(&qs[..]), Some(&cs[..]))
                } else {
                    (None, None)
                };
                assert!(product_with_kernel(
                    q.view(),
                    a,
                    c.view(),
                    b,
                    got.view_mut()
                ));
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "m={m} n={n} d={d} scale={scale}");
            }
        }
    }

    /// Strided operands (a transposed view) give the same bits as contiguous ones.
    #[test]
    fn strided_operands() {
        if !available() {
            eprintln!("skipped strided_operands: this CPU has no AVX2/FMA");
            return;
        }
        let q = Array2::from_shape_fn((9, 300), |(i, k)| {
            ((i * 31 + k * 7) % 19) as f32 * 0.1 - 0.9
        });
        let ct = Array2::from_shape_fn((300, 21), |(k, j)| {
            ((j * 13 + k * 3) % 17) as f32 * 0.1 - 0.8
        });
        let c = ct.t();
        let mut got = Array2::<f32>::zeros((9, 21));
        assert!(product_with_kernel(q.view(), None, c, None, got.view_mut()));
        assert_eq!(got, mm(&q, &c.to_owned()));
    }
}
