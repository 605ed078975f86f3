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
pub use super::Suites;
use super::{Candidate, Cohort, Mode, PoolSet, TaskPool, TestRun, Verdict};
use execscope_record::BatchError;
use execscope_record::{Job, Outcome, SelfTest, SuiteResult};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// One task of the task file.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSpec {
    pub task_id: String,
    pub function_name: String,
    pub base: Vec<String>,
    pub plus: Vec<String>,
    /// Source prepended to every candidate of the task before it runs ("" for none).
    pub prelude: String,
}

impl TaskSpec {
    /// The code the oracle runs for `candidate`: the prelude, then the candidate.
    pub fn program(&self, candidate: &str) -> String {
        execscope_record::with_prelude(&self.prelude, candidate)
    }
}

/// One candidate row of the pool file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoolRow {
    /// 1-based line in the pool file (for messages).
    pub line: usize,
    pub task_id: String,
    pub sample_index: i64,
    pub code: String,
    pub self_tests: String,
    pub cohort: String,
    /// `code` is the whole program (an EvalPlus `solution`, a harness's joined generation): the
    /// task's prelude is not put in front of it.
    pub whole: bool,
    /// `code` is what a Markdown code fence around the row's text held (the fences and the
    /// prose around them left out, as `evalplus.sanitize` does).
    pub sanitized: bool,
}

/// A pool row left out of the audit, with why: one row that cannot be read or run never stops
/// the audit of the others (issue 43), and the outputs name it by its line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RejectedRow {
    /// 1-based line in the pool file.
    pub line: usize,
    /// The row's task, when it could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    pub reason: String,
}

/// A pool file as read: the rows the audit runs, and the ones it leaves out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PoolRows {
    pub rows: Vec<PoolRow>,
    pub rejected: Vec<RejectedRow>,
}

impl PoolRows {
    /// The rows, or an error when none can be audited: the first rejected row's reason (named
    /// by file and line), else that the pool is empty.
    pub fn nonempty(self, path: &Path) -> Result<PoolRows, AuditError> {
        if !self.rows.is_empty() {
            return Ok(self);
        }
        match self.rejected.first() {
            Some(r) => Err(AuditError::input(
                format!("{}:{}", path.display(), r.line),
                format!(
                    "{} (no row of the pool can be audited: {} left out)",
                    r.reason,
                    self.rejected.len()
                ),
            )),
            None => Err(AuditError::input(
                path.display(),
                "the pool holds no candidate rows (every line is blank); nothing to audit",
            )),
        }
    }
}

impl PoolRow {
    /// The program the oracle runs for this row of task `t`.
    pub fn program(&self, t: &TaskSpec) -> String {
        if self.whole {
            self.code.clone()
        } else {
            t.program(&self.code)
        }
    }
}

#[derive(Deserialize)]
struct RawTask {
    task_id: String,
    function_name: String,
    #[serde(default)]
    base_tests: Option<Vec<String>>,
    #[serde(default)]
    plus_tests: Option<Vec<String>>,
    #[serde(default)]
    tests: Option<Vec<String>>,
    #[serde(default)]
    prelude: Option<String>,
}

#[derive(Deserialize)]
struct RawRow {
    task_id: String,
    sample_index: i64,
    code: String,
    self_tests: String,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    cohort: Option<String>,
}

/// The non-blank lines of a JSON Lines file, read as every JSON file of execscope is (regular
/// file, bounded read, UTF-8 errors with their line, byte-order mark ignored).
fn lines(path: &Path) -> Result<String, AuditError> {
    let bytes = crate::bundle::files::read(path)?;
    Ok(crate::bundle::files::json_text(path, &bytes)?.to_string())
}

use crate::bundle::files::numbered_lines as numbered;

/// Reads the task file; errors name the file and line. A file without tasks is an error.
pub fn read_tasks(path: &Path) -> Result<Vec<TaskSpec>, AuditError> {
    parse_tasks(path, &lines(path)?)
}

