//! Order sensitivity of the first-admitted selector (`docs/audit.md`, "Order sensitivity").
//!
//! A global order is a permutation of the cohort's pool positions, applied to every task: the
//! selector scans positions in that order and returns the first admitted candidate. All m! orders
//! are enumerated when m! ≤ 40,320; otherwise a seeded uniform sample of orders is drawn and the
//! report says so. Per predicate: min / median / max passed tasks over orders. Per contrast
//! (old → new predicate, same order for both): the expected 3×3 matrix of task transitions between
//! pass / nonpass / abstain, and how many orders lose or gain passed tasks.

use super::account::Choice;
use super::Cohort;
use crate::stats::percentile_type7;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Serialize;

/// Largest m! enumerated exhaustively (8!).
pub const MAX_EXHAUSTIVE: usize = 40_320;
/// Orders drawn when m! is larger.
pub const DEFAULT_SAMPLE: usize = 10_000;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OrderRange {
    pub predicate: String,
    /// Passed tasks under the default (numeric / rank) order.
    pub default_order: usize,
    pub min: usize,
    pub median: f64,
    pub max: usize,
    pub mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Transition {
    pub from: String,
    pub to: String,
    /// `expected[a][b]`: mean over orders of tasks whose old choice scored `a` and new `b`
    /// (indices of [`Choice::index`]: pass, nonpass, abstain).
    pub expected: [[f64; 3]; 3],
    /// Orders in which the new predicate passes fewer tasks than the old.
    pub orders_with_loss: usize,
    pub orders_with_gain: usize,
    pub delta_min: i64,
    pub delta_max: i64,
}

impl Transition {
    pub fn n_to_p(&self) -> f64 {
        self.expected[1][0]
    }
    pub fn p_to_n(&self) -> f64 {
        self.expected[0][1]
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OrderReport {
    /// Pool positions permuted.
    pub m: usize,
    /// All m! orders (true) or a seeded sample (false).
    pub exhaustive: bool,
    pub orders: usize,
    /// Seed of the sample (only when not exhaustive).
    pub seed: Option<u64>,
    pub per_predicate: Vec<OrderRange>,
    pub transitions: Vec<Transition>,
}

fn factorial_capped(m: usize, cap: usize) -> Option<usize> {
    let mut f: usize = 1;
    for i in 2..=m {
        f = f.checked_mul(i)?;
        if f > cap {
            return None;
        }
    }
    Some(f)
}

/// Next lexicographic permutation in place; false after the last one.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let mut i = n - 1;
    while i > 0 && p[i - 1] >= p[i] {
        i -= 1;
    }
    if i == 0 {
        return false;
    }
    let mut j = n - 1;
    while p[j] <= p[i - 1] {
        j -= 1;
    }
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// Per task and predicate, the choice under a given order (`rank[pos]` = scan step of `pos`).
fn choices(cohort: &Cohort, n_pred: usize, rank: &[usize], out: &mut [Choice]) {
    for (t, task) in cohort.tasks.iter().enumerate() {
        for p in 0..n_pred {
            let mut best: Option<(usize, bool)> = None;
            for c in &task.candidates {
                if c.admitted[p] {
                    let r = rank[c.position];
                    if best.is_none_or(|(b, _)| r < b) {
                        best = Some((r, c.pass));
                    }
                }
            }
            out[t * n_pred + p] = match best {
                None => Choice::Abstain,
                Some((_, true)) => Choice::Pass,
                Some((_, false)) => Choice::Nonpass,
            };
        }
    }
}

/// Order analysis of one cohort.
pub fn analyse(
    cohort: &Cohort,
    predicates: &[String],
    contrasts: &[(usize, usize)],
    sample: usize,
    seed: u64,
) -> OrderReport {
    let m = cohort.positions.len();
    let n_pred = predicates.len();
    let n_tasks = cohort.tasks.len();
    let mut passes: Vec<Vec<f64>> = vec![Vec::new(); n_pred];
    let mut expected = vec![[[0.0f64; 3]; 3]; contrasts.len()];
    let mut loss = vec![0usize; contrasts.len()];
    let mut gain = vec![0usize; contrasts.len()];
    let mut dmin = vec![i64::MAX; contrasts.len()];
    let mut dmax = vec![i64::MIN; contrasts.len()];
    let mut buf = vec![Choice::Abstain; n_tasks * n_pred];
    let mut rank = vec![0usize; m];
    let mut visit = |order: &[usize], buf: &mut Vec<Choice>| {
        for (step, &pos) in order.iter().enumerate() {
            rank[pos] = step;
        }
        choices(cohort, n_pred, &rank, buf);
        let mut count = vec![0i64; n_pred];
        for t in 0..n_tasks {
            for (p, c) in count.iter_mut().enumerate() {
                *c += (buf[t * n_pred + p] == Choice::Pass) as i64;
            }
        }
        for (p, &c) in count.iter().enumerate() {
            passes[p].push(c as f64);
        }
        for (k, &(a, b)) in contrasts.iter().enumerate() {
            for t in 0..n_tasks {
                let (x, y) = (buf[t * n_pred + a], buf[t * n_pred + b]);
                expected[k][x.index()][y.index()] += 1.0;
            }
            let d = count[b] - count[a];
            loss[k] += (d < 0) as usize;
            gain[k] += (d > 0) as usize;
            dmin[k] = dmin[k].min(d);
            dmax[k] = dmax[k].max(d);
        }
    };
    let identity: Vec<usize> = (0..m).collect();
    let (exhaustive, n_orders, used_seed) = match factorial_capped(m, MAX_EXHAUSTIVE) {
        Some(f) => {
            let mut p = identity.clone();
            loop {
                visit(&p, &mut buf);
                if !next_permutation(&mut p) {
                    break;
                }
            }
            (true, f, None)
        }
        None => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut p = identity.clone();
            for _ in 0..sample.max(1) {
                p.shuffle(&mut rng);
                visit(&p, &mut buf);
            }
            (false, sample.max(1), Some(seed))
        }
    };
    // The default order, for the "numeric order" column.
    for (step, &pos) in identity.iter().enumerate() {
        rank[pos] = step;
    }
    choices(cohort, n_pred, &rank, &mut buf);
    let per_predicate = predicates
        .iter()
        .enumerate()
        .map(|(p, name)| {
            let mut v = passes[p].clone();
            v.sort_unstable_by(f64::total_cmp);
            let default_order = (0..n_tasks)
                .filter(|&t| buf[t * n_pred + p] == Choice::Pass)
                .count();
            OrderRange {
                predicate: name.clone(),
                default_order,
                min: v.first().copied().unwrap_or(0.0) as usize,
                median: if v.is_empty() {
                    0.0
                } else {
                    percentile_type7(&v, 0.5)
                },
                max: v.last().copied().unwrap_or(0.0) as usize,
                mean: v.iter().sum::<f64>() / v.len().max(1) as f64,
            }
        })
        .collect();
    let transitions = contrasts
        .iter()
        .enumerate()
        .map(|(k, &(a, b))| {
            let mut e = expected[k];
            for row in &mut e {
                for v in row.iter_mut() {
                    *v /= n_orders as f64;
                }
            }
            Transition {
                from: predicates[a].clone(),
                to: predicates[b].clone(),
                expected: e,
                orders_with_loss: loss[k],
                orders_with_gain: gain[k],
                delta_min: if dmin[k] == i64::MAX { 0 } else { dmin[k] },
                delta_max: if dmax[k] == i64::MIN { 0 } else { dmax[k] },
            }
        })
        .collect();
    OrderReport {
        m,
        exhaustive,
        orders: n_orders,
        seed: used_seed,
        per_predicate,
        transitions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_all_distinct_and_counted() {
        let mut p = vec![0, 1, 2, 3];
        let mut seen = std::collections::HashSet::new();
        loop {
            assert!(seen.insert(p.clone()));
            if !next_permutation(&mut p) {
                break;
            }
        }
        assert_eq!(seen.len(), 24);
        assert_eq!(factorial_capped(8, MAX_EXHAUSTIVE), Some(40_320));
        assert_eq!(factorial_capped(9, MAX_EXHAUSTIVE), None);
        assert_eq!(factorial_capped(0, MAX_EXHAUSTIVE), Some(1));
    }
}
