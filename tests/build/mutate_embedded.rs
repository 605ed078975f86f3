//! The default operator set (the paper's six) against the embedded benchmark: for every task of
//! data/tasks.jsonl, the mutant list is byte-identical to the one the code generated before the
//! catalogue grew (tests/fixtures/paper_mutants.sha256, one SHA-256 of the JSON list per task,
//! written from that code), and it is exactly the set of mutants data/bundle's build report
//! accounts for (kept distractors plus every dropped row), so the bundle is what this code
//! builds.

use execscope::build::task::read_task_file;
use execscope::mutate::{mutants, mutants_with, Family, Mutant, Operators};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every embedded task's (task id, paper mutants), in task-file order.
fn paper_mutants() -> Vec<(String, Vec<Mutant>)> {
    let (tasks, refusals) = read_task_file(&root().join("data/tasks.jsonl")).expect("task file");
    assert!(refusals.is_empty(), "{refusals:?}");
    assert_eq!(tasks.len(), 332);
    tasks
        .iter()
        .map(|t| {
            let ms = mutants(&t.canonical).unwrap_or_else(|e| panic!("{}: {e}", t.task_id));
            (t.task_id.clone(), ms)
        })
        .collect()
}

fn digest(ms: &[Mutant]) -> String {
    let json = serde_json::to_vec(ms).expect("mutants serialise");
    Sha256::digest(&json)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn default_operator_set_generates_the_same_mutants_for_every_embedded_task() {
    let fixture = root().join("tests/fixtures/paper_mutants.sha256");
    let want = std::fs::read_to_string(&fixture).unwrap_or_default();
    let got: String = paper_mutants()
        .iter()
        .map(|(id, ms)| format!("{}  {id}  {}\n", digest(ms), ms.len()))
        .collect();
    if got != want {
        let diff: Vec<String> = got
            .lines()
            .zip(want.lines().chain(std::iter::repeat("")))
            .filter(|(g, w)| g != w)
            .take(10)
            .map(|(g, w)| format!("now    {g}\nbefore {w}"))
            .collect();
        panic!(
            "the paper operators' mutants changed against {}:\n{}",
            fixture.display(),
            diff.join("\n")
        );
    }
}

/// (operator, line, before, after): how the build report names a mutant. Two mutants of one line
/// can share it (two `|` on a line), so the report is compared as a multiset.
type Key = (String, usize, String, String);
type Counts = BTreeMap<Key, usize>;

#[test]
fn default_operator_set_generates_what_the_embedded_build_report_accounts_for() {
    let path = root().join("data/bundle/build_report.json");
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("build report")).expect("json");
    let meta = std::fs::read_to_string(root().join("data/bundle/data/distractor_metadata.jsonl"))
        .expect("distractor metadata");
    let queries =
        std::fs::read_to_string(root().join("data/bundle/data/queries.jsonl")).expect("queries");
    let task_of: BTreeMap<String, String> = queries
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("query row"))
        .map(|q| {
            let s = |k: &str| q[k].as_str().expect("string").to_string();
            (s("query_id"), s("entry_id"))
        })
        .collect();
    let mut accounted: BTreeMap<String, Counts> = BTreeMap::new();
    let src = |k: &str, v: &serde_json::Value| v[k].as_str().expect(k).to_string();
    for d in report["dropped"].as_array().expect("dropped") {
        let key = (
            src("operator", d),
            d["line"].as_u64().expect("line") as usize,
            src("before", d),
            src("after", d),
        );
        *accounted
            .entry(src("task_id", d))
            .or_default()
            .entry(key)
            .or_default() += 1;
    }
    let by_task: BTreeMap<String, Vec<Mutant>> = paper_mutants().into_iter().collect();
    for line in meta.lines() {
        let m: serde_json::Value = serde_json::from_str(line).expect("metadata row");
        let task = &task_of[m["query_id"].as_str().expect("query id")];
        let e = &m["edit"];
        let found = by_task[task]
            .iter()
            .find(|x| {
                x.operator == m["operator"]
                    && x.edit.start as u64 == e["start"].as_u64().unwrap_or(u64::MAX)
                    && x.edit.after == e["after"]
            })
            .unwrap_or_else(|| panic!("{task}: kept distractor {line} is not generated"));
        let key = (
            found.operator.clone(),
            found.line,
            found.edit.before.clone(),
            found.edit.after.clone(),
        );
        *accounted
            .entry(task.clone())
            .or_default()
            .entry(key)
            .or_default() += 1;
    }
    let mut n = 0;
    for (task, ms) in &by_task {
        let mut keys = Counts::new();
        for m in ms {
            let e = &m.edit;
            let key = (
                m.operator.clone(),
                m.line,
                e.before.clone(),
                e.after.clone(),
            );
            *keys.entry(key).or_default() += 1;
        }
        assert_eq!(
            accounted.get(task),
            Some(&keys),
            "{task}: generated mutants differ from the build report's"
        );
        n += ms.len();
    }
    assert_eq!(report["mutants_generated"].as_u64(), Some(n as u64));
}

#[test]
fn the_whole_catalogue_keeps_the_paper_mutants_of_every_embedded_task() {
    let mut per_family: BTreeMap<String, usize> = BTreeMap::new();
    let (tasks, _) = read_task_file(&root().join("data/tasks.jsonl")).expect("task file");
    for t in &tasks {
        let (task, paper) = (&t.task_id, mutants(&t.canonical).expect("mutants"));
        let all = mutants_with(&t.canonical, &Operators::all()).expect("mutants");
        let kept: Vec<Mutant> = all
            .iter()
            .filter(|m| Family::from_name(&m.bug_type).is_some_and(Family::is_paper))
            .cloned()
            .collect();
        assert_eq!(kept, paper, "{task}");
        for m in &all {
            *per_family.entry(m.bug_type.clone()).or_default() += 1;
        }
    }
    eprintln!("mutants of the 332 embedded canonicals under --operators all: {per_family:?}");
    for f in Family::ALL {
        assert!(per_family.get(f.as_str()).copied().unwrap_or(0) > 0, "{f}");
    }
}
