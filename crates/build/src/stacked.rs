//! `--stacked` (paper Appendix G.2): per query, compose 2–4 of its kept single edits with
//! pairwise-disjoint line ranges, execute each composition against the query's suite, and keep
//! those that still fail at least one test (compositions that pass are discarded, as in the paper)
//! with a failure that holds on any machine: a composition whose only failures are `TIMEOUT`
//! (out of time, no hang proven) might pass on a faster machine, so it is discarded too.
//!
//! Row schema of `data/stacked_distractors.jsonl` (one composition per line):
//! `stacked_id` ("s_0001", in query then composition order), `query_id`, `canonical_id`,
//! `parts` (corpus ids of the component distractors, in edit order), `n_edits`, `bug_types`,
//! `operators`, `edits` ({start, end, before, after} into the canonical, ascending),
//! `bug_description`, `code`, `outcomes` (per test), `passes_all_tests` (always false).

use super::assemble::make_id;
use super::exec::Runner;
use super::gates::Admitted;
use crate::mutate::{stacked_candidates_in, StackedMutant};
use execscope_core::bundle::model::Bundle;
use serde_json::{json, Value};

/// Compositions per size (2, 3, 4 edits) and query, chosen by seed when more compose.
pub const PER_SIZE: usize = 4;

/// Counts for the summary.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct StackedStats {
    pub composed: usize,
    pub kept: usize,
    /// Compositions that passed every test (discarded).
    pub passed_all: usize,
    /// Compositions whose only failures are `TIMEOUT` without a proven hang (discarded: their
    /// verdict depends on the machine).
    pub only_timeouts: usize,
    pub oracle_errors: usize,
    /// Kept rows by number of edits (index 0 ↔ 2 edits).
    pub kept_by_edits: [usize; 3],
    pub queries_covered: usize,
}

/// Builds, executes and returns the rows (as JSON values) and the counts.
pub fn build(
    runner: &mut Runner,
    admitted: &[Admitted],
    bundle: &Bundle,
    seed: u64,
) -> (Vec<Value>, StackedStats) {
    let mut comps: Vec<(usize, StackedMutant)> = Vec::new();
    for (qi, a) in admitted.iter().enumerate() {
        for s in stacked_candidates_in(a.task.language, &a.task.canonical, &a.kept, PER_SIZE, seed)
        {
            comps.push((qi, s));
        }
    }
    let jobs: Vec<execscope_oracle::Job> = comps
        .iter()
        .map(|(qi, s)| admitted[*qi].task.job(&s.code))
        .collect();
    let results = runner.run("stacked mutants", &jobs);
    let mut stats = StackedStats {
        composed: comps.len(),
        ..StackedStats::default()
    };
    let mut rows = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for ((qi, s), r) in comps.into_iter().zip(results) {
        let r = match r {
            Ok(r) => r,
            Err(_) => {
                stats.oracle_errors += 1;
                continue;
            }
        };
        if r.passes_all() {
            stats.passed_all += 1;
            continue;
        }
        if !r.outcomes.iter().any(|o| o.is_certain_failure()) {
            stats.only_timeouts += 1;
            continue;
        }
        let q = &bundle.queries[qi];
        let parts: Vec<String> = s
            .parts
            .iter()
            .map(|&p| bundle.corpus[q.paired[p]].id.clone())
            .collect();
        let n = s.edits.len();
        stats.kept += 1;
        stats.kept_by_edits[n.clamp(2, 4) - 2] += 1;
        covered.insert(qi);
        rows.push(json!({
            "stacked_id": make_id("s", rows.len() + 1),
            "query_id": q.id,
            "canonical_id": bundle.corpus[q.correct[0]].id,
            "parts": parts,
            "n_edits": n,
            "bug_types": s.bug_types,
            "operators": s.operators,
            "edits": s.edits,
            "bug_description": s.description,
            "code": s.code,
            "outcomes": r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
            "passes_all_tests": false,
        }));
    }
    stats.queries_covered = covered.len();
    (rows, stats)
}