/// [`read_tasks`] on text already read (`path` names it in messages).
pub fn parse_tasks(path: &Path, text: &str) -> Result<Vec<TaskSpec>, AuditError> {
    let mut out: Vec<TaskSpec> = Vec::new();
    let mut seen = BTreeSet::new();
    for (n, l) in numbered(text) {
        let at = || format!("{}:{n}", path.display());
        let r: RawTask = serde_json::from_str(l)
            .map_err(|e| AuditError::input(at(), format!("bad task: {e}")))?;
        let base = match (r.base_tests, r.tests) {
            (Some(b), _) => b,
            (None, Some(t)) => t,
            (None, None) => {
                let msg = format!("task {} has no base_tests", r.task_id);
                return Err(AuditError::input(at(), msg));
            }
        };
        if base.is_empty() {
            let msg = format!("task {} has an empty base suite", r.task_id);
            return Err(AuditError::input(at(), msg));
        }
        if r.function_name.trim().is_empty() {
            let msg = format!("task {} has no function_name", r.task_id);
            return Err(AuditError::input(at(), msg));
        }
        if !seen.insert(r.task_id.clone()) {
            let msg = format!("duplicate task_id {}", r.task_id);
            return Err(AuditError::input(at(), msg));
        }
        out.push(TaskSpec {
            task_id: safe(&r.task_id),
            function_name: r.function_name,
            base,
            plus: r.plus_tests.unwrap_or_default(),
            prelude: r.prelude.unwrap_or_default(),
        });
    }
    if out.is_empty() {
        return Err(AuditError::input(
            path.display(),
            "the task file holds no tasks (every line is blank); an audit needs the tasks its pool answers",
        ));
    }
    Ok(out)
}

/// A field of a pool or task file as execscope shows it: control and invisible formatting
/// characters escaped (`\u{1b}`), at most 200 characters.
fn safe(s: &str) -> String {
    execscope_record::outcome::escape_text(s, 200)
}

/// Reads the pool file strictly: any row that cannot be read is an error naming the file and
/// line (the audit itself reads with [`parse_pool_rows`], which leaves such rows out). A pool
/// without rows is an error.
pub fn read_pool(path: &Path) -> Result<Vec<PoolRow>, AuditError> {
    parse_pool(path, &lines(path)?)
}

/// [`read_pool`] on text already read (`path` names it in messages).
pub fn parse_pool(path: &Path, text: &str) -> Result<Vec<PoolRow>, AuditError> {
    let read = parse_pool_rows(path, text)?;
    if let Some(r) = read.rejected.first() {
        return Err(AuditError::input(
            format!("{}:{}", path.display(), r.line),
            r.reason.clone(),
        ));
    }
    Ok(read.rows)
}

/// The rows of a pool in execscope's own form: a line that is not a candidate row (not JSON,
/// a lone surrogate escape, a field of the wrong type) or repeats an earlier row's sample index
/// is left out with its reason, and the others are read. An error only when no row can be read.
pub fn parse_pool_rows(path: &Path, text: &str) -> Result<PoolRows, AuditError> {
    let mut out = Vec::new();
    let mut rejected = Vec::new();
    let mut seen = HashMap::new();
    for (n, l) in numbered(text) {
        let r: RawRow = match serde_json::from_str(l) {
            Ok(r) => r,
            Err(e) => {
                let why = match lone_surrogate(l) {
                    Some(esc) => format!(
                        "bad candidate row: a lone surrogate escape ({esc}, as Python's json \
                         writes one), which no UTF-8 program can hold ({e})"
                    ),
                    None => format!("bad candidate row: {e}"),
                };
                rejected.push(RejectedRow {
                    line: n,
                    task_id: raw_task_id(l),
                    reason: why,
                });
                continue;
            }
        };
        // Untrusted text that every report prints: terminal escapes and invisible characters
        // are neutralised where it enters (stdout, .txt/.md/.csv/.tex tables alike).
        let cohort = safe(&match (r.cohort, r.profile) {
            (Some(c), Some(p)) => format!("{c}/{p}"),
            (Some(c), None) => c,
            (None, Some(p)) => p,
            (None, None) => "all".to_string(),
        });
        let key = (cohort.clone(), r.task_id.clone(), r.sample_index);
        if let Some(&first) = seen.get(&key) {
            rejected.push(RejectedRow {
                line: n,
                task_id: Some(safe(&r.task_id)),
                reason: format!(
                    "duplicate sample_index {} of task {} in cohort {cohort} (first at line {first}, which is audited)",
                    r.sample_index,
                    safe(&r.task_id)
                ),
            });
            continue;
        }
        seen.insert(key, n);
        out.push(PoolRow {
            line: n,
            task_id: safe(&r.task_id),
            sample_index: r.sample_index,
            code: r.code,
            self_tests: r.self_tests,
            cohort,
            whole: false,
            sanitized: false,
        });
    }
    PoolRows {
        rows: out,
        rejected,
    }
    .nonempty(path)
}

