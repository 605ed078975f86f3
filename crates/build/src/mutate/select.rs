//! Which executed mutants become distractors (pure: the oracle has already run).
//!
//! Rules, applied to each candidate in index order:
//! 1. it must fail at least one test, else [`DropReason::PassesAllTests`] (an empty suite fails
//!    nothing, so it lands here too);
//! 2. at least one failure must be a plain wrong value ([`Outcome::Fail`]) — the paper's
//!    distractors "produce WRONG OUTPUT, not crash" — else [`DropReason::OnlyCrashes`];
//! 3. it must behave differently from every earlier candidate that passed rules 1–2 (outcome
//!    vector and observed-value vector compared as a pair), else [`DropReason::DuplicateOf`] the
//!    first such candidate;
//! 4. of the survivors, up to `max_keep` are chosen round-robin over bug types in
//!    [`BUG_TYPES`] order (bug types outside that list follow, sorted by name), so distinct bug
//!    types are preferred; within one bug type the order is a seeded pseudo-random one, the rest get
//!    [`DropReason::NotChosen`].
//!
//! The within-type order sorts by SHA-256 of (seed, mutant code), so it is deterministic for a seed
//! and does not depend on the candidates' positions or on the other bug types' candidates.

use super::Mutant;
use execscope_core::bundle::model::BUG_TYPES;
use execscope_oracle::outcome::Outcome;
use sha2::{Digest, Sha256};
use std::fmt;

/// A mutant together with the oracle's verdict on it (one entry per test, in suite order).
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mutant: Mutant,
    pub outcomes: Vec<Outcome>,
    /// Per test, the `repr` of the compared value (see `SuiteResult::observed`).
    pub observed: Vec<Option<String>>,
}

/// Why a candidate was not kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// It fails no test, so it is not a bug the suite can see.
    PassesAllTests,
    /// Every test it fails, it fails by crashing (exception, error, timeout), never with a wrong
    /// value.
    OnlyCrashes,
    /// Same outcomes and observed values as the candidate with this index.
    DuplicateOf(usize),
    /// Valid, but the quota was filled by other bug types or other seeds' picks.
    NotChosen,
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DropReason::PassesAllTests => f.write_str("Passes all tests"),
            DropReason::OnlyCrashes => f.write_str("Crashes on every test it fails"),
            DropReason::DuplicateOf(i) => write!(f, "Duplicate behaviour of #{i}"),
            DropReason::NotChosen => f.write_str("Not chosen (quota)"),
        }
    }
}

/// The outcome of [`select`]: every candidate index appears exactly once, in `kept` or `dropped`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Kept candidate indices, ascending.
    pub kept: Vec<usize>,
    /// Dropped candidate indices with their reason, ascending by index.
    pub dropped: Vec<(usize, DropReason)>,
}

/// Choose up to `max_keep` distractors from executed candidates (rules in the module docs).
pub fn select(cands: &[Candidate], max_keep: usize, seed: u64) -> Selection {
    select_rotated(cands, max_keep, seed, 0)
}

/// [`select`] with the round-robin over [`BUG_TYPES`] starting at `BUG_TYPES[rotation % 6]`
/// instead of the first. With a fixed start, a canonical offering five or more usable bug types
/// always loses the last ones in list order (`wrong_comparison`, `wrong_operator`); a builder that
/// gives each task its own seeded start balances bug types across a benchmark. Unknown bug types
/// still follow the six, sorted by name.
pub fn select_rotated(
    cands: &[Candidate],
    max_keep: usize,
    seed: u64,
    rotation: usize,
) -> Selection {
    select_in(cands, max_keep, seed, rotation, &BUG_TYPES)
}

