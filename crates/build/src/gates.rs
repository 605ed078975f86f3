//! Gates 3–5 (paper §3.3) over tasks that passed gates 1–2: canonical execution, distractor
//! execution and selection, corpus integrity (cross-query name collisions); between 3 and 4, the
//! independent implementation's execution. Each gate runs its pairs for all tasks in one oracle
//! batch; deciding is pure given the results.
//!
//! Before execution, gate 4 refuses every mutant whose single edit lies in a `def` signature
//! (a default value, a parameter, the return annotation) unless the query states the original
//! text ([`signature_unstated`]): such a mutant is only wrong against a detail the reader of the
//! query cannot know.

use super::ast::{self, SignatureSpot};
use super::exec::Runner;
use super::task::{Gate, Refusal, Task};
use crate::mutate::{self, Candidate, DropReason, Mutant};
use execscope_oracle::{Job, SuiteResult};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Fewest distractors a task may keep under the paper's rules (the benchmark rule's is in
/// [`crate::rules`]).
pub const MIN_KEEP: usize = crate::rules::PAPER_MIN_KEEP;

/// A task that cleared gates 1–4: its canonical result and the distractors chosen.
#[derive(Clone, Debug)]
pub struct Admitted {
    pub task: Task,
    /// Kept mutants, in ascending order of their position in the mutant list.
    pub kept: Vec<Mutant>,
    /// Per kept mutant, the 1-based numbers of the tests it fails.
    pub kept_failing: Vec<Vec<usize>>,
}

/// What the gates record besides the tasks they pass on.
#[derive(Clone, Debug, Default)]
pub struct GateLog {
    pub refusals: Vec<Refusal>,
    pub dropped: Vec<Dropped>,
    pub collisions: Vec<Collision>,
    pub mutants_generated: usize,
    /// Whether compiled code settled mutants before execution (gate 4).
    pub equivalence: crate::equivalence::Checked,
}

/// A mutant that did not become a distractor.
#[derive(Clone, Debug, Serialize)]
pub struct Dropped {
    pub task_id: String,
    pub operator: String,
    pub bug_type: String,
    /// 1-based line of the edit in the canonical.
    pub line: usize,
    /// The edit's byte offsets into the canonical (`before` is the canonical's bytes there).
    pub start: usize,
    pub end: usize,
    pub before: String,
    pub after: String,
    /// Not executed: `signature_unstated` (see [`signature_unstated`]), `equivalent`,
    /// `duplicate_mutant`, `does_not_compile` (settled by its compiled code, see
    /// [`equivalence`](crate::equivalence)). Executed: `passes_all_tests`, `only_crashes`,
    /// `duplicate_behaviour`, `not_chosen`, `oracle_error`, or `task_refused` (the task failed
    /// gate 4 or 5 after selection).
    pub reason: String,
    /// For duplicates (`duplicate_behaviour`, `duplicate_mutant`): `operator@line` of the
    /// representative kept in the pool or executed in its place; for `signature_unstated`:
    /// what the edit changes and what the query would have to state; for `does_not_compile`:
    /// CPython's message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub outcomes: Vec<String>,
}

fn dropped_row(
    task_id: &str,
    m: &Mutant,
    reason: &str,
    detail: Option<String>,
    outcomes: Vec<String>,
) -> Dropped {
    Dropped {
        task_id: task_id.to_string(),
        operator: m.operator.clone(),
        bug_type: m.bug_type.clone(),
        line: m.line,
        start: m.edit.start,
        end: m.edit.end,
        before: m.edit.before.clone(),
        after: m.edit.after.clone(),
        reason: reason.to_string(),
        detail,
        outcomes,
    }
}

fn short(reason: &DropReason) -> &'static str {
    match reason {
        DropReason::PassesAllTests => "passes_all_tests",
        DropReason::OnlyCrashes => "only_crashes",
        DropReason::DuplicateOf(_) => "duplicate_behaviour",
        DropReason::NotChosen => "not_chosen",
    }
}

/// Per task, where the round-robin over the paper's six bug types starts: SHA-256 of
/// (seed, task_id), mod 6.
pub fn rotation(seed: u64, task_id: &str) -> usize {
    rotation_among(
        seed,
        task_id,
        execscope_core::bundle::model::BUG_TYPES.len(),
    )
}

