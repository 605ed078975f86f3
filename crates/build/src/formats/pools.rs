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

use super::pyjson::{self, J};
use crate::ast;
use execscope_core::audit::generated::{self, PoolRow, TaskSpec};
use execscope_core::audit::AuditError;
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

/// A pool row of a harness's generation for `spec` (or for the unmatched id `raw`, which the
/// audit then reports as not in the task file).
fn row(
    line: usize,
    spec: Option<&TaskSpec>,
    raw: &str,
    index: i64,
    code: String,
    joined: Option<bool>,
) -> PoolRow {
    let whole = joined.unwrap_or_else(|| {
        spec.is_some_and(|s| ast::top_level_defs(&code).contains(&s.function_name))
    });
    PoolRow {
        line,
        task_id: spec.map_or_else(|| raw.to_string(), |s| s.task_id.clone()),
        sample_index: index,
        code,
        self_tests: String::new(),
        cohort: "all".into(),
        whole,
    }
}

/// The string leaves of a value, in order (lm-evaluation-harness nests its responses).
fn strings(v: &J, out: &mut Vec<String>) {
    match v {
        J::Str(s) => out.push(pyjson::text_of(s)),
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

/// The pool's format from its first record.
fn detect(items: &[super::Item], array: bool) -> PoolFormat {
    if array {
        return PoolFormat::Bigcode;
    }
    let first = items.iter().find_map(|(_, r)| r.as_ref().ok());
    let has = |k: &str| first.is_some_and(|r| r.get(k).is_some());
    if has("doc") && (has("resps") || has("filtered_resps")) {
        PoolFormat::LmEval
    } else if !has("self_tests") && (has("completion") || has("solution")) {
        PoolFormat::Samples
    } else {
        PoolFormat::Execscope
    }
}

/// Reads the pool at `path` for the tasks `specs` (format `from`, else found from its content).
pub fn read_pool(
    path: &Path,
    specs: &[TaskSpec],
    from: Option<PoolFormat>,
) -> Result<(Vec<PoolRow>, PoolFormat), AuditError> {
    let text = super::file_text(path)?;
    let array = text.trim_start().starts_with('[');
    let items = super::parse_records(path, &text)?;
    let format = from.unwrap_or_else(|| detect(&items, array));
    let ids = Ids::new(specs);
    let rows = match format {
        PoolFormat::Execscope => generated::parse_pool(path, &text)?,
        PoolFormat::Samples => samples(path, &items, &ids)?,
        PoolFormat::Bigcode => bigcode(path, &items, &ids)?,
        PoolFormat::LmEval => lm_eval(path, &items, &ids)?,
    };
    if rows.is_empty() {
        return Err(AuditError::Input {
            at: path.display().to_string(),
            msg: "the pool holds no candidates; nothing to audit".into(),
        });
    }
    Ok((rows, format))
}

fn record<'r>(path: &Path, line: usize, r: &'r Result<J, String>) -> Result<&'r J, AuditError> {
    r.as_ref().map_err(|e| input(path, line, e.clone()))
}

fn samples(path: &Path, items: &[super::Item], ids: &Ids<'_>) -> Result<Vec<PoolRow>, AuditError> {
    let mut next: HashMap<String, i64> = HashMap::new();
    let mut out = Vec::new();
    for (line, r) in items {
        let r = record(path, *line, r)?;
        let raw =
            super::task_id(r).ok_or_else(|| input(path, *line, "a sample needs a `task_id`"))?;
        let (code, joined) = match (r.get("solution"), r.get("completion")) {
            (Some(J::Str(s)), _) => (pyjson::text_of(s), true),
            (_, Some(J::Str(c))) => (pyjson::text_of(c), false),
            _ => {
                return Err(input(
                    path,
                    *line,
                    "a sample needs a string `completion` (joined to the prompt) or `solution` (the whole program)",
                ))
            }
        };
        let spec = ids.find(&raw);
        let key = spec.map_or_else(|| raw.clone(), |s| s.task_id.clone());
        let n = next.entry(key).or_insert(0);
        out.push(row(*line, spec, &raw, *n, code, Some(joined)));
        *n += 1;
    }
    Ok(out)
}

fn bigcode(path: &Path, items: &[super::Item], ids: &Ids<'_>) -> Result<Vec<PoolRow>, AuditError> {
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
    let mut out = Vec::new();
    for (i, (line, r)) in items.iter().enumerate() {
        let (spec, raw) = if mbpp_test_split {
            let raw = format!("Mbpp/{}", i + 11);
            (ids.find(&raw), raw)
        } else {
            (Some(&specs[i]), specs[i].task_id.clone())
        };
        let J::Arr(gens) = record(path, *line, r)? else {
            return Err(input(
                path,
                *line,
                "each task's entry must be a list of generations",
            ));
        };
        for (k, g) in gens.iter().enumerate() {
            let code = g.as_text().ok_or_else(|| {
                input(path, *line, format!("generation {} is not a string", k + 1))
            })?;
            out.push(row(*line, spec, &raw, k as i64, code, None));
        }
    }
    Ok(out)
}

