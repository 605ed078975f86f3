//! Generated pools: JSONL candidates with co-generated self-tests, executed in the oracle sandbox.
//!
//! Pool rows: `task_id`, `sample_index`, `code`, `self_tests`, optional `profile` / `cohort`.
//! Task rows: `task_id`, `function_name`, `base_tests`, `plus_tests` (single-line asserts; a task
//! row with only `tests` uses them as the base suite and has no plus suite), optional `prelude`
//! (source the oracle runs before every candidate of the task, e.g. the prompt's imports, as
//! HumanEval-style harnesses join prompt and completion).
//! Evidence per candidate: C, S, E (inline), E* (restricted module supply), P_b, P+.

use super::selftest::{self, Screen};
use super::AuditError;
use super::{Candidate, Cohort, Mode, PoolSet, TaskPool, TestRun, Verdict};
pub use super::{Suites, TimeConvention};
use execscope_record::BatchError;
use execscope_record::{Job, Language, Outcome, SelfTest, SuiteResult};

use std::collections::{BTreeMap, BTreeSet, HashMap};

pub use super::pool_file::{
    parse_pool, parse_pool_rows, parse_tasks, read_pool, read_tasks, PoolRow, PoolRows,
    RejectedRow, TaskSpec,
};

/// Runs jobs through the oracle (or anything equivalent), results in input order.
pub type Runner<'a> = dyn Fn(&[Job]) -> Result<Vec<SuiteResult>, BatchError> + 'a;

/// Runs `jobs`, checking the runner answered each one.
pub(crate) fn run_checked(
    runner: &Runner<'_>,
    jobs: &[Job],
) -> Result<Vec<SuiteResult>, BatchError> {
    if jobs.is_empty() {
        return Ok(Vec::new());
    }
    let out = runner(jobs)?;
    if out.len() != jobs.len() {
        return Err(BatchError::Count {
            got: out.len(),
            want: jobs.len(),
        });
    }
    for (r, job) in out.iter().zip(jobs) {
        let want = job.tests.len();
        if r.outcomes.len() != want || r.observed.len() != want {
            return Err(BatchError::Outcomes {
                got: r.outcomes.len(),
                want,
            });
        }
    }
    Ok(out)
}

/// Deduplicated job list: identical jobs run once.
#[derive(Default)]
struct Jobs {
    jobs: Vec<Job>,
    index: HashMap<Job, usize>,
}

impl Jobs {
    fn add(&mut self, job: Job) -> usize {
        if let Some(&i) = self.index.get(&job) {
            return i;
        }
        self.jobs.push(job.clone());
        self.index.insert(job, self.jobs.len() - 1);
        self.jobs.len() - 1
    }
}

/// `pass`, or the first non-passing test of `outcomes[range]` as `FAIL:ValueError on base test 3`.
fn suite_reason(outcomes: &[Outcome], suite: &str, offset: usize) -> (bool, String) {
    match outcomes.iter().position(|o| !o.is_pass()) {
        None => (true, "pass".into()),
        Some(i) => (
            false,
            format!("{} on {suite} test {}", outcomes[i], i + 1 + offset),
        ),
    }
}

/// The evidence vector of one candidate from its executions.
fn evidence(
    screen: &Result<Screen, String>,
    inline: Option<&SuiteResult>,
    supply: Option<&SuiteResult>,
    suite: &SuiteResult,
    n_base: usize,
    language: Language,
) -> Vec<Verdict> {
    if !language.is_python() {
        return foreign_evidence(suite, n_base, language);
    }
    let (c, s) = match screen {
        Ok(sc) => (
            Verdict::new(
                sc.code_compiles,
                match &sc.code_error {
                    None => "pass".to_string(),
                    Some(e) => e.clone(),
                },
            ),
            Verdict::new(sc.passes(), sc.reason()),
        ),
        Err(e) => (
            Verdict::new(false, e.clone()),
            Verdict::new(false, e.clone()),
        ),
    };
    // A candidate without self-tests (a pool in a harness's own format) has nothing to run:
    // E and E* do not hold, rather than hold vacuously.
    let (e_ok, e_why) = match inline {
        Some(r) => selftest::run_from(r),
        None => (false, NO_SELF_TESTS.to_string()),
    };
    let e = Verdict::new(e_ok, e_why.clone());
    let aliases = screen
        .as_ref()
        .map(|s| s.aliases.clone())
        .unwrap_or_default();
    let e_star = match supply {
        Some(r) => {
            let (ok, why) = selftest::run_from(r);
            Verdict::new(ok, format!("{why} (served {})", aliases.join(", ")))
        }
        None => Verdict::new(e_ok, format!("{e_why} (no candidate-named import: = E)")),
    };
    let (pb, pb_why) = suite_reason(&suite.outcomes[..n_base], "base", 0);
    let (pp, pp_why) = if pb {
        suite_reason(&suite.outcomes[n_base..], "plus", 0)
    } else {
        (false, format!("base: {pb_why}"))
    };
    vec![
        c,
        s,
        e,
        e_star,
        Verdict::new(pb, pb_why),
        Verdict::new(pp, pp_why),
    ]
}

