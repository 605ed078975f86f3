//! HumanEval-X records (`task_id` `CPP/0`, `prompt`, `declaration`, `canonical_solution`,
//! `test`, `example_test`) as [`Problem`]s in their own language.
//!
//! - language: the `task_id`'s prefix (`CPP`, `Go`, `Java`, `JavaScript`, `Rust`, `Python`);
//! - canonical: `declaration` + `canonical_solution` (the declaration holds the `#include`s, the
//!   `use`s, Java's `class Solution`; Go's imports are its `import` field, with the packages
//!   HumanEval-X's own harness adds when the code uses them, [`GO_HELPER_PACKAGES`]); Python:
//!   `prompt` + `canonical_solution`, as HumanEval;
//! - entry: the last function the declaration names (`has_close_elements`, `hasCloseElements`,
//!   `HasCloseElements`), read by the language's grammar;
//! - tests: JavaScript and Rust: its own `test`'s `console.assert`s or `assert!`s translated into
//!   Python the judge runs ([`super::jsnative`], [`super::rsnative`]); else (and for such a test
//!   that cannot be translated, with a note) HumanEval's own Python `check` for the same task number, split into units and run by
//!   the judge against the other language's function (`check(hasCloseElements)`), with the
//!   Python prompt minus its function as the trusted setup (HumanEval/32's `poly` is Python's);
//!   no language's test program runs as it is: it would run inside the candidate's process
//!   (docs/formats.md, "HumanEval-X");
//! - query: the Python prompt's docstring description (the same request as HumanEval's).
//!
//! The Python `check` comes from `humaneval_python.jsonl.gz` beside the file (HumanEval-X ships
//! it) or from a file given by the caller (`--python-tests`, e.g. OpenAI's `HumanEval.jsonl.gz`).

use super::{field, humaneval, pyjson::J, read_records, task_id, Problem, Records, Unread};
use execscope_core::bundle::BundleError;
use execscope_record::Language;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// HumanEval-X's Python file, looked for beside the file being read.
pub const PYTHON_FILE: &str = "humaneval_python.jsonl.gz";

/// The packages HumanEval-X's Go harness imports when the code uses them and the prompt does not
/// (its `IMPORT_HELPER["go"]`): Go/17 uses `strings`, /20 `math` and `sort`, /59 and /75 `math`
/// without importing them.
pub const GO_HELPER_PACKAGES: [&str; 10] = [
    "math",
    "strings",
    "fmt",
    "strconv",
    "time",
    "bytes",
    "regexp",
    "sort",
    "math/rand",
    "crypto/md5",
];

/// Crates HumanEval-X's Rust declarations `use` that its harness gets from Cargo and a plain
/// `rustc` has not: their `use` lines are left out of a program that does not use the crate; a
/// canonical that does (Rust/91 `Regex`, /162 `md5`) is not read, named.
const RUST_CRATES: [(&str, &str, &[&str]); 3] = [
    ("rand", "use rand::Rng;", &["rand::", "Rng", "thread_rng"]),
    ("regex", "use regex::Regex;", &["Regex", "regex::"]),
    ("md5", "use md5;", &["md5"]),
];

/// The language a HumanEval-X `task_id` names by its prefix (`CPP/0` is C++).
pub fn language_of(task_id: &str) -> Option<Language> {
    let (prefix, _) = task_id.split_once('/')?;
    Some(match prefix {
        "CPP" => Language::Cpp,
        "Go" => Language::Go,
        "Java" => Language::Java,
        "JavaScript" | "JS" => Language::JavaScript,
        "Rust" => Language::Rust,
        "Python" => Language::Python,
        "TypeScript" | "TS" => Language::TypeScript,
        _ => return None,
    })
}

/// The task number a `task_id` ends with (`CPP/12`, `HumanEval/12`: 12).
pub fn number_of(task_id: &str) -> Option<u64> {
    task_id.rsplit('/').next()?.trim().parse().ok()
}

/// HumanEval's Python side of one task: what the judge runs.
#[derive(Clone, Debug, PartialEq)]
pub struct PyTask {
    pub prompt: String,
    pub test: String,
    /// The Python function's name (the prompt's `def` the setup leaves out).
    pub entry: String,
}

