//! Benchmark files as `audit --pool … --tasks FILE` reads them: any format, as task specs
//! (the function under test, the base and plus suites, the prompt a completion is joined to).
//!
//! A record that cannot be read leaves out its task alone: it is named in the audit's
//! provenance with its line and why, and each pool row for it is left out with that reason (an
//! error only when no record can be read). Inputs a reader left out (EvalPlus outputs too large
//! to judge) are named in the provenance too.

use super::{evalplus, humanevalx, mbxp, problems, read_records, Format, Problem, Unread};
use execscope_core::audit::generated::{self, TaskSpec};
use execscope_core::audit::AuditError;
use std::path::Path;

/// The task specs of a task file, with what the reader left out.
#[derive(Clone, Debug)]
pub struct AuditTasks {
    pub format: Format,
    pub specs: Vec<TaskSpec>,
    /// Records that could not be read: their tasks are left out of the audit, with their pool
    /// rows ([`AuditTasks::into_specs`]).
    pub unread: Vec<Unread>,
    /// `task: what was left out`, for the provenance.
    pub notes: Vec<String>,
}

/// The specs a task file gives, the provenance, and the records left out.
pub type ReadSpecs = (Vec<TaskSpec>, Vec<String>, Vec<Unread>);

impl AuditTasks {
    /// The specs, the provenance and the records left out. A record that cannot be read leaves
    /// out its task alone (named in the provenance with its line and why; the pool's rows for it
    /// are left out with that reason by [`read_inputs`]); an error naming `path` and the first
    /// such line only when no task can be read at all.
    pub fn into_specs(self, path: &Path) -> Result<ReadSpecs, AuditError> {
        if let (true, Some(u)) = (self.specs.is_empty(), self.unread.first()) {
            let id = if u.task_id.is_empty() {
                String::new()
            } else {
                format!("task {}: ", u.task_id)
            };
            return Err(AuditError::Input {
                at: format!("{}:{}", path.display(), u.line),
                msg: format!(
                    "{id}{} ({} record(s) unreadable, none readable)",
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
        for u in &self.unread {
            let id = if u.task_id.is_empty() {
                String::new()
            } else {
                format!("task {} ", u.task_id)
            };
            notes.push(format!(
                "{id}left out ({}:{}): {}",
                path.display(),
                u.line,
                u.reason
            ));
        }
        Ok((self.specs, notes, self.unread))
    }
}

/// The unreadable task record a pool's id names: the same id, else the same number when the id
/// names no other language (`91` or `Rust/91` for the record `Rust/91`).
fn unread_named<'a>(raw: &str, unread: &'a [Unread]) -> Option<&'a Unread> {
    let number = |id: &str| {
        let n = id.rsplit('/').next().unwrap_or("");
        (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then(|| n.to_string())
    };
    unread
        .iter()
        .find(|u| !u.task_id.is_empty() && u.task_id == raw)
        .or_else(|| {
            let n = number(raw)?;
            let lang = humanevalx::language_of(raw);
            unread.iter().find(|u| {
                number(&u.task_id).as_ref() == Some(&n)
                    && (lang.is_none() || lang == humanevalx::language_of(&u.task_id))
            })
        })
}

/// Moves the pool rows that name a task of the file that could not be read (no spec holds
/// their id) to `rejected`, each with the record's line and why.
fn reject_unread(
    path: &Path,
    specs: &[TaskSpec],
    unread: &[Unread],
    rows: &mut Vec<generated::PoolRow>,
    rejected: &mut Vec<generated::RejectedRow>,
) {
    if unread.is_empty() {
        return;
    }
    let known: std::collections::HashSet<&str> = specs.iter().map(|s| s.task_id.as_str()).collect();
    let why = |raw: &str, u: &Unread| {
        format!(
            "task {raw} could not be read from the task file ({}:{}): {}",
            path.display(),
            u.line,
            u.reason
        )
    };
    rows.retain(|r| {
        if known.contains(r.task_id.as_str()) {
            return true;
        }
        match unread_named(&r.task_id, unread) {
            Some(u) => {
                rejected.push(generated::RejectedRow {
                    line: r.line,
                    task_id: Some(r.task_id.clone()),
                    reason: why(&r.task_id, u),
                });
                false
            }
            None => true,
        }
    });
    rejected.sort_by_key(|r| r.line);
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
    let (specs, mut provenance, unread) = read.into_specs(tasks)?;
    let (mut pool_rows, format) = super::pools::read_pool(pool, &specs, pool_from)?;
    reject_unread(
        tasks,
        &specs,
        &unread,
        &mut pool_rows.rows,
        &mut pool_rows.rejected,
    );
    if pool_rows.rows.is_empty() {
        if let Some(r) = pool_rows.rejected.first() {
            return Err(AuditError::Input {
                at: format!("{}:{}", pool.display(), r.line),
                msg: format!("no pool row can be audited; the first: {}", r.reason),
            });
        }
    }
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