/// Why E and E* do not hold for a candidate that comes without self-tests.
pub const NO_SELF_TESTS: &str = "no self-tests";

/// The evidence of a candidate in another language than Python: `C` from its suite (a
/// compile error is the oracle's `ERROR:CompileError` on the suite's first test), `S`, `E` and
/// `E*` never (the structural screen and the self-test contracts read Python only), `P_b` and
/// `P+` from the suite as for Python.
fn foreign_evidence(suite: &SuiteResult, n_base: usize, language: Language) -> Vec<Verdict> {
    let c = match suite.outcomes.iter().find(|o| o.is_compile_error()) {
        Some(o) => Verdict::new(false, o.to_string()),
        None => Verdict::new(true, "pass"),
    };
    let only_python = format!(
        "not judged for a {} candidate (the structural screen and the self-test contracts read \
         Python only)",
        language.display_name()
    );
    let (pb, pb_why) = suite_reason(&suite.outcomes[..n_base], "base", 0);
    let (pp, pp_why) = if pb {
        suite_reason(&suite.outcomes[n_base..], "plus", 0)
    } else {
        (false, format!("base: {pb_why}"))
    };
    vec![
        c,
        Verdict::new(false, only_python.clone()),
        Verdict::new(false, only_python.clone()),
        Verdict::new(false, only_python),
        Verdict::new(pb, pb_why),
        Verdict::new(pp, pp_why),
    ]
}

/// Evidence names of generated pools.
pub const EVIDENCE: [&str; 6] = ["C", "S", "E", "E*", "P_b", "P+"];
/// Predicates of generated pools, in display order.
pub const PREDICATES: [&str; 7] = ["C", "S", "E", "A", "E*", "A*", "P_b"];

/// Predicate values from the evidence vector (C, S, E, E*, P_b, P+).
fn admissions(ev: &[Verdict]) -> Vec<bool> {
    let (c, s, e, es, pb) = (ev[0].ok, ev[1].ok, ev[2].ok, ev[3].ok, ev[4].ok);
    vec![c, s, e, s && e, es, s && es, pb]
}

/// Executes every candidate and assembles the pools, every test of every suite run (the
/// per-test outcomes complete). `runner` is called twice (screen + inline and suites, then
/// module supply for candidates importing a candidate-named module).
pub fn build(
    tasks: &[TaskSpec],
    rows: &[PoolRow],
    runner: &Runner<'_>,
    mode: Mode,
) -> Result<PoolSet, AuditError> {
    build_suites(
        tasks,
        rows,
        runner,
        mode,
        Suites::AllTests,
        TimeConvention::Execscope,
    )
}

