//! Binomial inference: Wilson score interval, SciPy's two-sided exact binomial test, and the
//! exact McNemar test for paired binary metrics. Definitions: `docs/statistics.md` (source: the
//! ExecRetrieval paper, §4.2).

use statrs::distribution::{Binomial, Discrete, DiscreteCDF};

/// Standard-normal quantile at 0.975: the z of a two-sided 95% interval (scipy `ndtri(0.975)`).
pub const Z95: f64 = 1.959963984540054;

/// SciPy's relative tolerance when deciding which outcomes are "no more likely" than the
/// observed one; without it, symmetric outcomes whose pmf differs in the last bit would be lost.
const RERR: f64 = 1.0 + 1e-7;

/// Wilson score interval for `successes` out of `n`.
///
/// Unlike the percentile bootstrap it does not collapse at the ceiling (3/3 gives a lower bound
/// below 1). The bounds are exactly 0 at `successes == 0` and exactly 1 at `successes == n`, as in
/// `scipy.stats.binomtest(...).proportion_ci(method="wilson")`. With `n == 0` there is no
/// information and the whole range `(0, 1)` is returned; `successes > n` is clamped to `n`.
pub fn wilson(successes: u64, n: u64, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let k = successes.min(n);
    let nf = n as f64;
    let p = k as f64 / nf;
    let q = 1.0 - p;
    let z2 = z * z;
    // Newcombe's form, as SciPy writes it.
    let denom = 2.0 * (nf + z2);
    let center = (2.0 * nf * p + z2) / denom;
    let delta = z / denom * (4.0 * nf * p * q + z2).sqrt();
    let low = if k == 0 { 0.0 } else { center - delta };
    let high = if k == n { 1.0 } else { center + delta };
    (low, high)
}

/// Two-sided exact binomial test p-value for `k` successes in `n` trials under success
/// probability `p`, by SciPy's rule (`scipy.stats.binomtest`): the probability of all outcomes
/// whose pmf is at most the observed pmf × (1 + 1e-7), capped at 1.
///
/// The outcomes on the far side of the mode form a contiguous tail (the pmf is unimodal), found
/// by binary search; both tails are then summed through the CDF / survival function.
/// Returns NaN for `k > n` or `p` outside `[0, 1]`.
pub fn binom_test_two_sided(k: u64, n: u64, p: f64) -> f64 {
    if k > n {
        return f64::NAN;
    }
    let Ok(dist) = Binomial::new(p, n) else {
        return f64::NAN;
    };
    let np = p * n as f64;
    let kf = k as f64;
    if kf == np {
        return 1.0;
    }
    let d = dist.pmf(k) * RERR;
    let pval = if kf < np {
        // Upper tail: outcomes in [ceil(np), n], pmf non-increasing; count those with pmf <= d.
        let start = np.ceil() as u64;
        let first = partition_point(start, n + 1, |x| dist.pmf(x) > d);
        let y = n + 1 - first; // number of upper outcomes at most as likely as k
        let upper = if y == 0 { 0.0 } else { dist.sf(n - y) };
        dist.cdf(k) + upper
    } else {
        // Lower tail: outcomes in [0, floor(np)], pmf non-decreasing; count those with pmf <= d.
        let end = np.floor() as u64;
        let y = partition_point(0, end + 1, |x| dist.pmf(x) <= d);
        let lower = if y == 0 { 0.0 } else { dist.cdf(y - 1) };
        let upper = if k == 0 { 1.0 } else { dist.sf(k - 1) };
        lower + upper
    };
    pval.min(1.0)
}

/// Exact McNemar test from the discordant counts `b` (A-only) and `c` (B-only):
/// `min(1, 2·P[X ≤ min(b, c)])` with `X ~ Binomial(b + c, 1/2)`, and 1 when `b + c == 0`
/// (`docs/statistics.md`, "Comparing two systems"). This equals the two-sided binomial test of
/// `b` successes in `b + c` trials at p = 1/2.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    let n = b + c;
    if n == 0 {
        return 1.0;
    }
    // A pure function of (min(b, c), n), asked for the same arguments many times over by the
    // tie-averaged test (every cell of its discordance grid, for every pair of systems): kept
    // per thread, so a repeat costs a hash lookup instead of an incomplete beta function, and
    // gives the very same bits.
    thread_local! {
        static MEMO: std::cell::RefCell<std::collections::HashMap<(u64, u64), f64, CellHash>> =
            std::cell::RefCell::new(std::collections::HashMap::default());
    }
    let key = (b.min(c), n);
    if let Some(p) = MEMO.with(|m| m.borrow().get(&key).copied()) {
        return p;
    }
    let p = match Binomial::new(0.5, n) {
        Ok(dist) => (2.0 * dist.cdf(key.0)).min(1.0),
        Err(_) => f64::NAN,
    };
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 1 << 20 {
            m.clear();
        }
        m.insert(key, p);
    });
    p
}

