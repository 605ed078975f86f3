//! Paired comparison of two systems on one metric cell, Holm correction, and the "tied with the
//! leader" set (`docs/statistics.md`; source: the ExecRetrieval paper §4.2 and the release's
//! `tests/pairwise_tests.json`).

use rayon::prelude::*;
use serde::Serialize;

use super::binomial::mcnemar_exact;
use super::resample::{diff_interval, mean, mean_diff, Resamples};

/// 2×2 table of two per-query vectors: a query counts as a success for a system when its value
/// is positive. For binary metrics (exec@k) that is the pass flag; for continuous ones (execp@k,
/// nDCG@k) it means "anything relevant in the top k" — the release lists these counts for every
/// metric without saying how, so this reading is an assumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Discordance {
    pub a_only: u64,
    pub b_only: u64,
    pub both: u64,
    pub neither: u64,
}

impl Discordance {
    /// Counts the four cells. NaN counts as failure.
    ///
    /// # Panics
    /// If the vectors differ in length (they must be in the same query order).
    pub fn from_vectors(a: &[f64], b: &[f64]) -> Self {
        assert_eq!(a.len(), b.len(), "paired vectors differ in length");
        let mut d = Discordance::default();
        for (&x, &y) in a.iter().zip(b) {
            match (x > 0.0, y > 0.0) {
                (true, true) => d.both += 1,
                (true, false) => d.a_only += 1,
                (false, true) => d.b_only += 1,
                (false, false) => d.neither += 1,
            }
        }
        d
    }
}

/// One system pair on one metric cell, with the release's field names.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairResult {
    pub a_only: u64,
    pub b_only: u64,
    pub both: u64,
    pub neither: u64,
    /// Mean of A's per-query values (a rate for binary metrics, a mean score otherwise).
    pub a_rate: f64,
    pub b_rate: f64,
    /// Mean of the per-query differences A − B.
    pub delta: f64,
    /// Exact McNemar p on (a_only, b_only); binary metrics with 0/1 values only, omitted from
    /// JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcnemar_exact_p: Option<f64>,
    /// Binary metrics whose per-query values are pass probabilities (exec@k under the `expected`
    /// tie policy): the exact McNemar p averaged over every order of the score ties
    /// ([`mcnemar_tie_averaged`]). Omitted from JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcnemar_tie_averaged_p: Option<f64>,
    /// With `mcnemar_tie_averaged_p`: the probability, over tie orders, that the exact McNemar
    /// test rejects at α = 0.05.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tie_orders_rejecting: Option<f64>,
    /// Paired percentile bootstrap 95% interval of `delta`.
    pub bootstrap_ci_95: [f64; 2],
}

impl PairResult {
    /// The counts, rates and Δ of A − B without any test (no p-value, a NaN interval): what a
    /// pair shows before its bootstrap is done.
    pub fn untested(a: &[f64], b: &[f64]) -> PairResult {
        let d = Discordance::from_vectors(a, b);
        PairResult {
            a_only: d.a_only,
            b_only: d.b_only,
            both: d.both,
            neither: d.neither,
            a_rate: mean(a),
            b_rate: mean(b),
            delta: mean_diff(a, b),
            mcnemar_exact_p: None,
            mcnemar_tie_averaged_p: None,
            tie_orders_rejecting: None,
            bootstrap_ci_95: [f64::NAN, f64::NAN],
        }
    }

    /// The McNemar p-value of this pair, exact or averaged over tie orders, if either applies.
    pub fn p_value(&self) -> Option<f64> {
        self.mcnemar_exact_p.or(self.mcnemar_tie_averaged_p)
    }
}

/// Whether every value is exactly 0 or 1 (NaN counts as 0, as in [`Discordance`]).
pub fn is_zero_one(v: &[f64]) -> bool {
    v.iter().all(|&x| x == 0.0 || x == 1.0 || x.is_nan())
}

