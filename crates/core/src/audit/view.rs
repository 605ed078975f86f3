//! The Audit pane's view model: everything the dashboard draws, computed here so the screen and
//! the report never disagree. A list of tasks (per cohort) with each candidate's evidence vector
//! and admissions; a selected candidate shows its code, its self-tests and per-test outcomes.

use super::account::{score, Choice, CohortAudit};
use super::{Candidate, PoolSet, TestRun, Verdict};
use serde::Serialize;

/// One candidate row of a task's list.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CandidateView {
    pub label: String,
    /// (name, verdict) in evidence order, e.g. ("E", ok=false, "tests:AssertionError").
    pub evidence: Vec<(String, Verdict)>,
    /// (predicate, admitted) in predicate order.
    pub admitted: Vec<(String, bool)>,
    pub pass: bool,
    /// Compact evidence string for a list cell, e.g. `C S E · E* P_b ·` (· = fails).
    pub badge: String,
    pub code: String,
    pub self_tests: String,
    pub tests: Vec<TestRun>,
}

/// One task of one cohort.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskView {
    pub cohort: String,
    pub task_id: String,
    pub function_name: String,
    /// The candidates' language (absent for Python): the pane highlights their code in it.
    #[serde(skip_serializing_if = "super::is_python")]
    pub language: execscope_record::Language,
    pub candidates: Vec<CandidateView>,
    /// Per predicate: the first-admitted candidate (index into `candidates`) and its score.
    pub first_admitted: Vec<(String, Option<usize>, Choice)>,
}

/// The whole pane.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AuditView {
    /// `retrieval` or `generated`, with the parameters in `title`.
    pub title: String,
    pub evidence_names: Vec<String>,
    pub predicates: Vec<String>,
    pub cohorts: Vec<String>,
    pub tasks: Vec<TaskView>,
    pub provenance: Vec<String>,
}

fn badge(names: &[String], c: &Candidate) -> String {
    names
        .iter()
        .zip(&c.evidence)
        .map(|(n, v)| {
            if v.ok {
                n.clone()
            } else {
                "·".repeat(n.chars().count())
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl AuditView {
    pub fn build(pools: &PoolSet, audits: &[CohortAudit]) -> AuditView {
        let title = match &pools.mode {
            super::Mode::Retrieval {
                system,
                k,
                visible,
                ties,
            } => format!(
                "retrieval audit: {system}, top {k} ({}), {visible} visible tests",
                crate::view::ranking::order_note(*ties)
            ),
            super::Mode::Generated { pool, tasks } => {
                format!("generated-pool audit: {pool} against {tasks}")
            }
        };
        let mut tasks = Vec::new();
        for (cohort, audit) in pools.cohorts.iter().zip(audits) {
            for (ti, t) in cohort.tasks.iter().enumerate() {
                let candidates = t
                    .candidates
                    .iter()
                    .map(|c| CandidateView {
                        label: c.label.clone(),
                        evidence: pools
                            .evidence_names
                            .iter()
                            .cloned()
                            .zip(c.evidence.iter().cloned())
                            .collect(),
                        admitted: pools
                            .predicates
                            .iter()
                            .cloned()
                            .zip(c.admitted.iter().copied())
                            .collect(),
                        pass: c.pass,
                        badge: badge(&pools.evidence_names, c),
                        code: c.code.clone(),
                        self_tests: c.self_tests.clone(),
                        tests: c.tests.clone(),
                    })
                    .collect();
                let first_admitted = audit
                    .selection
                    .iter()
                    .map(|s| {
                        let ch = s.first_choice[ti];
                        (s.predicate.clone(), ch, score(t, ch))
                    })
                    .collect();
                tasks.push(TaskView {
                    cohort: cohort.name.clone(),
                    task_id: t.task_id.clone(),
                    function_name: t.function_name.clone(),
                    language: t.language,
                    candidates,
                    first_admitted,
                });
            }
        }
        AuditView {
            title,
            evidence_names: pools.evidence_names.clone(),
            predicates: pools.predicates.clone(),
            cohorts: pools.cohorts.iter().map(|c| c.name.clone()).collect(),
            tasks,
            provenance: pools.provenance.clone(),
        }
    }

    /// The tasks of one cohort, in task-id order.
    pub fn tasks_of<'a>(&'a self, cohort: &'a str) -> impl Iterator<Item = &'a TaskView> + 'a {
        self.tasks.iter().filter(move |t| t.cohort == cohort)
    }
}
