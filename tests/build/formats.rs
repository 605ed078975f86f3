//! The benchmark readers end to end on the real oracle: hand-made HumanEval and EvalPlus files
//! whose verdicts are worked out by hand below, and the published files of `../shared/data/sources`
//! (skipped by name when absent): every task reads, and every canonical passes its own tests
//! and the benchmark's original `check`.

use crate::common;
use execscope::audit::generated::{self, TaskSpec};
use execscope::audit::{passk, Mode, PoolSet};
use execscope::build::formats::{self, audit, humaneval, Format, Problem};
use execscope::oracle::{Job, SuiteResult};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/formats")
        .join(name)
}

/// A reader's runner over the shared oracle (an oracle failure fails that job).
pub(crate) fn run(_: &str, jobs: &[Job]) -> Vec<Result<SuiteResult, String>> {
    match common::oracle::run(jobs) {
        Ok(v) => v.into_iter().map(Ok).collect(),
        Err(e) => jobs.iter().map(|_| Err(e.to_string())).collect(),
    }
}

/// The pools of a task file and a pool file, read and executed.
fn audit_of(tasks: &str, pool: &str) -> (PoolSet, Vec<String>) {
    let input = audit::read_inputs(&fixture(tasks), None, &fixture(pool), None, &mut run).unwrap();
    let pools = generated::build(
        &input.specs,
        &input.rows,
        &common::oracle::run,
        Mode::Generated {
            pool: pool.into(),
            tasks: tasks.into(),
        },
    )
    .unwrap();
    (pools, input.provenance)
}

/// Per candidate in pool-file order: (task, P_b, P+).
fn verdicts(p: &PoolSet) -> Vec<(String, bool, bool)> {
    let mut v: Vec<(String, i64, bool, bool)> = Vec::new();
    for t in &p.cohorts[0].tasks {
        for c in &t.candidates {
            let idx: i64 = c.label.trim_start_matches("sample ").parse().unwrap();
            v.push((t.task_id.clone(), idx, c.evidence[4].ok, c.evidence[5].ok));
        }
    }
    v.sort();
    v.into_iter().map(|(t, _, b, p)| (t, b, p)).collect()
}

/// Every canonical against its tests, and against the original `check` kept whole. A test that
/// runs out of time (a heavy canonical on a loaded machine) is a resource limit, not a verdict:
/// it is allowed, every other outcome must be a pass.
fn canonicals_pass(problems: &[Problem], originals: &[(String, String)]) {
    let mut jobs: Vec<Job> = problems
        .iter()
        .map(|p| Job::new(p.canonical.clone(), p.tests()).entry(&p.entry))
        .collect();
    jobs.extend(problems.iter().zip(originals).map(|(p, (setup, test))| {
        Job::new(
            p.canonical.clone(),
            vec![humaneval::compose(setup, test, &p.entry)],
        )
        .entry(&p.entry)
    }));
    let results = common::oracle::run(&jobs).unwrap();
    for (job, r) in jobs.iter().zip(&results) {
        let failing: Vec<String> = r
            .outcomes
            .iter()
            .zip(&job.tests)
            .filter(|(o, _)| !o.is_pass() && !o.is_resource_limit())
            .map(|(o, t)| format!("{o}: {t}"))
            .collect();
        assert!(failing.is_empty(), "{}: {failing:#?}", job.entry[0]);
    }
}

fn originals(path: &std::path::Path) -> Vec<(String, String)> {
    let recs = formats::read_records(path, None).unwrap();
    recs.items
        .iter()
        .map(|(_, r)| {
            let r = r.as_ref().unwrap();
            let prompt = r.get("prompt").and_then(|v| v.as_text()).unwrap();
            let entry = r.get("entry_point").and_then(|v| v.as_text()).unwrap();
            let test = r.get("test").and_then(|v| v.as_text()).unwrap();
            (formats::pysrc::without_def(&prompt, &entry).unwrap(), test)
        })
        .collect()
}

