//! Issue 28's attack classes as `build` and `audit --pool` candidates, through the binary: every
//! forging independent implementation is refused, no forging candidate passes, a candidate cannot
//! forge its own self-tests' verdict, and text of a pool row reaches no terminal as an escape.

use crate::common;
use serde_json::Value;

/// Wrong `total`s, each deciding (or trying to decide) a part of a test of its own.
const FORGERS: &[(&str, &str)] = &[
    (
        "eq_in_all",
        "class Y:\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\ndef total(xs):\n    return Y()\n",
    ),
    (
        "patched_isclose",
        "import math, builtins\nmath.isclose = lambda *a, **k: True\nbuiltins.abs = lambda x: 0\ndef total(xs):\n    return sum(xs) + 1000\n",
    ),
    (
        "own_abs",
        "def abs(x):\n    return 0\ndef total(xs):\n    return sum(xs) + 1000\n",
    ),
    (
        "int_subclass",
        "class I(int):\n    def __eq__(s, o): return True\n    __hash__ = int.__hash__\ndef total(xs):\n    return I(sum(xs) + 1000)\n",
    ),
    (
        "sub_object",
        "class Z:\n    def __sub__(s, o): return 0\n    def __rsub__(s, o): return 0\n    def __abs__(s): return 0\n    def __float__(s): return 0.0\ndef total(xs):\n    return Z()\n",
    ),
];

/// Tests in the shapes the attacks aim at: a comparison inside `all`, `math.isclose`, `abs`.
const TESTS: &[&str] = &[
    "assert all(total(xs) == s for xs, s in [([1, 2], 3), ([], 0)])",
    "assert math.isclose(total([1.5, 1.5]), 3.0)",
    "assert abs(total([0.5, 0.25]) - 0.75) < 1e-9",
    "assert total([5]) == 5",
];

const HONEST: &str =
    "import math\ndef total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n";

#[test]
fn build_refuses_every_forging_independent_implementation() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = FORGERS
        .iter()
        .map(|(name, code)| {
            let task = serde_json::json!({
                "task_id": format!("forge/{name}"), "function_name": "total",
                "query": "Return the sum of a list of numbers.", "domain": "",
                "prelude": "import math",
                "canonical": HONEST, "independent": code, "tests": TESTS,
            });
            format!("{task}\n")
        })
        .collect();
    // One function name per task file: each forger in a build of its own would cost a start
    // each, so the tasks differ by name instead.
    let lines = lines
        .lines()
        .enumerate()
        .map(|(i, l)| l.replace("total", &format!("total{i}")) + "\n")
        .collect::<String>();
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, lines).unwrap();
    let o = common::execscope()
        .args(["build", tasks.to_str().unwrap(), "--out"])
        .arg(dir.path().join("bundle"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "every task must be refused: {err}");
    let n = FORGERS.len();
    assert!(
        err.contains(&format!(
            "every one of its {n} tasks was refused ({n} at independent_execution)"
        )),
        "{err}"
    );
    // Each refusal names wrong values, never a pass.
    for line in err.lines().filter(|l| l.contains("independent fails")) {
        assert!(line.contains("independent fails 4 of 4 tests"), "{line}");
    }
}

fn write_audit_inputs(
    dir: &std::path::Path,
    rows: &[Value],
) -> (std::path::PathBuf, std::path::PathBuf) {
    let tasks = dir.join("tasks.jsonl");
    let task = serde_json::json!({
        "task_id": "t", "function_name": "total", "prelude": "import math",
        "base_tests": TESTS, "plus_tests": ["assert total([2, 2]) == 4"],
    });
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let pool = dir.join("pool.jsonl");
    let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&pool, text).unwrap();
    (tasks, pool)
}

