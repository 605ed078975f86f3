//! Rank-1 miss composition and per-query difficulty (`docs/analysis.md`).
//!
//! Rank-1 under ties: the top tie group decides. `row` takes its lowest corpus row; `expected`
//! splits the query uniformly over the group's members; `pessimistic` places a failing member on
//! top whenever the group has one (split evenly over the failing members), `optimistic` a passing
//! member whenever it has one.

use crate::bundle::Bundle;
use crate::metrics::{Metric, SystemEval, TiePolicy, Truth};
use crate::rank::SystemScores;

/// Rank-1 composition of one system, in (possibly fractional) query counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MissComposition {
    pub queries: usize,
    /// Top-1 passes.
    pub hits: f64,
    /// Top-1 fails and is one of the query's own paired distractors.
    pub paired_distractor: f64,
    /// Top-1 fails and is any other snippet.
    pub other: f64,
}

impl MissComposition {
    pub fn misses(&self) -> f64 {
        self.paired_distractor + self.other
    }

    /// Share of misses that are the query's own paired distractors.
    pub fn paired_share(&self) -> f64 {
        if self.misses() == 0.0 {
            f64::NAN
        } else {
            self.paired_distractor / self.misses()
        }
    }
}

pub fn miss_composition(
    bundle: &Bundle,
    truth: &Truth,
    scores: &SystemScores,
    policy: TiePolicy,
) -> MissComposition {
    let mut out = MissComposition {
        queries: bundle.queries.len(),
        ..MissComposition::default()
    };
    for (qi, q) in bundle.queries.iter().enumerate() {
        let row = scores.row(qi);
        if row.is_empty() {
            continue;
        }
        let top = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        // Members of the top group: (passes, is paired distractor), in row order.
        let members: Vec<(bool, bool)> = row
            .iter()
            .enumerate()
            .filter(|(_, &s)| s == top)
            .map(|(c, _)| (truth.passes(qi, c), q.paired.contains(&c)))
            .collect();
        let share = |sel: &[(bool, bool)]| -> (f64, f64, f64) {
            let n = sel.len() as f64;
            let hit = sel.iter().filter(|m| m.0).count() as f64 / n;
            let paired = sel.iter().filter(|m| !m.0 && m.1).count() as f64 / n;
            let other = sel.iter().filter(|m| !m.0 && !m.1).count() as f64 / n;
            (hit, paired, other)
        };
        let failing: Vec<(bool, bool)> = members.iter().copied().filter(|m| !m.0).collect();
        let passing: Vec<(bool, bool)> = members.iter().copied().filter(|m| m.0).collect();
        // Pessimistic / optimistic put a failing / passing member on top when the group has
        // one; a group of only the other kind splits like `expected` (it is all that kind).
        let (h, p, o) = match policy {
            TiePolicy::Row => share(&members[..1]),
            TiePolicy::Expected => share(&members),
            TiePolicy::Pessimistic if !failing.is_empty() => share(&failing),
            TiePolicy::Optimistic if !passing.is_empty() => share(&passing),
            TiePolicy::Pessimistic | TiePolicy::Optimistic => share(&members),
        };
        out.hits += h;
        out.paired_distractor += p;
        out.other += o;
    }
    out
}

/// Per query: how many systems solve it at rank 1 (sum of exec@1, fractional under `expected`).
pub fn difficulty(evals: &[SystemEval]) -> Vec<f64> {
    let Some(first) = evals.first() else {
        return Vec::new();
    };
    let Some(k1) = first.config.k_index(1) else {
        return Vec::new();
    };
    (0..first.per_query.len())
        .map(|q| {
            evals
                .iter()
                .map(|e| e.per_query[q].get(Metric::Exec, k1))
                .sum()
        })
        .collect()
}

/// Queries no system solves at rank 1.
pub fn unsolved(difficulty: &[f64]) -> Vec<usize> {
    difficulty
        .iter()
        .enumerate()
        .filter(|(_, &d)| d == 0.0)
        .map(|(i, _)| i)
        .collect()
}

/// Histogram of difficulty: index = number of systems (rounded down), value = queries.
pub fn difficulty_histogram(difficulty: &[f64], n_systems: usize) -> Vec<usize> {
    let mut h = vec![0usize; n_systems + 1];
    for &d in difficulty {
        h[(d.floor() as usize).min(n_systems)] += 1;
    }
    h
}
