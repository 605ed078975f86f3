//! A forged pass is not recorded through the entry points that run untrusted code: `build` (the
//! independent-implementation gate, through the binary) and `audit --pool` (the binary, JSON
//! output). Both reach the same oracle (harness in the sandbox, judge outside it); the forger is a
//! wrong `total` whose return value claims equality with anything.

use serde_json::Value;
mod common;

/// Wrong (off by 1000) but its result says it equals whatever it is compared with.
const FORGER: &str = "class I(int):\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    __hash__ = int.__hash__\ndef total(xs):\n    return I(sum(xs) + 1000)\n";

#[test]
fn build_refuses_a_forging_independent_implementation() {
    let dir = tempfile::tempdir().unwrap();
    let task = serde_json::json!({
        "task_id": "forge/total",
        "function_name": "total",
        "query": "Return the sum of a list of integers.",
        "domain": "",
        "canonical": "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
        "independent": FORGER,
        "tests": ["assert total([1, 2]) == 3", "assert total([]) == 0", "assert total([5]) == 5"],
    });
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let out = dir.path().join("bundle");
    let o = common::execscope()
        .args([
            "build",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the only task must be refused");
    assert!(
        err.contains("independent fails 3 of 3 tests"),
        "refused for the forger's wrong values: {err}"
    );
}

#[test]
fn audit_pool_does_not_pass_a_forging_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let pool = dir.path().join("pool.jsonl");
    std::fs::write(
        &tasks,
        "{\"task_id\": \"t\", \"function_name\": \"total\", \"base_tests\": [\"assert total([1, 2]) == 3\", \"assert total([]) == 0\"]}\n",
    )
    .unwrap();
    let honest = "def total(xs):\n    return sum(xs)\n";
    let rows: Vec<String> = [FORGER, honest]
        .iter()
        .enumerate()
        .map(|(i, code)| {
            serde_json::json!({"task_id": "t", "sample_index": i, "code": code,
                "self_tests": "assert total([2]) == 2\n"})
            .to_string()
        })
        .collect();
    std::fs::write(&pool, rows.join("\n") + "\n").unwrap();
    let o = common::execscope()
        .args(["audit", "--pool", pool.to_str().unwrap(), "--tasks"])
        .arg(&tasks)
        .args(["--format", "json", "--workers", "2", "--draws", "200"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Two candidates, one pass: the honest one (the forger's values are wrong).
    let row = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-admission")
        .and_then(|t| t["rows"].as_array())
        .and_then(|rows| rows.iter().find(|r| r["predicate"] == "C"))
        .expect("admission row for C");
    assert_eq!(row["candidates"], 2.0);
    assert_eq!(row["passes"], 1.0, "{row}");
}
