//! The files of a generated-pool audit as read: the task file (`TaskSpec`) and the pool
//! (`PoolRow`, with the rows refused by line and reason), each error naming its file and line.

use super::AuditError;
use execscope_record::Language;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// One task of the task file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskSpec {
    pub task_id: String,
    pub function_name: String,
    pub base: Vec<String>,
    pub plus: Vec<String>,
    /// Source prepended to every candidate of the task before it runs ("" for none).
    pub prelude: String,
    /// Per test (base, then plus), the reference solution's time on its input in ms, for
    /// EvalPlus's time convention ([`super::TimeConvention`]); empty when the task file has
    /// none (every format but EvalPlus's).
    pub reference_ms: Vec<u32>,
    /// The candidates' language (Python unless the task file says otherwise): their jobs run
    /// in it, the tests stay Python the judge runs (docs/languages.md).
    pub language: Language,
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
    #[serde(default)]
    language: Option<String>,
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
        let language = match r.language.as_deref() {
            None => Language::Python,
            Some(name) => Language::from_name(name).ok_or_else(|| {
                let msg = format!(
                    "task {}: unknown language {:?} (expected one of python, cpp, go, java, \
                     javascript, rust, typescript)",
                    r.task_id,
                    safe(name)
                );
                AuditError::input(at(), msg)
            })?,
        };
        out.push(TaskSpec {
            task_id: safe(&r.task_id),
            function_name: r.function_name,
            base,
            plus: r.plus_tests.unwrap_or_default(),
            prelude: r.prelude.unwrap_or_default(),
            reference_ms: Vec::new(),
            language,
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