fn lm_eval(path: &Path, items: &[super::Item], ids: &Ids<'_>) -> Result<Vec<PoolRow>, AuditError> {
    let mut next: HashMap<String, i64> = HashMap::new();
    let mut out = Vec::new();
    for (line, r) in items {
        let r = record(path, *line, r)?;
        let doc = r
            .get("doc")
            .ok_or_else(|| input(path, *line, "a logged sample needs its `doc`"))?;
        let (spec, raw) = match super::task_id(doc) {
            Some(raw) => (ids.find(&raw), raw),
            None => {
                let pos = match r.get("doc_id") {
                    Some(J::Num(n)) => n.parse::<usize>().ok(),
                    _ => None,
                }
                .ok_or_else(|| {
                    input(
                        path,
                        *line,
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
            return Err(input(
                path,
                *line,
                "no generated code in `filtered_resps` or `resps`",
            ));
        }
        let key = spec.map_or_else(|| raw.clone(), |s| s.task_id.clone());
        let n = next.entry(key).or_insert(0);
        for code in gens {
            out.push(row(*line, spec, &raw, *n, code, None));
            *n += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str, f: &str) -> TaskSpec {
        TaskSpec {
            task_id: id.into(),
            function_name: f.into(),
            base: vec![format!("assert {f}(1) == 1")],
            plus: Vec::new(),
            prelude: format!("def {f}(x):\n"),
        }
    }

    /// Each row as (task, sample index, whole program).
    fn shape(rows: &[PoolRow]) -> Vec<(&str, i64, bool)> {
        rows.iter()
            .map(|r| (r.task_id.as_str(), r.sample_index, r.whole))
            .collect()
    }

    fn read(text: &str, specs: &[TaskSpec]) -> Result<(Vec<PoolRow>, PoolFormat), AuditError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pool");
        std::fs::write(&p, text).unwrap();
        read_pool(&p, specs, None)
    }

    #[test]
    fn samples_join_completions_and_keep_solutions_whole() {
        let specs = [spec("HumanEval/0", "f"), spec("Mbpp/2", "g")];
        let (rows, f) = read(
            "{\"task_id\": \"HumanEval/0\", \"completion\": \"    return x\\n\"}\n\
             {\"task_id\": \"HumanEval/0\", \"solution\": \"def f(x):\\n    return 1\\n\"}\n\
             {\"task_id\": 2, \"completion\": \"def g(x): return x\"}\n",
            &specs,
        )
        .unwrap();
        assert_eq!(f, PoolFormat::Samples);
        let got = shape(&rows);
        assert_eq!(
            got,
            vec![
                ("HumanEval/0", 0, false),
                ("HumanEval/0", 1, true),
                ("Mbpp/2", 0, false)
            ]
        );
        assert_eq!(rows[0].program(&specs[0]), "def f(x):\n    return x\n");
        assert_eq!(rows[1].program(&specs[0]), "def f(x):\n    return 1\n");
    }

    #[test]
    fn bigcode_lists_follow_the_task_order() {
        let specs = [spec("HumanEval/0", "f"), spec("HumanEval/1", "h")];
        let (rows, f) = read(
            "[[\"def f(x):\\n    return x\\n\", \"    return 2\\n\"], [\"def h(x): return 0\"]]",
            &specs,
        )
        .unwrap();
        assert_eq!(f, PoolFormat::Bigcode);
        let got = shape(&rows);
        assert_eq!(
            got,
            vec![
                ("HumanEval/0", 0, true),
                ("HumanEval/0", 1, false),
                ("HumanEval/1", 0, true)
            ]
        );
        let e = read("[[\"x\"]]", &specs).unwrap_err().to_string();
        assert!(e.contains("1 lists of generations for 2 tasks"), "{e}");
    }

    #[test]
    fn bigcode_mbpp_test_split_is_tasks_11_to_510() {
        let specs: Vec<TaskSpec> = (1..=974)
            .map(|n| spec(&format!("Mbpp/{n}"), &format!("f{n}")))
            .collect();
        let text = format!("[{}]", vec!["[\"def f11(x): return x\"]"; 500].join(", "));
        let (rows, _) = read(&text, &specs).unwrap();
        assert_eq!(rows.len(), 500);
        assert_eq!(rows[0].task_id, "Mbpp/11");
        assert!(rows[0].whole);
        assert_eq!(rows[499].task_id, "Mbpp/510");
        assert!(
            !rows[499].whole,
            "f11 is not task 510's function: joined to its prompt"
        );
    }

    #[test]
    fn lm_eval_logs_take_filtered_responses_else_raw() {
        let specs = [spec("HumanEval/0", "f"), spec("HumanEval/1", "h")];
        let (rows, f) = read(
            "{\"doc_id\": 0, \"doc\": {\"task_id\": \"HumanEval/0\"}, \"resps\": [[\"    return 9\"]], \"filtered_resps\": [[\"def f(x):\\n    return x\", \"def f(x):\\n    return 0\"]]}\n\
             {\"doc_id\": 1, \"doc\": {\"prompt\": \"p\"}, \"resps\": [\"    return 1\"]}\n",
            &specs,
        )
        .unwrap();
        assert_eq!(f, PoolFormat::LmEval);
        let got = shape(&rows);
        assert_eq!(
            got,
            vec![
                ("HumanEval/0", 0, true),
                ("HumanEval/0", 1, true),
                ("HumanEval/1", 0, false)
            ]
        );
    }

    #[test]
    fn ids_match_exactly_else_by_an_unambiguous_number() {
        let specs = [
            spec("Mbpp/2", "g"),
            spec("HumanEval/2", "h"),
            spec("Mbpp/3", "k"),
        ];
        let ids = Ids::new(&specs);
        assert_eq!(ids.find("Mbpp/2").unwrap().function_name, "g");
        assert_eq!(ids.find("3").unwrap().function_name, "k");
        assert!(ids.find("2").is_none(), "two tasks end in 2");
        assert!(ids.find("Mbpp/9").is_none());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("samples.jsonl");
        std::fs::write(&p, "{\"task_id\": \"HumanEval/0\"}\n").unwrap();
        let e = read_pool(&p, &specs, Some(PoolFormat::Samples))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with(":1: a sample needs a string `completion` (joined to the prompt) or `solution` (the whole program)"), "{e}");
    }
}
