//! Pool-density ablation (`docs/analysis.md`): expected exec@1 when each query keeps only `d` of
//! its own paired distractors, as the exact average over all C(n, d) retained subsets.
//!
//! With the score row known, the top-1 of a reduced pool comes from the first tie group of the
//! ranking that still has a member after removal: at most n snippets are removed, so only the
//! groups among the first n + 1 ranks matter. The tie policy decides that group's verdict:
//! `row` takes its lowest-row survivor, `expected` the share of survivors that pass, `pessimistic`
//! passes only if every survivor passes, `optimistic` if any does. A query with fewer distractors
//! than a column's d contributes its full configuration there (the paper's 3-distractor query).

use crate::metrics::TiePolicy;
use crate::rank::top_k;

/// Expected exec@1 of one query with `removed` snippets taken out of the pool.
pub fn top1_pass(row: &[f32], passing: &[u32], removed: &[usize], policy: TiePolicy) -> f64 {
    let depth = (removed.len() + 1).min(row.len());
    let prefix = top_k(row, depth);
    let mut done: Vec<f32> = Vec::new();
    for &c in &prefix {
        let v = row[c as usize];
        if done.contains(&v) {
            continue;
        }
        done.push(v);
        // Survivors of this tie group, in corpus-row order.
        let mut survivors = 0usize;
        let mut pass = 0usize;
        let mut first_row_passes: Option<bool> = None;
        for (i, &s) in row.iter().enumerate() {
            if s == v && !removed.contains(&i) {
                survivors += 1;
                let ok = passing.binary_search(&(i as u32)).is_ok();
                pass += usize::from(ok);
                if first_row_passes.is_none() {
                    first_row_passes = Some(ok);
                }
            }
        }
        if survivors == 0 {
            continue;
        }
        return match policy {
            TiePolicy::Row => f64::from(u8::from(first_row_passes == Some(true))),
            TiePolicy::Expected => pass as f64 / survivors as f64,
            TiePolicy::Pessimistic => f64::from(u8::from(pass == survivors)),
            TiePolicy::Optimistic => f64::from(u8::from(pass > 0)),
        };
    }
    0.0
}

/// All subsets of `items` of size `r` (lexicographic).
pub fn combinations(items: &[usize], r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(r);
    fn rec(
        items: &[usize],
        r: usize,
        start: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == r {
            out.push(cur.clone());
            return;
        }
        for i in start..items.len() {
            if items.len() - i < r - cur.len() {
                break;
            }
            cur.push(items[i]);
            rec(items, r, i + 1, cur, out);
            cur.pop();
        }
    }
    rec(items, r, 0, &mut cur, &mut out);
    out
}

/// Expected exec@1 of one query at each density d = 0..=n (n = its paired distractors).
pub fn query_density(
    row: &[f32],
    passing: &[u32],
    paired: &[usize],
    policy: TiePolicy,
) -> Vec<f64> {
    let n = paired.len();
    (0..=n)
        .map(|d| {
            let subsets = combinations(paired, n - d);
            let total: f64 = subsets
                .iter()
                .map(|removed| top1_pass(row, passing, removed, policy))
                .sum();
            total / subsets.len() as f64
        })
        .collect()
}

/// Mean over queries per density column 0..=max_n; a query with n < d counts its full pool.
pub fn mean_columns(per_query: &[Vec<f64>]) -> Vec<f64> {
    let width = per_query.iter().map(Vec::len).max().unwrap_or(0);
    (0..width)
        .map(|d| {
            let vals: Vec<f64> = per_query
                .iter()
                .filter(|v| !v.is_empty())
                .map(|v| v[d.min(v.len() - 1)])
                .collect();
            if vals.is_empty() {
                0.0
            } else {
                vals.iter().sum::<f64>() / vals.len() as f64
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ranking: d1 (0.9) > canon (0.8) > d2 (0.7) > other (0.1); canon = row 1 passes.
    /// Density 0 (remove d1, d2): top-1 canon → 1. Density 1: keep d1 → 0, keep d2 → 1 → 0.5.
    /// Density 2 (all): d1 on top → 0.
    #[test]
    fn hand_computed_density() {
        let row = [0.9f32, 0.8, 0.7, 0.1];
        let got = query_density(&row, &[1], &[0, 2], TiePolicy::Row);
        assert_eq!(got, vec![1.0, 0.5, 0.0]);
    }

    /// A distractor tied with the canonical: expected policy gives 1/2 while it is kept.
    #[test]
    fn tie_with_canonical() {
        let row = [0.8f32, 0.8, 0.1];
        assert_eq!(
            query_density(&row, &[0], &[1], TiePolicy::Expected),
            vec![1.0, 0.5]
        );
        assert_eq!(
            query_density(&row, &[0], &[1], TiePolicy::Row),
            vec![1.0, 1.0]
        );
        assert_eq!(
            query_density(&row, &[0], &[1], TiePolicy::Pessimistic),
            vec![1.0, 0.0]
        );
        assert_eq!(
            query_density(&row, &[1], &[0], TiePolicy::Row),
            vec![1.0, 0.0]
        );
    }

    #[test]
    fn combinations_count() {
        assert_eq!(combinations(&[1, 2, 3, 4], 2).len(), 6);
        assert_eq!(combinations(&[1, 2, 3], 0), vec![Vec::<usize>::new()]);
        assert_eq!(combinations(&[5, 6], 2), vec![vec![5, 6]]);
    }

    #[test]
    fn short_queries_carry_their_full_pool() {
        let cols = mean_columns(&[vec![1.0, 0.5, 0.0], vec![1.0, 0.25, 0.5, 0.0]]);
        assert_eq!(cols, vec![1.0, 0.375, 0.25, 0.0]);
    }
}