/// Does `text` hold `word` as a whole identifier?
fn has_word(text: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

/// The function under test: the function `code` defines whose name is Python's `py` up to case
/// and underscores (`has_close_elements`, `hasCloseElements`, `HasCloseElements`), else the last
/// one that `declaration` names. (Rust/32's declaration ends with the helper `poly`; its
/// `find_zero` is in the solution.)
pub fn entry_of(lang: Language, declaration: &str, code: &str, py: Option<&str>) -> Option<String> {
    let names = crate::mutate::function_names(lang, code);
    let norm = |s: &str| s.replace('_', "").to_ascii_lowercase();
    if let Some(p) = py {
        if let Some(n) = names.iter().rev().find(|n| norm(n) == norm(p)) {
            return Some(n.clone());
        }
    }
    names.into_iter().rev().find(|n| has_word(declaration, n))
}

/// One Python record (HumanEval-X's `Python/N` or HumanEval's `HumanEval/N`) as a [`PyTask`].
fn py_task(rec: &J) -> Result<PyTask, String> {
    let prompt = field(rec, "prompt")?;
    let test = field(rec, "test")?;
    let entry = match rec.get("entry_point") {
        Some(_) => field(rec, "entry_point")?,
        None => {
            let decl = field(rec, "declaration").unwrap_or_else(|_| prompt.clone());
            entry_of(Language::Python, &decl, &decl, None)
                .ok_or("the Python declaration defines no function")?
        }
    };
    // HumanEval-X's Python `test` ends with its own call, `check(has_close_elements)`
    // (HumanEval's does not): it is left out, as the call each test ends with is the judge's.
    let own_call = format!("check({entry})");
    let test = test
        .lines()
        .filter(|l| l.trim_end() != own_call)
        .collect::<Vec<_>>()
        .join("\n");
    Ok(PyTask {
        prompt,
        test,
        entry,
    })
}

/// The Python tasks of `records` by task number; records that cannot be read are skipped (the
/// task that needs one says so).
pub fn python_tasks(records: &Records) -> HashMap<u64, Result<PyTask, String>> {
    let mut out = HashMap::new();
    for (_, rec) in &records.items {
        let Ok(rec) = rec else { continue };
        let Some(n) = task_id(rec).as_deref().and_then(number_of) else {
            continue;
        };
        out.entry(n).or_insert_with(|| py_task(rec));
    }
    out
}

/// The file HumanEval's Python tests are read from: `given`, else [`PYTHON_FILE`] beside `path`;
/// an error naming both when neither is there.
pub fn python_file(path: &Path, given: Option<&Path>) -> Result<PathBuf, BundleError> {
    if let Some(g) = given {
        return if g.is_file() {
            Ok(g.to_path_buf())
        } else {
            Err(BundleError::Invalid {
                path: g.to_path_buf(),
                detail: "is not a file: --python-tests names HumanEval's Python tests \
                         (humaneval_python.jsonl.gz or HumanEval.jsonl.gz)"
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
            "is HumanEval-X, whose tests are HumanEval's Python `check` functions: neither \
             {PYTHON_FILE} beside it ({} is missing) nor a file given with --python-tests \
             (e.g. HumanEval.jsonl.gz); put HumanEval-X's {PYTHON_FILE} beside it or name one",
            beside.display()
        ),
    })
}

/// Go's imports for `code`: the record's `import`, then each helper package the code uses that
/// it does not import (as HumanEval-X's harness adds them).
pub fn go_imports(import: &str, code: &str) -> String {
    let mut out = import.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for pkg in GO_HELPER_PACKAGES {
        let short = pkg.rsplit('/').next().unwrap_or(pkg);
        let quoted = format!("\"{pkg}\"");
        if !import.contains(&quoted) && uses_package(code, short) {
            out.push_str(&format!("import {quoted}\n"));
        }
    }
    out
}

/// Whether Go `code` names the package `short` (`sort.Ints`) outside its comments and literals:
/// Go/158's prompt says "a list of strings." in a comment, and importing `strings` for it would
/// not compile ("imported and not used").
fn uses_package(code: &str, short: &str) -> bool {
    let code = go_code_only(code);
    let dotted = format!("{short}.");
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    code.match_indices(&dotted)
        .any(|(i, _)| !code[..i].chars().next_back().is_some_and(ident))
}

/// Go source with its comments and the contents of its string, raw string and rune literals
/// each replaced by a space.
fn go_code_only(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut it = src.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '/' if it.peek() == Some(&'/') => {
                for d in it.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if it.peek() == Some(&'*') => {
                it.next();
                let mut star = false;
                for d in it.by_ref() {
                    if star && d == '/' {
                        break;
                    }
                    star = d == '*';
                }
                out.push(' ');
            }
            '"' | '\'' | '`' => {
                let mut escaped = false;
                for d in it.by_ref() {
                    if c != '`' && !escaped && d == '\\' {
                        escaped = true;
                        continue;
                    }
                    if !escaped && d == c {
                        break;
                    }
                    escaped = false;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The headers HumanEval-X's harness puts before a C++ prompt that lacks them (its
/// `IMPORT_HELPER["cpp"]`), in its order.
pub const CPP_HELPER_INCLUDES: [&str; 9] = [
    "#include<stdlib.h>",
    "#include<algorithm>",
    "#include<math.h>",
    "#include<stdio.h>",
    "#include<vector>",
    "#include<string>",
    "#include<climits>",
    "#include<cstring>",
    "#include<iostream>",
];

/// The packages a Go `import` declaration names (`import "x"`, `import ( "x" "y" )`).
fn go_packages(import: &str) -> Vec<String> {
    import
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Go source without its top-level `import` declarations, and the packages they named.
fn strip_go_imports(src: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut pkgs = Vec::new();
    let mut block: Option<String> = None;
    for l in src.split_inclusive('\n') {
        if let Some(b) = block.as_mut() {
            b.push_str(l);
            if l.trim_start().starts_with(')') {
                pkgs.extend(go_packages(b));
                block = None;
            }
        } else if l.starts_with("import") && l.trim_end().ends_with('(') {
            block = Some(l.to_string());
        } else if l.starts_with("import ") {
            pkgs.extend(go_packages(l));
        } else {
            out.push_str(l);
        }
    }
    (out, pkgs)
}

/// The program of a completion in `lang` joined to its `prompt`, as HumanEval-X's harness joins
/// a `generation` to the sample's prompt (`process_humaneval_test`): C++ gets each header of
/// [`CPP_HELPER_INCLUDES`] the prompt does not hold put before it (none when the prompt includes
/// `<bits/stdc++.h>`, which holds them all: MBXP's C++ prompts, joined as mxeval joins them,
/// the prompt then the completion); Go's prompt loses its
/// `import` declaration and the program imports each package, of the prompt's and of
/// [`GO_HELPER_PACKAGES`], that it uses (the harness imports the helpers the generation uses; an
/// unused import would not compile); every other language is `prompt` + `completion`.
pub fn joined_program(lang: Language, prompt: &str, completion: &str) -> String {
    match lang {
        Language::Cpp if prompt.contains("<bits/stdc++.h>") => format!("{prompt}{completion}"),
        Language::Cpp => {
            let mut out = String::new();
            for h in CPP_HELPER_INCLUDES {
                if !prompt.contains(h) {
                    out.push_str(h);
                    out.push('\n');
                }
            }
            if !out.is_empty() {
                out.push('\n');
            }
            format!("{out}{prompt}{completion}")
        }
        Language::Go => {
            let (prompt, own) = strip_go_imports(prompt);
            let body = format!("{prompt}{completion}");
            let mut imports = String::new();
            let mut seen = std::collections::BTreeSet::new();
            for pkg in own.iter().map(String::as_str).chain(GO_HELPER_PACKAGES) {
                let short = pkg.rsplit('/').next().unwrap_or(pkg);
                if uses_package(&body, short) && seen.insert(pkg) {
                    imports.push_str(&format!("import \"{pkg}\"\n"));
                }
            }
            format!("{imports}{body}")
        }
        _ => format!("{prompt}{completion}"),
    }
}

/// A HumanEval-X Python `generation` as its harness cuts it: up to the first non-blank line
/// that is not indented (what follows the function body, a test or a new `def`, is left out).
pub fn python_generation(generation: &str) -> String {
    let mut out = Vec::new();
    for l in generation.split('\n') {
        if !l.trim().is_empty() && !l.starts_with(' ') && !l.starts_with('\t') {
            break;
        }
        out.push(l);
    }
    out.join("\n")
}

/// The judge-side wrapper a tuple-answering task's function is handed to `check` through.
pub const TUPLE_BRIDGE: &str = "_es_as_tuple";

/// Its definition (trusted setup): the function's answer, a list made a tuple of the same
/// items; any other answer as it is. Nothing else changes: a wrong item or length still fails.
pub const TUPLE_BRIDGE_DEF: &str = "def _es_as_tuple(f):\n    def _es_call(*a, **k):\n        r = f(*a, **k)\n        return tuple(r) if type(r) is list else r\n    return _es_call\n";

/// Does HumanEval's Python task answer with a tuple: its `def` is annotated `-> Tuple[...]` /
/// `-> tuple`, or its `check` compares with a tuple literal (`== (2, 3)`)? HumanEval-X gives
/// those tasks a sequence type in the other languages (C++ `vector`, Java `List`, JavaScript
/// array), which crosses as a list; [`TUPLE_BRIDGE`] lets `check` compare it as the tuple the
/// benchmark declares (docs/formats.md, "HumanEval-X").
pub fn expects_tuple(py: &PyTask) -> bool {
    let annotated = py.prompt.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with(&format!("def {}(", py.entry))
            && l.split("->")
                .nth(1)
                .is_some_and(|r| r.trim_start().to_ascii_lowercase().starts_with("tuple"))
    });
    annotated || tuple_literal_compared(&py.test)
}

/// `== (` followed by a parenthesised list with a comma at its own depth.
fn tuple_literal_compared(test: &str) -> bool {
    test.match_indices("==").any(|(i, _)| {
        let rest = test[i + 2..].trim_start();
        let Some(inner) = rest.strip_prefix('(') else {
            return false;
        };
        let mut depth = 0i32;
        for c in inner.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => return false,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth == 0 => return true,
                '\n' => return false,
                _ => {}
            }
        }
        false
    })
}

/// The program of a record in `lang`, as the oracle's job takes it, or why none can run here.
pub fn program(lang: Language, rec: &J) -> Result<String, String> {
    let solution = field(rec, "canonical_solution")?;
    if lang == Language::Python {
        return Ok(format!("{}{solution}", field(rec, "prompt")?));
    }
    let declaration = field(rec, "declaration")?;
    match lang {
        Language::Go => {
            let import = field(rec, "import").unwrap_or_default();
            let body = format!("{declaration}{solution}");
            Ok(format!("{}{body}", go_imports(&import, &body)))
        }
        Language::Rust => {
            for (krate, _, marks) in RUST_CRATES {
                if marks.iter().any(|m| solution.contains(m)) {
                    return Err(format!(
                        "the canonical uses the crate `{krate}`, which HumanEval-X's harness gets \
                         from Cargo and the oracle's rustc has not (no crate is downloaded)"
                    ));
                }
            }
            Ok(format!("{}{solution}", rust_declaration(&declaration)))
        }
        _ => Ok(format!("{declaration}{solution}")),
    }
}

/// A Rust declaration without the `use` lines of [`RUST_CRATES`] (a program that uses one of
/// them does not compile here either way).
fn rust_declaration(declaration: &str) -> String {
    let mut decl = declaration.to_string();
    for (_, line, _) in RUST_CRATES {
        decl = decl.replace(&format!("{line}\n"), "");
    }
    decl
}

/// A HumanEval-X record as a problem, its tests from `py` (by task number), or why not.
pub fn problem(
    line: usize,
    rec: &J,
    py: &HashMap<u64, Result<PyTask, String>>,
) -> Result<Problem, String> {
    let id = field(rec, "task_id")?;
    let lang = language_of(&id).ok_or_else(|| {
        format!(
            "task_id {id:?} names no language HumanEval-X has (CPP/, Go/, Java/, JavaScript/, \
             Rust/, Python/)"
        )
    })?;
    let n = number_of(&id).ok_or_else(|| format!("task_id {id:?} ends with no task number"))?;
    let canonical = program(lang, rec)?;
    let declaration = match lang {
        Language::Python => field(rec, "declaration").or_else(|_| field(rec, "prompt"))?,
        _ => field(rec, "declaration")?,
    };
    let pyt = match py.get(&n) {
        Some(Ok(p)) => p,
        Some(Err(why)) => return Err(format!("HumanEval's Python task {n}: {why}")),
        None => return Err(format!("no Python task {n} in HumanEval's tests")),
    };
    let entry = entry_of(lang, &declaration, &canonical, Some(&pyt.entry)).ok_or_else(|| {
        format!(
            "the {} declaration names no function the program defines",
            lang.display_name()
        )
    })?;
    let (call, extra) = if lang != Language::Python && expects_tuple(pyt) {
        (format!("{TUPLE_BRIDGE}({entry})"), TUPLE_BRIDGE_DEF)
    } else {
        (entry.clone(), "")
    };
    let python = humaneval::tests_calling(&pyt.prompt, &pyt.test, &pyt.entry, &call, extra)?;
    let (base, notes) = native_or_python(lang, rec, &entry, python);
    Ok(Problem {
        line,
        task_id: id,
        entry,
        query: humaneval::query_of(&pyt.prompt, &pyt.entry),
        // What a generation continues: Rust's `prompt` is the docstring alone, its signature is
        // the declaration (the others' prompts end with it).
        prompt: match lang {
            Language::Rust => format!(
                "{}{}",
                field(rec, "prompt")?,
                rust_declaration(&declaration)
            ),
            _ => field(rec, "prompt")?,
        },
        canonical,
        base,
        plus: Vec::new(),
        notes,
        language: lang,
        reference_ms: Vec::new(),
    })
}

/// What a reader note on a task whose tests are HumanEval's Python `check` where its language's
/// native test could not be translated starts with (the build report counts these apart).
pub const PYTHON_CHECK_NOTE: &str = "tests: HumanEval's Python check";

/// A task's tests: for JavaScript, Go and Rust, its native `test` translated for the judge
/// ([`super::jsnative`], [`super::gonative`], [`super::rsnative`]); when that cannot be (or for another language),
/// `python` (HumanEval's `check`), with a note saying why.
fn native_or_python(
    lang: Language,
    rec: &J,
    entry: &str,
    python: Vec<String>,
) -> (Vec<String>, Vec<String>) {
    let test = field(rec, "test").map_err(|_| "has no `test` field".to_string());
    let native = match lang {
        Language::JavaScript => test.and_then(|t| super::jsnative::tests(&t, entry)),
        Language::Go => test.and_then(|t| {
            let sig = super::gonative::signature(&program(lang, rec)?, entry)?;
            super::gonative::tests(&t, entry, &sig)
        }),
        // Rust's literals take their types from the function's declared signature: its head is
        // in the declaration, or (Rust/10, whose declaration ends with a helper's head) in the
        // canonical solution, read as the program with its last `}` left open.
        Language::Rust => test.and_then(|t| {
            let decl = field(rec, "declaration")?;
            let head = if super::rsnative::signature(&decl, entry).is_ok() {
                decl
            } else {
                let p = format!("{decl}{}", field(rec, "canonical_solution")?);
                p.trim_end()
                    .strip_suffix('}')
                    .map_or(p.clone(), str::to_string)
            };
            super::rsnative::tests(&t, entry, &head)
        }),
        _ => return (python, Vec::new()),
    };
    match native {
        Ok(units) => (units, Vec::new()),
        Err(why) => (
            python,
            vec![format!(
                "{PYTHON_CHECK_NOTE}: its {} test is not translated: it {why}",
                lang.display_name()
            )],
        ),
    }
}

/// The problems of a HumanEval-X file at `path`, HumanEval's Python tests read from
/// `python_tests` or beside it ([`python_file`]); a file of Python records alone is its own.
pub fn problems(
    records: &Records,
    path: &Path,
    python_tests: Option<&Path>,
) -> Result<(Vec<Problem>, Vec<Unread>), BundleError> {
    let all_python = records.items.iter().all(|(_, r)| {
        r.as_ref()
            .ok()
            .and_then(task_id)
            .is_none_or(|id| language_of(&id) == Some(Language::Python))
    });
    let py = if all_python && python_tests.is_none() {
        python_tasks(records)
    } else {
        let file = python_file(path, python_tests)?;
        python_tasks(&read_records(&file, None)?)
    };
    Ok(records.problems(|line, r| problem(line, r, &py)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::pyjson::parse;

    /// Go/158's prompt says "a list of strings." in a comment: only `sort`, which the code
    /// calls, is imported (importing `strings` too would not compile); a package named in a
    /// string, a raw string or a block comment is not used either, one called after them is.
    #[test]
    fn go_packages_are_imported_for_the_code_not_its_comments() {
        let prompt = "import (\n    \"sort\"\n)\n\n// Accepts a list of strings.\nfunc FindMax(words []string) string {\n";
        let completion = "    sort.Strings(words)\n    return words[0]\n}\n";
        assert_eq!(
            joined_program(Language::Go, prompt, completion),
            format!("import \"sort\"\n\n// Accepts a list of strings.\nfunc FindMax(words []string) string {{\n{completion}")
        );
        let code = "func F() string {\n    /* fmt. */ s := \"strings.\" + `math.` + \"\\\"fmt.\"\n    return s + strconv.Itoa('\\'')\n}\n";
        assert_eq!(go_imports("", code), "import \"strconv\"\n");
        assert!(!uses_package("mysort.Ints(a)", "sort"));
        assert!(uses_package("(sort.Ints(a))", "sort"));
    }

    fn py() -> HashMap<u64, Result<PyTask, String>> {
        let rec = parse(r#"{"task_id": "Python/3", "prompt": "from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n    \"\"\" Detect if the balance falls below zero.\n    >>> below_zero([1, 2])\n    False\n    \"\"\"\n", "declaration": "from typing import List\n\n\ndef below_zero(operations: List[int]) -> bool:\n", "canonical_solution": "    return False\n", "test": "\n\nMETADATA = {}\n\n\ndef check(below_zero):\n    assert below_zero([]) == False\n    assert below_zero([1, -2]) == True\n"}"#).unwrap();
        HashMap::from([(3, py_task(&rec))])
    }

    #[test]
    fn a_cpp_record_takes_its_declaration_and_python_tests() {
        let rec = parse(r##"{"task_id": "CPP/3", "prompt": "/* doc */\n#include<vector>\nbool below_zero(vector<int> operations){\n", "declaration": "#include<stdio.h>\n#include<vector>\nusing namespace std;\nbool below_zero(vector<int> operations){\n", "canonical_solution": "    int s=0;\n    for (int o: operations) { s+=o; if (s<0) return true; }\n    return false;\n}\n", "test": "int main(){}", "example_test": ""}"##).unwrap();
        let p = problem(4, &rec, &py()).unwrap();
        assert_eq!(p.language, Language::Cpp);
        assert_eq!(p.entry, "below_zero");
        assert_eq!(p.query, "Detect if the balance falls below zero.");
        assert!(p.canonical.starts_with("#include<stdio.h>\n"));
        assert!(p.canonical.ends_with("return false;\n}\n"));
        assert_eq!(p.base.len(), 2);
        assert_eq!(
            p.base[0],
            "from typing import List\n\n\n\n\nMETADATA = {}\n\n\ndef check(below_zero):\n    assert below_zero([]) == False\n\ncheck(below_zero)\n"
        );
    }

    #[test]
    fn java_go_and_js_entries_are_named_as_their_language_names_them() {
        let java = parse(r#"{"task_id": "Java/3", "prompt": "", "declaration": "import java.util.*;\n\nclass Solution {\n    public boolean belowZero(List<Integer> operations) {\n", "canonical_solution": "        return false;\n    }\n}", "test": ""}"#).unwrap();
        let p = problem(1, &java, &py()).unwrap();
        assert_eq!(
            (p.entry.as_str(), p.language),
            ("belowZero", Language::Java)
        );
        assert!(p.base[1].ends_with("check(belowZero)\n"));
        let go = parse(r#"{"task_id": "Go/3", "prompt": "", "import": "", "declaration": "\nfunc BelowZero(operations []int) bool {\n", "canonical_solution": "    return strings.Contains(\"a\", \"b\")\n}\n", "test": ""}"#).unwrap();
        let p = problem(1, &go, &py()).unwrap();
        assert_eq!(p.entry, "BelowZero");
        assert!(p
            .canonical
            .starts_with("import \"strings\"\n\nfunc BelowZero"));
        let js = parse(r#"{"task_id": "JavaScript/3", "prompt": "", "declaration": "\nconst belowZero = (operations) => {\n", "canonical_solution": "  return false;\n}\n", "test": ""}"#).unwrap();
        assert_eq!(problem(1, &js, &py()).unwrap().entry, "belowZero");
        let none = parse(r#"{"task_id": "Rust/4", "declaration": "fn f() {\n", "canonical_solution": "}\n", "prompt": ""}"#).unwrap();
        assert_eq!(
            problem(1, &none, &py()).unwrap_err(),
            "no Python task 4 in HumanEval's tests"
        );
    }

    #[test]
    fn rust_crates_the_oracle_lacks_are_dropped_or_named() {
        let decl = "use std::collections::HashMap;\nuse rand::Rng;\nuse regex::Regex;\nuse md5;\nfn f(x: i32) -> i32 {\n";
        let rec = serde_json::json!({"task_id": "Rust/3", "declaration": decl, "canonical_solution": "    x\n}\n"});
        let rec = parse(&rec.to_string()).unwrap();
        // A generation continues the docstring and the declaration (Rust's prompt is the
        // docstring alone), the crates' `use`s left out as for the canonical.
        let with_prompt = serde_json::json!({"task_id": "Rust/3", "prompt": "/* doc */\n", "declaration": decl, "canonical_solution": "    x\n}\n"});
        let p = problem(1, &parse(&with_prompt.to_string()).unwrap(), &py()).unwrap();
        assert_eq!(
            p.prompt,
            "/* doc */\nuse std::collections::HashMap;\nfn f(x: i32) -> i32 {\n"
        );
        assert_eq!(
            program(Language::Rust, &rec).unwrap(),
            "use std::collections::HashMap;\nfn f(x: i32) -> i32 {\n    x\n}\n"
        );
        let uses = serde_json::json!({"task_id": "Rust/91", "declaration": decl, "canonical_solution": "    Regex::new(\"a\");\n}\n"});
        assert!(program(Language::Rust, &parse(&uses.to_string()).unwrap())
            .unwrap_err()
            .contains("the crate `regex`"));
        assert!(tuple_literal_compared("assert f(1) == (2, 3)"));
        assert!(tuple_literal_compared("assert f(1) == ((1, 2), 3)"));
        assert!(!tuple_literal_compared("assert f(1) == (2 + 3)"));
        assert!(!tuple_literal_compared("assert f(1) == [(2, 3)]"));
        assert_eq!(language_of("CPP/0"), Some(Language::Cpp));
        assert_eq!(language_of("Kotlin/0"), None);
        assert_eq!(number_of("HumanEval/163"), Some(163));
    }

    #[test]
    fn generations_are_joined_as_humaneval_x_joins_them() {
        let cpp = joined_program(
            Language::Cpp,
            "/* doc */\n#include<stdio.h>\n#include<vector>\nusing namespace std;\nint f(){\n",
            "    return 1;\n}\n",
        );
        assert!(
            cpp.starts_with(
                "#include<stdlib.h>\n#include<algorithm>\n#include<math.h>\n#include<string>\n"
            ),
            "{cpp}"
        );
        assert!(cpp.ends_with("\n\n/* doc */\n#include<stdio.h>\n#include<vector>\nusing namespace std;\nint f(){\n    return 1;\n}\n"), "{cpp}");
        // MBXP's C++ prompt includes <bits/stdc++.h>: prompt + completion, as mxeval joins them.
        assert_eq!(
            joined_program(
                Language::Cpp,
                "#include <bits/stdc++.h>\nusing namespace std;\nint f(int x) {\n",
                "    return x;\n}\n"
            ),
            "#include <bits/stdc++.h>\nusing namespace std;\nint f(int x) {\n    return x;\n}\n"
        );
        let go = joined_program(
            Language::Go,
            "import (\n    \"math\"\n    \"fmt\"\n)\n\n// doc\nfunc F(x float64) float64 {\n",
            "    return math.Abs(x) + float64(len(strings.Split(\"a\", \"\")))\n}\n",
        );
        assert_eq!(
            go,
            "import \"math\"\nimport \"strings\"\n\n// doc\nfunc F(x float64) float64 {\n    return math.Abs(x) + float64(len(strings.Split(\"a\", \"\")))\n}\n"
        );
        assert_eq!(
            joined_program(
                Language::JavaScript,
                "const f = () => {\n",
                "  return 1;\n}\n"
            ),
            "const f = () => {\n  return 1;\n}\n"
        );
        assert_eq!(
            python_generation("    return x\n\n\ndef g():\n    pass\n"),
            "    return x\n\n"
        );
    }
}
