//! A benchmark file as the build reads it: any format, through gate 1 (docs/formats.md).
//!
//! execscope's own task file goes through its own reader ([`crate::task`]); HumanEval and MBPP
//! records become problems directly; EvalPlus records first need their reference outputs, which
//! the build's runner computes (journaled and sharded like every other phase). Problems then pass
//! the same schema rules as task file lines ([`from_problem`]).

use super::{evalplus, humanevalx, mbxp, problems, read_records, Format, Problem, Unread};
use crate::exec::Runner;
use crate::rules::{Asked, Rules};
use crate::task::{self, Gate, Refusal, Task, TestRange};
use execscope_core::bundle::BundleError;
use serde::Serialize;
use std::path::Path;

/// What a reader left out of a kept task's suites, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    pub line: usize,
    pub task_id: String,
    pub note: String,
}

/// The tasks of a benchmark file after gate 1.
#[derive(Clone, Debug)]
pub struct Read {
    pub format: Format,
    /// The rules the build applies to this file (gate 1 applied their tests and names rules).
    pub rules: Rules,
    pub tasks: Vec<Task>,
    pub refusals: Vec<Refusal>,
    pub notes: Vec<Note>,
}

/// Unread records as gate-1 refusals.
pub fn refusals_of(unread: Vec<Unread>) -> Vec<Refusal> {
    unread
        .into_iter()
        .map(|u| Refusal {
            line: u.line,
            task_id: u.task_id,
            gate: Gate::Schema,
            reason: u.reason,
        })
        .collect()
}

/// Gate 1 on a problem a benchmark reader made: the same rules as a task file line (an
/// identifier entry point, a request, a canonical, tests within `range` that parse).
pub fn from_problem(p: &Problem, range: TestRange) -> Result<Task, (String, String)> {
    let fail = |reason: String| (p.task_id.clone(), reason);
    if p.task_id.trim().is_empty() {
        return Err(fail("`task_id` is empty".into()));
    }
    if !task::is_identifier(&p.entry) {
        return Err(fail(format!(
            "the entry point {:?} is not a Python identifier",
            p.entry
        )));
    }
    if p.query.trim().is_empty() {
        return Err(fail("the request (query) is empty".into()));
    }
    if p.canonical.trim().is_empty() {
        return Err(fail("the canonical solution is empty".into()));
    }
    let tests = p.tests();
    task::check_tests(&tests, range).map_err(fail)?;
    Ok(Task {
        line: p.line,
        task_id: p.task_id.clone(),
        function_name: p.entry.clone(),
        query: p.query.clone(),
        domain: String::new(),
        canonical: p.canonical.clone(),
        tests,
        independent: None,
        language: p.language,
    })
}

/// Gate 1 on problems: each checked by [`from_problem`] with `rules`' tests range, repeats
/// refused (a shared function name only when `rules` does not allow it).
pub fn gate_problems(ps: &[Problem], rules: &Rules) -> (Vec<Task>, Vec<Refusal>, Vec<Note>) {
    let notes = ps
        .iter()
        .flat_map(|p| {
            p.notes.iter().map(|n| Note {
                line: p.line,
                task_id: p.task_id.clone(),
                note: n.clone(),
            })
        })
        .collect();
    let range = rules.tests;
    let parsed = ps.iter().map(|p| (p.line, from_problem(p, range)));
    let (tasks, refusals) = task::admit_with(parsed, rules.shared_names);
    (tasks, refusals, notes)
}

/// Reads the benchmark file at `path` (format `from`, else found from its content) for a build,
/// under the format's rules with what was `asked` in their place ([`Rules::for_file`]).
/// `Ok(None)`: EvalPlus reference outputs are pending (another shard's pairs). A HumanEval-X
/// file's Python tests are read from `python_tests`, else beside it ([`humanevalx::python_file`]);
/// an MBXP file's likewise ([`mbxp::python_file`]).
pub fn read_for_build(
    path: &Path,
    from: Option<Format>,
    python_tests: Option<&Path>,
    asked: &Asked,
    runner: &mut Runner<'_>,
) -> Result<Option<Read>, BundleError> {
    let records = read_records(path, from)?;
    let rules = Rules::for_file(records.format.is_benchmark(), asked);
    let (ps, unread) = match records.format {
        Format::Execscope => return own(path, rules).map(Some),
        Format::EvalPlus => {
            let before = runner.pending;
            let got = evalplus::read(&records, &mut |phase, jobs| runner.run(phase, jobs));
            if runner.pending > before {
                return Ok(None);
            }
            got
        }
        Format::HumanEval | Format::Mbpp => problems(&records),
        Format::HumanEvalX => humanevalx::problems(&records, path, python_tests)?,
        Format::Mbxp => mbxp::problems(&records, path, python_tests)?,
    };
    let (tasks, mut refusals, notes) = gate_problems(&ps, &rules);
    refusals.extend(refusals_of(unread));
    refusals.sort_by_key(|r| r.line);
    Ok(Some(Read {
        format: records.format,
        rules,
        tasks,
        refusals,
        notes,
    }))
}

fn own(path: &Path, rules: Rules) -> Result<Read, BundleError> {
    let text = super::file_text(path)?;
    let (tasks, refusals) = task::read_tasks_with(&text, rules.tests);
    Ok(Read {
        format: Format::Execscope,
        rules,
        tasks,
        refusals,
        notes: Vec::new(),
    })
}