#[test]
fn humaneval_file_splits_checks_and_its_canonicals_pass() {
    let path = fixture("humaneval_small.jsonl");
    let recs = formats::read_records(&path, None).unwrap();
    assert_eq!(recs.format, Format::HumanEval);
    let (ps, unread) = formats::problems(&recs);
    assert!(unread.is_empty(), "{unread:?}");
    // truncate: three asserts; find_zero: one loop (kept whole); add: three asserts and a loop.
    let counts: Vec<usize> = ps.iter().map(|p| p.base.len()).collect();
    assert_eq!(counts, [3, 1, 4]);
    assert_eq!(ps[1].query, "xs are coefficients of a polynomial of odd degree; find_zero returns one x with poly(x) = 0.");
    // `add`'s check imports random (setup of every unit): each of its tests is seeded.
    assert!(ps[2]
        .base
        .iter()
        .all(|t| t.starts_with(humaneval::SEED_RANDOM)));
    assert!(!ps[0].base[0].starts_with(humaneval::SEED_RANDOM));
    // The prompt's helper is the judge's setup, the entry point is not.
    let zero = ps[1].base[0].trim_start_matches(humaneval::SEED_RANDOM);
    assert!(zero.starts_with("import math\n\n\ndef poly(xs: list, x: float):"));
    assert!(!ps[1].base[0].contains("def find_zero"));
    canonicals_pass(&ps, &originals(&path));
}

#[test]
fn humaneval_samples_are_judged_as_the_original_check_would_with_a_trusted_prompt() {
    let (pools, provenance) = audit_of("humaneval_small.jsonl", "humaneval_small_samples.jsonl");
    let v = verdicts(&pools);
    let t = |id: &str, b: bool| (format!("Fixture/{id}"), b, b);
    assert_eq!(
        v,
        [
            t("0", true),
            t("0", false), // + 1e-9 breaks `candidate(3.5) == 0.5`
            t("0", false), // rounding breaks the 1e-6 tolerance
            t("1", true),
            // Redefines `poly` to make any answer a zero: the test's `poly` is the prompt's.
            t("1", false),
            t("2", true),
            t("2", false), // wrong from x >= 900: the seeded random inputs reach it
            t("2", true),  // a whole `solution`
        ]
    );
    let rows = passk::table(&pools);
    let base1 = rows.iter().find(|r| r.suite == "base" && r.k == 1).unwrap();
    assert!((base1.value - 0.5).abs() < 1e-12, "{base1:?}");
    assert_eq!(
        (base1.tasks, base1.min_samples, base1.max_samples),
        (3, 2, 3)
    );
    assert!(provenance
        .iter()
        .any(|p| p == "tasks read as humaneval (3 tasks)"));
}

#[test]
fn evalplus_outputs_come_from_the_reference_and_compare_by_evalplus_rules() {
    let (pools, provenance) = audit_of("evalplus_small.jsonl", "evalplus_small_samples.jsonl");
    let v = verdicts(&pools);
    let t = |id: &str, b: bool, p: bool| (format!("Mbpp/{id}"), b, p);
    assert_eq!(
        v,
        [
            t("2", true, true),      // a tuple in another order: MBPP+ compares Mbpp/2 as sets
            t("2", false, false),    // the union
            t("9000", true, true),   // 1e-9 off a float: within atol 1e-6
            t("9000", false, false), // 3.1416: 7e-6 off
            t("9001", true, true),   // a 60-square list: read back in parts
            t("9001", false, false), // stops at 50
            t("9002", true, false),  // int(a / b) differs from a // b on -7, 2
            t("9003", true, true),   // a bool compared with `is not None` of the reference
            t("9003", false, false), // None
        ]
    );
    let note = |s: &str| provenance.iter().any(|p| p.starts_with(s));
    assert!(
        note("Mbpp/9001: plus input 1 left out: the reference's output is "),
        "{provenance:#?}"
    );
    assert!(
        note("Mbpp/9002: plus input 1 left out: the reference raises ZeroDivisionError on it"),
        "{provenance:#?}"
    );
    let rows = passk::table(&pools);
    let get = |suite: &str| {
        rows.iter()
            .find(|r| r.suite == suite && r.k == 1)
            .unwrap()
            .value
    };
    assert!((get("base") - 0.6).abs() < 1e-12);
    assert!((get("base+plus") - 0.4).abs() < 1e-12);
    // The expected outputs are literals in the tests, as a reader of the bundle sees them.
    let specs = audit::read_audit_tasks(&fixture("evalplus_small.jsonl"), None, &mut run)
        .unwrap()
        .specs;
    let two: &TaskSpec = &specs[0];
    assert_eq!(
        two.base[0],
        "_out = similar_elements((3, 4, 5, 6), (5, 7, 4, 10))\n_expected = (4, 5)\nassert set(_out) == set(_expected)\n"
    );
    assert_eq!(specs[3].base[0], "assert divide(7, 2) == 3\n");
    assert!(specs[1].base[0].contains(
        "_expected = 3.141592653589793\nassert (_out == _expected) or _es_allclose(_out, _expected, 1e-6)\n"
    ));
}