/// [`build`] with the suites run as `suites` says.
pub fn build_suites(
    tasks: &[TaskSpec],
    rows: &[PoolRow],
    runner: &Runner<'_>,
    mode: Mode,
    suites: Suites,
    time: TimeConvention,
) -> Result<PoolSet, AuditError> {
    let by_id: HashMap<&str, &TaskSpec> = tasks.iter().map(|t| (t.task_id.as_str(), t)).collect();
    let (pool_name, tasks_name) = match &mode {
        Mode::Generated { pool, tasks } => (pool.as_str(), tasks.as_str()),
        _ => ("pool", "the task file"),
    };
    if rows.is_empty() {
        return Err(AuditError::input(
            pool_name,
            "the pool holds no candidate rows; nothing to audit",
        ));
    }
    // A row for a task the task file does not hold is left out (named with its line); the
    // audit goes on with the others, unless none is left.
    let mut rejected = Vec::new();
    let mut kept = Vec::with_capacity(rows.len());
    for r in rows {
        match by_id.get(r.task_id.as_str()) {
            Some(t) => kept.push((r, *t)),
            None => rejected.push(RejectedRow {
                line: r.line,
                task_id: Some(r.task_id.clone()),
                reason: format!(
                    "task {} is not in the task file {tasks_name} ({})",
                    r.task_id,
                    known_tasks(&by_id)
                ),
            }),
        }
    }
    if kept.is_empty() {
        let r = &rejected[0];
        return Err(AuditError::input(
            format!("{pool_name}:{}", r.line),
            format!(
                "{} (no row of the pool is for a task of the task file: {} left out)",
                r.reason,
                rejected.len()
            ),
        ));
    }
    let (rows, specs): (Vec<&PoolRow>, Vec<&TaskSpec>) = kept.into_iter().unzip();
    let answered: BTreeSet<&str> = rows.iter().map(|r| r.task_id.as_str()).collect();
    let missing_tasks: Vec<String> = tasks
        .iter()
        .filter(|t| !answered.contains(t.task_id.as_str()))
        .map(|t| t.task_id.clone())
        .collect();
    let mut first = Jobs::default();
    let programs: Vec<String> = rows.iter().zip(&specs).map(|(r, t)| r.program(t)).collect();
    // The structural screens, SCREEN_BATCH distinct ones to a job: (job, test) of each row.
    let mut screen_of: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut distinct: Vec<(&str, &str, &str)> = Vec::new();
    // A candidate in another language is not screened (the screen parses Python).
    let screen_at: Vec<Option<usize>> = rows
        .iter()
        .zip(&specs)
        .zip(&programs)
        .map(|((r, t), code)| {
            let key = (
                code.as_str(),
                r.self_tests.as_str(),
                t.function_name.as_str(),
            );
            t.language.is_python().then(|| {
                *screen_of.entry(key).or_insert_with(|| {
                    distinct.push(key);
                    distinct.len() - 1
                })
            })
        })
        .collect();
    let batches: Vec<usize> = distinct
        .chunks(selftest::SCREEN_BATCH)
        .map(|chunk| first.add(selftest::screen_batch_job(chunk)))
        .collect();
    let mut idx = Vec::with_capacity(rows.len());
    // Each row's suite budgets under a benchmark's time convention (to tell its cap's timeouts).
    let mut capped_by = Vec::with_capacity(rows.len());
    for ((r, t), (code, &k)) in rows.iter().zip(&specs).zip(programs.iter().zip(&screen_at)) {
        let code = code.clone();
        let f = &t.function_name;
        let sc = k.map(|k| {
            (
                batches[k / selftest::SCREEN_BATCH],
                k % selftest::SCREEN_BATCH,
            )
        });
        let a = (t.language.is_python() && !r.self_tests.trim().is_empty()).then(|| {
            first.add(selftest::selftest_job(
                &code,
                &r.self_tests,
                f,
                SelfTest::Inline,
            ))
        });
        let all: Vec<String> = t.base.iter().chain(&t.plus).cloned().collect();
        let mut suite = Job::new(code, all).entry(f).language(t.language);
        if suites == Suites::StopAtFirstFailure {
            suite = suite.stop_at_first_failure(vec![t.base.len()]);
        }
        let budgets = (t.reference_ms.len() == t.base.len() + t.plus.len())
            .then(|| time.budgets(&t.reference_ms, t.base.len()))
            .flatten();
        if let Some(b) = &budgets {
            suite = suite.budgets(b.clone());
        }
        let s = first.add(suite);
        capped_by.push(budgets);
        idx.push((sc, a, s));
    }
    let res1 = run_checked(runner, &first.jobs)?;
    let screens: Vec<Result<Screen, String>> = idx
        .iter()
        .map(|&(sc, _, _)| match sc {
            Some((job, test)) => selftest::screen_from_test(&res1[job], test),
            None => Err("not screened (another language than Python)".to_string()),
        })
        .collect();
    let mut second = Jobs::default();
    let mut sidx = Vec::with_capacity(rows.len());
    for ((r, t), sc) in rows.iter().zip(&specs).zip(&screens) {
        sidx.push(match sc {
            Ok(s) if !s.aliases.is_empty() && !r.self_tests.trim().is_empty() => {
                Some(second.add(selftest::selftest_job(
                    &r.program(t),
                    &r.self_tests,
                    &t.function_name,
                    SelfTest::Supply,
                )))
            }
            _ => None,
        });
    }
    let res2 = run_checked(runner, &second.jobs)?;
    // Group into cohorts → tasks → candidates in sample order.
    let all_tasks: BTreeSet<&str> = rows.iter().map(|r| r.task_id.as_str()).collect();
    let mut cohorts: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        cohorts.entry(r.cohort.as_str()).or_default().push(i);
    }
    let mut out = Vec::new();
    for (name, members) in cohorts {
        let positions: Vec<i64> = members
            .iter()
            .map(|&i| rows[i].sample_index)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut tasks_out = Vec::new();
        for &tid in &all_tasks {
            let spec = by_id[tid];
            let mut mine: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| rows[i].task_id == tid)
                .collect();
            mine.sort_by_key(|&i| rows[i].sample_index);
            let candidates = mine
                .into_iter()
                .map(|i| {
                    let r = &rows[i];
                    let (_, a, s) = idx[i];
                    let suite = &res1[s];
                    let capped = capped_by[i]
                        .as_ref()
                        .map(|b| b.capped(suite))
                        .unwrap_or_default();
                    let ev = evidence(
                        &screens[i],
                        a.map(|a| &res1[a]),
                        sidx[i].map(|j| &res2[j]),
                        suite,
                        spec.base.len(),
                        spec.language,
                    );
                    let tests = spec
                        .base
                        .iter()
                        .map(|t| ("base", t))
                        .chain(spec.plus.iter().map(|t| ("plus", t)))
                        .zip(&suite.outcomes)
                        .enumerate()
                        .map(|(j, ((suite, t), o))| TestRun {
                            suite,
                            test: t.clone(),
                            outcome: o.clone(),
                            capped: capped.get(j).copied().unwrap_or(false),
                        })
                        .collect();
                    Candidate {
                        position: positions
                            .binary_search(&r.sample_index)
                            .expect("position of a member"),
                        label: format!("sample {}", r.sample_index),
                        line: Some(r.line),
                        code: r.code.clone(),
                        self_tests: r.self_tests.clone(),
                        admitted: admissions(&ev),
                        pass: ev[5].ok,
                        evidence: ev,
                        tests,
                    }
                })
                .collect();
            tasks_out.push(TaskPool {
                task_id: tid.to_string(),
                function_name: spec.function_name.clone(),
                language: spec.language,
                candidates,
            });
        }
        out.push(Cohort {
            name: name.to_string(),
            positions,
            tasks: tasks_out,
        });
    }
    let n_pairs = first.jobs.len() + second.jobs.len();
    let mut provenance = vec![format!(
        "{} candidates; {n_pairs} oracle jobs run ({} screen / inline / suite, {} module supply)",
        rows.len(),
        first.jobs.len(),
        second.jobs.len()
    )];
    if suites == Suites::StopAtFirstFailure {
        let suite_jobs: BTreeSet<usize> = idx.iter().map(|&(_, _, s)| s).collect();
        let stopped = suite_jobs.iter().filter(|&&s| res1[s].is_stopped()).count();
        provenance.push(format!(
            "stopped at first failure: {stopped} of {} suites (base and plus each stop at \
             their first test that does not pass, the rest recorded not-run; --all-tests runs \
             every test)",
            suite_jobs.len()
        ));
    }
    Ok(PoolSet {
        mode,
        evidence_names: EVIDENCE.iter().map(|s| s.to_string()).collect(),
        predicates: PREDICATES.iter().map(|s| s.to_string()).collect(),
        contrasts: vec![(0, 3), (3, 5)],
        cohorts: out,
        provenance,
        rejected,
        missing_tasks,
        task_count: tasks.len(),
        plus_tasks: tasks.iter().filter(|t| !t.plus.is_empty()).count(),
        sanitized: rows
            .iter()
            .filter(|r| r.sanitized)
            .map(|r| r.line)
            .collect(),
        task_format: String::new(),
        time_convention: time,
    })
}

/// The task file's ids as an error message shows them: how many, and the first five.
fn known_tasks(by_id: &HashMap<&str, &TaskSpec>) -> String {
    let mut known: Vec<&str> = by_id.keys().copied().collect();
    known.sort_unstable();
    let shown = known.iter().take(5).copied().collect::<Vec<_>>().join(", ");
    format!(
        "{} tasks{}{}",
        known.len(),
        if known.is_empty() { "" } else { ": " },
        if known.len() > 5 {
            format!("{shown}, …")
        } else {
            shown
        }
    )
}
