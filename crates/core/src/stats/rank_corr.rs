//! Tie-aware Spearman correlation (`docs/statistics.md`; used for edit size vs. per-pair deception,
//! where most edit sizes are 1 and ties dominate).

/// 1-based ranks with ties given the average of the ranks they span (scipy `rankdata` "average").
/// Values are ordered by `f64::total_cmp`, so NaN ranks after +∞; callers that must exclude NaN
/// (as [`spearman`] does) check first.
pub fn average_ranks(x: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    let mut ranks = vec![0.0; x.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && x[order[end]].total_cmp(&x[order[start]]).is_eq() {
            end += 1;
        }
        // positions start..end hold ranks start+1 ..= end; their average:
        let avg = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            ranks[i] = avg;
        }
        start = end;
    }
    ranks
}

/// Spearman's ρ: Pearson correlation of the average ranks. `None` when it is undefined — fewer
/// than two pairs, lengths differ, any NaN, or either side constant (zero rank variance) — rather
/// than a NaN that could leak into a table.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    pearson(&average_ranks(x), &average_ranks(y))
}

/// Pearson correlation; `None` if either side has zero variance. Clamped to [-1, 1] against
/// rounding.
fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (&a, &b) in x.iter().zip(y) {
        let (da, db) = (a - mx, b - my);
        sxy += da * db;
        sxx += da * da;
        syy += db * db;
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some((sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_with_ties() {
        assert_eq!(
            average_ranks(&[10.0, 20.0, 10.0, 30.0, 20.0, 10.0]),
            vec![2.0, 4.5, 2.0, 6.0, 4.5, 2.0]
        );
        assert!(average_ranks(&[]).is_empty());
    }

    #[test]
    fn spearman_with_ties_by_hand() {
        // x = [1, 2, 2, 3] → ranks [1, 2.5, 2.5, 4]; y = [1, 3, 2, 4] → ranks [1, 3, 2, 4].
        // Deviations (mean 2.5): x [-1.5, 0, 0, 1.5], y [-1.5, 0.5, -0.5, 1.5]
        // sxy = 2.25 + 0 + 0 + 2.25 = 4.5; sxx = 4.5; syy = 2.25 + 0.25 + 0.25 + 2.25 = 5
        // ρ = 4.5 / sqrt(4.5 × 5) = 0.9486832980505138
        let r = spearman(&[1.0, 2.0, 2.0, 3.0], &[1.0, 3.0, 2.0, 4.0]).unwrap();
        assert!((r - 0.9486832980505138).abs() < 1e-14, "{r}");
    }

    #[test]
    fn spearman_undefined_cases() {
        assert_eq!(spearman(&[1.0, 1.0, 1.0], &[1.0, 2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0], &[2.0]), None);
        assert_eq!(spearman(&[1.0, 2.0], &[2.0]), None);
        assert_eq!(spearman(&[1.0, f64::NAN], &[2.0, 3.0]), None);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[9.0, 5.0, 1.0]), Some(-1.0));
    }
}
