//! The task files behind the embedded benchmark: every task carries an `independent`
//! implementation (the build ran it against the tests: nothing refused), data/tasks.jsonl is the
//! concatenation of the ten domain files, and no distractor of data/bundle is a signature-only
//! edit the query does not state.

use execscope::build::gates::signature_unstated;
use execscope::build::task::read_tasks;
use execscope::bundle::{load, LoadOptions, DOMAINS};
use execscope::mutate::Mutant;
use std::collections::HashMap;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn every_task_has_an_independent_implementation() {
    let mut concat = String::new();
    for d in DOMAINS {
        let path = root().join(format!("data/tasks/{d}.jsonl"));
        let text = std::fs::read_to_string(&path).unwrap();
        let (tasks, refusals) = read_tasks(&text);
        assert!(refusals.is_empty(), "{}: {refusals:?}", path.display());
        for t in &tasks {
            assert_eq!(t.domain, d, "{}", t.task_id);
            let ind = t.independent.as_deref().unwrap_or_else(|| {
                panic!("{}: {} has no `independent`", path.display(), t.task_id)
            });
            assert!(
                execscope::build::ast::top_level_defs(ind).contains(&t.function_name),
                "{}: independent does not define `{}`",
                t.task_id,
                t.function_name
            );
            assert_ne!(ind.trim(), t.canonical.trim(), "{}", t.task_id);
        }
        concat.push_str(&text);
    }
    let all = std::fs::read_to_string(root().join("data/tasks.jsonl")).unwrap();
    assert!(
        all == concat,
        "data/tasks.jsonl is not the ten domain files concatenated"
    );
}

#[test]
fn the_build_refused_nothing_and_checked_every_independent() {
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("data/bundle/build_report.json")).unwrap(),
    )
    .unwrap();
    for (gate, n) in report["refused_by_gate"].as_object().unwrap() {
        assert_eq!(n, 0, "refused at {gate}");
    }
    assert!(report["refused_by_gate"]
        .as_object()
        .unwrap()
        .contains_key("independent_execution"));
    assert_eq!(report["tasks_with_independent"], report["tasks_kept"]);
    assert_eq!(report["tasks_kept"], report["tasks_read"]);
}

#[test]
fn no_distractor_is_an_unstated_signature_edit() {
    let b = load(&root().join("data/bundle"), &LoadOptions::default()).unwrap();
    let text = std::fs::read_to_string(root().join("data/tasks.jsonl")).unwrap();
    let (tasks, _) = read_tasks(&text);
    let by_id: HashMap<&str, _> = tasks.iter().map(|t| (t.task_id.as_str(), t)).collect();
    let mut checked = 0;
    for d in &b.distractors {
        let q = b.queries.iter().find(|q| q.id == d.query_id).unwrap();
        let t = by_id[q.entry_id.as_str()];
        let m = Mutant {
            operator: d.operator.clone(),
            bug_type: d.bug_type.clone(),
            edit: d.edit.clone(),
            code: String::new(),
            line: 0,
            description: String::new(),
        };
        assert_eq!(
            signature_unstated(t, &m),
            None,
            "{} ({}): {:?}",
            d.corpus_id,
            q.id,
            d.edit
        );
        checked += 1;
    }
    assert_eq!(checked, b.corpus.len() - b.queries.len());
}
