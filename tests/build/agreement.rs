//! Agreement with the field's own harnesses, as measurements (`#[ignore]`: run on demand, they
//! need files that are not in the repository and skip by name without them; docs/formats.md,
//! "Agreement", has the numbers and every disagreement explained).
//!
//! * HumanEval: real model-written completions with the verdicts OpenAI's human-eval gave them
//!   (its `samples.jsonl_results.jsonl` files: `task_id`, `completion`, `passed`, `result`),
//!   judged here against `HumanEval.jsonl.gz`'s own `check` functions. Put the results files in
//!   `$EXECSCOPE_AGREEMENT_DIR/humaneval/` (default `target/agreement/humaneval/`) and run
//!   `cargo test --release --test build -- --ignored agreement_humaneval --nocapture`.

use crate::common;
use execscope::audit::generated::{self, PoolRow};
use execscope::audit::Mode;
use execscope::build::formats::pyjson::{self, J};
use execscope::build::formats::{self, audit};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Where the results files of the agreement measurements are looked for.
fn agreement_dir() -> PathBuf {
    match std::env::var_os("EXECSCOPE_AGREEMENT_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/agreement"),
    }
}

/// One completion with the reference harness's verdict.
struct Judged {
    task_id: String,
    completion: String,
    passed: bool,
    result: String,
}

/// The distinct (task, completion) pairs of every human-eval results file in `dir`, with their
/// verdict, and how many pairs were seen with both verdicts (human-eval's own run is not
/// deterministic where a completion is near its time limit: such a pair has no reference
/// verdict and is left out of the comparison, counted).
fn results(dir: &std::path::Path) -> (Vec<Judged>, usize) {
    let mut out: BTreeMap<(String, String), (bool, String)> = BTreeMap::new();
    let mut conflicting = std::collections::BTreeSet::new();
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with("results.jsonl"))
        .collect();
    names.sort();
    for p in names {
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).to_string();
        for line in text.lines() {
            let Ok(r) = pyjson::parse(line) else { continue };
            let (Some(t), Some(c), Some(&J::Bool(passed)), Some(res)) = (
                r.get("task_id").and_then(J::as_text),
                r.get("completion").and_then(J::as_text),
                r.get("passed"),
                r.get("result").and_then(J::as_text),
            ) else {
                continue;
            };
            let key = (t, c);
            match out.get(&key) {
                Some((p, _)) if *p != passed => {
                    conflicting.insert(key.clone());
                }
                Some(_) => {}
                None => {
                    out.insert(key, (passed, res));
                }
            }
        }
    }
    for k in &conflicting {
        out.remove(k);
    }
    let judged = out
        .into_iter()
        .map(|((task_id, completion), (passed, result))| Judged {
            task_id,
            completion,
            passed,
            result,
        })
        .collect();
    (judged, conflicting.len())
}

/// human-eval's own program for a completion (`prompt + completion + "\n" + test + "\n" +
/// "check(entry_point)"`, as its `check_correctness` builds it), keyed by task id.
fn human_eval_programs(tasks: &std::path::Path) -> BTreeMap<String, (String, String, String)> {
    let recs = formats::read_records(tasks, Some(formats::Format::HumanEval)).unwrap();
    recs.items
        .iter()
        .map(|(_, r)| {
            let r = r.as_ref().unwrap();
            let get = |k: &str| r.get(k).and_then(J::as_text).unwrap();
            (
                get("task_id"),
                (get("prompt"), get("test"), get("entry_point")),
            )
        })
        .collect()
}

/// Our verdict (P_b, and the first failing outcome) for each completion, by index.
fn judged_here(tasks: &std::path::Path, judged: &[Judged]) -> BTreeMap<i64, (bool, String)> {
    let mut run = crate::formats::run;
    let specs = audit::read_audit_tasks(tasks, Some(formats::Format::HumanEval), &mut run)
        .unwrap()
        .specs;
    let rows: Vec<PoolRow> = judged
        .iter()
        .enumerate()
        .map(|(i, j)| PoolRow {
            line: i + 1,
            task_id: j.task_id.clone(),
            sample_index: i as i64,
            code: j.completion.clone(),
            self_tests: String::new(),
            cohort: "all".into(),
            whole: false,
            ..PoolRow::default()
        })
        .collect();
    let pools = generated::build(
        &specs,
        &rows,
        &common::oracle::run,
        Mode::Generated {
            pool: "human-eval results".into(),
            tasks: tasks.display().to_string(),
        },
    )
    .unwrap();
    let mut ours = BTreeMap::new();
    for t in &pools.cohorts[0].tasks {
        for c in &t.candidates {
            let i: i64 = c.label.trim_start_matches("sample ").parse().unwrap();
            ours.insert(i, (c.evidence[4].ok, c.evidence[4].reason.clone()));
        }
    }
    ours
}

