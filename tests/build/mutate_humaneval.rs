//! `mutants()` over every HumanEval canonical of the external data (skipped by name where the
//! file is absent), under the paper's six and under the whole catalogue: no error, and every
//! mutant parses, matches the original and splices back, and is labelled with its family.
//! Run with `--nocapture` to see the per-bug-type counts.

use crate::common;

use execscope::bundle::model::BUG_TYPES;
use execscope::mutate::{mutants_with, parses, Family, Operators};
use std::collections::{BTreeMap, HashSet};

#[test]
fn every_humaneval_canonical_mutates_cleanly() {
    let Some(data) = common::require_data(
        "every_humaneval_canonical_mutates_cleanly",
        "humaneval-tasks.jsonl",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(&data).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    for ops in [Operators::paper(), Operators::all()] {
        mutate_all(&text, &data, &ops);
    }
}

fn mutate_all(text: &str, data: &std::path::Path, ops: &Operators) {
    let mut per_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut per_operator: BTreeMap<String, usize> = BTreeMap::new();
    let (mut tasks, mut total, mut with_four_types) = (0, 0, 0);
    let mut without: Vec<String> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{} line {}: {e}", data.display(), n + 1));
        let id = row["task_id"].as_str().unwrap_or("?").to_string();
        let src = row["canonical"].as_str().expect("canonical string");
        let ms = mutants_with(src, ops).unwrap_or_else(|e| panic!("{id}: {e}"));
        if ms.is_empty() {
            // e.g. HumanEval/16 `return len(set(string.lower()))` has no site of any family
            without.push(id.clone());
        }
        let mut codes = HashSet::new();
        for m in &ms {
            assert_eq!(&src[m.edit.start..m.edit.end], m.edit.before, "{id} {m:?}");
            let spliced = format!(
                "{}{}{}",
                &src[..m.edit.start],
                m.edit.after,
                &src[m.edit.end..]
            );
            assert_eq!(spliced, m.code, "{id} {m:?}");
            assert!(parses(&m.code), "{id}: {}", m.code);
            assert!(
                m.code != src && codes.insert(m.code.clone()),
                "{id}: duplicate"
            );
            let family = Family::from_name(&m.bug_type);
            assert!(
                family.is_some_and(|f| ops.contains(f)),
                "{id}: {} under {ops}",
                m.bug_type
            );
            assert!(m.description.ends_with('.') && m.line >= 1);
            *per_type.entry(m.bug_type.clone()).or_default() += 1;
            *per_operator.entry(m.operator.clone()).or_default() += 1;
        }
        let types: HashSet<&str> = ms.iter().map(|m| m.bug_type.as_str()).collect();
        if types.len() >= 4 {
            with_four_types += 1;
        }
        tasks += 1;
        total += ms.len();
    }
    eprintln!("{ops}: {tasks} canonicals, {total} mutants, {with_four_types} with >= 4 bug types");
    for (t, c) in &per_type {
        eprintln!("  {t:<24} {c}");
    }
    eprintln!("without any mutant: {without:?}");
    eprintln!("operators: {per_operator:?}");
    assert!(tasks > 100);
    for t in BUG_TYPES {
        assert!(
            per_type.get(t).copied().unwrap_or(0) > 0,
            "no {t} mutant at all"
        );
    }
}
