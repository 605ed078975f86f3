//! Admission, selection and return audit (`docs/audit.md`; source: the audit paper).
//!
//! A task has a pool of candidates in a fixed order (sample index, or retrieval rank). Every
//! candidate carries an evidence vector of separate verdicts, each with its reason (exception
//! class, timeout, which structural rule failed), never merged into one "correct" flag. Admission
//! predicates are read off that vector; the independent oracle's `P+` is only ever used to *score*
//! a predicate or a selector, never to decide admission or selection.
//!
//! Two producers fill the same [`PoolSet`]:
//! - [`generated`]: JSONL candidate pools with co-generated self-tests, executed in the oracle's
//!   sandbox under the inline and the restricted module-supply contract ([`selftest`]);
//! - [`retrieval`]: a system's top-k per query, with the first m tests as "self-tests".
//!
//! The pure accounting ([`account`], [`orders`]) and the outputs ([`view`]; the tables in `report::audit`) do not
//! know which producer built the pools.

pub mod account;
mod error;
pub mod generated;
pub mod orders;
pub mod passk;
mod pool_file;
pub mod retrieval;
pub mod selftest;

pub mod view;

pub use error::AuditError;

use execscope_record::{Language, Outcome};
use serde::Serialize;

/// One verdict of an evidence vector: whether it holds, and why (never a bare boolean).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verdict {
    pub ok: bool,
    /// `pass`, an outcome (`tests:AssertionError`, `TIMEOUT`, `FAIL:ValueError` on base test 3),
    /// or the structural rule that failed.
    pub reason: String,
}

impl Verdict {
    pub fn new(ok: bool, reason: impl Into<String>) -> Verdict {
        Verdict {
            ok,
            reason: reason.into(),
        }
    }
}

/// One test of a candidate's suite with its outcome (for the view).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestRun {
    /// Which suite: `base`, `plus`, `visible`, `hidden`.
    pub suite: &'static str,
    pub test: String,
    pub outcome: Outcome,
}

/// A pool candidate: its place, its evidence, its admissions and its oracle verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Index into [`Cohort::positions`] (the pool position every global order permutes).
    pub position: usize,
    /// Display label: `sample 2`, `rank 1 c_0004`.
    pub label: String,
    /// Generated pools: the 1-based line of the pool file the candidate was read from (several
    /// candidates share one in bigcode's and lm-evaluation-harness's files).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    pub code: String,
    /// Self-test source (generated pools) or the visible tests, one per line (retrieval pools).
    pub self_tests: String,
    /// Parallel to [`PoolSet::evidence_names`].
    pub evidence: Vec<Verdict>,
    /// Parallel to [`PoolSet::predicates`]: admitted under each predicate.
    pub admitted: Vec<bool>,
    /// `P+`: passes the whole independent oracle.
    pub pass: bool,
    pub tests: Vec<TestRun>,
}

/// The candidates of one task, in pool order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskPool {
    pub task_id: String,
    pub function_name: String,
    /// The candidates' language: absent from the JSON for Python (every Python audit's output
    /// is as it was), named for any other.
    #[serde(skip_serializing_if = "is_python")]
    pub language: Language,
    pub candidates: Vec<Candidate>,
}

/// Whether a language is Python (which outputs leave unnamed).
pub fn is_python(l: &Language) -> bool {
    l.is_python()
}

/// One cohort (profile, or retrieval system): tasks sorted by id, every task of the audit present
/// (an empty pool abstains).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cohort {
    pub name: String,
    /// The pool positions in their default order (sample indices, or ranks 1..k).
    pub positions: Vec<i64>,
    pub tasks: Vec<TaskPool>,
}

impl Cohort {
    pub fn n_candidates(&self) -> usize {
        self.tasks.iter().map(|t| t.candidates.len()).sum()
    }
}

/// Which producer built the pools, and with what parameters.
/// A tie policy as its name (`row`, `pessimistic`, …).
fn tie_name<S: serde::Serializer>(p: &crate::metrics::TiePolicy, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(p.as_str())
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Mode {
    Retrieval {
        system: String,
        k: usize,
        visible: usize,
        /// The pool order inside score ties.
        #[serde(serialize_with = "tie_name")]
        ties: crate::metrics::TiePolicy,
    },
    Generated {
        pool: String,
        tasks: String,
    },
}

/// How a candidate's suites (base, then plus) run in an audit of generated pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suites {
    /// Every test: the per-test outcomes are complete (`--all-tests`).
    AllTests,
    /// Each of the base and the plus suite stops at its first test that does not pass: its
    /// later tests are recorded not run. `P_b`, `P+` and pass@k are the same (each needs only
    /// whether a suite passes, and its first failure for the reason).
    StopAtFirstFailure,
}

/// Everything the accounting needs, plus the execution provenance reports must state.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoolSet {
    pub mode: Mode,
    /// Names of the evidence verdicts (`C`, `S`, `E`, `E*`, `P_b`, `P+`).
    pub evidence_names: Vec<String>,
    /// Admission predicates in display order (`C`, `S`, `E`, `A`, `E*`, `A*`, `P_b`).
    pub predicates: Vec<String>,
    /// Predicate pairs (old, new) whose transitions the order analysis reports.
    pub contrasts: Vec<(usize, usize)>,
    pub cohorts: Vec<Cohort>,
    /// How the executions were obtained (cache hits, oracle runs, isolation).
    pub provenance: Vec<String>,
    /// Generated pools: rows left out of the audit, each with its line and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected: Vec<generated::RejectedRow>,
    /// Generated pools: tasks of the task file no audited row answers, in the file's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing_tasks: Vec<String>,
    /// Tasks of the task file (generated pools) or queries of the bundle (retrieval pools).
    pub task_count: usize,
    /// Tasks of the task file with a plus suite (none for retrieval pools, HumanEval and MBPP
    /// as published): base + plus rows are reported only when some task has one.
    pub plus_tasks: usize,
    /// Generated pools: lines of the rows whose code was read from inside a Markdown fence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sanitized: Vec<usize>,
    /// Generated pools: the task file's format as read (`humaneval`, `mbpp`, `evalplus`,
    /// `execscope`), set by the reader; "" when unknown or for retrieval pools.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub task_format: String,
}

/// A finished audit: its pools (with their provenance) and the accounting of every cohort.
#[derive(Clone, Debug)]
pub struct AuditRun {
    pub pools: PoolSet,
    pub audits: Vec<account::CohortAudit>,
}

impl AuditRun {
    /// The accounting of `pools` under `cfg`.
    pub fn new(pools: PoolSet, cfg: &account::AuditConfig) -> AuditRun {
        AuditRun {
            audits: account::audit(&pools, cfg),
            pools,
        }
    }
}

impl PoolSet {
    pub fn predicate_index(&self, name: &str) -> Option<usize> {
        self.predicates.iter().position(|p| p == name)
    }
}

/// Stable 64-bit seed for a named cell, so each cohort's draws do not depend on which other
/// cohorts are audited with it.
pub fn cell_seed(seed: u64, parts: &[&str]) -> u64 {
    let mut text = format!("{seed}");
    for p in parts {
        text.push('|');
        text.push_str(p);
    }
    let hex = crate::bundle::model::sha256_hex(text.as_bytes());
    u64::from_str_radix(&hex[..16], 16).unwrap_or(seed)
}
