//! The score GEMM on AVX-512F and on AVX2/FMA: `out = (q·diag(qs)) · (c·diag(cs))ᵀ`, bit for bit
//! what `matrixmultiply`'s AVX2/FMA sgemm computes on the same inputs, at close to the FMA units'
//! peak.
//!
//! # Why the bits are the same
//!
//! `matrixmultiply` (0.3, AVX2/FMA path) computes every output element the same way whatever the
//! matrix shapes and blocking: the inner dimension is cut into blocks of [`KC`] = 256 (the last one
//! shorter); within a block an accumulator starts at +0 and takes one fused multiply-add per k, in
//! increasing k; the first block's accumulator is stored as `fma(1, acc, +0)` (= `acc + 0`, which
//! turns a −0 into +0), and every later block adds its accumulator to the stored value with one
//! rounding (`fma(1, acc, c)` = `c + acc`). Both kernels here do exactly those operations per
//! element, only blocked for more independent accumulators; a wider vector changes which output
//! elements are computed side by side, never the order of one element's operations:
//!
//! - AVX2/FMA: 6 query rows × 16 corpus rows (12 ymm accumulators, against `matrixmultiply`'s 8),
//!   which keeps both FMA pipes busy through their latency;
//! - AVX-512F: 8 query rows × 32 corpus rows (16 zmm accumulators); where `matrixmultiply`'s
//!   AVX-512 kernel packs the corpus again in every call, it is packed once for all threads.
//!
//! Scaling by `qs`/`cs` (cosine's 1/‖row‖) happens as the panels are packed, one f32 multiply per
//! element, exactly as a scaled copy would hold it. Tests compare every shape class (partial row and
//! column panels, k not a multiple of 256, k < 256) with `matrixmultiply` bit for bit, both kernels
//! with each other, and both with a scalar model of the order above.
//!
//! `matrixmultiply`'s own AVX-512 kernel (off in this workspace) differs in one corner: it stores
//! the first block's accumulator as `1 · acc`, so a block sum that underflows to −0 stays −0 where
//! the AVX2/FMA kernel stores +0. The kernels here follow the AVX2/FMA kernel on every CPU.
//!
//! # Blocking
//!
//! For each 256-wide block of k, the corpus is packed once into `NR`-row panels (k-major, 16 KB
//! (AVX2) or 32 KB (AVX-512) a panel; 4.8 MB for 4,695 rows, shared by the threads, in L3), the
//! threads splitting the panels. Then each thread packs its blocks of query rows into `MR`-row
//! panels (in L2) and walks every corpus panel (in L1 while it meets all the block's query panels).

use ndarray::{ArrayView2, ArrayViewMut2};

/// Inner-dimension block: fixed by the arithmetic (see the module docs), not a tuning knob.
pub const KC: usize = 256;
/// Most query rows in one block (a multiple of both kernels' MR): 240 KB of packed rows at
/// k = 256, held in L2 while each corpus panel (L1) meets all of them.
const MC: usize = 240;

/// One of this module's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// 8 × 32 tiles in zmm registers (x86_64 with AVX-512F, and AVX2/FMA for the packing).
    Avx512,
    /// 6 × 16 tiles in ymm registers (x86_64 with AVX2 and FMA).
    Avx2,
}

impl Path {
    /// Every kernel, widest first.
    pub const ALL: [Path; 2] = [Path::Avx512, Path::Avx2];

    /// Whether this CPU can run the kernel.
    pub fn supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma");
            match self {
                Path::Avx512 => avx2 && std::arch::is_x86_feature_detected!("avx512f"),
                Path::Avx2 => avx2,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = self;
            false
        }
    }

    /// A short name for figures and skip messages.
    pub fn name(self) -> &'static str {
        match self {
            Path::Avx512 => "the AVX-512F kernel (8 x 32)",
            Path::Avx2 => "the AVX2/FMA kernel (6 x 16)",
        }
    }
}

/// The kernel [`product_into`] takes on this CPU: the widest one it supports, or None (then the
/// caller uses `matrixmultiply`, same bits).
pub fn path() -> Option<Path> {
    Path::ALL.into_iter().find(|p| p.supported())
}

/// Whether this CPU can run the AVX2/FMA kernel (x86_64 with AVX2 and FMA).
pub fn available() -> bool {
    Path::Avx2.supported()
}

