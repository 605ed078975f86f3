//! HumanEval-X as published (`../shared/data/sources/humaneval-x`, skipped by name when absent):
//! each language's file read into tasks of its language, with HumanEval's Python `check` as the
//! tests; the Python tests found beside the file or named; and `execscope build` on a 3-task
//! slice keeping its tasks.

use crate::common;
use execscope::build::formats::{self, humanevalx, Format};
use execscope::record::Language;
use std::path::Path;

const DIR: &str = "sources/humaneval-x";
const QUERY_0: &str = "Check if in given list of numbers, are any two numbers closer to each \
                       other than given threshold.";

/// (file, language, task 0's function, task 32's function), read off each file's declarations.
const FILES: [(&str, Language, &str, &str); 5] = [
    (
        "humaneval_cpp.jsonl.gz",
        Language::Cpp,
        "has_close_elements",
        "find_zero",
    ),
    (
        "humaneval_go.jsonl.gz",
        Language::Go,
        "HasCloseElements",
        "FindZero",
    ),
    (
        "humaneval_java.jsonl.gz",
        Language::Java,
        "hasCloseElements",
        "findZero",
    ),
    (
        "humaneval_js.jsonl.gz",
        Language::JavaScript,
        "hasCloseElements",
        "findZero",
    ),
    (
        "humaneval_rust.jsonl.gz",
        Language::Rust,
        "has_close_elements",
        "find_zero",
    ),
];

fn read(path: &Path, python: Option<&Path>) -> (Vec<formats::Problem>, Vec<formats::Unread>) {
    let recs = formats::read_records(path, None).unwrap();
    assert_eq!(recs.format, Format::HumanEvalX, "{}", path.display());
    humanevalx::problems(&recs, path, python).unwrap()
}

#[test]
fn humanevalx_files_read_as_tasks_of_their_language_with_humaneval_checks() {
    let test = "formats_x::humanevalx_files_read_as_tasks_of_their_language_with_humaneval_checks";
    for (file, lang, entry0, entry32) in FILES {
        let Some(path) = common::shared::require_data(test, &format!("{DIR}/{file}")) else {
            return;
        };
        let (ps, unread) = read(&path, None);
        // Rust/91 and /162 use the crates regex and md5 (Cargo's, not rustc's); Rust/160's
        // `operand` is no use of `rand`.
        let unread_ids: Vec<&str> = unread.iter().map(|u| u.task_id.as_str()).collect();
        if lang == Language::Rust {
            assert_eq!(unread_ids, ["Rust/91", "Rust/162"], "{unread:?}");
            assert!(unread[0].reason.contains("the crate `regex`"), "{unread:?}");
        } else {
            assert!(unread.is_empty(), "{file}: {unread:?}");
        }
        assert_eq!(ps.len() + unread.len(), 164, "{file}");
        assert!(ps.iter().all(|p| p.language == lang), "{file}");
        let p0 = &ps[0];
        assert_eq!(p0.entry, entry0, "{file}");
        assert_eq!(p0.query, QUERY_0, "{file}");
        // HumanEval/0's check: seven asserts, seven tests, each ending with the judge's call of
        // the other language's function (HumanEval-X's own trailing `check(...)` left out).
        assert_eq!(p0.base.len(), 7, "{file}");
        for t in &p0.base {
            assert!(
                t.ends_with(&format!("\n\ncheck({entry0})\n")),
                "{file}: {t}"
            );
            assert_eq!(t.matches("check(").count(), 2, "{file}: {t}");
        }
        let p32 = ps.iter().find(|p| p.task_id.ends_with("/32")).unwrap();
        assert_eq!(p32.entry, entry32, "{file}");
        // HumanEval/32's test calls Python's `poly`: the trusted setup defines it.
        assert!(
            p32.base[0].contains("def poly(xs: list, x: float):"),
            "{file}"
        );
        // HumanEval/20 answers with a tuple: judged through the tuple bridge.
        let p20 = ps.iter().find(|p| p.task_id.ends_with("/20")).unwrap();
        let call = format!("check({}({}))", humanevalx::TUPLE_BRIDGE, p20.entry);
        assert!(p20.base.iter().all(|t| t.contains(&call)), "{file}");
        assert!(p20.base[0].contains(humanevalx::TUPLE_BRIDGE_DEF), "{file}");
        match lang {
            // declaration + solution: the headers and `class Solution` are there.
            Language::Cpp => assert!(p0.canonical.starts_with("#include<stdio.h>\n")),
            Language::Java => assert!(p0.canonical.contains("class Solution {")),
            // Go/17 uses `strings` without importing it: the harness's import is added.
            Language::Go => {
                let p17 = ps.iter().find(|p| p.task_id == "Go/17").unwrap();
                assert!(p17.canonical.starts_with("import \"strings\"\n"));
            }
            Language::Rust => assert!(!p0.canonical.contains("use rand::Rng;")),
            _ => {}
        }
    }
}

