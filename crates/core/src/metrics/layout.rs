//! Where a query's target snippets (passing ones, or relevant ones) sit in its ranking, and the
//! metrics computed from that under each tie policy.
//!
//! Only the tie groups that contain a target matter, so a query's layout is found by counting over
//! the score row (no sort): for each distinct target score v, the group starts at rank
//! #{s > v} and has #{s == v} members. Under the `row` policy a target's rank inside its group is
//! the number of group members with a smaller corpus row. `optimistic` puts the group's targets
//! first, `pessimistic` last, and `expected` averages exactly over all orders of every group
//! (closed forms below; `tests/core/metrics_ties.rs` checks them against brute-force permutation).

pub use super::ties::TiePolicy;
use statrs::distribution::{Discrete, Hypergeometric};

/// One tie group holding at least one target.
#[derive(Clone, Debug, PartialEq)]
pub struct TargetGroup {
    /// 0-based rank of the group's first member.
    pub start: usize,
    /// Members of the group in the whole corpus (targets and others).
    pub size: usize,
    /// For each target in the group: how many group members have a smaller corpus row.
    pub row_offsets: Vec<usize>,
}

impl TargetGroup {
    pub fn targets(&self) -> usize {
        self.row_offsets.len()
    }
}

/// The target groups of one query, ordered by rank.
pub fn layout(row: &[f32], targets: &[u32]) -> Vec<TargetGroup> {
    let mut values: Vec<f32> = targets.iter().map(|&t| row[t as usize]).collect();
    values.sort_unstable_by(|a, b| b.total_cmp(a));
    values.dedup();
    values
        .into_iter()
        .map(|v| {
            // Branch-free counts (they vectorise).
            let (mut above, mut size) = (0usize, 0usize);
            for &s in row {
                above += usize::from(s > v);
                size += usize::from(s == v);
            }
            let mut row_offsets: Vec<usize> = targets
                .iter()
                .filter(|&&t| row[t as usize] == v)
                .map(|&t| row[..t as usize].iter().filter(|&&s| s == v).count())
                .collect();
            row_offsets.sort_unstable();
            TargetGroup {
                start: above,
                size,
                row_offsets,
            }
        })
        .collect()
}

/// 0-based ranks of the targets under a deterministic policy (sorted ascending).
pub fn positions(groups: &[TargetGroup], policy: TiePolicy) -> Vec<usize> {
    let mut out = Vec::new();
    for g in groups {
        let t = g.targets();
        match policy {
            TiePolicy::Row | TiePolicy::Expected => {
                out.extend(g.row_offsets.iter().map(|o| g.start + o));
            }
            TiePolicy::Optimistic => out.extend((0..t).map(|i| g.start + i)),
            TiePolicy::Pessimistic => out.extend((0..t).map(|i| g.start + g.size - t + i)),
        }
    }
    out.sort_unstable();
    out
}

/// DCG discount of a 0-based rank.
#[inline]
pub fn discount(pos: usize) -> f64 {
    1.0 / ((pos + 2) as f64).log2()
}

/// Ideal DCG of `n` relevant snippets at the top.
fn ideal(n: usize) -> f64 {
    (0..n).map(discount).sum()
}

/// P(none of `t` targets lands in the first `r` of `g` uniformly ordered slots).
fn p_none(g: usize, t: usize, r: usize) -> f64 {
    if t == 0 {
        return 1.0;
    }
    if r + t > g {
        return 0.0;
    }
    (0..r)
        .map(|i| (g - t - i) as f64 / (g - i) as f64)
        .product()
}

/// exec@k: at least one target inside the cutoff.
pub fn exec_at(groups: &[TargetGroup], k: usize, policy: TiePolicy) -> f64 {
    if policy != TiePolicy::Expected {
        return f64::from(u8::from(
            positions(groups, policy).first().is_some_and(|&p| p < k),
        ));
    }
    let mut miss = 1.0;
    for g in groups {
        let inside = k.saturating_sub(g.start).min(g.size);
        miss *= p_none(g.size, g.targets(), inside);
    }
    1.0 - miss
}

/// execp@k: targets inside the cutoff, divided by k.
pub fn execp_at(groups: &[TargetGroup], k: usize, policy: TiePolicy) -> f64 {
    if k == 0 {
        return 0.0;
    }
    if policy != TiePolicy::Expected {
        return positions(groups, policy).iter().filter(|&&p| p < k).count() as f64 / k as f64;
    }
    let inside: f64 = groups
        .iter()
        .map(|g| g.targets() as f64 * k.saturating_sub(g.start).min(g.size) as f64 / g.size as f64)
        .sum();
    inside / k as f64
}

/// Reciprocal rank of the first target (0 when there is none).
pub fn reciprocal_rank(groups: &[TargetGroup], policy: TiePolicy) -> f64 {
    let Some(g) = groups.first() else {
        return 0.0;
    };
    if policy != TiePolicy::Expected {
        return positions(groups, policy)
            .first()
            .map_or(0.0, |&p| 1.0 / (p + 1) as f64);
    }
    // First target at offset j of the group: P(J = 0) = t / g,
    // P(J = j + 1) = P(J = j) · (g − j − t) / (g − j − 1).
    let (size, t) = (g.size, g.targets());
    let mut p = t as f64 / size as f64;
    let mut acc = 0.0;
    for j in 0..=(size - t) {
        acc += p / (g.start + j + 1) as f64;
        if j < size - t {
            p *= (size - j - t) as f64 / (size - j - 1) as f64;
        }
    }
    acc
}

