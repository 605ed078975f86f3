//! MBXP records (`task_id` `MBJSP/1`, `prompt`, `entry_point`, `canonical_solution`, `test`,
//! `description`, `language`) as [`Problem`]s in their own language.
//!
//! - language: the record's `language` (`cpp`, `java`, `javascript`, `typescript`, `go`,
//!   `python`); MBXP's other languages (Kotlin, PHP, Ruby, ...) are named and not read;
//! - canonical: `prompt` + `canonical_solution` (the prompt holds C++'s `#include`s, Java's
//!   imports and its class, TypeScript's `const f = function (...) {`); a record without a
//!   canonical (every MBGP/Go record, some of each other file) cannot be a benchmark query and
//!   is not read, named;
//! - entry: `entry_point` (`minCost`, `min_cost`), which the program must define;
//! - tests: MBPP's own Python `check(candidate)` for the same task number (MBXP's
//!   `mbpp_release_v1.jsonl`, whose `MBPP/1` is MBCPP/1's, MBJSP/1's, ...), split into units and
//!   run by the judge against the other language's function (`check(minCost)`: the Python name
//!   `min_cost` is never bound, `check` takes the function as its argument), with the Python
//!   prompt minus its function as the trusted setup; a task answering with a tuple gets
//!   HumanEval-X's tuple bridge. MBXP's own test program (`test`) is not used: it decides its
//!   verdict inside the candidate's process (docs/formats.md, "MBXP");
//! - query: `description` (MBPP's request).
//!
//! The Python tests come from `mbpp_release_v1.jsonl` beside the file (MBXP ships it) or from a
//! file given by the caller (`--python-tests`).

use super::humanevalx::{self, PyTask};
use super::{field, humaneval, read_records, task_id, Problem, Records, Unread};
use crate::formats::pyjson::J;
use execscope_core::bundle::BundleError;
use execscope_record::Language;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// MBXP's Python file (MBPP's tasks as HumanEval-style `check` functions), looked for beside
/// the file being read.
pub const PYTHON_FILE: &str = "mbpp_release_v1.jsonl";

/// Does a record look like MBXP's: a `language`, a `description`, an `entry_point`, a `prompt`
/// and a `test`?
pub fn is_record(has: &dyn Fn(&str) -> bool) -> bool {
    ["language", "description", "entry_point", "prompt", "test"]
        .iter()
        .all(|k| has(k))
}

/// The language a record's `language` field names, or why it cannot run here.
pub fn language_of(rec: &J) -> Result<Language, String> {
    let name = field(rec, "language")?;
    Ok(match name.to_ascii_lowercase().as_str() {
        "cpp" | "c++" => Language::Cpp,
        "go" => Language::Go,
        "java" => Language::Java,
        "javascript" | "js" => Language::JavaScript,
        "typescript" | "ts" => Language::TypeScript,
        "python" => Language::Python,
        "rust" => Language::Rust,
        _ => {
            return Err(format!(
                "language {name:?} is not one execscope runs (C++, Go, Java, JavaScript, \
                 TypeScript, Python, Rust)"
            ))
        }
    })
}

/// The judge-side name the entry is called by when MBPP's test defines a function of the
/// entry's own name (MBJSP/56's `check`).
pub const ENTRY_ALIAS: &str = "_es_entry";

/// Why a record without a canonical is not read (the build's refusals group by this text).
pub const NO_CANONICAL: &str = "MBXP gives this task no `canonical_solution` (none of MBGP's \
                                Go tasks has one): without a reference program it cannot be a \
                                benchmark query";

/// The file MBPP's Python tests are read from: `given`, else [`PYTHON_FILE`] beside `path`; an
/// error naming both when neither is there.
pub fn python_file(path: &Path, given: Option<&Path>) -> Result<PathBuf, BundleError> {
    if let Some(g) = given {
        return if g.is_file() {
            Ok(g.to_path_buf())
        } else {
            Err(BundleError::Invalid {
                path: g.to_path_buf(),
                detail: "is not a file: --python-tests names MBXP's Python tests \
                         (mbpp_release_v1.jsonl)"
                    .into(),
            })
        };
    }
    let beside = path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(PYTHON_FILE);
    if beside.is_file() {
        return Ok(beside);
    }
    Err(BundleError::Invalid {
        path: path.to_path_buf(),
        detail: format!(
            "is MBXP, whose tests are MBPP's Python `check` functions: neither {PYTHON_FILE} \
             beside it ({} is missing) nor a file given with --python-tests; put MBXP's \
             {PYTHON_FILE} beside it or name it",
            beside.display()
        ),
    })
}

