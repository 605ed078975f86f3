//! Cross-check against CPython (skipped by name when no Python runs): every mutant of every
//! family (`--operators all`) parses with `ast.parse`, and is exactly the intended AST rewrite of
//! the original — operands swapped (`BinOp(right, op, left)`), bounds wrapped as
//! `BinOp(bound, Add|Sub, 1)`, literals shifted or replaced, a condition wrapped in
//! `UnaryOp(Not, …)`, a statement removed from its body, a `Break` appended to a loop body, a
//! handler's body replaced, a slice part set to `None`, … — with nothing regrouped by the
//! surrounding context (the checker: `mutate_cpython_check.py`). Runs on hand-written snippets
//! (those of `mutate_catalogue` included) always, and on the HumanEval canonicals when present;
//! every family must be checked at least once.

use crate::common;

use crate::mutate_catalogue as catalogue;
use execscope::mutate::{mutants_with, Family, Operators};
use std::io::Write;
use std::process::Command;

const SNIPPETS: &[&str] = &[
    "def f(a, b, c, x):\n    g(a, b, c, key=x)\n    y = a - b - c\n    return x < y < c or 2 ** -x > b % c\n",
    "def f(a, n, i, j):\n    for k in range(n):\n        pass\n    return a[i:j] + a[i] + a[1:n - 1] + list(range(1, len(a))) + a[i or j:]\n",
    "def f(a, x):\n    return a[0] + 10 + a[-1] + 0 ** x - (x - 1) ** -2 // 3\n",
    "def f(n):\n    if n < 2:\n        return 1\n    for x in range(n):\n        if x:\n            raise ValueError(x)\n    return n >> 1 << 2\n",
];

#[test]
fn mutants_agree_with_cpython_ast() {
    const NAME: &str = "mutants_agree_with_cpython_ast";
    let Some(python) = common::require_python(NAME, &["ast"]) else {
        return;
    };
    let mut sources: Vec<(String, String)> = SNIPPETS
        .iter()
        .chain(&[
            catalogue::NEGATE,
            catalogue::DELETE,
            catalogue::SLICE,
            catalogue::LOOPS,
            catalogue::NONE,
            catalogue::STRING_METHODS,
            catalogue::EXCEPT,
            catalogue::CONSTANTS,
            catalogue::UNARY,
            catalogue::EVERY_FAMILY,
        ])
        .enumerate()
        .map(|(i, s)| (format!("snippet{i}"), s.to_string()))
        .collect();
    // The HumanEval canonicals widen the check; without the external data the snippets above
    // still run, and the skipped part is said by name.
    let humaneval = common::shared_data("humaneval-tasks.jsonl");
    if humaneval.is_none() {
        common::skip(
            &format!("{NAME} (HumanEval part)"),
            "needs the external data humaneval-tasks.jsonl",
        );
    }
    if let Some(text) = humaneval.and_then(|p| std::fs::read_to_string(p).ok()) {
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let row: serde_json::Value = serde_json::from_str(line).expect("jsonl row");
            let id = row["task_id"].as_str().unwrap_or("?").to_string();
            let src = row["canonical"].as_str().expect("canonical").to_string();
            sources.push((id, src));
        }
    }
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    let mut n = 0;
    for (id, src) in &sources {
        let all = mutants_with(src, &Operators::all());
        for m in all.unwrap_or_else(|e| panic!("{id}: {e}")) {
            let row = serde_json::json!({"id": id, "src": src, "m": m});
            writeln!(file, "{row}").expect("write");
            n += 1;
        }
    }
    file.flush().expect("flush");
    let out = Command::new(&python)
        .arg("-c")
        .arg(CHECK)
        .arg(file.path())
        .arg(Family::ALL.map(|f| f.as_str()).join(","))
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "{n} mutants checked\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "CPython disagrees:\n{stdout}");
    assert!(stdout.contains("bad {}"));
}

/// The checker, run as `python3 -c CHECK rows.jsonl FAMILIES`.
const CHECK: &str = include_str!("mutate_cpython_check.py");