/// Compares systems A and B on one metric cell. `binary` adds a McNemar test: exact when both
/// vectors are 0/1, averaged over tie orders ([`mcnemar_tie_averaged`]) when either holds pass
/// probabilities.
pub fn pairwise(a: &[f64], b: &[f64], binary: bool, plan: &Resamples) -> PairResult {
    assert_eq!(a.len(), b.len(), "paired vectors differ in length");
    pair_from_replicates(
        a,
        b,
        &plan.replicate_means(a),
        &plan.replicate_means(b),
        binary,
    )
}

/// [`pairwise`] given both systems' replicate means on the shared plan (`ra`, `rb`), so a batch
/// can compute each system's replicates once instead of once per pair.
pub(crate) fn pair_from_replicates(
    a: &[f64],
    b: &[f64],
    ra: &[f64],
    rb: &[f64],
    binary: bool,
) -> PairResult {
    pair_from_replicates_with(a, b, ra, rb, binary, is_zero_one(a) && is_zero_one(b))
}

/// [`pair_from_replicates`] with the McNemar variant chosen by the caller: `zero_one` selects the
/// exact test on the counts, otherwise the tie-averaged one (a batch decides once per cell, so a
/// table never mixes the two).
pub(crate) fn pair_from_replicates_with(
    a: &[f64],
    b: &[f64],
    ra: &[f64],
    rb: &[f64],
    binary: bool,
    zero_one: bool,
) -> PairResult {
    let (low, high) = diff_interval(ra, rb);
    let averaged = (binary && !zero_one).then(|| mcnemar_tie_averaged(a, b, super::ALPHA));
    let untested = PairResult::untested(a, b);
    PairResult {
        mcnemar_exact_p: (binary && zero_one)
            .then(|| mcnemar_exact(untested.a_only, untested.b_only)),
        mcnemar_tie_averaged_p: averaged.map(|t| t.mean_p),
        tie_orders_rejecting: averaged.map(|t| t.rejecting),
        bootstrap_ci_95: [low, high],
        ..untested
    }
}

/// The exact McNemar test averaged over tie orders (docs/significance-under-ties.md).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TieAveraged {
    /// Expected exact-McNemar p-value over every order of the score ties.
    pub mean_p: f64,
    /// Probability, over tie orders, that the exact McNemar p is ≤ α.
    pub rejecting: f64,
}

/// Exact McNemar test of two pass-probability vectors, averaged over the orders of score ties.
///
/// Under the `expected` tie policy a query's exec@k value is the probability that a passing
/// snippet reaches the top k when each score tie is put in a uniformly random order. Drawing
/// those orders independently per query and per system makes each query's outcome a Bernoulli
/// draw: A-only with probability `a(1 − b)`, B-only with `b(1 − a)`, concordant otherwise. The
/// discordant counts `(A-only, B-only)` therefore have an exact joint distribution, computed here
/// by dynamic programming over the queries whose outcome is not certain; the result is the
/// expectation of [`mcnemar_exact`] under that distribution and the probability that it is ≤
/// `alpha`. With 0/1 vectors both reduce to the ordinary exact test (`rejecting` is 0 or 1).
/// Values are clamped to [0, 1]; NaN counts as 0.
///
/// # Panics
/// If the vectors differ in length.
pub fn mcnemar_tie_averaged(a: &[f64], b: &[f64], alpha: f64) -> TieAveraged {
    assert_eq!(a.len(), b.len(), "paired vectors differ in length");
    let (a0, b0, uncertain) = discordant_parts(a, b);
    let w = uncertain.len() + 1;
    tie_average(&discordance_distribution(&uncertain), w, a0, b0, alpha)
}

/// The certain A-only and B-only counts, and (P[A-only], P[B-only]) of every query whose
/// outcome depends on the tie order. Values are clamped to [0, 1]; NaN counts as 0.
fn discordant_parts(a: &[f64], b: &[f64]) -> (u64, u64, Vec<(f64, f64)>) {
    let clamp = |x: f64| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
    let (mut a0, mut b0) = (0u64, 0u64);
    let mut uncertain: Vec<(f64, f64)> = Vec::new();
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (clamp(x), clamp(y));
        let pa = x * (1.0 - y);
        let pb = y * (1.0 - x);
        if pa == 1.0 {
            a0 += 1;
        } else if pb == 1.0 {
            b0 += 1;
        } else if pa > 0.0 || pb > 0.0 {
            uncertain.push((pa, pb));
        }
    }
    (a0, b0, uncertain)
}

