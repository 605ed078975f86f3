use super::*;
use ndarray::Array2;
use rand::{Rng, SeedableRng};

fn mm(q: &Array2<f32>, c: &Array2<f32>) -> Array2<f32> {
    let mut out = Array2::<f32>::zeros((q.nrows(), c.nrows()));
    ndarray::linalg::general_mat_mul(1.0, q, &c.t(), 0.0, &mut out);
    out
}

/// The order of operations of the module docs, one element at a time: k in blocks of 256,
/// each an accumulator from +0 taking one fused multiply-add per k, the first block stored
/// as acc + 0 and each later one added to what is stored.
fn model(q: &Array2<f32>, c: &Array2<f32>) -> Array2<f32> {
    Array2::from_shape_fn((q.nrows(), c.nrows()), |(i, j)| {
        let (a, b) = (q.row(i), c.row(j));
        let mut stored = 0.0f32;
        for (kb, k0) in (0..q.ncols()).step_by(KC).enumerate() {
            let mut acc = 0.0f32;
            for k in k0..(k0 + KC).min(q.ncols()) {
                acc = a[k].mul_add(b[k], acc);
            }
            stored = if kb == 0 { acc + 0.0 } else { stored + acc };
        }
        stored
    })
}

fn scaled(m: &Array2<f32>, s: &[f32]) -> Array2<f32> {
    let mut m = m.clone();
    for (mut r, &f) in m.rows_mut().into_iter().zip(s) {
        r.mapv_inplace(|x| x * f);
    }
    m
}

/// `q · cᵀ` by `path`, unscaled, into an output that starts as NaN (a cell the kernel skipped
/// shows).
fn product(path: Path, q: &Array2<f32>, c: &Array2<f32>) -> Array2<f32> {
    let mut out = Array2::<f32>::from_elem((q.nrows(), c.nrows()), f32::NAN);
    assert!(product_with(
        path,
        q.view(),
        None,
        c.view(),
        None,
        out.view_mut()
    ));
    out
}

fn same_bits(a: &Array2<f32>, b: &Array2<f32>) -> bool {
    a.dim() == b.dim() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Runs `check` on a kernel this CPU runs; otherwise says by name why `test` is skipped.
fn on(path: Path, test: &str, check: fn(Path)) {
    if path.supported() {
        check(path);
    } else {
        eprintln!("skipped {test}: this CPU cannot run {}", path.name());
    }
}

/// Every shape class against `matrixmultiply` and the model, bit for bit: partial 6- and
/// 8-row and 16- and 32-column panels (a last panel of one column, a corpus narrower than one
/// vector), k below, at and above 256 and not a multiple of it, several query blocks (past
/// MC, unequal), scaled and unscaled operands, and signed zeros.
fn bit_identical_to_matrixmultiply(path: Path) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let shapes = [
        (1, 1, 1),
        (5, 7, 3),
        (6, 16, 256),
        (12, 32, 256),
        (13, 37, 255),
        (7, 17, 257),
        (11, 33, 513),
        (25, 63, 100),
        (24, 64, 512),
        (100, 1030, 300),
        (97, 40, 768),
        (20, 33, 1100),
        (481, 45, 260),
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
            let (q1, c1) = if scale {
                (scaled(&q, &qs), scaled(&c, &cs))
            } else {
                (q.clone(), c.clone())
            };
            let want = mm(&q1, &c1);
            assert!(
                same_bits(&want, &model(&q1, &c1)),
                "model m={m} n={n} d={d}"
            );
            let mut got = Array2::<f32>::from_elem((m, n), f32::NAN);
            let (a, b) = if scale {
                (Some(&qs[..]), Some(&cs[..]))
            } else {
                (None, None)
            };
            assert!(product_with(path, q.view(), a, c.view(), b, got.view_mut()));
            assert!(
                same_bits(&got, &want),
                "{path:?} m={m} n={n} d={d} scale={scale}"
            );
        }
    }
}

#[test]
fn avx512_bit_identical_to_matrixmultiply() {
    on(
        Path::Avx512,
        "avx512_bit_identical_to_matrixmultiply",
        bit_identical_to_matrixmultiply,
    );
}

#[test]
fn avx2_bit_identical_to_matrixmultiply() {
    on(
        Path::Avx2,
        "avx2_bit_identical_to_matrixmultiply",
        bit_identical_to_matrixmultiply,
    );
}

/// Strided operands (a transposed view) give the same bits as contiguous ones.
fn strided_operands(path: Path) {
    let q = Array2::from_shape_fn((29, 300), |(i, k)| {
        ((i * 31 + k * 7) % 19) as f32 * 0.1 - 0.9
    });
    let ct = Array2::from_shape_fn((300, 45), |(k, j)| {
        ((j * 13 + k * 3) % 17) as f32 * 0.1 - 0.8
    });
    let c = ct.t();
    let qs: Vec<f32> = (0..29).map(|i| 0.3 + i as f32 * 0.11).collect();
    let cs: Vec<f32> = (0..45).map(|j| 1.1 - j as f32 * 0.013).collect();
    let mut got = Array2::<f32>::zeros((29, 45));
    assert!(product_with(path, q.view(), None, c, None, got.view_mut()));
    assert!(same_bits(&got, &mm(&q, &c.to_owned())), "{path:?}");
    let qt = q.t().to_owned();
    assert!(product_with(
        path,
        qt.t(),
        Some(&qs),
        c,
        Some(&cs),
        got.view_mut()
    ));
    let want = mm(&scaled(&q, &qs), &scaled(&c.to_owned(), &cs));
    assert!(same_bits(&got, &want), "{path:?} scaled");
}

