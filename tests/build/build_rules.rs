//! The benchmark rule end to end (docs/formats.md, "The benchmark rule"; real python3, real
//! oracle) on tests/fixtures/formats/humaneval_rules.jsonl, three HumanEval records written so
//! each part of the rule decides a task: `Rule/0` and `Rule/2` are two different functions both
//! named `add` (HumanEval/53 and /85 are), `Rule/1` is a one-line canonical, `return
//! len(string)`, whose only failing single-edit mutant is a catalogue family's (HumanEval/23);
//! `Rule/3` asks for `Rule/0`'s function again with another canonical (`y + x`; MBPP's /49 and
//! /154 are one function twice).

use crate::common;

use execscope::build::{build, BuildOptions, BuildReport, Gate};
use execscope::bundle::{self, CheckStatus, LoadOptions};
use execscope::mutate::{Family, Operators};
use std::path::PathBuf;

fn tasks() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats/humaneval_rules.jsonl")
}

/// (task, gate) of every refusal, in line order.
fn refused(r: &BuildReport) -> Vec<(&str, Gate)> {
    r.refusals
        .iter()
        .map(|x| (x.task_id.as_str(), x.gate))
        .collect()
}

#[test]
fn a_benchmark_file_is_built_under_the_benchmark_rule() {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        reuse: false,
        ..BuildOptions::default()
    };
    let r = build(&tasks(), dir.path(), common::oracle::oracle(), &opts).unwrap();
    assert_eq!(r.rules.name, "benchmark");
    assert_eq!(
        (r.rules.shared_names, r.rules.cost_margin, r.rules.min_keep),
        (true, 2, 1)
    );
    assert_eq!(r.operators, "all");
    assert_eq!(r.tasks_kept, 3, "{r}");
    // Rule/3 passes gate 1 (another canonical), but its canonical and Rule/0's solve each
    // other's tests: gate 5 refuses the later one only.
    let refused = refused(&r);
    assert_eq!(
        refused,
        vec![("Rule/3", Gate::CorpusIntegrity)],
        "{:?}",
        r.refusals
    );
    assert!(
        r.refusals[0]
            .reason
            .starts_with("the canonical of the earlier task `Rule/0` (line 1)")
            || r.refusals[0]
                .reason
                .starts_with("canonical defines `add`, the function of task `Rule/0`"),
        "{}",
        r.refusals[0].reason
    );
    // Gate 5 ran each `add`'s snippets against the other `add`'s tests, both ways; Rule/0's and
    // Rule/2's calls have the other arity, so none of those passes.
    let pairs = |from: &str, to: &str| {
        r.collisions
            .iter()
            .filter(|c| c.task_id == from && c.other_task_id == to)
            .count()
    };
    assert!(
        pairs("Rule/0", "Rule/2") >= 2 && pairs("Rule/2", "Rule/0") >= 2,
        "{:?}",
        r.collisions
    );
    assert!(r
        .collisions
        .iter()
        .filter(|c| c.task_id != "Rule/3" && c.other_task_id != "Rule/3")
        .all(|c| !c.passes_all_tests));
    // `return len(string)`: its distractors come from the catalogue only.
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let q = b.queries.iter().find(|q| q.entry_id == "Rule/1").unwrap();
    assert!(!q.paired.is_empty() && q.paired.len() < 3, "{:?}", q.paired);
    for &row in &q.paired {
        let s = &b.corpus[row];
        let family = s.bug_type.as_deref().and_then(Family::from_name).unwrap();
        assert!(!family.is_paper(), "{family:?}");
    }
    assert_eq!(
        r.queries_with_1 + r.queries_with_2,
        r.queries - r.queries_with_4 - r.queries_with_3
    );
    assert!(
        r.to_string()
            .contains("benchmark rule: tests 1.., shared names"),
        "{r}"
    );
    // The bundle passes every check; fewer than 3 distractors is a warning, not a failure.
    for item in &bundle::check(dir.path()).items {
        assert!(
            item.status != CheckStatus::Fail,
            "{}: {}",
            item.name,
            item.detail
        );
    }
}

#[test]
fn the_paper_families_and_pool_size_can_still_be_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        reuse: false,
        operators: Some(Operators::paper()),
        min_keep: Some(3),
        ..BuildOptions::default()
    };
    let r = build(&tasks(), dir.path(), common::oracle::oracle(), &opts).unwrap();
    assert_eq!(
        (r.rules.name, r.operators.as_str(), r.rules.min_keep),
        ("benchmark", "paper", 3)
    );
    let refused = refused(&r);
    assert!(
        refused.contains(&("Rule/1", Gate::DistractorExecution)),
        "{:?}",
        r.refusals
    );
    let why = &r
        .refusals
        .iter()
        .find(|x| x.task_id == "Rule/1")
        .unwrap()
        .reason;
    assert!(
        why.starts_with("admits only 0 distinct failing mutants, 3 needed"),
        "{why}"
    );
}
