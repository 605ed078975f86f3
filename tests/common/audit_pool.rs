//! A generated pool for the audit's resume and shard tests, made from the first tasks of the
//! embedded task file: per task the canonical solution, the independent one, a wrong one, and a
//! slow one (it sleeps before defining the function, so a run lasts long enough to be killed);
//! half of them import their function from a candidate-named module, which adds the module
//! supply phase.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `execscope audit` over the pool [`write`] makes, before the options a test adds.
pub const ARGS: [&str; 7] = [
    "audit",
    "--pool",
    "pool.jsonl",
    "--tasks",
    "tasks.jsonl",
    "--draws",
    "200",
];

/// Writes `tasks.jsonl` and `pool.jsonl` for the first `n` tasks into `dir`; returns their
/// names relative to `dir` (the audit records them as given).
pub fn write(dir: &Path, n: usize) -> (PathBuf, PathBuf) {
    let all =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tasks.jsonl"))
            .unwrap();
    let mut tasks = String::new();
    let mut pool = String::new();
    for line in all.lines().take(n) {
        tasks.push_str(line);
        tasks.push('\n');
        let t: serde_json::Value = serde_json::from_str(line).unwrap();
        let f = t["function_name"].as_str().unwrap();
        let tests: Vec<&str> = t["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        let canonical = t["canonical"].as_str().unwrap();
        let independent = t["independent"].as_str().unwrap_or(canonical);
        let wrong = format!("def {f}(*args, **kwargs):\n    return None\n");
        let slow = format!("import time\ntime.sleep(0.15)\n{canonical}");
        let own = tests[..tests.len().min(3)].join("\n") + "\n";
        let imported = format!("from solution import {f}\n{own}");
        for (i, (code, selft)) in [
            (canonical, &imported),
            (independent, &own),
            (wrong.as_str(), &imported),
            (slow.as_str(), &own),
        ]
        .into_iter()
        .enumerate()
        {
            pool.push_str(
                &serde_json::json!({
                    "task_id": t["task_id"],
                    "sample_index": i,
                    "code": code,
                    "self_tests": selft,
                })
                .to_string(),
            );
            pool.push('\n');
        }
    }
    std::fs::write(dir.join("tasks.jsonl"), tasks).unwrap();
    std::fs::write(dir.join("pool.jsonl"), pool).unwrap();
    (PathBuf::from("tasks.jsonl"), PathBuf::from("pool.jsonl"))
}

/// The non-hidden files of an audit's output directory (tables, audit.json, audit-view.json)
/// with their bytes, sorted by name; `shard.json` is a partial's, not an audit's.
pub fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && n != "shard.json")
        .map(|n| {
            let b = std::fs::read(dir.join(&n)).unwrap();
            (n, b)
        })
        .collect();
    out.sort();
    out
}

/// Fails unless both directories hold the same files with the same bytes.
pub fn assert_same(a: &Path, b: &Path) {
    let (x, y) = (outputs(a), outputs(b));
    assert!(
        x.len() > 3,
        "too few outputs in {}: {}",
        a.display(),
        x.len()
    );
    super::assert_same_files(&x, &y, a, b);
}