#[test]
fn avx512_strided_operands() {
    on(Path::Avx512, "avx512_strided_operands", strided_operands);
}

#[test]
fn avx2_strided_operands() {
    on(Path::Avx2, "avx2_strided_operands", strided_operands);
}

/// A block sum that underflows to −0 (every product too small for an f32, the last one
/// negative) is stored as +0 by every kernel here, as `matrixmultiply`'s AVX2/FMA kernel
/// stores it (acc + 0); a later block adds to it; a sum of exact zeros of either sign is +0.
fn underflow_and_signed_zeros(path: Path) {
    let tiny = 1e-30f32;
    let (m, n, d) = (14, 35, 300);
    let q = Array2::from_shape_fn((m, d), |(i, k)| match (i + k) % 3 {
        0 => -tiny,
        1 => -0.0,
        _ => 0.0,
    });
    let c = Array2::from_shape_fn((n, d), |(j, k)| if (j + k) % 2 == 0 { tiny } else { -0.0 });
    let want = model(&q, &c);
    assert!(
        want.iter().all(|x| x.to_bits() == 0),
        "the model's sums are all +0"
    );
    let got = product(path, &q, &c);
    assert!(same_bits(&got, &want), "{path:?}");
    // One row of the first block: -tiny · tiny only, then later blocks of ordinary values.
    let mut q2 = Array2::<f32>::zeros((3, d));
    let mut c2 = Array2::<f32>::zeros((2, d));
    q2.row_mut(0).fill(-tiny);
    c2.row_mut(0).fill(tiny);
    q2[[1, 299]] = 0.5;
    c2[[1, 299]] = -0.25;
    let got = product(path, &q2, &c2);
    assert!(same_bits(&got, &model(&q2, &c2)), "{path:?}");
    assert!(same_bits(&got, &mm(&q2, &c2)), "{path:?} vs matrixmultiply");
    assert_eq!(
        got[[0, 0]].to_bits(),
        0,
        "an underflowed −0 block sum is stored as +0"
    );
    assert_eq!(got[[1, 1]], -0.125);
}

#[test]
fn avx512_underflow_and_signed_zeros() {
    on(
        Path::Avx512,
        "avx512_underflow_and_signed_zeros",
        underflow_and_signed_zeros,
    );
}

#[test]
fn avx2_underflow_and_signed_zeros() {
    on(
        Path::Avx2,
        "avx2_underflow_and_signed_zeros",
        underflow_and_signed_zeros,
    );
}

/// The two kernels give the same bits on a product of the paper's shape class (several
/// query blocks per thread, a corpus that ends in a partial panel of both widths, k past two
/// blocks), scaled as cosine scales it.
#[test]
fn avx512_and_avx2_kernels_agree() {
    // The AVX-512F kernel's CPUs run the AVX2/FMA one too (`Path::supported`).
    on(Path::Avx512, "avx512_and_avx2_kernels_agree", |_| {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut r =
            |rows, cols| Array2::from_shape_fn((rows, cols), |_| rng.random_range(-1.0f32..1.0));
        let (q, c) = (r(523, 600), r(1043, 600));
        let qs: Vec<f32> = (0..523).map(|i| 0.02 + i as f32 * 1e-4).collect();
        let cs: Vec<f32> = (0..1043).map(|j| 0.05 - j as f32 * 1e-5).collect();
        let run = |path| {
            let mut out = Array2::<f32>::from_elem((523, 1043), f32::NAN);
            assert!(product_with(
                path,
                q.view(),
                Some(&qs),
                c.view(),
                Some(&cs),
                out.view_mut()
            ));
            out
        };
        assert!(same_bits(&run(Path::Avx512), &run(Path::Avx2)));
    });
}

/// The packing buffers kept between products hold the last product's panels: a product
/// after one over NaN (larger, so every buffer holds NaN past the new panels' end) must
/// still give `matrixmultiply`'s bits, partial panels (their zero rows) included.
fn stale_packing_buffers_never_leak(path: Path) {
    let nan = |r, c| Array2::<f32>::from_elem((r, c), f32::NAN);
    let mut big = Array2::<f32>::zeros((150, 200));
    assert!(product_with(
        path,
        nan(150, 300).view(),
        None,
        nan(200, 300).view(),
        None,
        big.view_mut()
    ));
    assert!(big.iter().all(|x| x.is_nan()));
    let q = Array2::from_shape_fn((37, 290), |(i, k)| ((i * 7 + k) % 13) as f32 - 6.0);
    let c = Array2::from_shape_fn((53, 290), |(j, k)| ((j * 5 + k * 3) % 11) as f32 - 5.0);
    for _ in 0..3 {
        let got = product(path, &q, &c);
        assert!(same_bits(&got, &mm(&q, &c)), "{path:?}");
    }
}

#[test]
fn avx512_stale_packing_buffers_never_leak() {
    on(
        Path::Avx512,
        "avx512_stale_packing_buffers_never_leak",
        stale_packing_buffers_never_leak,
    );
}

#[test]
fn avx2_stale_packing_buffers_never_leak() {
    on(
        Path::Avx2,
        "avx2_stale_packing_buffers_never_leak",
        stale_packing_buffers_never_leak,
    );
}

/// The kernel the product takes: the widest one this CPU runs.
#[test]
fn path_is_the_widest_supported_kernel() {
    let want = Path::ALL.into_iter().find(|p| p.supported());
    assert_eq!(path(), want);
    assert_eq!(preferred(), want.is_some());
    if Path::Avx512.supported() {
        assert_eq!(path(), Some(Path::Avx512));
    }
}