#[test]
fn humanevalx_python_tests_come_from_beside_the_file_or_are_named() {
    let test = "formats_x::humanevalx_python_tests_come_from_beside_the_file_or_are_named";
    let Some(cpp) = common::shared::require_data(test, &format!("{DIR}/humaneval_cpp.jsonl.gz"))
    else {
        return;
    };
    let Some(he) = common::shared::require_data(test, "sources/HumanEval.jsonl.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("humaneval_cpp.jsonl.gz");
    std::fs::copy(&cpp, &alone).unwrap();
    let recs = formats::read_records(&alone, None).unwrap();
    let err = humanevalx::problems(&recs, &alone, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("humaneval_python.jsonl.gz") && err.contains("--python-tests"),
        "{err}"
    );
    // OpenAI's HumanEval.jsonl.gz named instead: its `check(candidate)`, the same 7 asserts.
    let (ps, unread) = read(&alone, Some(&he));
    assert!(unread.is_empty(), "{unread:?}");
    assert_eq!(ps.len(), 164);
    assert_eq!(ps[0].base.len(), 7);
    assert!(ps[0].base[0].contains("def check(candidate):"));
    assert!(ps[0].base[0].ends_with("\n\ncheck(has_close_elements)\n"));
    // HumanEval-X's Python file is read as Python tasks, its tests its own.
    let py = cpp.with_file_name(humanevalx::PYTHON_FILE);
    let (ps, unread) = read(&py, None);
    assert!(unread.is_empty(), "{unread:?}");
    assert_eq!(ps.len(), 164);
    assert_eq!(ps[0].language, Language::Python);
    assert!(ps[0].canonical.starts_with("from typing import List\n"));
}

/// `execscope build` on HumanEval-X's first 3 JavaScript tasks: every one kept, every query and
/// snippet recorded as JavaScript; the bundle ships its execution cache (rows keyed by the suite,
/// as a Python bundle's) and `exec verify` re-executes every row with no disagreement.
#[test]
fn build_of_a_humanevalx_slice_keeps_its_tasks() {
    let test = "formats_x::build_of_a_humanevalx_slice_keeps_its_tasks";
    let Some(js) = common::shared::require_data(test, &format!("{DIR}/humaneval_js.jsonl.gz"))
    else {
        return;
    };
    if let Some(why) = common::oracle::oracle().language_unavailable(Language::JavaScript) {
        common::shared::skip(test, &why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let text = formats::file_text(&js).unwrap();
    let slice: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
    let tasks = dir.path().join("humaneval_js_3.jsonl");
    std::fs::write(&tasks, slice).unwrap();
    let out = dir.path().join("bundle");
    let run = common::execscope()
        .arg("build")
        .arg(&tasks)
        .arg("--python-tests")
        .arg(js.with_file_name(humanevalx::PYTHON_FILE))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    common::assert_ok(&run);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("build_report.json")).unwrap()).unwrap();
    assert_eq!(report["format"], "humaneval-x");
    assert_eq!(report["tasks_read"], 3);
    assert_eq!(report["tasks_kept"], 3, "{:#}", report["refusals"]);
    // The runner string names the language's toolchain and build budget, not Python's alone.
    let runner = report["runner"].as_str().unwrap();
    assert!(runner.contains("; javascript: "), "{runner}");
    for file in ["queries.jsonl", "corpus.jsonl"] {
        let rows = std::fs::read_to_string(out.join("data").join(file)).unwrap();
        assert!(rows.lines().count() >= 3, "{file}");
        for row in rows.lines() {
            let v: serde_json::Value = serde_json::from_str(row).unwrap();
            assert_eq!(v["language"], "javascript", "{file}: {row}");
        }
    }
    let rows = std::fs::read_to_string(out.join("data/execution_cache.jsonl")).unwrap();
    let n = rows.lines().count();
    assert!(
        n >= 6,
        "a canonical and a distractor per task at least: {n} rows"
    );
    let run = common::execscope()
        .args(["exec", "verify"])
        .arg(&out)
        .output()
        .unwrap();
    common::assert_ok(&run);
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        said.contains(&format!("{n} cache rows; {n} re-executed, 0 disagree")),
        "{said}"
    );
}
