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
    /// Under a benchmark's time convention, this test ran out of time on its suite's cap, not
    /// on its own limit (EvalPlus's `timeout`, where an input over its own limit is `fail`):
    /// [`execscope_record::Budgets::capped`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub capped: bool,
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

/// Whose time limits a candidate's tests run under in an audit of generated pools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeConvention {
    /// execscope's: one wall budget per test, the same on every machine and for every input
    /// (the oracle's `--timeout`).
    #[default]
    Execscope,
    /// EvalPlus's (`evalplus.evaluate`, 0.3.1): each input's limit is the larger of 1 s and 4x
    /// the reference solution's time on it (measured on this machine, as EvalPlus measures its
    /// ground truth), and each suite (base, plus) may take at most 60 s plus 2 s (EvalPlus's
    /// `min(60, sum of the limits) + 1`, and the second it waits to join the process).
    EvalPlus,
}

impl TimeConvention {
    /// EvalPlus's least limit per input, ms.
    pub const EVALPLUS_MIN_MS: u32 = 1000;
    /// EvalPlus's factor on the reference's time.
    pub const EVALPLUS_FACTOR: u32 = 4;
    /// EvalPlus's cap on a suite's limits, ms (`EVALPLUS_TIMEOUT_PER_TASK`).
    pub const EVALPLUS_SUITE_MS: u32 = 60_000;
    /// What EvalPlus adds to a suite's cap before it kills the process, ms.
    pub const EVALPLUS_GRACE_MS: u32 = 2000;

    pub fn is_execscope(&self) -> bool {
        *self == TimeConvention::Execscope
    }

    /// The name the option and the outputs use.
    pub fn name(self) -> &'static str {
        match self {
            TimeConvention::Execscope => "execscope",
            TimeConvention::EvalPlus => "evalplus",
        }
    }

    /// The budgets of a suite of `reference_ms.len()` tests whose first `n_base` are the base
    /// suite, under this convention (`None`: the oracle's own budget).
    pub fn budgets(self, reference_ms: &[u32], n_base: usize) -> Option<execscope_record::Budgets> {
        if self == TimeConvention::Execscope {
            return None;
        }
        let test_ms: Vec<u32> = reference_ms
            .iter()
            .map(|&t| (t.saturating_mul(Self::EVALPLUS_FACTOR)).max(Self::EVALPLUS_MIN_MS))
            .collect();
        let n_base = n_base.min(test_ms.len());
        let sum = |s: &[u32]| s.iter().map(|&m| u64::from(m)).sum::<u64>();
        // Each suite's cap from its own limits; the job carries one (the larger: a suite's own
        // limits already bound it when the sum is under EvalPlus's cap).
        let cap = |s: &[u32]| sum(s).min(u64::from(Self::EVALPLUS_SUITE_MS)) as u32;
        let segment_ms =
            cap(&test_ms[..n_base]).max(cap(&test_ms[n_base..])) + Self::EVALPLUS_GRACE_MS;
        Some(execscope_record::Budgets {
            test_ms,
            segment_ms,
            segments: if n_base > 0 && n_base < reference_ms.len() {
                vec![n_base]
            } else {
                vec![]
            },
        })
    }
}

impl std::str::FromStr for TimeConvention {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "execscope" => Ok(TimeConvention::Execscope),
            "evalplus" => Ok(TimeConvention::EvalPlus),
            _ => Err(format!(
                "unknown time convention {s:?}: expected execscope or evalplus"
            )),
        }
    }
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
    /// Generated pools: whose time limits the suites ran under (absent from the JSON when
    /// execscope's own).
    #[serde(skip_serializing_if = "TimeConvention::is_execscope")]
    pub time_convention: TimeConvention,
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

#[cfg(test)]
mod tests {
    use super::TimeConvention;

    #[test]
    fn evalplus_limits_are_four_times_the_reference_at_least_a_second() {
        assert_eq!(TimeConvention::Execscope.budgets(&[10, 20], 1), None);
        // Base [10 ms, 300 ms], plus [0 ms]: limits 1 s, 1.2 s | 1 s; the base's limits sum to
        // 2.2 s (under EvalPlus's 60 s), the plus's to 1 s: one cap, 2.2 s + 2 s.
        let b = TimeConvention::EvalPlus.budgets(&[10, 300, 0], 2).unwrap();
        assert_eq!(b.test_ms, [1000, 1200, 1000]);
        assert_eq!(b.segment_ms, 4200);
        assert_eq!(b.segments, [2]);
        // A hundred fast inputs: 100 s of limits, capped at 60 s (+2 s); one suite, no segment.
        let b = TimeConvention::EvalPlus.budgets(&[1; 100], 100).unwrap();
        assert_eq!(b.segment_ms, 62_000);
        assert!(b.segments.is_empty());
        assert_eq!(
            "evalplus".parse::<TimeConvention>(),
            Ok(TimeConvention::EvalPlus)
        );
        assert!("EvalPlus".parse::<TimeConvention>().is_err());
    }
}
