//! Mechanical single-edit mutation of functions, and the choice of which mutants become
//! distractors (paper §3 and Appendix G.2).
//!
//! Python is mutated by its own rules ([`mutants_with`]); every other [`Language`] through its
//! dialect of the same families ([`mutants_in`], `lang`), so the execution side calls one
//! function for any language: [`mutants_of`] on a [`Canonical`] (language, source, entry point).
//! Selection and stacking are the same for every language.
//!
//! The pipeline is: [`mutants_with`] enumerates every single-edit mutant of a canonical (one
//! byte-range splice per site) for the families of an [`Operators`] set — the paper's six by
//! default ([`mutants`]), one per bug type of [`BUG_TYPES`](execscope_core::bundle::model::BUG_TYPES),
//! or the whole catalogue ([`Family`]); `equivalence` settles the mutants whose compiled code
//! equals the canonical's or another mutant's; the oracle runs the rest; [`select`] keeps up to
//! four behaviourally distinct, execution-failing ones; [`stacked_candidates`] composes kept
//! mutants with disjoint line ranges for the stacking robustness analysis.
//!
//! Nothing here executes code: selection is a pure function of the oracle's outcomes.

mod catalogue;
mod family;
mod lang;
mod operators;
pub(crate) mod parse;
mod select;
mod stack;
mod structural;

pub use execscope_record::Language;
pub use family::{Family, Operators};
pub use parse::{parse_errors_in, parses, parses_in};
pub use select::{select, select_in, select_rotated, Candidate, DropReason, Selection};
pub use stack::{stack, stack_in, stacked_candidates, stacked_candidates_in, StackedMutant};

use execscope_core::bundle::model::Edit;
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
    /// The [`Family`] name: one of [`BUG_TYPES`](execscope_core::bundle::model::BUG_TYPES)
    /// for the paper's six, else of
    /// [`MORE_BUG_TYPES`](execscope_core::bundle::model::MORE_BUG_TYPES).
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

/// Longest source [`mutants`] accepts, in lines. A function has about three mutation sites per
/// line and every mutant is a full copy of the source that the builder executes, so work and
/// memory grow with lines × sites; longer sources are refused with [`MutateError::TooLarge`]
/// instead of running for hours.
pub const MAX_LINES: usize = 1000;

/// Longest source [`mutants`] accepts, in bytes (the same bound for sources of few long lines).
pub const MAX_BYTES: usize = 64 * 1024;

/// Most mutation sites of the paper's families [`mutants_with`] turns into mutants (and as many
/// again of the catalogue's other families). A source with more sites (a function of
/// some hundreds of lines) gets an evenly spaced, deterministic subset of its sites in offset
/// order, so the mutants still cover the whole function while the work (each mutant is a full
/// copy, re-parsed, then executed by the builder) stays bounded. The canonicals of the paper's
/// benchmark have far fewer sites.
pub const MAX_SITES: usize = 600;

/// Why a source could not be mutated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutateError {
    /// The source is longer than [`MAX_LINES`] or [`MAX_BYTES`].
    #[error(
        "the source has {lines} lines ({bytes} bytes); mutation is limited to {MAX_LINES} lines \
         and {} KiB, since every single-edit mutant is a full copy that gets executed",
        MAX_BYTES / 1024
    )]
    TooLarge { lines: usize, bytes: usize },
    /// The source does not parse in its language's grammar; line and column are 1-based.
    #[error(
        "{} parse error at line {line}, column {column}: {problem}",
        language.display_name()
    )]
    Parse {
        language: Language,
        line: usize,
        column: usize,
        problem: String,
    },
    /// The source defines no function of the task's entry point's name.
    #[error(
        "the {} source defines no function `{name}` (it defines: {})",
        language.display_name(),
        if defined.is_empty() { "none".to_string() } else { defined.join(", ") }
    )]
    NoEntryPoint {
        language: Language,
        name: String,
        defined: Vec<String>,
    },
}

/// A task's canonical solution as the mutation engine takes it, in any language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical<'a> {
    pub language: Language,
    /// The whole source the candidate is (for HumanEval-X: the declaration and the canonical
    /// body; includes, imports and a class shell are never mutated).
    pub source: &'a str,
    /// The function under test; `""` to skip the check that the source defines it.
    pub entry_point: &'a str,
}

/// Every single-edit mutant of a canonical under the families of `ops`: [`mutants_in`] after
/// checking that the source defines the entry point (Python: a top-level `def`; elsewhere any
/// function or method of that name). This is the call the execution side makes for a task;
/// [`select_in`] and [`stacked_candidates_in`] then apply unchanged.
pub fn mutants_of(c: &Canonical, ops: &Operators) -> Result<Vec<Mutant>, MutateError> {
    if !c.entry_point.is_empty() {
        check_size(c.source)?;
        let defined = function_names(c.language, c.source);
        if !defined.iter().any(|d| d == c.entry_point) {
            if let Some(e) = parse_problem_in(c.language, c.source) {
                return Err(e);
            }
            return Err(MutateError::NoEntryPoint {
                language: c.language,
                name: c.entry_point.to_string(),
                defined,
            });
        }
    }
    mutants_in(c.language, c.source, ops)
}

/// The functions (and methods) a `lang` source defines, in source order (Python: its top-level
/// `def`s, as the gates read them).
pub fn function_names(lang: Language, src: &str) -> Vec<String> {
    match lang::dialect(lang) {
        None => lang::python_defs(&parse::parse_tree(src), src),
        Some(d) => lang::function_names(d, &parse::parse_tree_in(lang, src), src),
    }
}

