//! Test-suite strength through the binary on the embedded bundle (its build report holds every
//! mutant the build executed): `report --table suites | suite-tasks | survivors` in every
//! format, `check`'s line, and the refusal on a bundle that was not built here. The per-task
//! counts are recounted independently from build_report.json (a row with outcomes all `pass`
//! survives, any other executed row and every kept distractor is killed).

use crate::common;

use serde_json::Value;
use std::collections::BTreeMap;

use common::run_execscope as run;

fn table(name: &str) -> Value {
    let (code, out, err) = run(&[
        "report",
        "data/bundle",
        "--table",
        name,
        "--format",
        "json",
        "--no-bm25",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("JSON")
}

/// (killed, survived) per task, recounted from data/bundle/build_report.json and the
/// distractor metadata.
fn recount() -> BTreeMap<String, (usize, usize)> {
    let root = common::embedded_bundle();
    let report: Value =
        serde_json::from_slice(&std::fs::read(root.join("build_report.json")).unwrap()).unwrap();
    let mut by: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for d in report["dropped"].as_array().unwrap() {
        let o: Vec<&str> = d["outcomes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        if o.is_empty() {
            continue;
        }
        let e = by
            .entry(d["task_id"].as_str().unwrap().to_string())
            .or_default();
        if o.iter().all(|x| *x == "pass") {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    let queries = std::fs::read_to_string(root.join("data/queries.jsonl")).unwrap();
    for q in queries.lines() {
        let q: Value = serde_json::from_str(q).unwrap();
        let kept = q["paired_distractor_corpus_ids"].as_array().unwrap().len();
        by.entry(q["entry_id"].as_str().unwrap().to_string())
            .or_default()
            .0 += kept;
    }
    by
}

#[test]
fn suite_tables_recount_the_build_report() {
    let want = recount();
    let tasks = table("suite-tasks");
    let rows = tasks["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 332);
    let mut last = f64::NEG_INFINITY;
    for r in rows {
        let id = r["task_id"].as_str().unwrap();
        let (k, s) = (
            r["killed"].as_f64().unwrap() as usize,
            r["survived"].as_f64().unwrap() as usize,
        );
        assert_eq!((k, s), want[id], "{id}");
        // weakest first
        let score = r["mutation_score"].as_f64().unwrap();
        assert!(score >= last, "{id}: {score} after {last}");
        // JSON carries the fraction (the table shows percent): equal up to rounding
        assert!((score - k as f64 / (k + s) as f64).abs() < 1e-12, "{id}");
        last = score;
    }
    let fams = table("suites");
    let rows = fams["rows"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["bug_type"].as_str().unwrap())
        .collect();
    // the paper's six (the embedded bundle's families) in their order, then the total
    let mut want_names = execscope::bundle::model::BUG_TYPES.to_vec();
    want_names.push("overall");
    assert_eq!(names, want_names);
    let overall = rows.last().unwrap();
    let (killed, survived): (usize, usize) =
        want.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
    assert_eq!(overall["killed"].as_f64(), Some(killed as f64));
    assert_eq!(overall["survived"].as_f64(), Some(survived as f64));
    // data/README: "499 pass every test" of the build's 8,485 mutants
    assert_eq!((killed + survived, survived), (8485, 499));
    let rate = overall["survival_rate"].as_f64().unwrap();
    assert!((rate - 499.0 / 8485.0).abs() < 1e-12, "{rate}");
    let survivors = table("survivors");
    assert_eq!(survivors["rows"].as_array().unwrap().len(), 499);
}

#[test]
fn suite_tables_render_in_every_format() {
    for t in ["suites", "suite-tasks", "survivors"] {
        for f in ["table", "csv", "markdown", "latex"] {
            let (code, out, err) = run(&[
                "report",
                "data/bundle",
                "--table",
                t,
                "--format",
                f,
                "--no-bm25",
            ]);
            assert_eq!(code, 0, "{t} {f}: {err}");
            let name = if f == "latex" {
                "off\\_by\\_one"
            } else {
                "off_by_one"
            };
            assert!(out.contains(name), "{t} {f}: {out}");
        }
    }
}

#[test]
fn check_says_suite_strength_and_a_bundle_without_a_build_report_has_none() {
    let (_, out, _) = run(&["check", "data/bundle"]);
    let line = out
        .lines()
        .find(|l| l.contains("suite strength"))
        .expect("a suite strength line");
    assert!(
        line.contains("8485 mutants of 332 tasks: 7986 killed, 499 survive"),
        "{line}"
    );
    assert!(line.contains("weakest: math_numerical_011 17/28"), "{line}");
    let (code, out, _) = run(&["check", "tests/fixtures/tiny"]);
    assert_eq!(code, 0);
    assert!(!out.contains("suite strength"), "{out}");
    let (code, _, err) = run(&["report", "tests/fixtures/tiny", "--table", "suites"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("build_report.json") && err.contains("execscope build"),
        "{err}"
    );
}