/// An MBXP record as a problem, its tests from `py` (by task number), or why not.
pub fn problem(
    line: usize,
    rec: &J,
    py: &HashMap<u64, Result<PyTask, String>>,
) -> Result<Problem, String> {
    let id = task_id(rec).ok_or("missing field `task_id`")?;
    let lang = language_of(rec)?;
    let n = humanevalx::number_of(&id)
        .ok_or_else(|| format!("task_id {id:?} ends with no task number"))?;
    let prompt = field(rec, "prompt")?;
    let solution = match rec.get("canonical_solution") {
        None | Some(J::Null) => return Err(NO_CANONICAL.into()),
        Some(_) => field(rec, "canonical_solution")?,
    };
    if solution.trim().is_empty() {
        return Err(NO_CANONICAL.into());
    }
    let canonical = format!("{prompt}{solution}");
    let entry = field(rec, "entry_point")?;
    if !crate::mutate::function_names(lang, &canonical).contains(&entry) {
        let tree = crate::mutate::parse::parse_tree_in(lang, &canonical);
        return Err(
            match crate::mutate::parse::first_problem(lang, &tree, &canonical) {
                // MBTSP's canonicals cut off mid-expression (MBTSP/2) land here.
                Some(e) => format!(
                    "the canonical (prompt + canonical_solution) does not parse, so no function \
                 `{entry}` is read: {e}"
                ),
                None => format!(
                    "the {} program defines no function `{entry}` (its entry_point)",
                    lang.display_name()
                ),
            },
        );
    }
    let pyt = match py.get(&n) {
        Some(Ok(p)) => p,
        Some(Err(why)) => return Err(format!("MBPP's Python task {n}: {why}")),
        None => return Err(format!("no Python task {n} in MBPP's tests")),
    };
    // MBJSP/56's function is `check`, the name MBPP's test gives its own `check`: the judge's
    // binding of the entry is taken under another name before the test's `def` replaces it.
    let (mut call, mut extra) = if crate::ast::top_level_defs(&pyt.test).contains(&entry) {
        (
            ENTRY_ALIAS.to_string(),
            format!("{ENTRY_ALIAS} = {entry}\n"),
        )
    } else {
        (entry.clone(), String::new())
    };
    if lang != Language::Python && humanevalx::expects_tuple(pyt) {
        call = format!("{}({call})", humanevalx::TUPLE_BRIDGE);
        extra.push_str(humanevalx::TUPLE_BRIDGE_DEF);
    }
    let base = humaneval::tests_calling(&pyt.prompt, &pyt.test, &pyt.entry, &call, &extra)?;
    let query = match field(rec, "description") {
        Ok(d) if !d.trim().is_empty() => d.split_whitespace().collect::<Vec<_>>().join(" "),
        _ => humaneval::query_of(&pyt.prompt, &pyt.entry),
    };
    Ok(Problem {
        line,
        task_id: id,
        entry,
        query,
        prompt,
        canonical,
        base,
        plus: Vec::new(),
        notes: Vec::new(),
        language: lang,
        reference_ms: Vec::new(),
    })
}