/// [`rotation`] over `families` bug types (a build's operator set): the same hash, mod
/// `families`, so the paper's six rotate as before.
pub fn rotation_among(seed: u64, task_id: &str, families: usize) -> usize {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(b"bug-type-rotation\0");
    h.update(task_id.as_bytes());
    let d = h.finalize();
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    (u64::from_le_bytes(b) % families.max(1) as u64) as usize
}

fn outcomes_of(r: &SuiteResult) -> Vec<String> {
    r.outcomes.iter().map(|o| o.to_string()).collect()
}

/// How many times a canonical's slowest test must fit into the per-test budget (the paper's
/// rules; the benchmark rule's margin is in [`crate::rules`]). A verdict is the
/// same on any machine only if the code under test is far from the budget; mutants of a
/// canonical cost about what it costs, so a canonical that needs more than a tenth of the budget
/// (on the machine that builds) is refused rather than judged near the limit.
pub const COST_MARGIN: u32 = crate::rules::PAPER_COST_MARGIN;

/// `Some(reason)` when the canonical's slowest test (wall ms per test, as the harness measured)
/// does not fit `margin` times ([`COST_MARGIN`] under the paper's rules) into `budget`.
pub fn too_slow(test_ms: &[u32], budget: std::time::Duration, margin: u32) -> Option<String> {
    let (k, &ms) = test_ms.iter().enumerate().max_by_key(|(_, &ms)| ms)?;
    let budget_ms = budget.as_millis() as u64;
    (u64::from(ms) * u64::from(margin) > budget_ms).then(|| {
        format!(
            "canonical too slow to judge the same on any machine: test {} took {ms} ms, more \
             than 1/{margin} of the {budget_ms} ms per-test budget",
            k + 1
        )
    })
}

/// Gate 3: run every canonical against its suite; those that fail a test, or whose slowest
/// test is too close to the per-test budget ([`too_slow`] with `margin`), are refused.
pub fn canonical_gate(
    runner: &mut Runner,
    tasks: Vec<Task>,
    margin: u32,
    log: &mut GateLog,
) -> Vec<Task> {
    let jobs: Vec<Job> = tasks.iter().map(|t| t.job(&t.canonical)).collect();
    let results = runner.run("canonicals", &jobs);
    let budget = runner.test_budget();
    let reasons: Vec<Option<String>> = tasks
        .iter()
        .zip(results)
        .map(|(t, r)| match r {
            Err(e) => Some(format!("oracle error: {e}")),
            Ok(r) if r.passes_all() => too_slow(&r.test_ms, budget, margin),
            Ok(r) => {
                let failing: Vec<String> = r
                    .outcomes
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| !o.is_pass())
                    .map(|(i, o)| format!("test {} {o}", i + 1))
                    .collect();
                Some(format!(
                    "canonical fails {} of {} tests: {}",
                    failing.len(),
                    t.tests.len(),
                    failing.join(", ")
                ))
            }
        })
        .collect();
    keep_or_refuse(tasks, reasons, log)
}

