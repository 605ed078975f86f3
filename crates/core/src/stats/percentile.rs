//! Type-7 (linear interpolation) sample quantiles, numpy's default `np.percentile` method.
//!
//! Every interval in the tool (query bootstrap, task-cluster bootstrap) is a percentile interval,
//! and the papers state type-7 explicitly, so this is the one quantile definition the crate uses.

/// Quantile `q` in `[0, 1]` of an ascending-sorted slice by type-7 linear interpolation:
/// `h = (n − 1)·q`, `x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋])`.
///
/// The interpolation mirrors numpy's `_lerp` (it interpolates from the upper neighbour when the
/// weight is ≥ 0.5) so results agree with `numpy.percentile` to the last bit or two.
/// Returns NaN for an empty slice or a `q` outside `[0, 1]` (or NaN): there is no quantile to
/// report, and NaN cannot be mistaken for one. The caller must pass sorted data; this is
/// checked only in debug builds because sorting is the caller's hot path.
pub fn percentile_type7(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    debug_assert!(
        sorted
            .windows(2)
            .all(|w| w[0] <= w[1] || w[0].is_nan() || w[1].is_nan()),
        "percentile_type7 needs ascending input"
    );
    let h = (n - 1) as f64 * q;
    let lo = (h.floor() as usize).min(n - 1);
    let hi = (lo + 1).min(n - 1);
    let t = h - lo as f64;
    lerp(sorted[lo], sorted[hi], t)
}

/// numpy's `_lerp`: `a + (b−a)·t`, or `b − (b−a)·(1−t)` when `t ≥ 0.5` (better rounding near b).
fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let diff = b - a;
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// The 2.5 / 97.5 type-7 percentiles of an unsorted buffer — the 95% percentile interval used by
/// every bootstrap here. Uses selection (O(n)) instead of a full sort; the result equals
/// `percentile_type7` on the sorted buffer. Reorders `buf`. NaN orders after +∞ (total order).
pub(crate) fn interval95(buf: &mut [f64]) -> (f64, f64) {
    (quantile_select(buf, 0.025), quantile_select(buf, 0.975))
}

/// Type-7 quantile of an unsorted buffer by selecting the two order statistics it interpolates.
fn quantile_select(buf: &mut [f64], q: f64) -> f64 {
    let n = buf.len();
    if n == 0 || !(0.0..=1.0).contains(&q) {
        return f64::NAN;
    }
    let h = (n - 1) as f64 * q;
    let lo = (h.floor() as usize).min(n - 1);
    let (_, &mut a, right) = buf.select_nth_unstable_by(lo, f64::total_cmp);
    // the next order statistic is the smallest element to the right of the pivot
    let b = right.iter().copied().min_by(f64::total_cmp).unwrap_or(a);
    lerp(a, b, h - lo as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_quartiles() {
        let x = [1.0, 2.0, 3.0, 4.0];
        // h = 3 × 0.025 = 0.075 → 1 + 0.075 × (2 − 1) = 1.075
        assert!((percentile_type7(&x, 0.025) - 1.075).abs() < 1e-15);
        // h = 3 × 0.975 = 2.925 → 3 + 0.925 × 1 = 3.925
        assert!((percentile_type7(&x, 0.975) - 3.925).abs() < 1e-15);
        // h = 1.5 → 2.5 (the median)
        assert_eq!(percentile_type7(&x, 0.5), 2.5);
        assert_eq!(percentile_type7(&x, 0.0), 1.0);
        assert_eq!(percentile_type7(&x, 1.0), 4.0);
    }

    #[test]
    fn single_element_and_bad_input() {
        assert_eq!(percentile_type7(&[7.0], 0.3), 7.0);
        assert!(percentile_type7(&[], 0.5).is_nan());
        assert!(percentile_type7(&[1.0, 2.0], 1.5).is_nan());
        assert!(percentile_type7(&[1.0, 2.0], f64::NAN).is_nan());
    }

    #[test]
    fn interval95_unsorted_equals_sorted() {
        let mut v = [4.0, 1.0, 3.0, 2.0];
        let (lo, hi) = interval95(&mut v);
        assert!((lo - 1.075).abs() < 1e-15 && (hi - 3.925).abs() < 1e-15);
        // pseudo-random buffers of many sizes, with ties
        for n in 1..200usize {
            let mut v: Vec<f64> = (0..n).map(|i| ((i * 7919) % 97) as f64 / 8.0).collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            let want = (
                percentile_type7(&sorted, 0.025),
                percentile_type7(&sorted, 0.975),
            );
            assert_eq!(interval95(&mut v), want, "n = {n}");
        }
        assert!(interval95(&mut []).0.is_nan());
    }
}