/// nDCG@k with the release's ideal DCG (from the retrieved top-k relevances; 0 when none).
pub fn ndcg_at(groups: &[TargetGroup], k: usize, policy: TiePolicy) -> f64 {
    if policy != TiePolicy::Expected {
        let pos: Vec<usize> = positions(groups, policy)
            .into_iter()
            .filter(|&p| p < k)
            .collect();
        if pos.is_empty() {
            return 0.0;
        }
        let dcg: f64 = pos.iter().map(|&p| discount(p)).sum();
        return dcg / ideal(pos.len());
    }
    // Groups wholly inside the cutoff contribute a fixed count and their expected DCG; at most one
    // group straddles the cutoff, and its count inside is hypergeometric. Given that count j, the
    // j targets are uniform over the straddling group's inside slots.
    let mut fixed_count = 0usize;
    let mut fixed_dcg = 0.0;
    let mut straddle: Option<(&TargetGroup, usize)> = None;
    for g in groups {
        let inside = k.saturating_sub(g.start).min(g.size);
        if inside == 0 {
            continue;
        }
        let slots: f64 = (g.start..g.start + inside).map(discount).sum();
        if inside == g.size {
            fixed_count += g.targets();
            fixed_dcg += g.targets() as f64 / g.size as f64 * slots;
        } else {
            straddle = Some((g, inside));
        }
    }
    let Some((g, inside)) = straddle else {
        return if fixed_count == 0 {
            0.0
        } else {
            fixed_dcg / ideal(fixed_count)
        };
    };
    let slots: f64 = (g.start..g.start + inside).map(discount).sum();
    let t = g.targets();
    let Ok(hyp) = Hypergeometric::new(g.size as u64, t as u64, inside as u64) else {
        return 0.0;
    };
    let mut acc = 0.0;
    for j in 0..=t.min(inside) {
        let pj = hyp.pmf(j as u64);
        let n = fixed_count + j;
        if n == 0 || pj == 0.0 {
            continue;
        }
        acc += pj * (fixed_dcg + j as f64 / inside as f64 * slots) / ideal(n);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(start: usize, size: usize, offs: &[usize]) -> TargetGroup {
        TargetGroup {
            start,
            size,
            row_offsets: offs.to_vec(),
        }
    }

    #[test]
    fn layout_counts_groups_and_row_offsets() {
        // scores: rows 0..6; targets rows 2 and 5 (both 0.5), three snippets score 0.5 in all.
        let row = [0.9f32, 0.5, 0.5, 0.1, 0.7, 0.5];
        let l = layout(&row, &[5, 2]);
        assert_eq!(l, vec![g(2, 3, &[1, 2])]);
        assert_eq!(positions(&l, TiePolicy::Row), vec![3, 4]);
        assert_eq!(positions(&l, TiePolicy::Optimistic), vec![2, 3]);
        assert_eq!(positions(&l, TiePolicy::Pessimistic), vec![3, 4]);
    }

    /// One target in a group of 3 starting at rank 0 (0-based), cutoff k = 1:
    /// expected exec@1 = 1/3; expected RR = (1 + 1/2 + 1/3) / 3 = 11/18.
    #[test]
    fn expected_single_target() {
        let l = vec![g(0, 3, &[2])];
        assert!((exec_at(&l, 1, TiePolicy::Expected) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(exec_at(&l, 1, TiePolicy::Row), 0.0);
        assert_eq!(exec_at(&l, 1, TiePolicy::Optimistic), 1.0);
        assert!((reciprocal_rank(&l, TiePolicy::Expected) - 11.0 / 18.0).abs() < 1e-15);
        // k = 2: P(hit) = 2/3; execp@2 = (2/3) / 2.
        assert!((exec_at(&l, 2, TiePolicy::Expected) - 2.0 / 3.0).abs() < 1e-15);
        assert!((execp_at(&l, 2, TiePolicy::Expected) - 1.0 / 3.0).abs() < 1e-15);
        // nDCG@2 = (1/3)·1 + (1/3)·(1/log2 3).
        let want = (1.0 + 1.0 / 3f64.log2()) / 3.0;
        assert!((ndcg_at(&l, 2, TiePolicy::Expected) - want).abs() < 1e-15);
    }

    /// Two targets in a group of 4 at rank 1 (0-based), k = 3 (two slots inside):
    /// P(no target inside) = C(2,2)/C(4,2) = 1/6 → exec@3 = 5/6.
    #[test]
    fn expected_two_targets_straddling() {
        let l = vec![g(1, 4, &[0, 3])];
        assert!((exec_at(&l, 3, TiePolicy::Expected) - 5.0 / 6.0).abs() < 1e-15);
        assert_eq!(exec_at(&l, 3, TiePolicy::Pessimistic), 0.0);
        assert_eq!(exec_at(&l, 3, TiePolicy::Row), 1.0);
        // MRR: J=0 w.p. 1/2 → 1/2; J=1 w.p. 1/3 → 1/3; J=2 w.p. 1/6 → 1/4.
        let want = 0.5 * 0.5 + (1.0 / 3.0) * (1.0 / 3.0) + (1.0 / 6.0) * 0.25;
        assert!((reciprocal_rank(&l, TiePolicy::Expected) - want).abs() < 1e-15);
    }

    #[test]
    fn no_targets_is_zero() {
        for p in TiePolicy::ALL {
            assert_eq!(exec_at(&[], 10, p), 0.0);
            assert_eq!(ndcg_at(&[], 10, p), 0.0);
            assert_eq!(reciprocal_rank(&[], p), 0.0);
        }
    }

    #[test]
    fn policy_names_round_trip() {
        for p in TiePolicy::ALL {
            assert_eq!(p.as_str().parse::<TiePolicy>().unwrap(), p);
        }
        assert!("coin".parse::<TiePolicy>().is_err());
    }
}