/// Whether [`product_into`] takes one of this module's kernels here.
pub fn preferred() -> bool {
    path().is_some()
}

/// `out[i][j] = Σ_k (q[i][k]·qs[i]) (c[j][k]·cs[j])` in `matrixmultiply`'s order of operations
/// (a missing scale is 1 and not applied), on [`path`]'s kernel. `out` must be in standard
/// (row-major, contiguous rows) layout; its previous contents are overwritten. Returns false,
/// touching nothing, when no kernel runs here or `out` is not row-major.
pub fn product_into(
    q: ArrayView2<f32>,
    qs: Option<&[f32]>,
    c: ArrayView2<f32>,
    cs: Option<&[f32]>,
    out: ArrayViewMut2<f32>,
) -> bool {
    path().is_some_and(|p| product_with(p, q, qs, c, cs, out))
}

/// [`product_into`] on a given kernel (the tests compare each with `matrixmultiply` on every CPU
/// that supports it). Returns false, touching nothing, when this CPU cannot run it or `out` is
/// not row-major.
pub fn product_with(
    kernel: Path,
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
    if !kernel.supported() {
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
    {
        let (q, c) = (&Operand::new(q, qs), &Operand::new(c, cs));
        // SAFETY: the kernel's features (AVX-512F and AVX2/FMA, or AVX2/FMA) were detected
        // above; every pointer it touches stays inside the packed buffers or `out` (rows × n,
        // checked above).
        unsafe {
            match kernel {
                Path::Avx512 => x86::product::<x86::Avx512>(q, c, out, n),
                Path::Avx2 => x86::product::<x86::Avx2>(q, c, out, n),
            }
        }
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
                (Some(srcs), scale) if srcs.len() == w && w >= 8 => {
                    // Whole panel: groups of 8 rows transposed in registers, the rest one by one.
                    let groups = w / 8;
                    for g in 0..groups {
                        let rows: &[&[f32]; 8] = srcs[g * 8..g * 8 + 8].try_into().unwrap();
                        let f = scale.map(|s| -> &[f32; 8] {
                            s[first + g * 8..first + g * 8 + 8].try_into().unwrap()
                        });
                        // SAFETY: `pack` runs only inside `x86::product`, whose caller checked
                        // AVX2/FMA; `pack8` stays inside `out` (kc rows of w).
                        unsafe { x86::pack8(out, w, g * 8, rows, f, kc) };
                    }
                    for (i, src) in srcs.iter().enumerate().skip(groups * 8) {
                        let f = scale.map(|s| s[first + i]);
                        for (k, o) in out.chunks_exact_mut(w).enumerate() {
                            o[i] = f.map_or(src[k], |f| src[k] * f);
                        }
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

/// `len` floats of `buf` (grown as needed) starting on a 64-byte boundary, so a packed panel's
/// vector loads never straddle two cache lines.
#[cfg(target_arch = "x86_64")]
fn aligned(buf: &mut Vec<f32>, len: usize) -> &mut [f32] {
    buf.resize(len + 16, 0.0);
    let at = buf.as_ptr().align_offset(64).min(16);
    &mut buf[at..at + len]
}

#[cfg(target_arch = "x86_64")]
thread_local! {
    /// The corpus panels of the products this thread starts, kept between products.
    static CORPUS_PANELS: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
    /// The query panels of the blocks this thread runs, kept between blocks and products.
    static QUERY_PANELS: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Most bytes of packing buffer a thread keeps between products (4.8 MB of corpus panels at the
/// release's size; a product over a far larger corpus allocates its own each time).
#[cfg(target_arch = "x86_64")]
const KEEP_BYTES: usize = 64 << 20;

/// Runs `f` with this thread's buffer in `slot`, so consecutive products reuse its pages instead
/// of faulting in and zeroing fresh ones (8 % of the page faults of a cold paper-scale report). The buffer is taken out while in use: a product started on this thread meanwhile
/// (rayon runs other work on a waiting thread) finds the slot empty and allocates its own; the
/// larger of the two is kept.
#[cfg(target_arch = "x86_64")]
fn with_buffer<R>(
    slot: &'static std::thread::LocalKey<std::cell::Cell<Vec<f32>>>,
    f: impl FnOnce(&mut Vec<f32>) -> R,
) -> R {
    let mut buf = slot.take();
    let r = f(&mut buf);
    slot.with(|cell| {
        let other = cell.take();
        let keep = if other.capacity() > buf.capacity() {
            other
        } else {
            buf
        };
        if keep.capacity() * std::mem::size_of::<f32>() <= KEEP_BYTES {
            cell.set(keep);
        }
    });
    r
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{aligned, with_buffer, Operand, CORPUS_PANELS, KC, MC, QUERY_PANELS};
    use rayon::prelude::*;
    use std::arch::x86_64::*;

    /// A micro-kernel: its tile (`MR` query rows × `NR` corpus rows) and the walk of one block
    /// of query rows over every corpus panel.
    pub(super) trait Micro {
        const MR: usize;
        const NR: usize;
        /// `ap`: the block's query rows packed into MR-row panels; `bp`: every corpus panel;
        /// `o`: the block's rows of the output (`n` columns); `first`: the first k-block.
        ///
        /// # Safety
        /// The CPU has the kernel's features; the buffers hold exactly those panels and rows.
        unsafe fn block(ap: &[f32], bp: &[f32], o: &mut [f32], n: usize, kc: usize, first: bool);
    }

    /// 6 × 16 tiles, 12 ymm accumulators (AVX2/FMA).
    pub(super) struct Avx2;

    impl Micro for Avx2 {
        const MR: usize = 6;
        const NR: usize = 16;
        unsafe fn block(ap: &[f32], bp: &[f32], o: &mut [f32], n: usize, kc: usize, first: bool) {
            block_avx2(ap, bp, o, n, kc, first)
        }
    }

    /// 8 × 32 tiles, 16 zmm accumulators (AVX-512F).
    pub(super) struct Avx512;

    impl Micro for Avx512 {
        const MR: usize = 8;
        const NR: usize = 32;
        unsafe fn block(ap: &[f32], bp: &[f32], o: &mut [f32], n: usize, kc: usize, first: bool) {
            block_avx512::<8, 2>(ap, bp, o, n, kc, first)
        }
    }

    /// The whole product, on the current rayon pool: per k-block, the corpus is packed once
    /// (its panels split between the threads) into a buffer all threads read, then each block of
    /// query rows is packed by the thread that owns its output rows and met by every panel.
    pub(super) unsafe fn product<K: Micro>(q: &Operand, c: &Operand, out: &mut [f32], n: usize) {
        let (m, d) = q.m.dim();
        let (mr, nr) = (K::MR, K::NR);
        let threads = rayon::current_num_threads().max(1);
        // At least one query block per thread, none over MC rows, each a multiple of MR.
        let blocks = m.div_ceil(MC).max(threads).min(m.div_ceil(mr));
        let mc = m.div_ceil(blocks).next_multiple_of(mr);
        let panels = n.div_ceil(nr);
        with_buffer(&CORPUS_PANELS, |buf| {
            let bp_all = aligned(buf, panels * KC.min(d) * nr);
            for (kb, k0) in (0..d).step_by(KC).enumerate() {
                let kc = KC.min(d - k0);
                let bp = &mut bp_all[..panels * kc * nr];
                bp.par_chunks_mut(kc * nr).enumerate().for_each(|(p, dst)| {
                    c.pack(dst, p * nr, nr.min(n - p * nr), k0, kc, nr);
                });
                let bp = &*bp;
                out.par_chunks_mut(mc * n).enumerate().for_each(|(ib, o)| {
                    with_buffer(&QUERY_PANELS, |buf| {
                        let rows = o.len() / n;
                        let ap = aligned(buf, rows.div_ceil(mr) * kc * mr);
                        q.pack(ap, ib * mc, rows, k0, kc, mr);
                        // SAFETY: as for `product` (the kernel's features detected by the
                        // caller); `ap`, `bp` and `o` hold exactly the panels and rows `block`
                        // walks.
                        unsafe { K::block(ap, bp, o, n, kc, kb == 0) };
                    })
                });
            }
        })
    }

    /// One block of query rows (`o`: its rows of the output) against every corpus panel.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn block_avx2(ap: &[f32], bp: &[f32], o: &mut [f32], n: usize, kc: usize, first: bool) {
        const MR: usize = Avx2::MR;
        const NR: usize = Avx2::NR;
        let rows = o.len() / n;
        for j0 in (0..n).step_by(NR) {
            let b = bp.as_ptr().add(j0 * kc);
            let cols = NR.min(n - j0);
            for i0 in (0..rows).step_by(MR) {
                let a = ap.as_ptr().add(i0 * kc);
                let dst = o.as_mut_ptr().add(i0 * n + j0);
                tile_avx2(kc, a, b, dst, n, MR.min(rows - i0), cols, first);
            }
        }
    }

    /// One block of query rows against every corpus panel, in `MR` × 16·`NV` tiles.
    #[target_feature(enable = "avx512f")]
    unsafe fn block_avx512<const MR: usize, const NV: usize>(
        ap: &[f32],
        bp: &[f32],
        o: &mut [f32],
        n: usize,
        kc: usize,
        first: bool,
    ) {
        let nr = 16 * NV;
        let rows = o.len() / n;
        for j0 in (0..n).step_by(nr) {
            let b = bp.as_ptr().add(j0 * kc);
            let cols = nr.min(n - j0);
            for i0 in (0..rows).step_by(MR) {
                let a = ap.as_ptr().add(i0 * kc);
                let dst = o.as_mut_ptr().add(i0 * n + j0);
                tile_avx512::<MR, NV>(kc, a, b, dst, n, MR.min(rows - i0), cols, first);
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
    unsafe fn tile_avx2(
        kc: usize,
        a: *const f32,
        b: *const f32,
        dst: *mut f32,
        ld: usize,
        rows: usize,
        cols: usize,
        first: bool,
    ) {
        const MR: usize = Avx2::MR;
        const NR: usize = Avx2::NR;
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

    /// One `MR` × 16·`NV` tile over one k-block (`NV` zmm registers a row): accumulate, then
    /// store (`first`: acc + 0) or add to what is stored; a partial tile (`rows` < MR or `cols`
    /// < 16·NV) reads and writes only its corner, through lane masks.
    #[inline]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile_avx512<const MR: usize, const NV: usize>(
        kc: usize,
        a: *const f32,
        b: *const f32,
        dst: *mut f32,
        ld: usize,
        rows: usize,
        cols: usize,
        first: bool,
    ) {
        let nr = 16 * NV;
        for r in 0..rows {
            let p = dst.add(r * ld);
            for h in 0..NV {
                _mm_prefetch::<_MM_HINT_T0>(p.add((16 * h).min(cols - 1)).cast());
            }
            _mm_prefetch::<_MM_HINT_T0>(p.add(cols - 1).cast());
        }
        let mut acc = [[_mm512_setzero_ps(); NV]; MR];
        for k in 0..kc {
            let bk = b.add(k * nr);
            let bv: [__m512; NV] = std::array::from_fn(|h| _mm512_loadu_ps(bk.add(16 * h)));
            let ak = a.add(k * MR);
            for (r, acc) in acc.iter_mut().enumerate() {
                let x = _mm512_set1_ps(*ak.add(r));
                for (acc, &bv) in acc.iter_mut().zip(&bv) {
                    *acc = _mm512_fmadd_ps(x, bv, *acc);
                }
            }
        }
        if rows == MR && cols == nr {
            for (r, acc) in acc.iter().enumerate() {
                let p = dst.add(r * ld);
                for (h, &v) in acc.iter().enumerate() {
                    let p = p.add(16 * h);
                    let base = if first {
                        _mm512_setzero_ps()
                    } else {
                        _mm512_loadu_ps(p)
                    };
                    _mm512_storeu_ps(p, _mm512_add_ps(base, v));
                }
            }
            return;
        }
        let masks: [__mmask16; NV] = std::array::from_fn(|h| {
            let lanes = cols.saturating_sub(16 * h).min(16);
            ((1u32 << lanes) - 1) as __mmask16
        });
        for (r, acc) in acc.iter().enumerate().take(rows) {
            let p = dst.add(r * ld);
            for ((h, &v), &m) in acc.iter().enumerate().zip(&masks) {
                let p = p.add(16 * h);
                let base = if first {
                    _mm512_setzero_ps()
                } else {
                    _mm512_maskz_loadu_ps(m, p)
                };
                _mm512_mask_storeu_ps(p, m, _mm512_add_ps(base, v));
            }
        }
    }
}

#[cfg(test)]
mod tests;