/// The expected exact-McNemar p-value and the probability that it is ≤ `alpha`, over the
/// distribution `dist` (`w` × `w`) of extra discordant counts (see [`discordance_distribution`]).
fn tie_average(dist: &[f64], w: usize, a0: u64, b0: u64, alpha: f64) -> TieAveraged {
    let (mut mean_p, mut rejecting) = (0.0, 0.0);
    for i in 0..w {
        for j in 0..w - i {
            let v = dist[i * w + j];
            if v == 0.0 {
                continue;
            }
            let p = mcnemar_exact(a0 + i as u64, b0 + j as u64);
            mean_p += v * p;
            if p <= alpha {
                rejecting += v;
            }
        }
    }
    TieAveraged {
        mean_p: mean_p.min(1.0),
        rejecting: rejecting.min(1.0),
    }
}

/// The joint distribution of the extra (A-only, B-only) counts over the uncertain queries
/// (`dist[i * w + j]`, w = queries + 1), compiled for AVX-512, AVX2 and the baseline and chosen
/// at run time (the same operations in the same order on every path: the same bits).
fn discordance_distribution(uncertain: &[(f64, f64)]) -> Vec<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { discordance_avx512(uncertain) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { discordance_avx2(uncertain) };
        }
    }
    discordance_generic(uncertain)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn discordance_avx512(uncertain: &[(f64, f64)]) -> Vec<f64> {
    discordance_generic(uncertain)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn discordance_avx2(uncertain: &[(f64, f64)]) -> Vec<f64> {
    discordance_generic(uncertain)
}

#[inline(always)]
fn discordance_generic(uncertain: &[(f64, f64)]) -> Vec<f64> {
    let w = uncertain.len() + 1;
    // dist[i * w + j]: probability of i extra A-only and j extra B-only queries so far.
    let mut dist = vec![0.0f64; w * w];
    dist[0] = 1.0;
    let mut next = vec![0.0f64; w];
    for (t, &(pa, pb)) in uncertain.iter().enumerate() {
        let pn = 1.0 - pa - pb;
        // After query t, cells with i + j ≤ t + 1 can hold mass. Each is
        // ((stay · pn) + (one more B-only) · pb) + (one more A-only) · pa, summed in that order
        // (the order of the cell-by-cell recurrence, so the bits are the same; an absent term
        // adds a zero). Rows from the last, so row i − 1 still holds its old values; each row
        // computed whole into `next` (independent lanes: it vectorises).
        for i in (0..=t + 1).rev() {
            let m = t + 1 - i;
            let (before, rest) = dist.split_at_mut(i * w);
            let row = &mut rest[..=m];
            let out = &mut next[..=m];
            out[0] = row[0] * pn;
            for j in 1..=m {
                out[j] = row[j] * pn + row[j - 1] * pb;
            }
            if i > 0 {
                let prev = &before[(i - 1) * w..=(i - 1) * w + m];
                for (o, &p) in out.iter_mut().zip(prev) {
                    *o += p * pa;
                }
            }
            row.copy_from_slice(out);
        }
    }
    dist
}

/// Holm–Bonferroni step-down adjusted p-values, in input order: sort ascending, multiply the
/// j-th smallest (0-based) by `m − j`, take the running maximum so the adjusted values are
/// monotone in the raw ones, cap at 1. NaN is treated as 1 (never significant), so a missing test
/// cannot make another one look significant.
pub fn holm(pvalues: &[f64]) -> Vec<f64> {
    let m = pvalues.len();
    let clean: Vec<f64> = pvalues
        .iter()
        .map(|&p| if p.is_nan() { 1.0 } else { p })
        .collect();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| clean[i].total_cmp(&clean[j]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        let adj = ((m - rank) as f64 * clean[i]).min(1.0);
        running = running.max(adj);
        out[i] = running;
    }
    out
}

/// Which systems are statistically tied with the leader on a binary metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaderTies {
    pub leader: usize,
    /// Indices (ascending) of systems not significantly different from the leader, leader included.
    pub tied: Vec<usize>,
    /// Holm-adjusted McNemar p against the leader, per system; `None` for the leader itself.
    pub adjusted_p: Vec<Option<f64>>,
}

