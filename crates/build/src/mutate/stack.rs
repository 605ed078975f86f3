//! Stacked mutants (paper Appendix G.2): 2–4 single edits with pairwise-disjoint line ranges,
//! composed into one program.
//!
//! A mutant's line range is the original lines its edit touches: from the line of `edit.start` to
//! the line of its last replaced byte (a guard removal's range ends at the line of its final
//! newline). Ranges must not share a line; adjacent lines are fine. Splices are applied from the
//! end of the source backwards so earlier byte offsets stay valid.

use super::select::tie_key;
use super::{line_of, parses_in, splice, Language, Mutant};
use execscope_core::bundle::model::Edit;
use serde::{Deserialize, Serialize};

/// Several single-edit mutants composed into one program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackedMutant {
    pub code: String,
    /// The component edits (offsets into the original), ascending by `start`.
    pub edits: Vec<Edit>,
    /// Per edit, in the same order.
    pub bug_types: Vec<String>,
    pub operators: Vec<String>,
    /// Per edit, the index of its part: into `parts` for [`stack`], into `kept` for
    /// [`stacked_candidates`].
    pub parts: Vec<usize>,
    /// The component descriptions, in edit order, joined by spaces.
    pub description: String,
}

/// Inclusive 1-based line range touched by a mutant's edit in the original.
fn line_range(src: &str, m: &Mutant) -> (usize, usize) {
    let first = line_of(src, m.edit.start);
    let last = if m.edit.end > m.edit.start {
        line_of(src, m.edit.end - 1)
    } else {
        first
    };
    (first, last)
}

/// Compose 2–4 mutants of `src`. `None` when the count is outside 2–4, an edit does not match
/// `src`, two line ranges overlap, or the composition does not parse.
pub fn stack(src: &str, parts: &[&Mutant]) -> Option<StackedMutant> {
    stack_in(Language::Python, src, parts)
}

/// [`stack`] for a source in `lang` (the composition must parse in its grammar).
pub fn stack_in(lang: Language, src: &str, parts: &[&Mutant]) -> Option<StackedMutant> {
    if !(2..=4).contains(&parts.len()) {
        return None;
    }
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| (parts[i].edit.start, parts[i].edit.end));
    for &i in &order {
        let e = &parts[i].edit;
        if e.start > e.end || src.get(e.start..e.end) != Some(e.before.as_str()) {
            return None;
        }
    }
    for w in order.windows(2) {
        let (_, last) = line_range(src, parts[w[0]]);
        let (first, _) = line_range(src, parts[w[1]]);
        if last >= first {
            return None;
        }
    }
    let mut code = src.to_string();
    for &i in order.iter().rev() {
        let e = &parts[i].edit;
        code = splice(&code, e.start, e.end, &e.after);
    }
    if code == src || !parses_in(lang, &code) {
        return None;
    }
    Some(StackedMutant {
        code,
        edits: order.iter().map(|&i| parts[i].edit.clone()).collect(),
        bug_types: order.iter().map(|&i| parts[i].bug_type.clone()).collect(),
        operators: order.iter().map(|&i| parts[i].operator.clone()).collect(),
        description: order
            .iter()
            .map(|&i| parts[i].description.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        parts: order,
    })
}

/// Up to `max_per_size` stacked mutants for each size 2, 3 and 4 built from `kept` (every
/// combination is tried; when more than `max_per_size` compose, a seeded choice by SHA-256 of
/// (seed, code) keeps the quota). Ordered by size, then by the combination's indices; codes are
/// unique. `parts` index into `kept`.
pub fn stacked_candidates(
    src: &str,
    kept: &[Mutant],
    max_per_size: usize,
    seed: u64,
) -> Vec<StackedMutant> {
    stacked_candidates_in(Language::Python, src, kept, max_per_size, seed)
}

/// [`stacked_candidates`] for a source in `lang`.
pub fn stacked_candidates_in(
    lang: Language,
    src: &str,
    kept: &[Mutant],
    max_per_size: usize,
    seed: u64,
) -> Vec<StackedMutant> {
    let mut out: Vec<StackedMutant> = Vec::new();
    for size in 2..=4.min(kept.len()) {
        let mut found: Vec<(Vec<usize>, StackedMutant)> = Vec::new();
        for combo in combinations(kept.len(), size) {
            let parts: Vec<&Mutant> = combo.iter().map(|&i| &kept[i]).collect();
            if let Some(mut s) = stack_in(lang, src, &parts) {
                if out
                    .iter()
                    .chain(found.iter().map(|(_, s)| s))
                    .any(|o| o.code == s.code)
                {
                    continue;
                }
                s.parts = s.parts.iter().map(|&p| combo[p]).collect();
                found.push((combo, s));
            }
        }
        found.sort_by_cached_key(|(combo, s)| (tie_key(seed, &s.code), combo.clone()));
        found.truncate(max_per_size);
        found.sort_by(|a, b| a.0.cmp(&b.0));
        out.extend(found.into_iter().map(|(_, s)| s));
    }
    out
}

/// All `k`-subsets of `0..n` in lexicographic order.
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k == 0 || k > n {
        return out;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.clone());
        let Some(pos) = (0..k).rev().find(|&p| idx[p] != p + n - k) else {
            return out;
        };
        idx[pos] += 1;
        for q in pos + 1..k {
            idx[q] = idx[q - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::combinations;

    #[test]
    fn combinations_are_lexicographic_and_complete() {
        assert_eq!(
            combinations(4, 2),
            vec![
                vec![0, 1],
                vec![0, 2],
                vec![0, 3],
                vec![1, 2],
                vec![1, 3],
                vec![2, 3]
            ]
        );
        assert_eq!(combinations(3, 3), vec![vec![0, 1, 2]]);
        assert!(combinations(2, 3).is_empty());
        assert_eq!(combinations(6, 4).len(), 15);
    }
}