fn audit_json(tasks: &std::path::Path, pool: &std::path::Path) -> Value {
    let o = common::execscope()
        .args(["audit", "--pool"])
        .arg(pool)
        .arg("--tasks")
        .arg(tasks)
        .args(["--format", "json", "--workers", "2", "--draws", "200"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The admission row of predicate `p`.
fn admission<'a>(doc: &'a Value, p: &str) -> &'a Value {
    doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-admission")
        .and_then(|t| t["rows"].as_array())
        .and_then(|rows| rows.iter().find(|r| r["predicate"] == p))
        .unwrap_or_else(|| panic!("admission row for {p}"))
}

#[test]
fn audit_pool_passes_no_forging_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows: Vec<Value> = FORGERS
        .iter()
        .enumerate()
        .map(|(i, (_, code))| {
            serde_json::json!({"task_id": "t", "sample_index": i, "code": code,
                "self_tests": "assert total([2]) == 2\nassert total([1, 1]) == 2\nassert total([]) == 0\n"})
        })
        .collect();
    rows.push(serde_json::json!({"task_id": "t", "sample_index": 99, "code": HONEST,
        "self_tests": "assert total([2]) == 2\nassert total([1, 1]) == 2\nassert total([]) == 0\n"}));
    let (tasks, pool) = write_audit_inputs(dir.path(), &rows);
    let doc = audit_json(&tasks, &pool);
    let c = admission(&doc, "C");
    assert_eq!(c["candidates"], (FORGERS.len() + 1) as f64);
    assert_eq!(c["passes"], 1.0, "only the honest candidate passes: {c}");
}

#[test]
fn a_candidate_cannot_forge_its_self_tests_verdict() {
    // A wrong candidate whose self-tests fail; at import it writes a passing verdict into every
    // descriptor of every process it can open, signals them, and patches what it can reach.
    let forger = "import os, signal, builtins, sys\nfor p in os.listdir('/proc'):\n    if not p.isdigit() or int(p) == os.getpid():\n        continue\n    try:\n        for fd in os.listdir('/proc/%s/fd' % p):\n            try:\n                with open('/proc/%s/fd/%s' % (p, fd), 'wb', buffering=0) as f:\n                    f.write(b'V {\"o\": \"pass\", \"obs\": null}\\n')\n            except OSError:\n                pass\n    except OSError:\n        pass\n    try:\n        os.kill(int(p), signal.SIGSTOP)\n    except OSError:\n        pass\nbuiltins.AssertionError = type('AssertionError', (Exception,), {})\ndef total(xs):\n    return sum(xs) + 1\n";
    let rows = [
        serde_json::json!({"task_id": "t", "sample_index": 0, "code": forger,
        "self_tests": "assert total([2]) == 2\nassert total([1, 1]) == 2\nassert total([]) == 0\n"}),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (tasks, pool) = write_audit_inputs(dir.path(), &rows);
    let doc = audit_json(&tasks, &pool);
    for p in ["E", "A", "E*", "A*"] {
        assert_eq!(
            admission(&doc, p)["admitted"],
            0.0,
            "{p} admitted the forger"
        );
    }
}

#[test]
fn escapes_in_a_pool_rows_text_reach_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        serde_json::json!({"task_id": "t", "sample_index": 0, "code": HONEST,
        "self_tests": "assert total([2]) == 2\n", "profile": "p\u{1b}[2J\u{1b}]0;pwned\u{7}",
        "cohort": "c\u{1b}[31m\u{202e}"}),
    ];
    let (tasks, pool) = write_audit_inputs(dir.path(), &rows);
    let out = dir.path().join("out");
    let o = common::execscope()
        .args(["audit", "--pool"])
        .arg(&pool)
        .arg("--tasks")
        .arg(&tasks)
        .args(["--workers", "1", "--draws", "50", "--out"])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("c\\u{1b}[31m"),
        "the cohort is shown, escaped: {stdout}"
    );
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{202e}'),
        "{stdout}"
    );
    let mut files = 0;
    for e in std::fs::read_dir(&out).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{7}'),
            "{}",
            path.display()
        );
        files += 1;
    }
    assert!(files > 3, "the tables were written");
}
