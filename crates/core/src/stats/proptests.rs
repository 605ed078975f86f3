//! Property tests: invariants that hold for every input, not just the hand-checked ones.

use proptest::prelude::*;

use super::*;

fn vec01(n: usize) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(prop_oneof![Just(0.0), Just(1.0)], n)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn paired_ci_of_identical_vectors_is_zero(v in prop::collection::vec(-3.0f64..3.0, 1..60), seed in any::<u64>()) {
        let plan = Resamples::new(v.len(), 200, seed);
        prop_assert_eq!(plan.paired_diff_ci(&v, &v), (0.0, 0.0, 0.0));
    }

    #[test]
    fn paired_ci_is_antisymmetric((a, b) in (1usize..50).prop_flat_map(|n| (vec01(n), vec01(n))), seed in any::<u64>()) {
        let plan = Resamples::new(a.len(), 300, seed);
        let (d1, lo1, hi1) = plan.paired_diff_ci(&a, &b);
        let (d2, lo2, hi2) = plan.paired_diff_ci(&b, &a);
        prop_assert!((d1 + d2).abs() < 1e-12);
        prop_assert!((lo1 + hi2).abs() < 1e-12 && (hi1 + lo2).abs() < 1e-12);
    }

    #[test]
    fn mean_ci_within_data_range(v in prop::collection::vec(-5.0f64..5.0, 1..80), seed in any::<u64>()) {
        // Every replicate mean is an average of data points, so the percentiles lie in [min, max].
        let plan = Resamples::new(v.len(), 200, seed);
        let ci = plan.mean_ci(&v);
        let lo = v.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(ci.low <= ci.high);
        prop_assert!(ci.low >= lo - 1e-12 && ci.high <= hi + 1e-12);
        prop_assert_eq!(ci.degenerate, ci.low == ci.high);
    }

    #[test]
    fn holm_bounds_and_monotone(p in prop::collection::vec(0.0f64..=1.0, 0..40)) {
        let adj = holm(&p);
        for i in 0..p.len() {
            prop_assert!(adj[i] >= p[i] && adj[i] <= 1.0);
            for j in 0..p.len() {
                if p[i] <= p[j] {
                    prop_assert!(adj[i] <= adj[j]);
                }
            }
        }
    }

    #[test]
    fn wilson_contains_point_estimate(n in 1u64..5000, frac in 0.0f64..=1.0) {
        let k = ((n as f64) * frac).round() as u64;
        let (lo, hi) = wilson(k, n, Z95);
        let p = k as f64 / n as f64;
        prop_assert!(0.0 <= lo && lo <= p + 1e-12 && p <= hi + 1e-12 && hi <= 1.0);
    }

    #[test]
    fn mcnemar_symmetric_and_valid(b in 0u64..500, c in 0u64..500) {
        let p = mcnemar_exact(b, c);
        prop_assert_eq!(p, mcnemar_exact(c, b));
        prop_assert!(p > 0.0 && p <= 1.0);
        if b == c { prop_assert_eq!(p, 1.0); }
    }

    #[test]
    fn binom_test_is_a_probability(n in 1u64..600, frac in 0.0f64..=1.0, p in 0.0f64..=1.0) {
        let k = ((n as f64) * frac).round() as u64;
        let v = binom_test_two_sided(k, n, p);
        prop_assert!((0.0..=1.0).contains(&v));
    }

    #[test]
    fn spearman_rank_invariances(x in prop::collection::vec(0u8..6, 2..50), y in prop::collection::vec(0u8..6, 2..50)) {
        let n = x.len().min(y.len());
        let x: Vec<f64> = x[..n].iter().map(|&v| f64::from(v)).collect();
        let y: Vec<f64> = y[..n].iter().map(|&v| f64::from(v)).collect();
        let ranks = average_ranks(&x);
        let total: f64 = ranks.iter().sum();
        prop_assert!((total - (n * (n + 1)) as f64 / 2.0).abs() < 1e-9);
        let r = spearman(&x, &y);
        prop_assert_eq!(r, spearman(&y, &x));
        // strictly increasing transform of x leaves ρ unchanged
        let tx: Vec<f64> = x.iter().map(|v| (v * 0.7).exp() - 3.0).collect();
        match (r, spearman(&tx, &y)) {
            (Some(a), Some(b)) => prop_assert!((a - b).abs() < 1e-12 && (-1.0..=1.0).contains(&a)),
            (None, None) => {}
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn percentile_monotone_and_bounded(mut x in prop::collection::vec(-9.0f64..9.0, 1..100), q1 in 0.0f64..=1.0, q2 in 0.0f64..=1.0) {
        x.sort_by(f64::total_cmp);
        let (a, b) = (percentile_type7(&x, q1.min(q2)), percentile_type7(&x, q1.max(q2)));
        prop_assert!(a <= b);
        prop_assert!(x[0] <= a && b <= x[x.len() - 1]);
    }

    #[test]
    fn cluster_interval_consistent(nd in prop::collection::vec((0u8..4, 0u8..4), 0..12), seed in any::<u64>()) {
        let den: Vec<f64> = nd.iter().map(|&(_, d)| f64::from(d)).collect();
        let num: Vec<f64> = nd.iter().map(|&(x, d)| f64::from(x.min(d))).collect();
        let ci = cluster_bootstrap_fraction(&num, &den, 400, seed);
        prop_assert_eq!(ci.estimate.is_none(), den.iter().sum::<f64>() == 0.0);
        prop_assert_eq!(ci.held, ci.low.is_none());
        if let (Some(lo), Some(hi)) = (ci.low, ci.high) {
            prop_assert!(0.0 <= lo && lo <= hi && hi <= 1.0);
            prop_assert!(ci.undefined_draws * 20 <= 400);
        }
        let u = cluster_bootstrap_unconditional(&num, 400, seed);
        prop_assert!(u.undefined_draws == 0 || num.is_empty());
    }
}
