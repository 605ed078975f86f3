//! A build with the whole catalogue (`--operators all`) on a two-task file written to exercise
//! it (tests/fixtures/tasks_catalogue.jsonl): the bundle passes every check and keeps
//! distractors of the catalogue's families; mutants whose compiled code settles them are
//! recorded, counted per family and never executed (real python3, real oracle).

use crate::common;

use execscope::build::{build, BuildOptions, BuildReport};
use execscope::bundle::{self, CheckStatus, LoadOptions};
use execscope::mutate::{Family, Operators};
use std::path::Path;
use std::sync::OnceLock;

/// One build shared by the tests of this file.
pub(crate) fn built() -> &'static (tempfile::TempDir, BuildReport) {
    static B: OnceLock<(tempfile::TempDir, BuildReport)> = OnceLock::new();
    B.get_or_init(|| {
        let tasks =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tasks_catalogue.jsonl");
        let dir = tempfile::tempdir().unwrap();
        let opts = BuildOptions {
            operators: Some(Operators::all()),
            reuse: false,
            ..BuildOptions::default()
        };
        let r = build(&tasks, dir.path(), common::oracle::oracle(), &opts).unwrap();
        (dir, r)
    })
}

#[test]
fn the_catalogue_builds_a_bundle_with_its_families() {
    let (dir, report) = built();
    assert_eq!(report.tasks_kept, 2, "{report}");
    assert_eq!(report.operators, "all");
    let check = bundle::check(dir.path());
    for item in &check.items {
        let allowed = item.status == CheckStatus::Pass
            || (item.name == "files present" && item.detail.contains("embeddings"));
        assert!(allowed, "{}: {:?} {}", item.name, item.status, item.detail);
    }
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let types: Vec<&str> = b
        .corpus
        .iter()
        .filter_map(|s| s.bug_type.as_deref())
        .collect();
    assert!(
        types
            .iter()
            .any(|t| Family::from_name(t).is_some_and(|f| !f.is_paper())),
        "no distractor of the catalogue's families: {types:?}"
    );
}

#[test]
fn settled_mutants_are_counted_and_never_executed() {
    let (_, report) = built();
    assert!(report.equivalence.checked, "{}", report.equivalence.note);
    let row = |op: &str, line: usize| {
        report
            .dropped
            .iter()
            .find(|d| d.task_id == "cat_classify" && d.operator == op && d.line == line)
            .unwrap_or_else(|| panic!("{op}@{line} not dropped"))
    };
    // the dead `print(x)` after the last return: deleting it changes no compiled code
    let dead = row("delete_statement", 7);
    assert_eq!(
        (dead.reason.as_str(), dead.outcomes.len()),
        ("equivalent", 0)
    );
    // `if not (x in s)` compiles to `if x not in s`: one program, executed once, under the
    // paper's family
    let neg = row("negate(if)", 4);
    assert_eq!(neg.reason, "duplicate_mutant");
    assert_eq!(neg.detail.as_deref(), Some("In->NotIn@4"));
    assert!(neg.outcomes.is_empty());
    let settled = |f: &str| {
        report
            .equivalence
            .by_family
            .iter()
            .find(|r| r.bug_type == f)
            .cloned()
            .unwrap_or_default()
    };
    assert!(settled("delete_statement").equivalent >= 1);
    assert!(settled("negate_condition").duplicate >= 1);
    let n_settled: usize = report
        .equivalence
        .by_family
        .iter()
        .map(|r| r.equivalent + r.duplicate + r.not_compiling)
        .sum();
    let by_reason = |r: &str| report.drops_by_reason.get(r).copied().unwrap_or(0);
    assert_eq!(
        n_settled,
        by_reason("equivalent") + by_reason("duplicate_mutant") + by_reason("does_not_compile")
    );
    // every mutant appears once, in the family counts
    let mutants: usize = report.equivalence.by_family.iter().map(|r| r.mutants).sum();
    assert_eq!(mutants, report.mutants_generated);
    // pairs: the two canonicals under the oracle's hash seed and again under each of the seed
    // gate's, then every mutant not settled or refused before execution
    let unexecuted = n_settled + by_reason("signature_unstated");
    let canonical_runs = 2 * (1 + BuildOptions::default().hash_seeds.len());
    assert_eq!(
        report.pairs_executed,
        canonical_runs + report.mutants_generated - unexecuted
    );
    // families in report order: the paper's six first
    let order: Vec<&str> = report
        .equivalence
        .by_family
        .iter()
        .map(|r| r.bug_type.as_str())
        .collect();
    assert_eq!(execscope::bundle::order_bug_types(order.clone()), order);
}