/// human-eval's own program of each completion run here, whole, in the sandbox (module-level
/// code is the candidate's side: the check runs there, as in human-eval): whether it ran to the
/// end, and the outcome when not. This tells a verdict the results file records but this
/// interpreter does not reproduce (a Python version, a package) from a judging difference.
fn rerun_here(tasks: &std::path::Path, judged: &[Judged]) -> Vec<(bool, String)> {
    let programs = human_eval_programs(tasks);
    let jobs: Vec<execscope::oracle::Job> = judged
        .iter()
        .map(|j| {
            let (prompt, test, entry) = &programs[&j.task_id];
            let program = format!("{prompt}{}\n{test}\ncheck({entry})\n", j.completion);
            execscope::oracle::Job::new(program, vec!["assert True\n".into()]).entry(entry)
        })
        .collect();
    common::oracle::run(&jobs)
        .unwrap()
        .into_iter()
        .map(|r| {
            let o = &r.outcomes[0];
            (o.is_pass(), o.to_string())
        })
        .collect()
}

#[test]
#[ignore]
fn agreement_humaneval() {
    let dir = agreement_dir().join("humaneval");
    let Some(tasks) = common::require_data("agreement_humaneval", "sources/HumanEval.jsonl.gz")
    else {
        return;
    };
    if !dir.is_dir() {
        common::skip(
            "agreement_humaneval",
            &format!("needs human-eval results files in {}", dir.display()),
        );
        return;
    }
    let (judged, conflicting) = results(&dir);
    assert!(
        judged.len() >= 1500,
        "{} distinct completions",
        judged.len()
    );
    let t0 = std::time::Instant::now();
    let ours = judged_here(&tasks, &judged);
    let secs = t0.elapsed().as_secs_f64();
    let rerun = rerun_here(&tasks, &judged);
    // (agree with the file, with human-eval's program here; passes here the file / the rerun fail)
    let (mut agree, mut agree_rerun, mut pass_file_fails, mut pass_rerun_fails) = (0, 0, 0, 0);
    for (i, j) in judged.iter().enumerate() {
        let (pass, why) = &ours[&(i as i64)];
        let (re_pass, re_why) = &rerun[i];
        agree += usize::from(*pass == j.passed);
        agree_rerun += usize::from(pass == re_pass);
        pass_file_fails += usize::from(*pass && !j.passed);
        pass_rerun_fails += usize::from(*pass && !re_pass);
        if *pass != j.passed || pass != re_pass {
            let here = if *pass { "pass" } else { why.as_str() };
            let again = if *re_pass { "pass" } else { re_why.as_str() };
            eprintln!(
                "DISAGREE {}: here {here}; human-eval's file: {}; human-eval's program here: \
                 {again}\n{}\n",
                j.task_id, j.result, j.completion
            );
        }
    }
    let n = judged.len();
    let tasks_seen = judged
        .iter()
        .map(|j| j.task_id.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let passes = judged.iter().filter(|j| j.passed).count();
    eprintln!(
        "agreement with the results files: {agree} of {n} completions ({:.4}); passes here the \
         file fails: {pass_file_fails}; agreement with human-eval's program run here: \
         {agree_rerun} of {n} ({:.4}); passes here it fails: {pass_rerun_fails}; {passes} passed \
         in the files; {tasks_seen} tasks; {conflicting} completions left out (two verdicts in \
         the files); judged here in {secs:.0} s",
        agree as f64 / n as f64,
        agree_rerun as f64 / n as f64,
    );
    assert_eq!(pass_rerun_fails, 0, "a pass human-eval's own program fails");
    assert!(agree_rerun as f64 >= 0.999 * n as f64);
    // Every pass the file calls a failure is one human-eval's own program passes here too: the
    // file's verdict came from another interpreter (docs/formats.md, "Agreement").
    assert!(agree as f64 >= 0.995 * n as f64);
}