/// Gate 3, continued: every canonical that passed runs again under each of `seeds` as
/// `PYTHONHASHSEED` (the oracle's own is 0). A canonical whose verdicts change with the string
/// hash seed -- set iteration order, `hash()` of a string -- would give another label on
/// another run, so it is refused, as careful builders of the field run a suite under three
/// seeds. Skipped when `seeds` is empty.
pub fn seed_gate(
    runner: &mut Runner,
    tasks: Vec<Task>,
    seeds: &[u32],
    log: &mut GateLog,
) -> Vec<Task> {
    let jobs: Vec<Job> = tasks.iter().map(|t| t.job(&t.canonical)).collect();
    let mut reasons: Vec<Option<String>> = vec![None; tasks.len()];
    for &seed in seeds {
        let before = runner.pending;
        let results = runner.run_under(
            &format!("canonicals, PYTHONHASHSEED={seed}"),
            &jobs,
            Some(seed),
        );
        if runner.pending > before {
            return tasks; // other shards' pairs: the build stops after this phase
        }
        for (why, r) in reasons.iter_mut().zip(results) {
            if why.is_some() {
                continue;
            }
            *why = match r {
                Err(e) => Some(format!("oracle error under PYTHONHASHSEED={seed}: {e}")),
                Ok(r) if r.passes_all() => None,
                Ok(r) => Some(format!(
                    "verdicts depend on the string hash seed: every test passes under \
                     PYTHONHASHSEED=0, but under PYTHONHASHSEED={seed} {}",
                    r.outcomes
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| !o.is_pass())
                        .map(|(i, o)| format!("test {} is {o}", i + 1))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            };
        }
    }
    keep_or_refuse(tasks, reasons, log)
}

/// Gate 3's verdict on each task: kept without a reason, refused with it.
fn keep_or_refuse(tasks: Vec<Task>, reasons: Vec<Option<String>>, log: &mut GateLog) -> Vec<Task> {
    let mut out = Vec::new();
    for (t, why) in tasks.into_iter().zip(reasons) {
        match why {
            Some(reason) => log.refusals.push(Refusal {
                line: t.line,
                task_id: t.task_id.clone(),
                gate: Gate::CanonicalExecution,
                reason,
            }),
            None => out.push(t),
        }
    }
    out
}

/// The gate between 3 and 4: a task's `independent` implementation (written from the query alone)
/// must define the function, differ from the canonical, and pass every test; a failing test means
/// the suite checks something the query does not say (or the query is ambiguous), so the task is
/// refused with the failing tests named. Tasks without the field pass.
pub fn independent_gate(runner: &mut Runner, tasks: Vec<Task>, log: &mut GateLog) -> Vec<Task> {
    let mut reasons: Vec<Option<String>> = vec![None; tasks.len()];
    let mut jobs: Vec<Job> = Vec::new();
    let mut job_of: Vec<Option<usize>> = vec![None; tasks.len()];
    for (i, t) in tasks.iter().enumerate() {
        let Some(code) = &t.independent else {
            continue;
        };
        let defs = mutate::function_names(t.language, code);
        if !mutate::parses_in(t.language, code) {
            reasons[i] = Some("independent does not parse".into());
        } else if !defs.iter().any(|d| d == &t.function_name) {
            reasons[i] = Some(format!(
                "independent does not define `{}` at top level",
                t.function_name
            ));
        } else if code.trim() == t.canonical.trim() {
            reasons[i] = Some("independent is a copy of the canonical".into());
        } else {
            job_of[i] = Some(jobs.len());
            jobs.push(t.job(code));
        }
    }
    let results = runner.run("independents", &jobs);
    for (i, t) in tasks.iter().enumerate() {
        let Some(j) = job_of[i] else { continue };
        reasons[i] = match &results[j] {
            Err(e) => Some(format!("oracle error on the independent: {e}")),
            Ok(r) if r.passes_all() => None,
            Ok(r) => {
                let failing: Vec<String> = r
                    .outcomes
                    .iter()
                    .enumerate()
                    .filter(|(_, o)| !o.is_pass())
                    .map(|(k, o)| format!("test {} {o}: {}", k + 1, t.tests[k]))
                    .collect();
                Some(format!(
                    "independent fails {} of {} tests: {}",
                    failing.len(),
                    t.tests.len(),
                    failing.join("; ")
                ))
            }
        };
    }
    let mut out = Vec::new();
    for (t, reason) in tasks.into_iter().zip(reasons) {
        match reason {
            Some(reason) => log.refusals.push(Refusal {
                line: t.line,
                task_id: t.task_id.clone(),
                gate: Gate::IndependentExecution,
                reason,
            }),
            None => out.push(t),
        }
    }
    out
}

pub use execscope_core::analysis::stated::{states_default, DEFAULT_WINDOW};
use execscope_core::analysis::stated::{token_matches, token_matches_with};

/// `Some(why)` when `m`'s edit lies in a `def` signature of `t`'s canonical and the query does not
/// state what it changes: for a default value, the default's literal near the word "default"
/// ([`states_default`]), or, for an element of a composite default such as a tuple of
/// thresholds, that element as a number anywhere in the query (units may follow: `5s`); for any
/// other signature edit, the original text verbatim.
pub fn signature_unstated(t: &Task, m: &Mutant) -> Option<String> {
    if !t.language.is_python() {
        return None; // the other languages' dialects never splice a signature
    }
    let spot = ast::signature_spot(&t.canonical, m.edit.start, m.edit.end)?;
    let change = format!("`{}` → `{}`", m.edit.before, m.edit.after);
    match spot {
        SignatureSpot::Default {
            function,
            parameter,
            value,
        } => {
            // A composite default (a tuple of thresholds, say) states the edited element when
            // the query gives it as a number, units allowed: "up to 5 kg", "yellow for 5s".
            let element = value != m.edit.before
                && !token_matches_with(&t.query, &m.edit.before, true).is_empty();
            let stated = element || states_default(&t.query, &value);
            (!stated).then(|| {
                format!(
                    "edits only the default of `{parameter}` in `def {function}` ({change}); \
                     the query does not state the default `{value}` (within {DEFAULT_WINDOW} \
                     characters of \"default\")"
                )
            })
        }
        SignatureSpot::Other { function } => {
            token_matches(&t.query, &m.edit.before).is_empty().then(|| {
                format!(
                    "edits only the signature of `def {function}` ({change}); the query does \
                     not quote `{}`",
                    m.edit.before
                )
            })
        }
    }
}

/// Gate 4: every single-edit mutant of every canonical (the families of `rules.operators`),
/// executed in one batch, then selection (up to `opts.max_keep`, seeded bug-type rotation per
/// task over the operator set's families). Fewer than `rules.min_keep` ([`MIN_KEEP`] under
/// the paper's rules) kept refuses.
pub fn distractor_gate(
    runner: &mut Runner,
    tasks: Vec<Task>,
    opts: &crate::BuildOptions,
    rules: &crate::rules::Rules,
    log: &mut GateLog,
) -> Vec<Admitted> {
    let (max_keep, seed, min_keep) = (opts.max_keep, opts.seed, rules.min_keep);
    let order = rules.operators.names();
    let mut sig_drops: Vec<Vec<Dropped>> = Vec::with_capacity(tasks.len());
    let all: Vec<Vec<Mutant>> = tasks
        .iter()
        .map(|t| {
            let mut drops = Vec::new();
            let ms = mutate::mutants_in(t.language, &t.canonical, &rules.operators)
                .unwrap_or_default()
                .into_iter()
                .filter(|m| match signature_unstated(t, m) {
                    Some(why) => {
                        let row =
                            dropped_row(&t.task_id, m, "signature_unstated", Some(why), vec![]);
                        drops.push(row);
                        false
                    }
                    None => true,
                })
                .collect();
            sig_drops.push(drops);
            ms
        })
        .collect();
    let all = settle_before_execution(&tasks, all, &mut sig_drops, log);
    let jobs: Vec<Job> = tasks
        .iter()
        .zip(&all)
        .flat_map(|(t, ms)| ms.iter().map(|m| t.job(&m.code)))
        .collect();
    log.mutants_generated += jobs.len() + sig_drops.iter().map(Vec::len).sum::<usize>();
    let mut results = runner.run("mutants", &jobs).into_iter();
    let mut out = Vec::new();
    for ((t, ms), sig) in tasks.into_iter().zip(all).zip(sig_drops) {
        let drop = |m: &Mutant, reason: &str, detail: Option<String>, outcomes: Vec<String>| {
            dropped_row(&t.task_id, m, reason, detail, outcomes)
        };
        let mut cands: Vec<Candidate> = Vec::new();
        let mut task_drops: Vec<Dropped> = sig;
        let unexecuted = task_drops.len();
        for m in &ms {
            match results.next() {
                Some(Ok(r)) => cands.push(Candidate {
                    mutant: m.clone(),
                    outcomes: r.outcomes.clone(),
                    observed: r.observed.clone(),
                }),
                Some(Err(e)) => task_drops.push(drop(m, "oracle_error", Some(e), Vec::new())),
                None => task_drops.push(drop(m, "oracle_error", Some("no result".into()), vec![])),
            }
        }
        let start = rotation_among(seed, &t.task_id, order.len());
        let sel = mutate::select_in(&cands, max_keep, seed, start, &order);
        for (i, reason) in &sel.dropped {
            let c = &cands[*i];
            let detail = match reason {
                DropReason::DuplicateOf(j) => Some(format!(
                    "{}@{}",
                    cands[*j].mutant.operator, cands[*j].mutant.line
                )),
                _ => None,
            };
            let outcomes = c.outcomes.iter().map(|o| o.to_string()).collect();
            task_drops.push(drop(&c.mutant, short(reason), detail, outcomes));
        }
        let kept: Vec<Mutant> = sel.kept.iter().map(|&i| cands[i].mutant.clone()).collect();
        if kept.len() < min_keep {
            let count = |r: &str| task_drops.iter().filter(|d| d.reason == r).count();
            log.refusals.push(Refusal {
                line: t.line,
                task_id: t.task_id.clone(),
                gate: Gate::DistractorExecution,
                reason: format!(
                    "admits only {} distinct failing mutants, {min_keep} needed ({} mutants: \
                     {} signature edits the query does not state, {} equivalent, duplicate or \
                     not compiling, {} pass all tests, {} only crash, {} duplicate behaviour, \
                     {} oracle errors)",
                    kept.len(),
                    ms.len() + unexecuted,
                    count("signature_unstated"),
                    count("equivalent") + count("duplicate_mutant") + count("does_not_compile"),
                    count("passes_all_tests"),
                    count("only_crashes"),
                    count("duplicate_behaviour"),
                    count("oracle_error"),
                ),
            });
            for c in sel.kept.iter().map(|&i| &cands[i]) {
                let outcomes = c.outcomes.iter().map(|o| o.to_string()).collect();
                task_drops.push(drop(&c.mutant, "task_refused", None, outcomes));
            }
        } else {
            let kept_failing = sel
                .kept
                .iter()
                .map(|&i| {
                    let o = &cands[i].outcomes;
                    (1..=o.len()).filter(|&k| !o[k - 1].is_pass()).collect()
                })
                .collect();
            out.push(Admitted {
                task: t,
                kept,
                kept_failing,
            });
        }
        task_drops
            .sort_by(|a, b| (a.line, &a.operator, &a.after).cmp(&(b.line, &b.operator, &b.after)));
        log.dropped.extend(task_drops);
    }
    out
}

/// Gate 4's step before execution: every mutant whose compiled code settles it
/// ([`equivalence`](crate::equivalence)) is recorded in `drops` (per task) as `equivalent`,
/// `duplicate_mutant` (its `detail` names the representative, executed in its place) or
/// `does_not_compile`, and is not executed; the mutants to execute are returned. For the
/// paper's families selection is unchanged by this: such a mutant would pass every test,
/// behave exactly as an earlier candidate, or only crash, and none of the three can be chosen.
/// A group of duplicates is represented by a paper-family mutant when it has one, so the
/// catalogue's families never displace one of the paper's.
fn settle_before_execution(
    tasks: &[Task],
    all: Vec<Vec<Mutant>>,
    drops: &mut [Vec<Dropped>],
    log: &mut GateLog,
) -> Vec<Vec<Mutant>> {
    use crate::equivalence::{settle_all, Settled};
    let groups: Vec<crate::equivalence::Group> = tasks
        .iter()
        .zip(&all)
        // CPython's compiler settles Python mutants only; another language's are all executed
        // (one that does not compile is the oracle's `ERROR:CompileError`, an only-crash drop).
        .map(|(t, ms)| {
            let ms: &[Mutant] = if t.language.is_python() { ms } else { &[] };
            crate::equivalence::group(&t.canonical, ms)
        })
        .collect();
    let (settled, checked) = settle_all(&groups);
    log.equivalence = checked;
    let mut out = Vec::with_capacity(all.len());
    for (((t, ms), st), drops) in tasks.iter().zip(&all).zip(settled).zip(drops) {
        if !t.language.is_python() {
            out.push(ms.clone());
            continue;
        }
        let mut run = Vec::new();
        for (m, s) in ms.iter().zip(st) {
            let (reason, detail) = match s {
                Settled::Execute => {
                    run.push(m.clone());
                    continue;
                }
                Settled::Equivalent => ("equivalent", "compiles to the canonical's code".into()),
                Settled::DuplicateOf(j) => (
                    "duplicate_mutant",
                    format!("{}@{}", ms[j].operator, ms[j].line),
                ),
                Settled::DoesNotCompile(e) => ("does_not_compile", e),
            };
            drops.push(dropped_row(&t.task_id, m, reason, Some(detail), Vec::new()));
        }
        out.push(run);
    }
    out
}

/// One cross-query execution of gate 5.
#[derive(Clone, Debug, Serialize)]
pub struct Collision {
    /// Task whose snippet defines the other task's function.
    pub task_id: String,
    /// "canonical" or the distractor's `operator@line`.
    pub snippet: String,
    pub other_task_id: String,
    pub function_name: String,
    pub outcomes: Vec<String>,
    pub passes_all_tests: bool,
}

/// Gate 5: every snippet (canonical or kept distractor) that defines at top level the function of
/// ANOTHER admitted task is executed against that task's tests; one that passes them all refuses
/// its own task — or, when the two tasks share the function name (the benchmark rule), the later
/// of the two.
pub fn integrity_gate(
    runner: &mut Runner,
    admitted: Vec<Admitted>,
    log: &mut GateLog,
) -> Vec<Admitted> {
    // Every task of each function name (the benchmark rule lets tasks share one).
    let mut owners: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, a) in admitted.iter().enumerate() {
        owners
            .entry(a.task.function_name.as_str())
            .or_default()
            .push(i);
    }
    // (task index, snippet label, other task index, code)
    let mut probes: Vec<(usize, String, usize, String)> = Vec::new();
    for (i, a) in admitted.iter().enumerate() {
        let snippets = std::iter::once(("canonical".to_string(), &a.task.canonical)).chain(
            a.kept
                .iter()
                .map(|m| (format!("{}@{}", m.operator, m.line), &m.code)),
        );
        for (label, code) in snippets {
            for name in mutate::function_names(a.task.language, code) {
                for &j in owners.get(name.as_str()).into_iter().flatten() {
                    if j != i && !probes.iter().any(|p| p.0 == i && p.2 == j && &p.3 == code) {
                        probes.push((i, label.clone(), j, code.clone()));
                    }
                }
            }
        }
    }
    let jobs: Vec<Job> = probes
        .iter()
        .map(|(_, _, j, code)| admitted[*j].task.job(code))
        .collect();
    let results = runner.run("cross-query names", &jobs);
    let mut bad: HashMap<usize, String> = HashMap::new();
    for ((i, label, j, _), r) in probes.into_iter().zip(results) {
        let (outcomes, passes) = match &r {
            Ok(r) => (outcomes_of(r), r.passes_all()),
            Err(e) => (vec![format!("oracle error: {e}")], false),
        };
        let other = &admitted[j].task;
        if passes {
            // Two tasks of one name (the benchmark rule) where a snippet of one solves the
            // other are one function asked twice: the later task is refused, the earlier kept
            // (MBPP's /49 and /154 are both `specified_element`). Otherwise the snippet's own
            // task is refused, as under the paper's rules.
            let this = &admitted[i].task;
            let refused = if this.function_name == other.function_name && this.line < other.line {
                j
            } else {
                i
            };
            let why = if refused == i {
                format!(
                    "{label} defines `{}`, the function of task `{}` (line {}), and passes all \
                     of its tests",
                    other.function_name, other.task_id, other.line
                )
            } else {
                format!(
                    "the {label} of the earlier task `{}` (line {}) of the same function name \
                     `{}` passes all of this task's tests: the same function asked twice",
                    this.task_id, this.line, this.function_name
                )
            };
            bad.entry(refused).or_insert(why);
        }
        log.collisions.push(Collision {
            task_id: admitted[i].task.task_id.clone(),
            snippet: label,
            other_task_id: other.task_id.clone(),
            function_name: other.function_name.clone(),
            outcomes,
            passes_all_tests: passes,
        });
    }
    admitted
        .into_iter()
        .enumerate()
        .filter_map(|(i, a)| match bad.remove(&i) {
            Some(reason) => {
                log.refusals.push(Refusal {
                    line: a.task.line,
                    task_id: a.task.task_id.clone(),
                    gate: Gate::CorpusIntegrity,
                    reason,
                });
                for m in &a.kept {
                    let row = dropped_row(&a.task.task_id, m, "task_refused", None, Vec::new());
                    log.dropped.push(row);
                }
                None
            }
            None => Some(a),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_is_seeded_and_spread() {
        assert_eq!(rotation(7, "a"), rotation(7, "a"));
        let mut seen = [0usize; 6];
        for i in 0..600 {
            seen[rotation(20260510, &format!("task_{i}"))] += 1;
        }
        // 100 expected per start; a fair hash stays well inside 60..140.
        assert!(seen.iter().all(|&n| (60..140).contains(&n)), "{seen:?}");
        let differs = (0..20).any(|s| rotation(s, "a") != rotation(0, "a"));
        assert!(differs);
    }

    #[test]
    fn canonical_cost_margin() {
        let b = std::time::Duration::from_secs(2);
        assert_eq!(too_slow(&[], b, COST_MARGIN), None);
        assert_eq!(
            too_slow(&[3, 200, 12], b, COST_MARGIN),
            None,
            "200 ms x 10 = the budget: fits"
        );
        let r = too_slow(&[3, 201, 12], b, COST_MARGIN).expect("201 ms x 10 > 2000 ms");
        assert!(r.contains("test 2 took 201 ms"), "{r}");
        // The benchmark rule's margin of 2: 1,000 ms fits, 1,001 ms does not.
        assert_eq!(too_slow(&[716, 1000], b, 2), None);
        let r = too_slow(&[1001, 5], b, 2).expect("1001 ms x 2 > 2000 ms");
        assert!(r.contains("test 1 took 1001 ms, more than 1/2"), "{r}");
    }
}