/// Exact McNemar test of every system against `leader` on binary per-query vectors (averaged
/// over tie orders when any vector holds pass probabilities, see [`mcnemar_tie_averaged`]), Holm over
/// the N − 1 comparisons; a system is tied unless its adjusted p ≤ `alpha` (0.05 in the report).
///
/// # Panics
/// If `leader` is out of range or the vectors differ in length.
pub fn tied_with_leader(systems: &[&[f64]], leader: usize, alpha: f64) -> LeaderTies {
    assert!(leader < systems.len(), "leader index {leader} out of range");
    let others: Vec<usize> = (0..systems.len()).filter(|&s| s != leader).collect();
    let zero_one = systems.iter().all(|v| is_zero_one(v));
    // One independent test per system, in parallel (the tie-averaged ones are O(u³) each).
    let raw: Vec<f64> = others
        .par_iter()
        .map(|&s| {
            if zero_one {
                let d = Discordance::from_vectors(systems[leader], systems[s]);
                mcnemar_exact(d.a_only, d.b_only)
            } else {
                mcnemar_tie_averaged(systems[leader], systems[s], alpha).mean_p
            }
        })
        .collect();
    let adj = holm(&raw);
    let mut adjusted_p = vec![None; systems.len()];
    for (&s, &p) in others.iter().zip(&adj) {
        adjusted_p[s] = Some(p);
    }
    let tied = (0..systems.len())
        .filter(|&s| adjusted_p[s].is_none_or(|p| p > alpha))
        .collect();
    LeaderTies {
        leader,
        tied,
        adjusted_p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untested_pair_counts_rates_and_delta_by_hand() {
        let c = PairResult::untested(&[1.0, 1.0, 0.0, 0.0, 1.0], &[1.0, 0.0, 1.0, 0.0, 0.0]);
        assert_eq!((c.a_only, c.b_only, c.both, c.neither), (2, 1, 1, 1));
        assert!((c.delta - 0.2).abs() < 1e-12);
        assert!((c.a_rate - 0.6).abs() < 1e-12 && (c.b_rate - 0.4).abs() < 1e-12);
        assert_eq!(c.p_value(), None);
        assert!(c.bootstrap_ci_95.iter().all(|x| x.is_nan()));
    }

    /// The cell-by-cell recurrence the row form replaced (the reference for its bits).
    fn tie_averaged_cells(a: &[f64], b: &[f64], alpha: f64) -> TieAveraged {
        let (a0, b0, uncertain) = discordant_parts(a, b);
        let w = uncertain.len() + 1;
        let mut dist = vec![0.0f64; w * w];
        dist[0] = 1.0;
        for (t, &(pa, pb)) in uncertain.iter().enumerate() {
            let pn = 1.0 - pa - pb;
            for i in (0..=t).rev() {
                for j in (0..=t - i).rev() {
                    let v = dist[i * w + j];
                    if v == 0.0 {
                        continue;
                    }
                    dist[i * w + j] = v * pn;
                    dist[(i + 1) * w + j] += v * pa;
                    dist[i * w + j + 1] += v * pb;
                }
            }
        }
        tie_average(&dist, w, a0, b0, alpha)
    }

    #[test]
    fn row_form_gives_the_cell_recurrences_bits() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let values = [
            0.0,
            1.0,
            0.5,
            1.0 / 3.0,
            0.25,
            0.2,
            1.0 / 7.0,
            1e-300,
            1.0 - 1e-16,
            0.9,
        ];
        for n in [0, 1, 5, 40, 160] {
            for _ in 0..6 {
                let draw = |r: u64| values[(r % values.len() as u64) as usize];
                let a: Vec<f64> = (0..n).map(|_| draw(next())).collect();
                let b: Vec<f64> = (0..n).map(|_| draw(next())).collect();
                let (x, y) = (
                    mcnemar_tie_averaged(&a, &b, 0.05),
                    tie_averaged_cells(&a, &b, 0.05),
                );
                assert_eq!(x.mean_p.to_bits(), y.mean_p.to_bits(), "n {n}");
                assert_eq!(x.rejecting.to_bits(), y.rejecting.to_bits(), "n {n}");
                // Every compiled path of the distribution gives the same bits.
                let u: Vec<(f64, f64)> = a
                    .iter()
                    .zip(&b)
                    .map(|(&x, &y)| (x * (1.0 - y), y * (1.0 - x)))
                    .filter(|&(pa, pb)| pa != 1.0 && pb != 1.0 && (pa > 0.0 || pb > 0.0))
                    .collect();
                let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
                let base = bits(discordance_generic(&u));
                assert_eq!(bits(discordance_distribution(&u)), base);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    assert_eq!(bits(unsafe { discordance_avx2(&u) }), base);
                }
            }
        }
    }

    #[test]
    fn discordance_counts() {
        let a = [1.0, 1.0, 0.0, 0.0, 1.0, 0.5];
        let b = [1.0, 0.0, 1.0, 0.0, 0.0, 0.0];
        let d = Discordance::from_vectors(&a, &b);
        assert_eq!(
            d,
            Discordance {
                a_only: 3,
                b_only: 1,
                both: 1,
                neither: 1
            }
        );
    }

    #[test]
    fn holm_four_pvalues_by_hand() {
        // sorted: 0.01×4 = 0.04, 0.02×3 = 0.06, 0.03×2 = 0.06, 0.04×1 = 0.04 → running max
        // 0.04, 0.06, 0.06, 0.06.
        let adj = holm(&[0.03, 0.01, 0.04, 0.02]);
        let want = [0.06, 0.04, 0.06, 0.06];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-15, "{adj:?}");
        }
        // capped at 1
        assert_eq!(holm(&[0.5, 0.6]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[f64::NAN, 0.01]), vec![1.0, 0.02]);
    }

    #[test]
    fn pairwise_counts_rates_delta_and_exact_mcnemar_by_hand() {
        let plan = Resamples::new(7, 500, 1);
        let a = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0];
        let b = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0];
        let r = pairwise(&a, &b, true, &plan);
        assert_eq!((r.a_only, r.b_only, r.both, r.neither), (5, 1, 1, 0));
        assert!((r.a_rate - 6.0 / 7.0).abs() < 1e-15 && (r.b_rate - 2.0 / 7.0).abs() < 1e-15);
        assert!((r.delta - 4.0 / 7.0).abs() < 1e-15);
        // n = 6, P[X <= 1] = 7/64 → 14/64
        assert!((r.mcnemar_exact_p.unwrap() - 14.0 / 64.0).abs() < 1e-14);
        assert!(r.bootstrap_ci_95[0] <= r.bootstrap_ci_95[1]);
        let r = pairwise(&a, &b, false, &plan);
        assert!(r.mcnemar_exact_p.is_none());
        let j = serde_json::to_string(&r).unwrap();
        assert!(!j.contains("mcnemar") && j.contains("\"bootstrap_ci_95\":["));
    }

    /// Brute force over every outcome combination of the uncertain queries (A-only, B-only or
    /// concordant, with their probabilities), independent of the dynamic programme.
    fn brute(a: &[f64], b: &[f64], alpha: f64) -> (f64, f64) {
        #[allow(clippy::too_many_arguments)]
        fn go(
            a: &[f64],
            b: &[f64],
            i: usize,
            ao: u64,
            bo: u64,
            w: f64,
            alpha: f64,
            acc: &mut (f64, f64),
        ) {
            if i == a.len() {
                let p = mcnemar_exact(ao, bo);
                acc.0 += w * p;
                if p <= alpha {
                    acc.1 += w;
                }
                return;
            }
            let (x, y) = (a[i], b[i]);
            for (pa, pb) in [(1.0, 1.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)] {
                let wx = if pa == 1.0 { x } else { 1.0 - x };
                let wy = if pb == 1.0 { y } else { 1.0 - y };
                if wx * wy == 0.0 {
                    continue;
                }
                let (na, nb) = match (pa == 1.0, pb == 1.0) {
                    (true, false) => (ao + 1, bo),
                    (false, true) => (ao, bo + 1),
                    _ => (ao, bo),
                };
                go(a, b, i + 1, na, nb, w * wx * wy, alpha, acc);
            }
        }
        let mut acc = (0.0, 0.0);
        go(a, b, 0, 0, 0, 1.0, alpha, &mut acc);
        acc
    }

    #[test]
    fn tie_averaged_equals_exact_on_zero_one() {
        let a = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0];
        let b = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0];
        let t = mcnemar_tie_averaged(&a, &b, 0.05);
        assert!((t.mean_p - 14.0 / 64.0).abs() < 1e-14);
        assert_eq!(t.rejecting, 0.0);
        let r = pairwise(&a, &b, true, &Resamples::new(7, 50, 1));
        assert!(r.mcnemar_tie_averaged_p.is_none() && r.mcnemar_exact_p.is_some());
    }

    #[test]
    fn tie_averaged_by_hand_and_brute_force() {
        // One uncertain query: A passes with 1/2, B fails; five certain A-only. Half the orders
        // give (6, 0): p = 2/64; the other half (5, 0): p = 2/32.
        let a = [1.0, 1.0, 1.0, 1.0, 1.0, 0.5];
        let b = [0.0; 6];
        let t = mcnemar_tie_averaged(&a, &b, 0.05);
        assert!((t.mean_p - (0.5 * 2.0 / 64.0 + 0.5 * 2.0 / 32.0)).abs() < 1e-15);
        assert!((t.rejecting - 0.5).abs() < 1e-15);
        // Random fractional vectors against the brute force.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..20 {
            let n = 9;
            let pick = |u: f64, v: f64| {
                if u < 0.3 {
                    0.0
                } else if u < 0.6 {
                    1.0
                } else {
                    v
                }
            };
            let a: Vec<f64> = (0..n).map(|_| pick(next(), next())).collect();
            let b: Vec<f64> = (0..n).map(|_| pick(next(), next())).collect();
            let t = mcnemar_tie_averaged(&a, &b, 0.05);
            let (p, r) = brute(&a, &b, 0.05);
            assert!(
                (t.mean_p - p).abs() < 1e-12,
                "{a:?} {b:?}: {} vs {p}",
                t.mean_p
            );
            assert!((t.rejecting - r).abs() < 1e-12);
            let r = pairwise(&a, &b, true, &Resamples::new(n, 50, 1));
            if !is_zero_one(&a) || !is_zero_one(&b) {
                assert_eq!(r.mcnemar_tie_averaged_p, Some(t.mean_p));
                assert_eq!(r.mcnemar_exact_p, None);
            }
        }
    }

    #[test]
    fn tied_with_leader_by_hand_with_holm_adjusted_p() {
        // 40 queries. Leader passes all; s1 passes 38 (2 discordant → p = 0.5, tied);
        // s2 passes 20 (20 discordant, 0 the other way → p = 2/2^20, clearly worse).
        let leader = vec![1.0; 40];
        let mut s1 = vec![1.0; 40];
        s1[0] = 0.0;
        s1[1] = 0.0;
        let s2: Vec<f64> = (0..40).map(|i| if i < 20 { 1.0 } else { 0.0 }).collect();
        let sys: Vec<&[f64]> = vec![&s1, &leader, &s2];
        let t = tied_with_leader(&sys, 1, 0.05);
        assert_eq!(t.tied, vec![0, 1]);
        // Holm over {0.5, 2^-19}: 2^-19 × 2 and max(0.5 × 1, …) = 0.5
        assert!((t.adjusted_p[0].unwrap() - 0.5).abs() < 1e-12);
        assert!((t.adjusted_p[2].unwrap() - 2.0 * 2f64.powi(-19)).abs() < 1e-15);
        assert_eq!(t.adjusted_p[1], None);
    }
}