#[test]
fn suite_strength_in_the_report_reads_back_from_the_bundle() {
    let (dir, report) = built();
    let s = &report.suite_strength;
    // every mutant counted once, by its status
    let o = &s.overall;
    assert_eq!(o.mutants, report.mutants_generated);
    assert_eq!(
        o.killed + o.survived + o.equivalent + o.duplicate + o.not_compiling + o.not_executed,
        o.mutants
    );
    let by_reason = |r: &str| report.drops_by_reason.get(r).copied().unwrap_or(0);
    assert_eq!(o.survived, by_reason("passes_all_tests"));
    assert_eq!(o.equivalent, by_reason("equivalent"));
    assert_eq!(o.duplicate, by_reason("duplicate_mutant"));
    let fam_total: usize = s.families.iter().map(|f| f.tally.mutants).sum();
    assert_eq!(fam_total, o.mutants);
    // classify's suite never tests an empty collection: emptying the stated default `'none'`
    // survives, and the query states it (a suite gap); removing the guard survives too
    let gap = s
        .survivors
        .iter()
        .find(|v| v.task_id == "cat_classify" && v.operator == "str->empty" && v.line == 1)
        .expect("the default's mutant survives");
    assert_eq!(gap.before, "'none'");
    assert_eq!(gap.gap.as_deref(), Some("the query states `'none'`"));
    assert_eq!(
        gap.diff,
        "@@ -1,1 +1,1 @@\n-def classify(x, s, empty='none'):\n+def classify(x, s, empty=''):"
    );
    let guard = s
        .survivors
        .iter()
        .find(|v| v.task_id == "cat_classify" && v.operator == "remove_guard")
        .expect("the guard's removal survives");
    assert_eq!(guard.gap, None);
    assert_eq!(
        guard.diff,
        "@@ -2,2 +2,0 @@\n-    if not s:\n-        return empty"
    );
    // classify is the weakest: 3 of its 10 scored mutants survive (the default's emptying, the
    // guard's removal, `return empty` → `return None`); 4 distractors and 3 not chosen die
    assert_eq!(s.tasks[0].task_id, "cat_classify");
    assert_eq!(
        (s.tasks[0].tally.survived, s.tasks[0].tally.scored()),
        (3, 10)
    );
    assert!(s.tasks[0].tally.kill_rate() < s.tasks[1].tally.kill_rate());
    // what check and report read back from the bundle is what the build computed
    let b = bundle::load(dir.path(), &LoadOptions::default()).unwrap();
    let again = execscope::analysis::suites::from_bundle(&b)
        .unwrap()
        .unwrap();
    assert_eq!(&again, s);
    let item = execscope::analysis::suites::check_item(dir.path()).expect("a check line");
    assert_eq!(item.status, CheckStatus::Warn);
    assert!(
        item.detail
            .contains("suite gaps (first: cat_classify line 1 `'none'`"),
        "{}",
        item.detail
    );
    // the summary names the gap
    let text = report.to_string();
    assert!(
        text.contains(
            "suite gap: cat_classify line 1: `'none'` → `''` survives; the query states `'none'`"
        ),
        "{text}"
    );
}
