//! Benchmark files as `audit --pool … --tasks FILE` reads them: any format, as task specs
//! (the function under test, the base and plus suites, the prompt a completion is joined to).
//!
//! An audit is strict where a build is forgiving: a record that cannot be read is an error
//! naming the file and line, since every pool row must find its task. Inputs a reader left out
//! (EvalPlus outputs too large to judge) are named in the audit's provenance.

use super::{evalplus, humanevalx, mbxp, problems, read_records, Format, Problem, Unread};
use execscope_core::audit::generated::{self, TaskSpec};
use execscope_core::audit::AuditError;
use std::path::Path;

/// The task specs of a task file, with what the reader left out.
#[derive(Clone, Debug)]
pub struct AuditTasks {
    pub format: Format,
    pub specs: Vec<TaskSpec>,
    /// Records that could not be read (an error unless the run is waiting on other shards).
    pub unread: Vec<Unread>,
    /// `task: what was left out`, for the provenance.
    pub notes: Vec<String>,
}

impl AuditTasks {
    /// The specs, or the first unread record as an error naming `path` and its line.
    pub fn into_specs(self, path: &Path) -> Result<(Vec<TaskSpec>, Vec<String>), AuditError> {
        if let Some(u) = self.unread.first() {
            let id = if u.task_id.is_empty() {
                String::new()
            } else {
                format!("task {}: ", u.task_id)
            };
            return Err(AuditError::Input {
                at: format!("{}:{}", path.display(), u.line),
                msg: format!(
                    "{id}{} ({} record(s) unreadable)",
                    u.reason,
                    self.unread.len()
                ),
            });
        }
        let mut notes = self.notes;
        if self.format != Format::Execscope {
            notes.insert(
                0,
                format!("tasks read as {} ({} tasks)", self.format, self.specs.len()),
            );
        }
        Ok((self.specs, notes))
    }
}

/// A problem as an audit task: the base and plus suites apart, the prompt as the prelude a
/// completion is joined to.
pub fn spec_of(p: &Problem) -> TaskSpec {
    TaskSpec {
        task_id: p.task_id.clone(),
        function_name: p.entry.clone(),
        base: p.base.clone(),
        plus: p.plus.clone(),
        prelude: p.prompt.clone(),
        reference_ms: p.reference_ms.clone(),
        language: p.language,
    }
}

/// Reads the task file at `path` (format `from`, else found from its content); EvalPlus
/// reference outputs run through `run`.
pub fn read_audit_tasks(
    path: &Path,
    from: Option<Format>,
    run: &mut evalplus::RunPhase<'_>,
) -> Result<AuditTasks, AuditError> {
    let records = read_records(path, from)?;
    let (ps, unread) = match records.format {
        Format::Execscope => {
            return Ok(AuditTasks {
                format: Format::Execscope,
                specs: generated::read_tasks(path)?,
                unread: Vec::new(),
                notes: Vec::new(),
            })
        }
        Format::EvalPlus => evalplus::read(&records, run),
        Format::HumanEval | Format::Mbpp => problems(&records),
        // Each task in its language (the `task_id`'s prefix): its candidates run in it, its
        // tests are HumanEval's Python `check` the judge runs (docs/formats.md, "HumanEval-X").
        Format::HumanEvalX => humanevalx::problems(&records, path, None)?,
        // Likewise, each MBXP task in its language, its tests MBPP's Python `check`; a
        // completion continues the record's `prompt`, as mxeval joins them (docs/formats.md,
        // "Pools in other languages").
        Format::Mbxp => mbxp::problems(&records, path, None)?,
    };
    let notes = ps
        .iter()
        .flat_map(|p| p.notes.iter().map(move |n| format!("{}: {n}", p.task_id)))
        .collect();
    let mut seen = std::collections::HashMap::new();
    let mut unread = unread;
    let mut specs = Vec::new();
    for p in &ps {
        if p.base.is_empty() {
            unread.push(Unread {
                line: p.line,
                task_id: p.task_id.clone(),
                reason: "its base suite is empty".into(),
            });
        } else if let Some(first) = seen.insert(p.task_id.clone(), p.line) {
            unread.push(Unread {
                line: p.line,
                task_id: p.task_id.clone(),
                reason: format!("duplicate task_id (first on line {first})"),
            });
        } else {
            specs.push(spec_of(p));
        }
    }
    unread.sort_by_key(|u| u.line);
    if specs.is_empty() && unread.is_empty() {
        return Err(AuditError::Input {
            at: path.display().to_string(),
            msg: "the task file holds no tasks; an audit needs the tasks its pool answers".into(),
        });
    }
    Ok(AuditTasks {
        format: records.format,
        specs,
        unread,
        notes,
    })
}

/// What an audit of a generated pool reads: the tasks and the pool's candidates.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub specs: Vec<TaskSpec>,
    pub rows: Vec<execscope_core::audit::generated::PoolRow>,
    /// Pool rows left out (unreadable, a repeated sample index), each with its line and why.
    pub rejected: Vec<execscope_core::audit::generated::RejectedRow>,
    /// The task file's format as read.
    pub task_format: Format,
    /// How the inputs were read (formats, what a reader left out), for the provenance.
    pub provenance: Vec<String>,
}

impl Inputs {
    /// `pools` (built from these inputs' rows) with what reading them found: the rows left out,
    /// the task file's format and the provenance.
    pub fn complete(&self, pools: &mut execscope_core::audit::PoolSet) {
        pools.rejected.extend(self.rejected.iter().cloned());
        pools.rejected.sort_by_key(|r| r.line);
        pools.task_format = self.task_format.to_string();
        pools.provenance.extend(self.provenance.iter().cloned());
    }
}

/// Reads the task file and the pool of `audit --pool POOL --tasks TASKS`, each in its format
/// (named, else found from the content); EvalPlus reference outputs run through `run`.
pub fn read_inputs(
    tasks: &Path,
    from: Option<Format>,
    pool: &Path,
    pool_from: Option<super::pools::PoolFormat>,
    run: &mut evalplus::RunPhase<'_>,
) -> Result<Inputs, AuditError> {
    let read = read_audit_tasks(tasks, from, run)?;
    let task_format = read.format;
    let (specs, mut provenance) = read.into_specs(tasks)?;
    let (pool_rows, format) = super::pools::read_pool(pool, &specs, pool_from)?;
    if format != super::pools::PoolFormat::Execscope {
        provenance.push(format!(
            "pool read as {format} ({} candidates, none with self-tests: S, E and E* hold for none)",
            pool_rows.rows.len()
        ));
    }
    let sanitized = pool_rows.rows.iter().filter(|r| r.sanitized).count();
    if sanitized > 0 {
        provenance.push(format!(
            "{sanitized} candidate(s) wrapped in Markdown code fences: the code inside the fence was \
             audited, as evalplus.sanitize takes it"
        ));
    }
    Ok(Inputs {
        specs,
        rows: pool_rows.rows,
        rejected: pool_rows.rejected,
        task_format,
        provenance,
    })
}
