//! EvalPlus reference outputs shared by every audit on the machine (issue 46 item 4): computed
//! once, read back by later audits whatever their pool or output directory, a result with a
//! timeout shared only once a second run confirms it, `--fresh-references` bypassing the memo.

use crate::common;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn formats_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
}

/// Issue 46 item 4: an EvalPlus file's reference outputs are computed once per machine, not per
/// audit: the first audit adds them to the shared memo in the cache directory, another audit
/// (another output directory, so no journal to resume from) reads every one of them back and
/// executes only the candidates, with the same bytes out; `--fresh-references` computes them
/// again.
#[test]
fn reference_outputs_are_computed_once_per_machine() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run = |name: &str, extra: &[&str]| -> (std::process::Output, Value) {
        let out = dir.path().join(name);
        let o = common::execscope()
            .env("EXECSCOPE_CACHE_DIR", &cache)
            .arg("audit")
            .arg("--pool")
            .arg(formats_fixture("evalplus_small_samples.jsonl"))
            .arg("--tasks")
            .arg(formats_fixture("evalplus_small.jsonl"))
            .args([
                "--format",
                "json",
                "--workers",
                "2",
                "--draws",
                "2000",
                "--out",
            ])
            .arg(&out)
            .args(extra)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let m: Value = serde_json::from_slice(
            &std::fs::read(out.join("evalplus_small_samples_eval_results.json")).unwrap(),
        )
        .unwrap();
        (o, m)
    };
    let memo = cache.join("evalplus-reference-outputs.jsonl");
    let (first, first_ep) = run("first", &[]);
    let err = String::from_utf8_lossy(&first.stderr);
    let rows = std::fs::read_to_string(&memo).unwrap().lines().count();
    // evalplus_small.jsonl: five tasks, a job each for the heads of their outputs, and one for
    // the rest of Mbpp/9001's 314-character output. Its third output (315,374 characters, not
    // read either way) can run out of time under load: a result the load could have made is not
    // shared, so that job is then computed again by the next run.
    assert!(rows == 5 || rows == 6, "{rows}: {err}");
    assert!(
        err.contains(&format!(
            "reference outputs: 0 jobs read from the shared memo, {rows} computed"
        )),
        "{err}"
    );
    let (second, second_ep) = run("second", &[]);
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains(&format!(
            "reference outputs: {rows} jobs read from the shared memo"
        )),
        "{err}"
    );
    if rows == 6 {
        assert!(
            !err.contains("reference outputs: 0/"),
            "nothing executed for them: {err}"
        );
        assert_eq!(second.stdout, first.stdout);
    }
    assert_eq!(second_ep, first_ep);
    let after = std::fs::read_to_string(&memo).unwrap();
    // Fresh: computed again, the memo untouched, the same tables.
    let (fresh, fresh_ep) = run("fresh", &["--fresh-references"]);
    let err = String::from_utf8_lossy(&fresh.stderr);
    assert!(!err.contains("shared memo"), "{err}");
    assert_eq!(std::fs::read_to_string(&memo).unwrap(), after);
    assert_eq!(fresh_ep, first_ep);
}

/// A reference that runs out of time on an input (2 s against a 1 s budget) leaves that input
/// out, the same on every run here; the first run's result waits in the unsettled file, the
/// second run confirms it and shares it, the third computes nothing.
#[test]
fn a_reference_timeout_is_shared_once_a_second_run_confirms_it() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let tasks = dir.path().join("slow_reference.jsonl");
    let canonical =
        "\nimport time\ndef f(x):\n    if x == 2:\n        time.sleep(2)\n    return x + 1\n";
    let record = serde_json::json!({
        "task_id": "Mbpp/9100", "prompt": "", "entry_point": "f",
        "canonical_solution": canonical,
        "base_input": [[1], [3]], "plus_input": [[2], [4]], "atol": 0,
    });
    std::fs::write(&tasks, format!("{record}\n")).unwrap();
    let pool = dir.path().join("samples.jsonl");
    let sample = "def f(x):\n    return x + 1\n";
    std::fs::write(
        &pool,
        format!(
            "{}\n",
            serde_json::json!({"task_id": "Mbpp/9100", "solution": sample})
        ),
    )
    .unwrap();
    let run = |name: &str| -> (String, Value) {
        let out = dir.path().join(name);
        let o = common::execscope()
            .env("EXECSCOPE_CACHE_DIR", &cache)
            .arg("audit")
            .arg("--pool")
            .arg(&pool)
            .arg("--tasks")
            .arg(&tasks)
            .args([
                "--format",
                "json",
                "--workers",
                "1",
                "--timeout",
                "1",
                "--out",
            ])
            .arg(&out)
            .output()
            .expect("runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        (err, serde_json::from_slice(&o.stdout).unwrap())
    };
    let memo = cache.join("evalplus-reference-outputs.jsonl");
    let unsettled = cache.join("evalplus-reference-outputs.unsettled.jsonl");
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let (err, first) = run("first");
    assert!(first
        .to_string()
        .contains("plus input 1 left out: the reference runs out of time"));
    assert_eq!((lines(&memo), lines(&unsettled)), (0, 1), "{err}");
    let (err, second) = run("second");
    assert!(
        err.contains("0 jobs read from the shared memo, 1 computed"),
        "{err}"
    );
    assert_eq!((lines(&memo), lines(&unsettled)), (1, 1), "{err}");
    let (err, third) = run("third");
    assert!(
        err.contains("1 jobs read from the shared memo, 0 computed"),
        "{err}"
    );
    assert!(!err.contains("reference outputs: 0/"), "{err}");
    assert_eq!(first, second);
    assert_eq!(second, third);
}
