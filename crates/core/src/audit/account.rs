//! Admission accounting and the two selectors (`docs/audit.md`; source: the audit paper).
//!
//! Per cohort and predicate: admitted N, admitted nonpasses X (admitted ∧ ¬P+), excluded passes L
//! (¬admitted ∧ P+), tasks with an admitted pass T+, and task-cluster bootstrap intervals for X / N
//! (conditional: the denominator is recomputed per draw) and X / all candidates (unconditional).
//! The first-admitted selector returns the earliest admitted candidate in pool order or abstains;
//! the uniform selector is the exact expectation Σ k/n with one abstention per empty pool.

use super::{cell_seed, Cohort, PoolSet, TaskPool};
use crate::stats::{cluster_bootstrap_with_plan, ClusterInterval, Resamples};
use serde::Serialize;

/// What a selector returned for one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Choice {
    Pass,
    Nonpass,
    Abstain,
}

impl Choice {
    pub fn index(self) -> usize {
        match self {
            Choice::Pass => 0,
            Choice::Nonpass => 1,
            Choice::Abstain => 2,
        }
    }
}

/// An exact non-negative rational (for the uniform expectation), with its decimal value.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Exact {
    pub value: f64,
    /// Reduced numerator / denominator; `None` if they overflowed (the value stays exact to f64).
    pub fraction: Option<(u128, u128)>,
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl Exact {
    pub fn zero() -> Exact {
        Exact {
            value: 0.0,
            fraction: Some((0, 1)),
        }
    }

    /// `self + a / b` (b > 0).
    pub fn add(self, a: u128, b: u128) -> Exact {
        let fraction = self.fraction.and_then(|(n, d)| {
            let g = gcd(d, b);
            let den = (d / g).checked_mul(b)?;
            let num = n.checked_mul(b / g)?.checked_add(a.checked_mul(d / g)?)?;
            let r = gcd(num, den).max(1);
            Some((num / r, den / r))
        });
        Exact {
            value: match fraction {
                Some((n, d)) => n as f64 / d as f64,
                None => self.value + a as f64 / b as f64,
            },
            fraction,
        }
    }

    /// `59/2`, `29`, or the decimal when the fraction overflowed.
    pub fn fraction_text(&self) -> String {
        match self.fraction {
            Some((n, 1)) => n.to_string(),
            Some((n, d)) => format!("{n}/{d}"),
            None => format!("{:.4}", self.value),
        }
    }
}

/// Candidate-level admission counts of one predicate in one cohort.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AdmissionCell {
    pub predicate: String,
    pub candidates: usize,
    pub tasks: usize,
    /// Candidates passing the independent oracle (P+), whatever the predicate.
    pub passes: usize,
    pub admitted: usize,
    /// Admitted ∧ ¬P+.
    pub admitted_nonpass: usize,
    /// ¬Admitted ∧ P+.
    pub excluded_pass: usize,
    /// Tasks with at least one admitted P+ candidate.
    pub tasks_with_admitted_pass: usize,
    /// X / N over task clusters.
    pub conditional: ClusterInterval,
    /// X / all candidates over task clusters.
    pub unconditional: ClusterInterval,
}

/// Task-level returns of one predicate under both selectors.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SelectionCell {
    pub predicate: String,
    /// Per task (cohort order): the first-admitted candidate's index in its pool, if any.
    pub first_choice: Vec<Option<usize>>,
    pub first_pass: usize,
    pub first_nonpass: usize,
    pub first_abstain: usize,
    pub uniform_pass: Exact,
    pub uniform_nonpass: Exact,
    /// Empty pools (the uniform selector abstains exactly there, as the first-admitted one does).
    pub uniform_abstain: usize,
}

/// Everything computed for one cohort.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CohortAudit {
    pub cohort: String,
    pub admission: Vec<AdmissionCell>,
    pub selection: Vec<SelectionCell>,
    pub orders: super::orders::OrderReport,
}

/// The earliest admitted candidate in pool order (index into `task.candidates`), or `None`.
/// Reads admissions only, never P+.
pub fn first_admitted(task: &TaskPool, pred: usize) -> Option<usize> {
    task.candidates.iter().position(|c| c.admitted[pred])
}

/// Outcome of a choice (scoring reads P+).
pub fn score(task: &TaskPool, choice: Option<usize>) -> Choice {
    match choice {
        None => Choice::Abstain,
        Some(i) if task.candidates[i].pass => Choice::Pass,
        Some(_) => Choice::Nonpass,
    }
}