/// The first `\\uXXXX` escape of a surrogate in a JSON line that is not one half of a pair
/// (JSON allows it; no UTF-8 text can hold it).
fn lone_surrogate(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let unit = |at: usize| -> Option<u16> {
        let hex = line.get(at + 2..at + 6)?;
        (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(hex, 16).ok())
            .flatten()
    };
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        match unit(i) {
            Some(0xD800..=0xDBFF) if matches!(unit(i + 6), Some(0xDC00..=0xDFFF)) => i += 12,
            Some(0xD800..=0xDFFF) => return line.get(i..i + 6),
            Some(_) => i += 6,
            // Any other escape (`\\\\` included) is two characters.
            None => i += 2,
        }
    }
    None
}

/// The `task_id` of a line that is not a valid row, when a JSON reader finds one (for naming
/// the row; a line that is no JSON at all has none).
fn raw_task_id(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    match v.get("task_id")? {
        serde_json::Value::String(s) => Some(safe(s)),
        other => Some(safe(&other.to_string())),
    }
}

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
) -> Vec<Verdict> {
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
    build_suites(tasks, rows, runner, mode, Suites::AllTests)
}

/// [`build`] with the suites run as `suites` says.
pub fn build_suites(
    tasks: &[TaskSpec],
    rows: &[PoolRow],
    runner: &Runner<'_>,
    mode: Mode,
    suites: Suites,
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
    let screen_at: Vec<usize> = rows
        .iter()
        .zip(&specs)
        .zip(&programs)
        .map(|((r, t), code)| {
            let key = (
                code.as_str(),
                r.self_tests.as_str(),
                t.function_name.as_str(),
            );
            *screen_of.entry(key).or_insert_with(|| {
                distinct.push(key);
                distinct.len() - 1
            })
        })
        .collect();
    let batches: Vec<usize> = distinct
        .chunks(selftest::SCREEN_BATCH)
        .map(|chunk| first.add(selftest::screen_batch_job(chunk)))
        .collect();
    let mut idx = Vec::with_capacity(rows.len());
    for ((r, t), (code, &k)) in rows.iter().zip(&specs).zip(programs.iter().zip(&screen_at)) {
        let code = code.clone();
        let f = &t.function_name;
        let sc = (
            batches[k / selftest::SCREEN_BATCH],
            k % selftest::SCREEN_BATCH,
        );
        let a = (!r.self_tests.trim().is_empty()).then(|| {
            first.add(selftest::selftest_job(
                &code,
                &r.self_tests,
                f,
                SelfTest::Inline,
            ))
        });
        let all: Vec<String> = t.base.iter().chain(&t.plus).cloned().collect();
        let mut suite = Job::new(code, all).entry(f);
        if suites == Suites::StopAtFirstFailure {
            suite = suite.stop_at_first_failure(vec![t.base.len()]);
        }
        let s = first.add(suite);
        idx.push((sc, a, s));
    }
    let res1 = run_checked(runner, &first.jobs)?;
    let screens: Vec<Result<Screen, String>> = idx
        .iter()
        .map(|&((job, test), _, _)| selftest::screen_from_test(&res1[job], test))
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
                    let ev = evidence(
                        &screens[i],
                        a.map(|a| &res1[a]),
                        sidx[i].map(|j| &res2[j]),
                        suite,
                        spec.base.len(),
                    );
                    let tests = spec
                        .base
                        .iter()
                        .map(|t| ("base", t))
                        .chain(spec.plus.iter().map(|t| ("plus", t)))
                        .zip(&suite.outcomes)
                        .map(|((suite, t), o)| TestRun {
                            suite,
                            test: t.clone(),
                            outcome: o.clone(),
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
