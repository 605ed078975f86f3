//! HumanEval-X as published (`../shared/data/sources/humaneval-x`, skipped by name when absent):
//! each language's file read into tasks of its language, with HumanEval's Python `check` as the
//! tests (JavaScript and Go: their native tests translated for the judge); the Python tests found beside
//! the file or named; and `execscope build` on a 3-task slice keeping its tasks. A build of a
//! 2-task JavaScript fixture (tests/fixtures/formats/humanevalx_js) gives one task native-derived
//! tests and the other HumanEval's, with its reader note.

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
        // JavaScript's tests are its native ones translated for the judge, but for the tasks whose
        // test defines a function (/32, /38, /50, /53: random inputs): HumanEval's Python check,
        // with a note saying why; no other language has a note.
        let noted: Vec<&str> = ps
            .iter()
            .filter(|p| !p.notes.is_empty())
            .map(|p| p.task_id.as_str())
            .collect();
        if lang == Language::JavaScript {
            assert_eq!(
                noted,
                [
                    "JavaScript/32",
                    "JavaScript/38",
                    "JavaScript/50",
                    "JavaScript/53"
                ]
            );
            assert!(ps[53].notes[0].starts_with(humanevalx::PYTHON_CHECK_NOTE));
            assert!(ps[53].base[0].contains("assert add(0, 1) == 1"));
            assert!(ps
                .iter()
                .filter(|p| p.notes.is_empty())
                .all(|p| p.base.iter().all(|t| t.contains("def _js_seq(a, b):"))));
        } else if lang == Language::Go {
            // Go: its native testify asserts translated, but for the tests with a function
            // literal (/32, /38, /50 random inputs, /33, /37 a `same` helper), `rand` (/53) or a
            // rune put in an interface{} (/22).
            assert_eq!(
                noted,
                ["Go/22", "Go/32", "Go/33", "Go/37", "Go/38", "Go/50", "Go/53"]
            );
            assert!(ps[22].notes[0].contains("puts a rune in an interface{}"));
            assert!(ps[53].base[0].contains("assert add(0, 1) == 1"));
            assert!(ps.iter().filter(|p| p.notes.is_empty()).all(|p| p
                .base
                .iter()
                .all(|t| t.contains("def _go_equal(te, e, ta, a):"))));
        } else if lang == Language::Rust {
            // Rust's likewise (156 of the 162 read), but for /22 (`Box<dyn Any>` values), /32
            // (its test commented out), /38, /50, /53 (random inputs: `rand`) and /137 (an enum
            // of the program's).
            assert_eq!(
                noted,
                ["Rust/22", "Rust/32", "Rust/38", "Rust/50", "Rust/53", "Rust/137"],
                "{:?}",
                ps.iter()
                    .filter(|p| !p.notes.is_empty())
                    .map(|p| &p.notes)
                    .collect::<Vec<_>>()
            );
            // Rust/10's declaration ends with its helper's head: the signature is the solution's.
            let p10 = ps.iter().find(|p| p.task_id == "Rust/10").unwrap();
            assert!(p10.base[0].contains("def _rs_eq(a, b):"), "{}", p10.base[0]);
            let p53 = ps.iter().find(|p| p.task_id == "Rust/53").unwrap();
            assert!(p53.notes[0].starts_with(humanevalx::PYTHON_CHECK_NOTE));
            assert!(
                p53.notes[0].contains("its Rust test is not translated: it calls `rand::"),
                "{:?}",
                p53.notes
            );
            assert!(ps
                .iter()
                .filter(|p| p.notes.is_empty())
                .all(|p| p.base.iter().all(|t| t.contains("def _rs_eq(a, b):"))));
        } else {
            assert!(noted.is_empty(), "{file}: {noted:?}");
        }
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
        // HumanEval/20 answers with a tuple: judged through the tuple bridge (JavaScript's
        // native test compares `JSON.stringify`s, translated as they are).
        let p20 = ps.iter().find(|p| p.task_id.ends_with("/20")).unwrap();
        let call = format!("check({}({}))", humanevalx::TUPLE_BRIDGE, p20.entry);
        if lang == Language::JavaScript {
            assert!(p20.base.iter().all(|t| t.contains("_js_json(candidate(")));
        } else if lang == Language::Go {
            // Go's `[2]float64` answer is an array, compared as one.
            assert!(p20
                .base
                .iter()
                .all(|t| t.contains("_go_ans('[2]float64', candidate(")));
        } else if lang == Language::Rust {
            // Rust's native test compares with a tuple literal of f32s: `(3.9, 4.0)` is the
            // f32 3.9 widened, 3.9000000953674316.
            assert!(p20.base.iter().all(|t| t.contains("_rs_eq(candidate(")));
            assert!(
                p20.base[0].contains("(3.9000000953674316, 4.0)"),
                "{}",
                p20.base[0]
            );
        } else {
            assert!(p20.base.iter().all(|t| t.contains(&call)), "{file}");
            assert!(p20.base[0].contains(humanevalx::TUPLE_BRIDGE_DEF), "{file}");
        }
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

