//! Paired comparison of two systems on one metric cell, Holm correction, and the "tied with the
//! leader" set (`docs/statistics.md`; source: the ExecRetrieval paper §4.2 and the release's
//! `tests/pairwise_tests.json`).

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
    /// Exact McNemar p on (a_only, b_only); binary metrics only, omitted from JSON otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcnemar_exact_p: Option<f64>,
    /// Paired percentile bootstrap 95% interval of `delta`.
    pub bootstrap_ci_95: [f64; 2],
}

/// Compares systems A and B on one metric cell. `binary` adds the exact McNemar test.
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
    let d = Discordance::from_vectors(a, b);
    let (low, high) = diff_interval(ra, rb);
    PairResult {
        a_only: d.a_only,
        b_only: d.b_only,
        both: d.both,
        neither: d.neither,
        a_rate: mean(a),
        b_rate: mean(b),
        delta: mean_diff(a, b),
        mcnemar_exact_p: binary.then(|| mcnemar_exact(d.a_only, d.b_only)),
        bootstrap_ci_95: [low, high],
    }
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

/// Exact McNemar test of every system against `leader` on binary per-query vectors, Holm over
/// the N − 1 comparisons; a system is tied unless its adjusted p ≤ `alpha` (0.05 in the report).
///
/// # Panics
/// If `leader` is out of range or the vectors differ in length.
pub fn tied_with_leader(systems: &[&[f64]], leader: usize, alpha: f64) -> LeaderTies {
    assert!(leader < systems.len(), "leader index {leader} out of range");
    let others: Vec<usize> = (0..systems.len()).filter(|&s| s != leader).collect();
    let raw: Vec<f64> = others
        .iter()
        .map(|&s| {
            let d = Discordance::from_vectors(systems[leader], systems[s]);
            mcnemar_exact(d.a_only, d.b_only)
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
    fn pairwise_fields() {
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

    #[test]
    fn leader_ties() {
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
