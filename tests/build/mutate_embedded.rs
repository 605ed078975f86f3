//! The default operator set (the paper's six) against the embedded benchmark: for every task of
//! data/tasks.jsonl, the mutant list is byte-identical to the one the code generated before the
//! catalogue grew (tests/fixtures/paper_mutants.sha256, one SHA-256 of the JSON list per task,
//! written from that code), and it is exactly the set of mutants data/bundle's build report
//! accounts for (kept distractors plus every dropped row), so the bundle is what this code
//! builds.

use execscope::build::equivalence::{group, settle_all, Checked, Group, Settled};
use execscope::build::task::read_task_file;
use execscope::build::Task;
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

fn key(m: &Mutant) -> Key {
    let e = &m.edit;
    (
        m.operator.clone(),
        m.line,
        e.before.clone(),
        e.after.clone(),
    )
}

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
        *accounted
            .entry(task.clone())
            .or_default()
            .entry(key(found))
            .or_default() += 1;
    }
    let mut n = 0;
    for (task, ms) in &by_task {
        let mut keys = Counts::new();
        for m in ms {
            *keys.entry(key(m)).or_default() += 1;
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
    // What compiled code would settle before execution (printed for the docs; the catalogue
    // makes more duplicates than the six: `not (x in s)` compiles to `x not in s`).
    let (all, settled, checked) = settled(&tasks, &Operators::all());
    if !checked.checked {
        return crate::common::skip("the catalogue's settled counts", &checked.note);
    }
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for (ms, st) in all.iter().zip(&settled) {
        for (m, s) in ms.iter().zip(st) {
            let what = match s {
                Settled::Execute => continue,
                Settled::Equivalent => "equivalent",
                Settled::DuplicateOf(_) => "duplicate",
                Settled::DoesNotCompile(_) => "not compiling",
            };
            *counts.entry((m.bug_type.clone(), what)).or_default() += 1;
        }
    }
    eprintln!("settled before execution under --operators all: {counts:?}");
}

/// Each task's mutants under `ops` and how their compiled code settles them (one compiler
/// child for all tasks, as in a build).
fn settled(tasks: &[Task], ops: &Operators) -> (Vec<Vec<Mutant>>, Vec<Vec<Settled>>, Checked) {
    let all: Vec<Vec<Mutant>> = tasks
        .iter()
        .map(|t| mutants_with(&t.canonical, ops).expect("mutants"))
        .collect();
    let groups: Vec<Group> = tasks
        .iter()
        .zip(&all)
        .map(|(t, ms)| group(&t.canonical, ms))
        .collect();
    let (settled, checked) = settle_all(&groups);
    (all, settled, checked)
}

/// A report row's reason and outcomes.
type Verdict = (String, Vec<String>);

/// Outcomes of a report row, as strings.
fn outcomes(v: &serde_json::Value) -> Vec<String> {
    v["outcomes"]
        .as_array()
        .expect("outcomes")
        .iter()
        .map(|o| o.as_str().expect("outcome").to_string())
        .collect()
}

/// Settling mutants by their compiled code before execution cannot change what the embedded
/// build selected: against data/bundle's build report (which executed every mutant), each
/// mutant compiled to the canonical's code passed every test, each compiled to an earlier
/// mutant's code behaved exactly as that one, each CPython refuses only crashed, and none of
/// them is a kept distractor.
#[test]
fn compiled_code_settles_only_mutants_the_embedded_build_could_not_keep() {
    const NAME: &str = "compiled_code_settles_only_mutants_the_embedded_build_could_not_keep";
    if crate::common::require_python(NAME, &["json", "resource"]).is_none() {
        return;
    }
    let bundle = execscope::bundle::load(
        &root().join("data/bundle"),
        &execscope::bundle::LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        },
    )
    .expect("the embedded bundle loads");
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(root().join("data/bundle/build_report.json")).expect("build report"),
    )
    .expect("json");
    // Every executed outcome vector under its (task, operator, line, before, after).
    let mut rows: BTreeMap<(String, Key), Vec<Verdict>> = BTreeMap::new();
    for d in report["dropped"].as_array().expect("dropped") {
        let s = |k: &str| d[k].as_str().expect(k).to_string();
        let key = (
            s("operator"),
            d["line"].as_u64().expect("line") as usize,
            s("before"),
            s("after"),
        );
        rows.entry((s("task_id"), key))
            .or_default()
            .push((s("reason"), outcomes(d)));
    }
    let cached: BTreeMap<(String, String), Vec<String>> = bundle
        .cache
        .iter()
        .map(|r| {
            (
                (r.code_sha256.clone(), r.tests_sha256.clone()),
                r.outcomes.clone(),
            )
        })
        .collect();
    let kept_codes: std::collections::HashSet<&str> = bundle
        .queries
        .iter()
        .flat_map(|q| q.paired.iter().map(|&r| bundle.corpus[r].code.as_str()))
        .collect();
    let (tasks, _) = read_task_file(&root().join("data/tasks.jsonl")).expect("task file");
    let (all, settled, checked) = settled(&tasks, &Operators::paper());
    assert!(checked.checked, "{}", checked.note);
    let (mut equivalent, mut duplicate, mut not_compiling) = (0, 0, 0);
    for ((t, ms), st) in tasks.iter().zip(&all).zip(&settled) {
        let tests = execscope::record::keys::tests_sha256(&t.tests);
        // The outcomes every executed copy of mutant `m` got (one per report row of its key,
        // or its cache row when it is a kept distractor).
        let verdicts = |m: &Mutant| -> Vec<Verdict> {
            if kept_codes.contains(m.code.as_str()) {
                let key = (execscope::bundle::code_sha256(&m.code), tests.clone());
                return vec![("kept".into(), cached[&key].clone())];
            }
            rows.get(&(t.task_id.clone(), key(m)))
                .cloned()
                .unwrap_or_default()
        };
        for (m, s) in ms.iter().zip(st) {
            let v = verdicts(m);
            assert!(!v.is_empty(), "{}: {m:?} has no verdict", t.task_id);
            match s {
                Settled::Execute => continue,
                Settled::Equivalent => {
                    equivalent += 1;
                    for (reason, o) in &v {
                        assert_eq!(reason, "passes_all_tests", "{}: {m:?}", t.task_id);
                        assert!(o.iter().all(|x| x == "pass"), "{o:?}");
                    }
                }
                Settled::DuplicateOf(j) => {
                    duplicate += 1;
                    let rep = verdicts(&ms[*j]);
                    for (reason, o) in &v {
                        assert_ne!(reason, "kept", "{}: {m:?}", t.task_id);
                        assert!(
                            rep.iter().any(|(_, r)| r == o),
                            "{}: {m:?} {o:?} is not its representative's {rep:?}",
                            t.task_id
                        );
                    }
                }
                Settled::DoesNotCompile(e) => {
                    not_compiling += 1;
                    for (reason, _) in &v {
                        assert_eq!(reason, "only_crashes", "{}: {m:?} {e}", t.task_id);
                    }
                }
            }
        }
    }
    eprintln!(
        "embedded build, paper operators: {equivalent} equivalent, {duplicate} duplicate, \
         {not_compiling} not compiling of {} mutants ({})",
        all.iter().map(Vec::len).sum::<usize>(),
        checked.note
    );
}