/// `execscope build` of tests/fixtures/formats/humanevalx_js (HumanEval-X's JavaScript/2 and /53
/// as published, with HumanEval-X's Python /2 and /53): /2's tests are its three native
/// `console.assert`s, translated (HumanEval's /2 has two asserts, so three tests say whose they
/// are); /53's test draws random inputs through a function of its own, so its tests are
/// HumanEval's Python check, which the report's reader notes say.
#[test]
fn a_javascript_task_built_from_a_fixture_gets_native_derived_tests() {
    let test = "formats_x::a_javascript_task_built_from_a_fixture_gets_native_derived_tests";
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/humanevalx_js");
    let js = fixture.join("humaneval_js.jsonl");
    let py = fixture.join("humaneval_python.jsonl");
    let (ps, unread) = read(&js, Some(&py));
    assert!(unread.is_empty(), "{unread:?}");
    assert_eq!(ps[0].base.len(), 3);
    assert!(ps[0].base[0].contains("    assert _js_truthy(_js_seq(candidate(3.5), 0.5))\n"));
    assert!(ps[0].notes.is_empty());
    assert_eq!(ps[1].notes.len(), 1);
    assert_eq!(
        ps[1].base.len(),
        6,
        "HumanEval/53's five asserts and its loop"
    );
    if let Some(why) = common::oracle::oracle().language_unavailable(Language::JavaScript) {
        common::shared::skip(test, &why);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bundle");
    let run = common::execscope()
        .arg("build")
        .arg(&js)
        .arg("--python-tests")
        .arg(&py)
        .args(["--operators", "all"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    common::assert_ok(&run);
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(
        said.contains(
            "1 tasks tested by HumanEval's Python check, their native test not translated"
        ),
        "{said}"
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("build_report.json")).unwrap()).unwrap();
    let notes = report["reader_notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0]["task_id"], "JavaScript/53");
    assert!(notes[0]["note"]
        .as_str()
        .unwrap()
        .ends_with("it has an expression this reader does not translate (arrow_function)"));
    assert_eq!(report["tasks_kept"], 2, "{:#}", report["refusals"]);
    // The bundle's queries carry each task's tests: /2's native ones, /53's HumanEval's.
    let rows = std::fs::read_to_string(out.join("data/queries.jsonl")).unwrap();
    let suite = |id: &str| -> Vec<String> {
        let q: serde_json::Value = rows
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|q| q["entry_id"] == id)
            .unwrap_or_else(|| panic!("{id} not in the bundle"));
        serde_json::from_value(q["test_suite"].clone()).unwrap()
    };
    let two = suite("JavaScript/2");
    assert_eq!(two.len(), 3);
    assert!(two[0].contains("assert _js_truthy(_js_seq(candidate(3.5), 0.5))"));
    assert!(two.iter().all(|t| t.ends_with("\ncheck(truncateNumber)\n")));
    let fifty_three = suite("JavaScript/53");
    assert!(fifty_three[0].contains("assert add(0, 1) == 1"));
    assert!(!fifty_three[0].contains("_js_seq"));
}
