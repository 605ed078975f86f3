//! Empty or fully refused input is an error for `build` and `exec verify` (the pool and task
//! file of `audit` are in bundle_untrusted.rs), and the mutation engine refuses a 10^4-line
//! function with a reason instead of running for hours.

use crate::common;

use execscope::build::{build, BuildError, BuildOptions};
use execscope::oracle::{Oracle, OracleConfig};
use std::path::Path;

fn oracle() -> Oracle {
    Oracle::new(OracleConfig::default()).expect("oracle")
}

fn opts() -> BuildOptions {
    BuildOptions {
        reuse: false,
        progress: None,
        ..BuildOptions::default()
    }
}

#[test]
fn building_an_empty_task_file_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, "\n\n").unwrap();
    let out = dir.path().join("out");
    let e = build(&tasks, &out, &oracle(), &opts()).unwrap_err();
    assert!(matches!(e, BuildError::Empty(_)), "{e}");
    let msg = e.to_string();
    assert!(
        msg.contains("tasks.jsonl") && msg.contains("holds no tasks"),
        "{msg}"
    );
    assert!(!out.join("data/queries.jsonl").exists());
}

#[test]
fn building_when_every_task_is_refused_says_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let ok = r#"{"task_id": "t1", "function_name": "f", "query": "q", "domain": "", "canonical": "def f(x):\n    return x\n", "tests": ["assert f(1) == 1", "assert f(2) == 2", "assert f(3) == 3"]}"#;
    // Line 1 is not JSON, line 2 lacks tests, line 3 does not define `f`.
    let no_tests = ok.replace(", \"assert f(2) == 2\", \"assert f(3) == 3\"", "");
    let wrong_def = ok
        .replace("\"t1\"", "\"t3\"")
        .replace("def f(x)", "def g(x)");
    std::fs::write(&tasks, format!("not json\n{no_tests}\n{wrong_def}\n")).unwrap();
    let out = dir.path().join("out");
    let e = build(&tasks, &out, &oracle(), &opts()).unwrap_err();
    assert!(matches!(e, BuildError::Empty(_)), "{e}");
    let msg = e.to_string();
    for p in [
        "every one of its 3 tasks was refused",
        "2 at schema",
        "1 at ast_semantics",
        "tasks.jsonl:1:",
        "tasks.jsonl:2: `t1`",
        "tasks.jsonl:3: `t3` refused at gate ast_semantics",
        "does not define `f`",
    ] {
        assert!(msg.contains(p), "{msg:?} should contain {p:?}");
    }
    assert!(!out.join("data/queries.jsonl").exists());
}

#[test]
fn exec_verify_of_an_empty_cache_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny");
    for rel in ["data/queries.jsonl", "data/corpus.jsonl"] {
        std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
        std::fs::copy(tiny.join(rel), root.join(rel)).unwrap();
    }
    std::fs::write(root.join("data/execution_cache.jsonl"), "").unwrap();
    let out = common::execscope()
        .args(["exec", "verify"])
        .arg(&root)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "exit 0; stderr {err}");
    assert!(
        err.contains("data/execution_cache.jsonl") && err.contains("nothing to re-execute"),
        "{err}"
    );
}

/// A function of `n` lines with a few mutation sites per line.
fn long_function(n: usize) -> String {
    let mut s = String::from("def f(x):\n    y = 0\n");
    for i in 0..n.saturating_sub(3) {
        s.push_str(&format!("    if x > {i}:\n        y = y + {i} * 2\n")[..]);
        if s.lines().count() >= n - 1 {
            break;
        }
    }
    s.push_str("    return y\n");
    s
}

#[test]
fn a_ten_thousand_line_function_is_refused_with_a_reason() {
    let src = long_function(10_000);
    assert!(src.lines().count() >= 9_999);
    let e = execscope::mutate::mutants(&src).unwrap_err().to_string();
    assert!(
        e.contains("lines") && e.contains("limited to 1000 lines"),
        "{e}"
    );
    // Gate 2 says the same, without enumerating anything.
    let tasks = format!(
        "{}\n",
        serde_json::json!({
            "task_id": "big", "function_name": "f", "query": "q", "domain": "",
            "canonical": src,
            "tests": ["assert f(1) == 0", "assert f(2) == 2", "assert f(3) == 6"],
        })
    );
    let (read, refusals) = execscope::build::task::read_tasks(&tasks);
    assert!(refusals.is_empty(), "{refusals:?}");
    let why = execscope::build::task::ast_gate(&read[0]).unwrap_err();
    assert!(why.contains("too large to mutate"), "{why}");
}

#[test]
fn a_thousand_line_function_is_mutated_and_matches_full_reparsing() {
    let src = long_function(999);
    let ms = execscope::mutate::mutants(&src).unwrap();
    // Sites beyond MAX_SITES are thinned evenly, so the mutants still span the function.
    assert!(
        ms.len() > 500 && ms.len() <= execscope::mutate::MAX_SITES,
        "{} mutants",
        ms.len()
    );
    assert!(ms.first().unwrap().line < 20 && ms.last().unwrap().line > 980);
    // The incremental reparse gives the same verdict as parsing each mutant from scratch: every
    // kept mutant parses on its own.
    for m in ms.iter().step_by(97) {
        assert!(execscope::mutate::parses(&m.code), "{}", m.operator);
    }
}

/// Not a test of speed (no timed assertion): prints how long `mutants` takes on a 999-line
/// function against the old per-mutant work of parsing every mutant from scratch, measured in
/// the same run. `cargo test --release --test core bundle_empty_and_scale:: -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_incremental_reparse() {
    let src = long_function(999);
    let t = std::time::Instant::now();
    let ms = execscope::mutate::mutants(&src).unwrap();
    let incremental = t.elapsed();
    let t = std::time::Instant::now();
    let ok = ms
        .iter()
        .filter(|m| execscope::mutate::parses(&m.code))
        .count();
    let full = t.elapsed();
    assert_eq!(ok, ms.len());
    // The benchmark's own canonicals stay below the site cap (so their mutants are unchanged).
    let tasks =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tasks.jsonl"))
            .unwrap();
    let (read, _) = execscope::build::task::read_tasks(&tasks);
    let most = read
        .iter()
        .map(|t| execscope::mutate::mutants(&t.canonical).map_or(0, |m| m.len()))
        .max()
        .unwrap_or(0);
    println!("most mutants of a data/tasks.jsonl canonical: {most}");
    println!(
        "{} lines, {} mutants: mutants() {:.3} s; full reparse of each mutant alone {:.3} s \
         (ratio {:.1}x)",
        src.lines().count(),
        ms.len(),
        incremental.as_secs_f64(),
        full.as_secs_f64(),
        full.as_secs_f64() / incremental.as_secs_f64()
    );
}