/// The published HumanEval: all 164 tasks read, and each canonical passes every unit and the
/// original `check`.
#[test]
fn published_humaneval_reads_whole_and_canonicals_pass() {
    let Some(path) = common::require_data(
        "published_humaneval_reads_whole_and_canonicals_pass",
        "sources/HumanEval.jsonl.gz",
    ) else {
        return;
    };
    let recs = formats::read_records(&path, None).unwrap();
    assert_eq!(recs.format, Format::HumanEval);
    let (ps, unread) = formats::problems(&recs);
    assert!(unread.is_empty(), "{unread:?}");
    assert_eq!(ps.len(), 164);
    let whole: Vec<&str> = ps
        .iter()
        .filter(|p| p.base.len() == 1)
        .map(|p| p.task_id.as_str())
        .collect();
    let tests: usize = ps.iter().map(|p| p.base.len()).sum();
    eprintln!(
        "HumanEval: {} tasks, {tests} tests; checks kept whole: {whole:?}",
        ps.len()
    );
    assert!(whole.len() <= 6, "{whole:?} checks kept whole");
    canonicals_pass(&ps, &originals(&path));
}

/// The published MBPP files: every task reads and each canonical passes its asserts (with its
/// setup code) and its challenge asserts.
#[test]
fn published_mbpp_reads_whole_and_canonicals_pass() {
    for (rel, n) in [
        ("sources/mbpp.jsonl", 974),
        ("sources/sanitized-mbpp.json", 427),
    ] {
        let Some(path) =
            common::require_data("published_mbpp_reads_whole_and_canonicals_pass", rel)
        else {
            return;
        };
        let recs = formats::read_records(&path, None).unwrap();
        assert_eq!(recs.format, Format::Mbpp, "{rel}");
        let (ps, unread) = formats::problems(&recs);
        assert!(unread.is_empty(), "{rel}: {unread:?}");
        assert_eq!(ps.len(), n, "{rel}");
        canonicals_pass(&ps, &[]);
    }
}

/// The published MBPP+ (a measurement, `cargo test --test build -- --ignored mbpp_plus`, ~10
/// minutes on two cores: every reference output is computed in the sandbox): every task reads,
/// what the reader leaves out is printed with why, and each canonical passes every test made
/// from the reference's own outputs (no `Unjudged`, no failure but running out of time).
#[test]
#[ignore]
fn published_mbpp_plus_reads_and_canonicals_pass() {
    let Some(path) = common::require_data(
        "published_mbpp_plus_reads_and_canonicals_pass",
        "sources/MbppPlus-767efcc.jsonl",
    ) else {
        return;
    };
    let recs = formats::read_records(&path, None).unwrap();
    assert_eq!(recs.format, Format::EvalPlus);
    let (ps, unread) = formats::evalplus::read(&recs, &mut run);
    for u in &unread {
        eprintln!("unread: line {} {}: {}", u.line, u.task_id, u.reason);
    }
    let tests: usize = ps.iter().map(|p| p.base.len() + p.plus.len()).sum();
    let notes: Vec<String> = ps
        .iter()
        .flat_map(|p| p.notes.iter().map(move |n| format!("{}: {n}", p.task_id)))
        .collect();
    for n in &notes {
        eprintln!("left out: {n}");
    }
    eprintln!(
        "MBPP+: {} tasks read, {} unread, {tests} tests, {} inputs left out in {} tasks",
        ps.len(),
        unread.len(),
        notes.len(),
        ps.iter().filter(|p| !p.notes.is_empty()).count()
    );
    assert!(unread.is_empty());
    canonicals_pass(&ps, &[]);
}