/// Every single-edit mutant of `src` under the paper's six families: [`mutants_with`] and
/// [`Operators::paper`].
pub fn mutants(src: &str) -> Result<Vec<Mutant>, MutateError> {
    mutants_with(src, &Operators::paper())
}

/// Every single-edit mutant of `src` for the families in `ops` (of at most [`MAX_SITES`] sites
/// of the paper's families and as many of the others, see there), one per (site, rule), in
/// deterministic order: by byte offset of the edit, then operator name. Mutants that do not
/// parse, or whose code equals the original or an earlier mutant's, are dropped (so the list is
/// free of textual duplicates). The paper's families claim their codes first, so the paper's
/// mutants of a source are the same whatever other families are added: the default set
/// reproduces the bundles built before the catalogue grew, byte for byte.
pub fn mutants_with(src: &str, ops: &Operators) -> Result<Vec<Mutant>, MutateError> {
    check_size(src)?;
    let tree = parse::parse_tree(src);
    if let Some(err) = parse::first_problem(Language::Python, &tree, src) {
        return Err(err);
    }
    let mut paper = operators::sites(&tree, src);
    paper.retain(|s| ops.contains_name(s.bug_type));
    let more = catalogue::sites(&tree, src, ops);
    Ok(assemble(Language::Python, &tree, src, paper, more))
}

/// [`mutants_with`] for a source in `lang`: Python by its own rules, any other language by its
/// dialect of the families (docs/bundle-format.md, "Bug types in other languages"). The same
/// bounds, order, de-duplication and parse check: every mutant parses in `lang`'s grammar
/// without an error node where the source had none, differs from the source by one splice, and
/// the list is a pure function of (language, source, families).
pub fn mutants_in(lang: Language, src: &str, ops: &Operators) -> Result<Vec<Mutant>, MutateError> {
    let Some(d) = lang::dialect(lang) else {
        return mutants_with(src, ops);
    };
    check_size(src)?;
    let tree = parse::parse_tree_in(lang, src);
    // A grammar is not the compiler: tree-sitter-cpp misreads `typeid(int)`, which g++ accepts.
    // So a source with parse errors is still mutated, away from them (a dialect never splices
    // inside an `ERROR` node), and a mutant may not add an error where the source had none;
    // only a source with no function at all is refused ([`mutants_of`]).
    let (paper, more) = lang::sites(d, &tree, src, ops);
    Ok(assemble(lang, &tree, src, paper, more))
}

/// The mutants of the paper's and the catalogue's sites: spliced, re-parsed, de-duplicated and
/// sorted (the paper's claim their codes first).
fn assemble(
    lang: Language,
    tree: &tree_sitter::Tree,
    src: &str,
    paper: Vec<operators::Site>,
    more: Vec<operators::Site>,
) -> Vec<Mutant> {
    // Duplicates are found by digest (a set of full copies would hold lines × sites bytes), and
    // each mutant is re-parsed incrementally from the original's tree: tree-sitter re-uses every
    // subtree the splice does not touch, so a parse costs about the edit, not the source.
    let mut seen: HashSet<[u8; 32]> = HashSet::new();
    seen.insert(digest(src));
    let mut reparse = parse::Reparser::new(lang, tree, src);
    let mut out = Vec::new();
    for sites in [bounded(paper), bounded(more)] {
        for s in sites {
            let code = splice(src, s.start, s.end, &s.after);
            let d = digest(&code);
            if seen.contains(&d) || !reparse.parses(s.start, s.end, &s.after, &code) {
                continue;
            }
            seen.insert(d);
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
    }
    // A stable sort: the paper's list alone is already in this order.
    out.sort_by(|a, b| {
        let key = |m: &Mutant| {
            (
                m.edit.start,
                m.operator.clone(),
                m.edit.end,
                m.edit.after.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    out
}

/// `sites` in (offset, operator, end, replacement) order, thinned to [`MAX_SITES`] evenly
/// spaced ones when there are more.
fn bounded(mut sites: Vec<operators::Site>) -> Vec<operators::Site> {
    sites.sort_by(|a, b| {
        (a.start, &a.operator, a.end, &a.after).cmp(&(b.start, &b.operator, b.end, &b.after))
    });
    if sites.len() > MAX_SITES {
        let n = sites.len();
        let keep: std::collections::BTreeSet<usize> =
            (0..MAX_SITES).map(|i| i * n / MAX_SITES).collect();
        sites = sites
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep.contains(i))
            .map(|(_, s)| s)
            .collect();
    }
    sites
}

/// The first problem that keeps `src` from being mutated, if any: its size, else its first
/// syntax error (one parse, no mutants).
pub fn parse_problem(src: &str) -> Option<MutateError> {
    parse_problem_in(Language::Python, src)
}

/// [`parse_problem`] for a source in `lang`.
pub fn parse_problem_in(lang: Language, src: &str) -> Option<MutateError> {
    if let Err(e) = check_size(src) {
        return Some(e);
    }
    parse::first_problem(lang, &parse::parse_tree_in(lang, src), src)
}

fn check_size(src: &str) -> Result<(), MutateError> {
    let lines = src.lines().count();
    if lines > MAX_LINES || src.len() > MAX_BYTES {
        return Err(MutateError::TooLarge {
            lines,
            bytes: src.len(),
        });
    }
    Ok(())
}

fn digest(s: &str) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(s.as_bytes()).into()
}

/// `src` with bytes `start..end` replaced by `after`.
pub fn splice(src: &str, start: usize, end: usize, after: &str) -> String {
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