/// Admission counts and intervals for predicate `pred`; `plan` resamples the cohort's tasks.
pub fn admission(cohort: &Cohort, name: &str, pred: usize, plan: &Resamples) -> AdmissionCell {
    let mut x_t = Vec::with_capacity(cohort.tasks.len());
    let mut n_t = Vec::with_capacity(cohort.tasks.len());
    let mut all_t = Vec::with_capacity(cohort.tasks.len());
    let (mut passes, mut l, mut tplus) = (0, 0, 0);
    for t in &cohort.tasks {
        let (mut n, mut x, mut any) = (0usize, 0usize, false);
        for c in &t.candidates {
            passes += c.pass as usize;
            match (c.admitted[pred], c.pass) {
                (true, true) => {
                    n += 1;
                    any = true;
                }
                (true, false) => {
                    n += 1;
                    x += 1;
                }
                (false, true) => l += 1,
                (false, false) => {}
            }
        }
        tplus += any as usize;
        x_t.push(x as f64);
        n_t.push(n as f64);
        all_t.push(t.candidates.len() as f64);
    }
    AdmissionCell {
        predicate: name.to_string(),
        candidates: cohort.n_candidates(),
        tasks: cohort.tasks.len(),
        passes,
        admitted: n_t.iter().sum::<f64>() as usize,
        admitted_nonpass: x_t.iter().sum::<f64>() as usize,
        excluded_pass: l,
        tasks_with_admitted_pass: tplus,
        conditional: cluster_bootstrap_with_plan(&x_t, &n_t, plan),
        unconditional: cluster_bootstrap_with_plan(&x_t, &all_t, plan),
    }
}

/// First-admitted and uniform selectors for predicate `pred`.
pub fn selection(cohort: &Cohort, name: &str, pred: usize) -> SelectionCell {
    let mut cell = SelectionCell {
        predicate: name.to_string(),
        first_choice: Vec::with_capacity(cohort.tasks.len()),
        first_pass: 0,
        first_nonpass: 0,
        first_abstain: 0,
        uniform_pass: Exact::zero(),
        uniform_nonpass: Exact::zero(),
        uniform_abstain: 0,
    };
    for t in &cohort.tasks {
        let first = first_admitted(t, pred);
        cell.first_choice.push(first);
        match score(t, first) {
            Choice::Pass => cell.first_pass += 1,
            Choice::Nonpass => cell.first_nonpass += 1,
            Choice::Abstain => cell.first_abstain += 1,
        }
        let n = t.candidates.iter().filter(|c| c.admitted[pred]).count() as u128;
        let k = t
            .candidates
            .iter()
            .filter(|c| c.admitted[pred] && c.pass)
            .count() as u128;
        if n == 0 {
            cell.uniform_abstain += 1;
        } else {
            cell.uniform_pass = cell.uniform_pass.add(k, n);
            cell.uniform_nonpass = cell.uniform_nonpass.add(n - k, n);
        }
    }
    cell
}

/// Draws and seed of the intervals and the order sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditConfig {
    pub draws: usize,
    pub seed: u64,
    /// Orders drawn when m! exceeds [`super::orders::MAX_EXHAUSTIVE`].
    pub order_sample: usize,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            draws: crate::stats::CLUSTER_DRAWS,
            seed: crate::stats::RELEASE_SEED,
            order_sample: super::orders::DEFAULT_SAMPLE,
        }
    }
}

/// The whole accounting of every cohort. Each cohort's bootstrap plan is seeded from
/// `cfg.seed` and the cohort name (tasks in id order), shared by all its predicates.
pub fn audit(pools: &PoolSet, cfg: &AuditConfig) -> Vec<CohortAudit> {
    pools
        .cohorts
        .iter()
        .map(|cohort| {
            let plan = Resamples::new(
                cohort.tasks.len(),
                cfg.draws,
                cell_seed(cfg.seed, &[&cohort.name, "analysis"]),
            );
            let admission = pools
                .predicates
                .iter()
                .enumerate()
                .map(|(p, name)| admission(cohort, name, p, &plan))
                .collect();
            let selection = pools
                .predicates
                .iter()
                .enumerate()
                .map(|(p, name)| selection(cohort, name, p))
                .collect();
            let orders = super::orders::analyse(
                cohort,
                &pools.predicates,
                &pools.contrasts,
                cfg.order_sample,
                cell_seed(cfg.seed, &[&cohort.name, "orders"]),
            );
            CohortAudit {
                cohort: cohort.name.clone(),
                admission,
                selection,
                orders,
            }
        })
        .collect()
}