/// [`select_rotated`] over the bug types `order` (a build's families, in report order) instead
/// of the paper's six: the round-robin starts at `order[rotation % order.len()]`; bug types
/// outside `order` follow, sorted by name. With `order` = [`BUG_TYPES`] it is
/// [`select_rotated`].
pub fn select_in(
    cands: &[Candidate],
    max_keep: usize,
    seed: u64,
    rotation: usize,
    order: &[&str],
) -> Selection {
    let mut dropped: Vec<(usize, DropReason)> = Vec::new();
    let mut viable: Vec<usize> = Vec::new();
    for (i, c) in cands.iter().enumerate() {
        if c.outcomes.iter().all(Outcome::is_pass) {
            dropped.push((i, DropReason::PassesAllTests));
        } else if !c.outcomes.iter().any(Outcome::is_plain_fail) {
            dropped.push((i, DropReason::OnlyCrashes));
        } else if let Some(&j) = viable
            .iter()
            .find(|&&j| cands[j].outcomes == c.outcomes && cands[j].observed == c.observed)
        {
            dropped.push((i, DropReason::DuplicateOf(j)));
        } else {
            viable.push(i);
        }
    }

    // Group by bug type: `order` first, then unknown types by name.
    let mut types: Vec<&str> = order.to_vec();
    if !types.is_empty() {
        types.rotate_left(rotation % order.len());
    }
    let mut others: Vec<&str> = viable
        .iter()
        .map(|&i| cands[i].mutant.bug_type.as_str())
        .filter(|t| !order.contains(t))
        .collect();
    others.sort_unstable();
    others.dedup();
    types.extend(others);
    let mut groups: Vec<Vec<usize>> = types
        .iter()
        .map(|t| {
            let mut g: Vec<usize> = viable
                .iter()
                .copied()
                .filter(|&i| cands[i].mutant.bug_type == *t)
                .collect();
            g.sort_by_cached_key(|&i| (tie_key(seed, &cands[i].mutant.code), i));
            g
        })
        .collect();

    let mut kept: Vec<usize> = Vec::new();
    let mut round = 0;
    while kept.len() < max_keep && groups.iter().any(|g| round < g.len()) {
        for g in &groups {
            if kept.len() == max_keep {
                break;
            }
            if let Some(&i) = g.get(round) {
                kept.push(i);
            }
        }
        round += 1;
    }
    for g in groups.iter_mut() {
        g.retain(|i| !kept.contains(i));
        dropped.extend(g.iter().map(|&i| (i, DropReason::NotChosen)));
    }
    kept.sort_unstable();
    dropped.sort_by_key(|(i, _)| *i);
    Selection { kept, dropped }
}

/// Seeded ordering key: SHA-256 of the seed (little-endian) followed by the code.
pub(crate) fn tie_key(seed: u64, code: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(code.as_bytes());
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use execscope_core::bundle::model::Edit;

    fn cand(bug_type: &str, value: &str) -> Candidate {
        Candidate {
            mutant: Mutant {
                operator: "op".into(),
                bug_type: bug_type.into(),
                edit: Edit {
                    start: 0,
                    end: 0,
                    before: String::new(),
                    after: String::new(),
                },
                code: value.into(),
                line: 1,
                description: String::new(),
            },
            outcomes: vec![Outcome::Fail],
            observed: vec![Some(value.into())],
        }
    }

    #[test]
    fn rotation_moves_the_round_robin_start() {
        // One candidate of each of the six types, indices in BUG_TYPES order.
        let c: Vec<Candidate> = BUG_TYPES.iter().map(|t| cand(t, t)).collect();
        // Rotation 0 is `select`: the first four types.
        assert_eq!(select_rotated(&c, 4, 3, 0), select(&c, 4, 3));
        assert_eq!(select(&c, 4, 3).kept, vec![0, 1, 2, 3]);
        // Start at wrong_comparison (4): wrong_comparison, wrong_operator, off_by_one,
        // off_by_one_boundary.
        assert_eq!(select_rotated(&c, 4, 3, 4).kept, vec![0, 1, 4, 5]);
        // The rotation is taken modulo six.
        assert_eq!(select_rotated(&c, 4, 3, 10).kept, vec![0, 1, 4, 5]);
        let sel = select_rotated(&c, 2, 3, 5);
        assert_eq!(sel.kept, vec![0, 5]);
        assert_eq!(sel.dropped.len(), 4);
        // Over all six starts each type is left out exactly twice with four slots.
        let mut kept = [0usize; 6];
        for r in 0..6 {
            for i in select_rotated(&c, 4, 3, r).kept {
                kept[i] += 1;
            }
        }
        assert_eq!(kept, [4; 6]);
    }

    #[test]
    fn select_in_rotates_over_the_builds_families() {
        use crate::mutate::Operators;
        let order = Operators::all().names();
        // one candidate each of three families, and one of a type outside the order
        let c = vec![
            cand("wrong_constant", "w"),
            cand("off_by_one", "o"),
            cand("negate_condition", "n"),
            cand("zz_other", "z"),
        ];
        // start at negate_condition (index 6): it, then wrong_constant (13), then off_by_one
        // (0, after the wrap); the unknown type comes after every family of the order
        let sel = select_in(&c, 3, 3, 6, &order);
        assert_eq!(sel.kept, vec![0, 1, 2]);
        let sel = select_in(&c, 2, 3, 6, &order);
        assert_eq!(sel.kept, vec![0, 2]);
        let sel = select_in(&c, 2, 3, 14, &order);
        assert_eq!(
            sel.kept,
            vec![1, 2],
            "from remove_unary_operator (14) the wrap: off_by_one (0), then negate_condition (6)"
        );
        assert_eq!(select_in(&c, 4, 3, 0, &order).kept, vec![0, 1, 2, 3]);
        // the paper's order is select_rotated's
        assert_eq!(
            select_in(&c, 2, 3, 1, &BUG_TYPES),
            select_rotated(&c, 2, 3, 1)
        );
    }
}
