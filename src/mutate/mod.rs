//! Mechanical single-edit mutation of Python functions, and the choice of which mutants become
//! distractors (paper §3 and Appendix G.2).
//!
//! The pipeline is: [`mutants`] enumerates every single-edit mutant of a canonical (one byte-range
//! splice per site, six operator families, one per bug type of
//! [`BUG_TYPES`](crate::bundle::model::BUG_TYPES)); the oracle runs them; [`select`] keeps up to
//! four behaviourally distinct, execution-failing ones; [`stacked_candidates`] composes kept
//! mutants with disjoint line ranges for the stacking robustness analysis.
//!
//! Nothing here executes code: selection is a pure function of the oracle's outcomes.

mod operators;
mod parse;
mod select;
mod stack;
mod structural;

pub use parse::parses;
pub use select::{select, select_rotated, Candidate, DropReason, Selection};
pub use stack::{stack, stacked_candidates, StackedMutant};

use crate::bundle::model::Edit;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// How many distractors a canonical gets by default (the paper's "up to four").
pub const DEFAULT_MAX_KEEP: usize = 4;

/// One single-edit mutant of a source text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// The mutation rule, e.g. `Add->Sub`, `Lt->LtE`, `int+1`, `range_bound+1`,
    /// `call_args(0,1)`, `swap_operands(Sub)`, `remove_guard`.
    pub operator: String,
    /// One of [`BUG_TYPES`](crate::bundle::model::BUG_TYPES).
    pub bug_type: String,
    /// The splice, with byte offsets into the ORIGINAL source.
    pub edit: Edit,
    /// The mutated source (the original with `edit` applied).
    pub code: String,
    /// 1-based line of `edit.start` in the original.
    pub line: usize,
    /// One generated sentence saying what changed (the `bug_description` of the release).
    pub description: String,
}

/// Why a source could not be mutated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutateError {
    /// The source does not parse as Python; line and column are 1-based.
    #[error("Python parse error at line {line}, column {column}: {problem}")]
    Parse {
        line: usize,
        column: usize,
        problem: String,
    },
}

/// Every single-edit mutant of `src`, one per (site, rule), in deterministic order: by byte offset
/// of the edit, then operator name. Mutants that do not parse, or whose code equals the original or
/// an earlier mutant's, are dropped (so the list is free of textual duplicates).
pub fn mutants(src: &str) -> Result<Vec<Mutant>, MutateError> {
    let tree = parse::parse_tree(src);
    if let Some(err) = parse::first_problem(&tree, src) {
        return Err(err);
    }
    let mut sites = operators::sites(&tree, src);
    sites.sort_by(|a, b| {
        (a.start, &a.operator, a.end, &a.after).cmp(&(b.start, &b.operator, b.end, &b.after))
    });
    let mut seen: HashSet<String> = HashSet::new();
    seen.insert(src.to_string());
    let mut out = Vec::with_capacity(sites.len());
    for s in sites {
        let code = splice(src, s.start, s.end, &s.after);
        if seen.contains(&code) || !parses(&code) {
            continue;
        }
        seen.insert(code.clone());
        out.push(Mutant {
            operator: s.operator,
            bug_type: s.bug_type.to_string(),
            edit: Edit {
                start: s.start,
                end: s.end,
                before: src[s.start..s.end].to_string(),
                after: s.after,
            },
            code,
            line: line_of(src, s.start),
            description: s.description,
        });
    }
    Ok(out)
}

/// `src` with bytes `start..end` replaced by `after`.
pub(crate) fn splice(src: &str, start: usize, end: usize, after: &str) -> String {
    let mut out = String::with_capacity(src.len() + after.len());
    out.push_str(&src[..start]);
    out.push_str(after);
    out.push_str(&src[end..]);
    out
}

/// 1-based line number of byte offset `at`.
pub(crate) fn line_of(src: &str, at: usize) -> usize {
    1 + src.as_bytes()[..at.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}
