//! `execscope audit --pool … --tasks …` end to end on the hand-counted fixture
//! (tests/fixtures/audit/README.md), and its input errors.

use crate::common;

use serde_json::Value;
use std::path::{Path, PathBuf};

pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/audit")
        .join(name)
}

pub(crate) fn audit(args: &[&str]) -> std::process::Output {
    common::execscope()
        .arg("audit")
        .args(args)
        .args(["--workers", "2", "--draws", "2000"])
        .output()
        .expect("runs")
}

fn row<'a>(doc: &'a Value, table: &str, cohort: &str, pred: &str) -> &'a Value {
    let t = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == table)
        .unwrap();
    t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["cohort"] == cohort && r["predicate"] == pred)
        .unwrap_or_else(|| panic!("{table} {cohort} {pred}"))
}

#[test]
fn generated_pool_end_to_end_with_every_output() {
    let out_dir = tempfile::tempdir().unwrap();
    let pool = fixture("pool.jsonl");
    let tasks = fixture("tasks.jsonl");
    let o = audit(&[
        "--pool",
        pool.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--format",
        "json",
        "--out",
        out_dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let n = |r: &Value, k: &str| r[k].as_f64().unwrap();
    let a = row(&doc, "audit-admission", "p1", "A");
    assert_eq!(
        [
            n(a, "admitted"),
            n(a, "admitted_nonpass"),
            n(a, "excluded_pass"),
            n(a, "tasks_with_admitted_pass")
        ],
        [3.0, 2.0, 1.0, 1.0]
    );
    let a = row(&doc, "audit-admission", "p1", "A*");
    assert_eq!(
        [
            n(a, "admitted"),
            n(a, "admitted_nonpass"),
            n(a, "excluded_pass"),
            n(a, "tasks_with_admitted_pass")
        ],
        [4.0, 2.0, 0.0, 2.0]
    );
    let s = row(&doc, "audit-selection", "p1", "A");
    assert_eq!(
        [
            n(s, "first_pass"),
            n(s, "first_nonpass"),
            n(s, "first_abstain")
        ],
        [0.0, 2.0, 0.0]
    );
    assert_eq!(n(s, "uniform_pass"), 0.5);
    let s = row(&doc, "audit-selection", "p1", "A*");
    assert_eq!(
        [
            n(s, "first_pass"),
            n(s, "first_nonpass"),
            n(s, "first_abstain")
        ],
        [1.0, 1.0, 0.0]
    );
    assert_eq!(n(s, "uniform_pass"), 1.0);
    let s = row(&doc, "audit-selection", "p2", "A");
    assert_eq!(
        [
            n(s, "first_pass"),
            n(s, "first_nonpass"),
            n(s, "first_abstain")
        ],
        [1.0, 0.0, 1.0]
    );
    assert_eq!(n(s, "uniform_abstain"), 1.0);
    // p2's only admitted candidate passes: X/N = 0 with 2 tasks, one of them empty.
    let a = row(&doc, "audit-admission", "p2", "A");
    assert_eq!(n(a, "x_over_n"), 0.0);
    for name in [
        "audit-admission",
        "audit-selection",
        "audit-orders",
        "audit-transitions",
    ] {
        for ext in ["txt", "json", "csv", "md", "tex"] {
            let p = out_dir.path().join(format!("{name}.{ext}"));
            assert!(
                std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false),
                "{}",
                p.display()
            );
        }
    }
    let view: Value = serde_json::from_str(
        &std::fs::read_to_string(out_dir.path().join("audit-view.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(view["tasks"].as_array().unwrap().len(), 4);
    let first = &view["tasks"][0]["candidates"][0];
    assert_eq!(first["badge"], "C S · E* P_b P+");
    assert!(first["self_tests"]
        .as_str()
        .unwrap()
        .starts_with("from solution import add"));
    assert!(std::fs::metadata(out_dir.path().join("audit.json")).is_ok());
}

/// Issue 43 item 3: no input line stops an audit. A malformed row (a lone surrogate escape as
/// Python's `json` writes it, a field of the wrong type, no JSON at all, a repeated sample
/// index) is left out, named on stderr and in audit.json with its file and line, and every
/// other row is audited. A task file that cannot be read, or a pool with no row to audit, is
/// still an error naming file and line.
#[test]
fn bad_inputs_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = fixture("tasks.jsonl");
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let good = std::fs::read_to_string(fixture("pool.jsonl")).unwrap();
    let bad_rows = [
        "{\"task_id\":\"T/1\",\"sample_index\":0,\"code\":\"def add(a, b):\\n    return 0\\n\",\"self_tests\":\"\",\"profile\":\"p1\"}",
        "{\"task_id\":\"T/1\",\"sample_index\":7,\"code\":\"x = '\\ud800'\",\"self_tests\":\"\",\"profile\":\"p1\"}",
        "{\"task_id\":\"T/1\",\"sample_index\":\"8\",\"code\":\"\",\"self_tests\":\"\",\"profile\":\"p1\"}",
        "{not json",
        "{\"task_id\":\"T/9\",\"sample_index\":0,\"code\":\"\",\"self_tests\":\"\",\"profile\":\"p1\"}",
    ];
    let n_good = good.lines().count();
    let pool = write("pool.jsonl", &format!("{good}{}\n", bad_rows.join("\n")));
    let out = dir.path().join("out");
    let o = audit(&[
        "--pool",
        pool.to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
        "--format",
        "json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for (i, want) in [
        "duplicate sample_index 0 of task T/1 in cohort p1 (first at line 1",
        "lone surrogate escape (\\ud800",
        "invalid type: string \"8\"",
        "bad candidate row",
        "task T/9 is not in the task file",
    ]
    .iter()
    .enumerate()
    {
        let at = format!("pool.jsonl:{}: left out of the audit: ", n_good + 1 + i);
        let line = err
            .lines()
            .find(|l| l.contains(&at))
            .unwrap_or_else(|| panic!("{at} in {err}"));
        assert!(line.contains(want), "{want:?} not in {line}");
    }
    // Every other row is audited as without the bad ones.
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = row(&doc, "audit-admission", "p1", "A");
    assert_eq!(a["candidates"], 4, "{a}");
    let rejected = doc["rejected_rows"].as_array().unwrap();
    assert_eq!(rejected.len(), 5);
    assert_eq!(rejected[0]["line"], n_good + 1);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("audit.json")).unwrap()).unwrap();
    assert_eq!(written["rejected_rows"], doc["rejected_rows"]);

    let cases = [
        (
            write("unknown.jsonl", &(bad_rows[4].to_string() + "\n")),
            "unknown.jsonl:1: task T/9 is not in the task file",
        ),
        (
            write("broken.jsonl", "{not json\n"),
            "broken.jsonl:1: bad candidate row",
        ),
    ];
    for (pool, want) in cases {
        let o = audit(&[
            "--pool",
            pool.to_str().unwrap(),
            "--tasks",
            tasks.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(want), "{want:?} not in {err}");
    }
    let bad_tasks = write(
        "tasks.jsonl",
        "{\"task_id\":\"x\",\"function_name\":\"f\"}\n",
    );
    let o = audit(&[
        "--pool",
        fixture("pool.jsonl").to_str().unwrap(),
        "--tasks",
        bad_tasks.to_str().unwrap(),
    ]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("tasks.jsonl:1: task x has no base_tests"));
    let o = audit(&[
        "--system",
        "x",
        "--pool",
        fixture("pool.jsonl").to_str().unwrap(),
        "--tasks",
        tasks.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
}

/// Ctrl-C (SIGINT) during an audit says how many executed pairs the journal kept and that the
/// same command resumes; the same command then reuses them.
#[test]
fn ctrl_c_says_what_the_journal_kept_and_the_same_command_resumes() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    common::audit_pool::write(dir, 6);
    let cache = dir.join("cache");
    let cmd = || {
        let mut c = common::execscope();
        c.current_dir(dir)
            .env("EXECSCOPE_CACHE_DIR", &cache)
            .args(common::audit_pool::ARGS)
            .args(["--timeout", "3", "--workers", "2"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        c
    };
    let mut child = cmd().spawn().unwrap();
    // Interrupted once the journal holds a pair (read off the file, never timed).
    let journal = |root: &Path| -> usize {
        std::fs::read_dir(root.join("audit-journals"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| {
                std::fs::read_to_string(e.path().join(".execscope-build-memo.jsonl"))
                    .map(|t| t.lines().count())
                    .unwrap_or(0)
            })
            .sum()
    };
    while journal(&cache) == 0 {
        if child.try_wait().unwrap().is_some() {
            assert!(
                journal(&cache) > 0,
                "the audit ended without journaling a pair under the cache directory"
            );
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        common::skip(
            "cli::audit_cli::ctrl_c_says_what_the_journal_kept_and_the_same_command_resumes",
            "the audit finished before the signal arrived",
        );
        return;
    }
    assert_eq!(o.status.code(), Some(130), "{err}");
    let kept: usize = err
        .split("interrupted: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no count of kept pairs: {err}"));
    assert!(kept >= 1, "{err}");
    assert!(err.contains("run the same command again"), "{err}");
    let again = cmd().output().unwrap();
    let err2 = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err2}");
    let reused: usize = err2
        .split("resumed: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    assert!(reused >= kept, "kept {kept}, reused {reused}: {err2}");
}