/// The problems of an MBXP file at `path`, MBPP's Python tests read from `python_tests` or
/// beside it ([`python_file`]); a file of Python records alone (MBXP's `mbpp_release_v1.jsonl`)
/// is its own.
pub fn problems(
    records: &Records,
    path: &Path,
    python_tests: Option<&Path>,
) -> Result<(Vec<Problem>, Vec<Unread>), BundleError> {
    let all_python = records.items.iter().all(|(_, r)| {
        r.as_ref()
            .ok()
            .is_none_or(|r| language_of(r) == Ok(Language::Python))
    });
    let py = if all_python && python_tests.is_none() {
        humanevalx::python_tasks(records)
    } else {
        let file = python_file(path, python_tests)?;
        humanevalx::python_tasks(&read_records(&file, None)?)
    };
    Ok(records.problems(|line, r| problem(line, r, &py)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pyjson::parse;

    fn py() -> HashMap<u64, Result<PyTask, String>> {
        let rec = parse(r#"{"task_id": "MBPP/2", "prompt": "\n\ndef similar_elements(test_tup1, test_tup2):\n\t\"\"\"\n\tWrite a function to find the similar elements from the given two tuple lists.\n\t\"\"\"\n", "canonical_solution": "\treturn tuple(set(test_tup1) & set(test_tup2))", "entry_point": "similar_elements", "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)\n    assert candidate((1, 2, 3, 4),(5, 4, 3, 7)) == (3, 4)\n\n", "language": "python", "description": "Write a function to find the similar elements from the given two tuple lists."}"#).unwrap();
        humanevalx::python_tasks(&Records {
            format: super::super::Format::Mbxp,
            items: vec![(1, Ok(rec))],
        })
    }

    #[test]
    fn a_js_record_takes_its_prompt_and_mbpp_python_check_through_the_tuple_bridge() {
        let rec = parse(r#"{"task_id": "MBJSP/2", "prompt": "/**\n * doc\n */\nfunction similarElements(testTup1, testTup2) {\n", "entry_point": "similarElements", "canonical_solution": "  return testTup1.filter(x => testTup2.includes(x));\n}", "test": "var x0 = similarElements([1], [1]);", "description": "Write a function to find the similar elements from the given two tuple lists.", "language": "javascript"}"#).unwrap();
        let p = problem(7, &rec, &py()).unwrap();
        assert_eq!(p.language, Language::JavaScript);
        assert_eq!(p.entry, "similarElements");
        assert_eq!(p.task_id, "MBJSP/2");
        assert_eq!(
            p.query,
            "Write a function to find the similar elements from the given two tuple lists."
        );
        assert!(p
            .canonical
            .starts_with("/**\n * doc\n */\nfunction similarElements("));
        assert!(p.canonical.ends_with("includes(x));\n}"));
        assert_eq!(p.base.len(), 2);
        // The Python prompt minus its `def` ("\n\n"), the bridge, check's first assert, the call.
        assert_eq!(
            p.base[0],
            format!(
                "\n\n{}\n\nMETADATA = {{}}\n\n\ndef check(candidate):\n    assert \
                 candidate((3, 4, 5, 6),(5, 7, 4, 10)) == (4, 5)\n\ncheck(_es_as_tuple(\
                 similarElements))\n",
                humanevalx::TUPLE_BRIDGE_DEF
            )
        );
    }

    #[test]
    fn an_entry_named_as_the_tests_check_is_called_through_an_alias() {
        let rec = parse(r#"{"task_id": "MBJSP/2", "prompt": "function check(a, b) {\n", "entry_point": "check", "canonical_solution": "  return a;\n}", "test": "", "description": "d", "language": "javascript"}"#).unwrap();
        let p = problem(1, &rec, &py()).unwrap();
        assert_eq!(p.entry, "check");
        assert!(
            p.base[0].starts_with("\n\n_es_entry = check\ndef _es_as_tuple(f):\n"),
            "{}",
            p.base[0]
        );
        assert!(p.base[0].ends_with("\n\ncheck(_es_as_tuple(_es_entry))\n"));
    }

    #[test]
    fn records_without_canonical_or_entry_or_python_task_are_named() {
        let go = parse(r#"{"task_id": "MBGP/2", "prompt": "package main\nfunc similar_elements(a []int, b []int) []int {\n", "entry_point": "similar_elements", "canonical_solution": null, "test": "", "description": "d", "language": "go"}"#).unwrap();
        assert_eq!(problem(1, &go, &py()).unwrap_err(), NO_CANONICAL);
        let wrong = parse(r#"{"task_id": "MBCPP/2", "prompt": "int f(int x) {\n", "entry_point": "similarElements", "canonical_solution": "  return x;\n}\n", "test": "", "description": "d", "language": "cpp"}"#).unwrap();
        assert_eq!(
            problem(1, &wrong, &py()).unwrap_err(),
            "the C++ program defines no function `similarElements` (its entry_point)"
        );
        let three = parse(r#"{"task_id": "MBJP/3", "prompt": "class A {\n    public static int f(int x) {\n", "entry_point": "f", "canonical_solution": "        return x;\n    }\n}", "test": "", "description": "d", "language": "java"}"#).unwrap();
        assert_eq!(
            problem(1, &three, &py()).unwrap_err(),
            "no Python task 3 in MBPP's tests"
        );
        let kotlin = parse(r#"{"task_id": "MBKP/2", "prompt": "", "entry_point": "f", "canonical_solution": "", "test": "", "description": "d", "language": "kotlin"}"#).unwrap();
        assert!(problem(1, &kotlin, &py())
            .unwrap_err()
            .starts_with("language \"kotlin\" is not one execscope runs"));
    }
}
