//! Score ties: detection, near-tie snapping, and tie groups of a ranking.
//!
//! Exact ties (equal f32 scores) are the default. With `--tie-eps ε > 0`, scores are grouped by
//! single linkage over the sorted row (a new group starts where the gap to the previous score
//! exceeds ε) and every member is *snapped* to its group's highest score, so the exact-tie
//! machinery of the metrics applies unchanged. Snapping never reorders groups.

use super::full_order;

/// Snap near ties within `eps` (single linkage on the sorted scores). No-op for eps ≤ 0.
pub fn snap_row(row: &mut [f32], eps: f32) {
    if eps <= 0.0 || row.len() < 2 {
        return;
    }
    let order = full_order(row);
    let mut group_value = row[order[0] as usize];
    let mut prev = group_value;
    for &i in &order[1..] {
        let v = row[i as usize];
        if prev - v <= eps {
            row[i as usize] = group_value;
        } else {
            group_value = v;
        }
        prev = v;
    }
}

/// A run of equal scores in a ranking: `start` is the 0-based rank of its first member.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TieGroup {
    pub start: usize,
    pub len: usize,
}

/// Tie groups over a ranked prefix (`order` from `top_k`/`full_order`), with each group's full
/// size counted over the whole row (a group may extend past the prefix).
pub fn groups_of_prefix(row: &[f32], order: &[u32]) -> Vec<TieGroup> {
    let mut out: Vec<TieGroup> = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let v = row[order[i] as usize];
        let len = row.iter().filter(|&&s| s == v).count();
        out.push(TieGroup { start: i, len });
        i += len;
    }
    out
}

/// Per rank position of the prefix: the size of the tie group it belongs to (1 = untied).
pub fn group_sizes(row: &[f32], order: &[u32]) -> Vec<usize> {
    let mut sizes = vec![1; order.len()];
    for g in groups_of_prefix(row, order) {
        for s in sizes.iter_mut().skip(g.start).take(g.len) {
            *s = g.len;
        }
    }
    sizes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapping_chains_within_eps() {
        let mut row = [0.90f32, 0.899, 0.898, 0.5, 0.4995];
        snap_row(&mut row, 0.0015);
        assert_eq!(row, [0.90, 0.90, 0.90, 0.5, 0.5]);
        let mut same = [0.3f32, 0.2];
        snap_row(&mut same, 0.0);
        assert_eq!(same, [0.3, 0.2]);
    }

    #[test]
    fn groups_count_beyond_prefix() {
        let row = [0.5f32, 0.9, 0.5, 0.9, 0.5];
        let order = [1u32, 3, 0];
        assert_eq!(
            groups_of_prefix(&row, &order),
            vec![TieGroup { start: 0, len: 2 }, TieGroup { start: 2, len: 3 }]
        );
        assert_eq!(group_sizes(&row, &order), vec![2, 2, 3]);
    }
}

/// The first `k` of a ranking with each tie group ordered by a verdict instead of corpus row:
/// `pass_first = true` puts passing snippets first inside every tie group (the optimistic order),
/// `false` last (pessimistic); rows break the remaining ties. Which members of a group straddling
/// the cutoff enter the top k follows the same order.
pub fn top_k_by_verdict(row: &[f32], k: usize, passing: &[u32], pass_first: bool) -> Vec<u32> {
    let k = k.min(row.len());
    if k == 0 {
        return Vec::new();
    }
    // Everything scoring at least the k-th score can enter the top k.
    let kth = row[super::top_k(row, k)[k - 1] as usize];
    let mut cand: Vec<u32> = (0..row.len() as u32)
        .filter(|&c| row[c as usize] >= kth)
        .collect();
    let passes = |c: u32| passing.binary_search(&c).is_ok();
    cand.sort_by(|&a, &b| {
        row[b as usize]
            .total_cmp(&row[a as usize])
            .then_with(|| {
                let (pa, pb) = (passes(a), passes(b));
                if pass_first {
                    pb.cmp(&pa)
                } else {
                    pa.cmp(&pb)
                }
            })
            .then_with(|| a.cmp(&b))
    });
    cand.truncate(k);
    cand
}

#[cfg(test)]
mod verdict_order_tests {
    use super::*;

    #[test]
    fn passing_first_or_last_inside_ties() {
        // rows 0..5; scores: 0.9, 0.5, 0.5, 0.5, 0.1; row 3 passes.
        let row = [0.9f32, 0.5, 0.5, 0.5, 0.1];
        assert_eq!(top_k_by_verdict(&row, 2, &[3], true), vec![0, 3]);
        assert_eq!(top_k_by_verdict(&row, 2, &[3], false), vec![0, 1]);
        assert_eq!(top_k_by_verdict(&row, 4, &[3], false), vec![0, 1, 2, 3]);
        assert_eq!(top_k_by_verdict(&row, 9, &[3], true), vec![0, 3, 1, 2, 4]);
    }
}