/// First `x` in `[lo, hi)` where `pred` is false, assuming `pred` is true then false.
fn partition_point(mut lo: u64, mut hi: u64, pred: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// A multiply-rotate hash for the memo's (min, n) cells (small integers from this process, not
/// from an adversary): the default SipHash was a few percent of a paper-scale report.
#[derive(Default, Clone, Copy)]
struct CellHasher(u64);

impl std::hash::Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

type CellHash = std::hash::BuildHasherDefault<CellHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn wilson_three_of_ten() {
        // p = 0.3, z² = 3.8414588206941236; centre = (6 + z²)/(2(10 + z²)) = 0.355500…,
        // half-width = z·sqrt(8.4 + z²)/(2(10 + z²)) = 0.247717…
        let (lo, hi) = wilson(3, 10, Z95);
        assert!(close(lo, 0.10779126740630104, 1e-12), "{lo}");
        assert!(close(hi, 0.6032218525388546, 1e-12), "{hi}");
    }

    #[test]
    fn wilson_edges() {
        let (lo, hi) = wilson(10, 10, Z95);
        assert_eq!(hi, 1.0);
        // n/(n + z²) = 10/13.8414588… = 0.72246…
        assert!(close(lo, 10.0 / (10.0 + Z95 * Z95), 1e-12));
        assert_eq!(wilson(0, 10, Z95).0, 0.0);
        assert_eq!(wilson(0, 0, Z95), (0.0, 1.0));
    }

    #[test]
    fn mcnemar_hand_computed() {
        // n = 7, P[X <= 1] = (1 + 7)/128 = 1/16 → p = 1/8.
        assert!(close(mcnemar_exact(1, 6), 0.125, 1e-14));
        assert!(close(mcnemar_exact(6, 1), 0.125, 1e-14));
        // n = 10, P[X <= 0] = 1/1024 → p = 2/1024.
        assert!(close(mcnemar_exact(0, 10), 2.0 / 1024.0, 1e-15));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
        assert_eq!(mcnemar_exact(5, 5), 1.0);
        // n = 3, P[X <= 1] = 4/8 → 2 × 0.5 = 1.
        assert_eq!(mcnemar_exact(1, 2), 1.0);
    }

    #[test]
    fn binom_test_hand_computed() {
        // k = 1, n = 7, p = 1/2: tails {0, 1, 6, 7} → (1 + 7 + 7 + 1)/128 = 0.125.
        assert!(close(binom_test_two_sided(1, 7, 0.5), 0.125, 1e-14));
        // k = 3, n = 4, p = 0.25: pmf = [81, 108, 54, 12, 1]/256; outcomes no more likely than
        // pmf(3) = 12/256 are {3, 4} → 13/256.
        assert!(close(binom_test_two_sided(3, 4, 0.25), 13.0 / 256.0, 1e-14));
        // k = 0, n = 4, p = 0.25: pmf(0) = 81/256 ≥ every pmf except pmf(1) → 1 − 108/256.
        assert!(close(
            binom_test_two_sided(0, 4, 0.25),
            148.0 / 256.0,
            1e-14
        ));
        // k = np exactly → 1.
        assert_eq!(binom_test_two_sided(2, 4, 0.5), 1.0);
    }

    #[test]
    fn binom_test_bad_input_is_nan() {
        assert!(binom_test_two_sided(5, 4, 0.5).is_nan());
        assert!(binom_test_two_sided(1, 4, 1.5).is_nan());
    }

    #[test]
    fn mcnemar_equals_binom_test_at_half() {
        for n in 1..40u64 {
            for b in 0..=n {
                let m = mcnemar_exact(b, n - b);
                let t = binom_test_two_sided(b, n, 0.5);
                assert!(close(m, t, 1e-12), "b={b} n={n}: {m} vs {t}");
            }
        }
    }
}
