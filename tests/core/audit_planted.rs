//! Planted controls on real HumanEval tasks (external data; skipped by name when absent): generated pools built
//! from the canonical and mechanical mutants (src/mutate), executed for real, and every planted
//! candidate checked to land in the cell it was planted for; then the cohort's counts and returns
//! against the plan.
//!
//! Suites: base = the first ⌈n/2⌉ task tests, plus = the rest. Per task, in pool order:
//! 0 `solution`: canonical, correct self-tests that `from solution import f` (inline fails, module
//!   supply completes); 1 `mutant`: a mutant failing a base test, with self-consistent self-tests
//!   (its own outputs as expectations); 2 `wrong`: canonical with one wrong expectation (the
//!   mutant's output); 3 `canonical`: canonical with correct self-tests; 4 `plus-only` (when one
//!   exists): a mutant passing the base suite and failing a plus test, self-tests from base tests.

use crate::common;

use common::oracle::run;
use execscope::audit::account::{audit, AuditConfig};
use execscope::audit::generated::{self};
use execscope::audit::{Mode, PoolSet};
use execscope::oracle::{Outcome, SuiteResult};
use serde_json::json;
use std::io::Write;
use std::path::Path;

const WANT: usize = 20;

/// `assert LEFT == <observed>` from `assert LEFT <op> RIGHT`, when `observed` is a literal.
fn rewrite(test: &str, observed: &str) -> Option<String> {
    if observed.len() > 150
        || observed.contains('<')
        || observed.contains("nan")
        || observed.contains("inf")
    {
        return None;
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()?;
    let tree = parser.parse(test, None)?;
    let stmt = tree.root_node().named_child(0)?;
    if stmt.kind() != "assert_statement" {
        return None;
    }
    let expr = stmt.named_child(0)?;
    if expr.kind() != "comparison_operator" {
        return None;
    }
    let left = expr.named_child(0)?;
    Some(format!("assert {} == {observed}", &test[left.byte_range()]))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Solution,
    Mutant,
    Wrong,
    Canonical,
    PlusOnly,
}

impl Kind {
    /// Planted cell: admissions `C S E A E* A* P_b` and P+.
    fn cell(self) -> (&'static str, bool) {
        match self {
            Kind::Solution => ("C S - - E* A* P_b", true),
            Kind::Mutant => ("C S E A E* A* -", false),
            Kind::Wrong => ("C S - - - - P_b", true),
            Kind::Canonical => ("C S E A E* A* P_b", true),
            Kind::PlusOnly => ("C S E A E* A* P_b", false),
        }
    }
}

struct Plant {
    task_id: String,
    function: String,
    base: Vec<String>,
    plus: Vec<String>,
    /// (sample index, kind, code, self-tests)
    rows: Vec<(i64, Kind, String, String)>,
}

/// Plants the controls of one task, or `None` when no suitable mutant exists.
fn plant(task: &serde_json::Value) -> Option<Plant> {
    let f = task["function_name"].as_str()?.to_string();
    let canonical = task["canonical"].as_str()?.to_string();
    let tests: Vec<String> = task["tests"]
        .as_array()?
        .iter()
        .filter_map(|t| t.as_str().map(str::to_string))
        .collect();
    let calling: Vec<String> = tests
        .iter()
        .filter(|t| t.contains(&format!("{f}(")))
        .cloned()
        .collect();
    if calling.len() < 3 {
        return None;
    }
    let nb = tests.len().div_ceil(2);
    let (base, plus) = (tests[..nb].to_vec(), tests[nb..].to_vec());
    let mutants = execscope::mutate::mutants(&canonical).ok()?;
    let jobs: Vec<execscope::oracle::Job> = mutants
        .iter()
        .take(40)
        .map(|m| execscope::oracle::Job::new(m.code.clone(), tests.clone()))
        .collect();
    let results = run(&jobs).ok()?;
    // Self-consistent self-tests of a mutant: passing tests as they are, failing comparisons
    // rewritten to its own output. Returns (self-tests, one rewritten failing base test).
    let consistent = |r: &SuiteResult| -> Option<(Vec<String>, Option<String>)> {
        let mut out = Vec::new();
        let mut wrong_base = None;
        for (i, t) in tests.iter().enumerate() {
            if !calling.contains(t) {
                continue;
            }
            match (&r.outcomes[i], r.observed[i].as_deref()) {
                (Outcome::Pass, _) => out.push(t.clone()),
                (Outcome::Fail, Some(obs)) => {
                    let w = rewrite(t, obs)?;
                    if i < nb && wrong_base.is_none() {
                        wrong_base = Some(w.clone());
                    }
                    out.push(w);
                }
                _ => return None,
            }
        }
        (out.len() >= 3).then_some((out, wrong_base))
    };
    let mut mutant = None;
    let mut plus_only = None;
    for (m, r) in mutants.iter().zip(&results) {
        let base_ok = r.outcomes[..nb].iter().all(Outcome::is_pass);
        let all_ok = r.outcomes.iter().all(Outcome::is_pass);
        if mutant.is_none() && !base_ok {
            if let Some((st, Some(w))) = consistent(r) {
                mutant = Some((m.code.clone(), st, w));
            }
        } else if plus_only.is_none() && base_ok && !all_ok {
            let st: Vec<String> = base
                .iter()
                .filter(|t| calling.contains(t))
                .cloned()
                .collect();
            if st.len() >= 3 {
                plus_only = Some((m.code.clone(), st));
            }
        }
    }
    let (mcode, mtests, wrong_assert) = mutant?;
    let correct = calling.join("\n") + "\n";
    let mut wrong: Vec<String> = calling.iter().take(2).cloned().collect();
    wrong.push(wrong_assert);
    let mut rows = vec![
        (
            0,
            Kind::Solution,
            canonical.clone(),
            format!("from solution import {f}\n{correct}"),
        ),
        (1, Kind::Mutant, mcode, mtests.join("\n") + "\n"),
        (2, Kind::Wrong, canonical.clone(), wrong.join("\n") + "\n"),
        (3, Kind::Canonical, canonical.clone(), correct),
    ];
    if let Some((code, st)) = plus_only {
        rows.push((4, Kind::PlusOnly, code, st.join("\n") + "\n"));
    }
    Some(Plant {
        task_id: task["task_id"].as_str()?.to_string(),
        function: f,
        base,
        plus,
        rows,
    })
}

fn write_files(dir: &Path, plants: &[Plant]) -> (std::path::PathBuf, std::path::PathBuf) {
    let tasks = dir.join("tasks.jsonl");
    let pool = dir.join("pool.jsonl");
    let mut tf = std::fs::File::create(&tasks).unwrap();
    let mut pf = std::fs::File::create(&pool).unwrap();
    for p in plants {
        let t = json!({"task_id": p.task_id, "function_name": p.function,
                       "base_tests": p.base, "plus_tests": p.plus});
        writeln!(tf, "{t}").unwrap();
        for (i, _, code, st) in &p.rows {
            let r = json!({"task_id": p.task_id, "sample_index": i, "code": code,
                           "self_tests": st, "profile": "planted"});
            writeln!(pf, "{r}").unwrap();
        }
    }
    (tasks, pool)
}

fn admitted(pools: &PoolSet, c: &execscope::audit::Candidate) -> String {
    pools
        .predicates
        .iter()
        .zip(&c.admitted)
        .map(|(n, &a)| if a { n.as_str() } else { "-" })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn planted_controls_land_in_their_cells() {
    let Some(tasks) = common::require_data(
        "planted_controls_land_in_their_cells",
        "humaneval-tasks.jsonl",
    ) else {
        return;
    };
    let text =
        std::fs::read_to_string(&tasks).unwrap_or_else(|e| panic!("{}: {e}", tasks.display()));
    let mut plants = Vec::new();
    for line in text.lines() {
        let task: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(p) = plant(&task) {
            plants.push(p);
        }
        if plants.len() == WANT {
            break;
        }
    }
    assert_eq!(plants.len(), WANT, "enough tasks admit a planted mutant");
    let dir = tempfile::tempdir().unwrap();
    let (tasks_path, pool_path) = write_files(dir.path(), &plants);
    let specs = generated::read_tasks(&tasks_path).unwrap();
    let rows = generated::read_pool(&pool_path).unwrap();
    let mode = Mode::Generated {
        pool: pool_path.display().to_string(),
        tasks: tasks_path.display().to_string(),
    };
    let pools = generated::build(&specs, &rows, &run, mode).unwrap();
    assert_eq!(pools.cohorts.len(), 1);
    let cohort = &pools.cohorts[0];
    assert_eq!(cohort.name, "planted");
    let mut by_kind = std::collections::HashMap::new();
    for p in &plants {
        let task = cohort
            .tasks
            .iter()
            .find(|t| t.task_id == p.task_id)
            .unwrap();
        assert_eq!(task.candidates.len(), p.rows.len());
        for ((i, kind, _, _), c) in p.rows.iter().zip(&task.candidates) {
            assert_eq!(c.label, format!("sample {i}"));
            let (want, pass) = kind.cell();
            let why: Vec<String> = c.evidence.iter().map(|v| v.reason.clone()).collect();
            assert_eq!(admitted(&pools, c), want, "{} {kind:?}: {why:?}", p.task_id);
            assert_eq!(c.pass, pass, "{} {kind:?}: {why:?}", p.task_id);
            *by_kind.entry(format!("{kind:?}")).or_insert(0usize) += 1;
        }
        // The reasons name the mechanism, not just a boolean.
        let ev = |k: usize, e: usize| task.candidates[k].evidence[e].reason.clone();
        assert_eq!(ev(0, 2), "tests:ModuleNotFoundError");
        assert_eq!(ev(0, 3), "pass (served solution)");
        assert_eq!(ev(2, 2), "tests:AssertionError");
        assert!(ev(1, 4).contains("on base test"), "{}", ev(1, 4));
    }
    let t = WANT;
    let q = by_kind.get("PlusOnly").copied().unwrap_or(0);
    eprintln!("{t} tasks planted, {q} with a plus-only mutant");
    let a = audit(
        &pools,
        &AuditConfig {
            draws: 2_000,
            ..AuditConfig::default()
        },
    );
    let cell = |name: &str| {
        let i = pools.predicate_index(name).unwrap();
        let c = &a[0].admission[i];
        (
            c.admitted,
            c.admitted_nonpass,
            c.excluded_pass,
            c.tasks_with_admitted_pass,
        )
    };
    // Planned counts (see the module doc): N, X, L, T+.
    assert_eq!(cell("C"), (4 * t + q, t + q, 0, t));
    assert_eq!(cell("S"), (4 * t + q, t + q, 0, t));
    assert_eq!(cell("E"), (2 * t + q, t + q, 2 * t, t));
    assert_eq!(cell("A"), (2 * t + q, t + q, 2 * t, t));
    assert_eq!(cell("E*"), (3 * t + q, t + q, t, t));
    assert_eq!(cell("A*"), (3 * t + q, t + q, t, t));
    assert_eq!(cell("P_b"), (3 * t + q, q, 0, t));
    let sel = |name: &str| {
        let s = &a[0].selection[pools.predicate_index(name).unwrap()];
        (s.first_pass, s.first_nonpass, s.first_abstain)
    };
    // First admitted: the solution-importing canonical (0) unless the contract rejects it, then
    // the mutant (1).
    assert_eq!(sel("C"), (t, 0, 0));
    assert_eq!(sel("A"), (0, t, 0));
    assert_eq!(sel("A*"), (t, 0, 0));
    assert_eq!(sel("P_b"), (t, 0, 0));
    // Uniform under A: one pass among 2 admitted (3 with a plus-only mutant).
    let u = &a[0].selection[pools.predicate_index("A").unwrap()].uniform_pass;
    let want = (t - q) as f64 / 2.0 + q as f64 / 3.0;
    assert!((u.value - want).abs() < 1e-12, "{} vs {want}", u.value);
    // Order sensitivity A → A*: A* only adds the passing solution-importer, so never P→N.
    let tr = a[0]
        .orders
        .transitions
        .iter()
        .find(|x| x.from == "A" && x.to == "A*")
        .unwrap();
    assert_eq!(tr.p_to_n(), 0.0);
    assert!(tr.n_to_p() > 0.0);
    assert!(a[0].orders.exhaustive);
}
