use super::*;

const CANON: &str = "def f(x, s, empty='none'):\n    if not s:\n        return empty\n    if x in s:\n        return 'member'\n    return 'other'\n";
const QUERY: &str =
    "Return 'member' when x is in s, 'other' otherwise; empty (default 'none') when s is empty.";

fn row(
    task: &str,
    bug_type: &str,
    op: &str,
    before: &str,
    after: &str,
    status: MutantStatus,
) -> MutantRow {
    let start = CANON.find(before).expect("before is in the canonical");
    MutantRow {
        task_id: task.into(),
        bug_type: bug_type.into(),
        operator: op.into(),
        line: 1 + CANON[..start].matches('\n').count(),
        before: before.into(),
        after: after.into(),
        span: Some((start, start + before.len())),
        status,
    }
}

fn tasks() -> Vec<SuiteTask<'static>> {
    ["a", "b", "c"]
        .iter()
        .zip(["q_1", "q_2", "q_3"])
        .map(|(t, q)| SuiteTask {
            task_id: t,
            query_id: q,
            query: QUERY,
            canonical: CANON,
        })
        .collect()
}

#[test]
fn statuses_come_from_outcomes_then_reasons() {
    let v = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
    use MutantStatus::*;
    assert_eq!(
        MutantStatus::from_row("passes_all_tests", &v("pass pass")),
        Survived
    );
    assert_eq!(
        MutantStatus::from_row("only_crashes", &v("pass ERROR:TypeError")),
        Killed
    );
    assert_eq!(
        MutantStatus::from_row("not_chosen", &v("FAIL pass")),
        Killed
    );
    assert_eq!(
        MutantStatus::from_row("task_refused", &v("pass pass")),
        Survived
    );
    assert_eq!(MutantStatus::from_row("equivalent", &[]), Equivalent);
    assert_eq!(MutantStatus::from_row("duplicate_mutant", &[]), Duplicate);
    assert_eq!(
        MutantStatus::from_row("does_not_compile", &[]),
        NotCompiling
    );
    assert_eq!(
        MutantStatus::from_row("signature_unstated", &[]),
        NotExecuted
    );
    assert_eq!(MutantStatus::from_row("oracle_error", &[]), NotExecuted);
}

/// Hand-made rows of three tasks (and one of a task the bundle does not hold).
fn hand_rows() -> Vec<MutantRow> {
    use MutantStatus::*;
    vec![
        // task a: 2 killed, 2 survive (one a gap: the query states 'none'), 1 equivalent
        row("a", "wrong_comparison", "In->NotIn", "in", "not in", Killed),
        row(
            "a",
            "wrong_constant",
            "str->empty",
            "'member'",
            "''",
            Killed,
        ),
        row(
            "a",
            "wrong_constant",
            "str->empty",
            "'none'",
            "''",
            Survived,
        ),
        row(
            "a",
            "remove_edge_case_check",
            "remove_guard",
            "    if not s:\n        return empty\n",
            "",
            Survived,
        ),
        row(
            "a",
            "delete_statement",
            "delete_statement",
            "    return 'other'\n",
            "",
            Equivalent,
        ),
        // task b: everything killed, one duplicate
        row("b", "wrong_comparison", "In->NotIn", "in", "not in", Killed),
        row(
            "b",
            "negate_condition",
            "negate(if)",
            "x in s",
            "not (x in s)",
            Duplicate,
        ),
        // task c: nothing scored; a row of a task the bundle does not hold is left out
        row(
            "c",
            "wrong_constant",
            "str->empty",
            "'other'",
            "''",
            NotExecuted,
        ),
        row(
            "gone",
            "wrong_constant",
            "str->empty",
            "'other'",
            "''",
            Survived,
        ),
    ]
}

#[test]
fn strength_by_family_and_task_by_hand() {
    let rows = hand_rows();
    let s = suite_strength(&rows, &tasks());
    assert_eq!(
        s.overall,
        Tally {
            mutants: 8,
            killed: 3,
            survived: 2,
            equivalent: 1,
            duplicate: 1,
            not_compiling: 0,
            not_executed: 1
        }
    );
    assert_eq!(s.overall.kill_rate(), 0.6);
    assert_eq!(s.overall.survival_rate(), 0.4);
    let fams: Vec<(&str, usize, usize, usize)> = s
        .families
        .iter()
        .map(|f| {
            (
                f.bug_type.as_str(),
                f.tally.mutants,
                f.tally.killed,
                f.tally.survived,
            )
        })
        .collect();
    // the paper's families first, then the catalogue's, each in its documented order
    assert_eq!(
        fams,
        vec![
            ("remove_edge_case_check", 1, 0, 1),
            ("wrong_comparison", 2, 2, 0),
            ("negate_condition", 1, 0, 0),
            ("delete_statement", 1, 0, 0),
            ("wrong_constant", 3, 1, 1),
        ]
    );
    // weakest first: a (2/4), b (1/1), then c (nothing scored)
    let order: Vec<&str> = s.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(order, ["a", "b", "c"]);
    assert_eq!(s.tasks[0].tally.kill_rate(), 0.5);
    assert_eq!(s.tasks[0].gaps, 1);
    assert_eq!(
        s.tasks[0].survivors_by_family,
        vec![
            ("remove_edge_case_check".to_string(), 1),
            ("wrong_constant".to_string(), 1)
        ]
    );
    assert!(s.tasks[2].tally.kill_rate().is_nan());
}

#[test]
fn survivors_with_their_diffs_and_gaps_by_hand() {
    let s = suite_strength(&hand_rows(), &tasks());
    // survivors in task order, then by line: the `'none'` default (line 1) is the gap
    assert_eq!(s.survivors.len(), 2);
    assert_eq!(s.survivors[0].before, "'none'");
    assert_eq!(
        s.survivors[0].gap.as_deref(),
        Some("the query states `'none'`")
    );
    assert_eq!(s.survivors[1].gap, None);
    assert_eq!(s.gaps().count(), 1);
    assert_eq!(
        s.survivors[0].diff,
        "@@ -1,1 +1,1 @@\n-def f(x, s, empty='none'):\n+def f(x, s, empty=''):"
    );
    assert_eq!(
        s.survivors[1].diff,
        "@@ -2,2 +2,0 @@\n-    if not s:\n-        return empty"
    );
}

#[test]
fn weakest_order_breaks_ties_by_survivors_then_bundle_order() {
    use MutantStatus::*;
    let k = |t: &str| row(t, "wrong_comparison", "In->NotIn", "in", "not in", Killed);
    let sv = |t: &str| {
        row(
            t,
            "wrong_constant",
            "str->empty",
            "'member'",
            "''",
            Survived,
        )
    };
    // a: 1/2, b: 2/4 (same score, more survivors: weaker), c: 1/2
    let rows = vec![
        k("a"),
        sv("a"),
        k("b"),
        k("b"),
        sv("b"),
        sv("b"),
        k("c"),
        sv("c"),
    ];
    let s = suite_strength(&rows, &tasks());
    let order: Vec<&str> = s.tasks.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(order, ["b", "a", "c"]);
}

#[test]
fn diffs_without_a_span_locate_the_edit_on_its_line() {
    let mut r = row(
        "a",
        "wrong_comparison",
        "In->NotIn",
        "in",
        "not in",
        MutantStatus::Survived,
    );
    r.span = None;
    assert_eq!(
        line_diff(CANON, &r),
        "@@ -4,1 +4,1 @@\n-    if x in s:\n+    if x not in s:"
    );
    // twice on the line and no span: the edit is named, not guessed
    let src = "def g(a, b):\n    return a | b | 1\n";
    let r = MutantRow {
        task_id: "t".into(),
        bug_type: "wrong_operator".into(),
        operator: "BitOr->BitAnd".into(),
        line: 2,
        before: "|".into(),
        after: "&".into(),
        span: None,
        status: MutantStatus::Survived,
    };
    assert_eq!(line_diff(src, &r), "line 2: `|` → `&`");
    // an insertion (a `break` after a loop body) gets its own line
    let src = "def h(xs):\n    for x in xs:\n        g(x)\n    return 1\n";
    let at = src.find("g(x)").unwrap() + 4;
    let r = MutantRow {
        line: 3,
        before: String::new(),
        after: "\n        break".into(),
        span: Some((at, at)),
        ..r
    };
    assert_eq!(
        line_diff(src, &r),
        "@@ -3,1 +3,2 @@\n-        g(x)\n+        g(x)\n+        break"
    );
}

#[test]
fn a_build_report_is_read_strictly() {
    let p = std::path::Path::new("b/build_report.json");
    // not a build report: nothing to measure
    assert_eq!(parse_report(p, b"{\"builder\": \"x\"}").unwrap(), None);
    let ok = br#"{"dropped": [{"task_id": "t", "bug_type": "off_by_one", "operator": "int+1",
        "line": 2, "before": "1", "after": "2", "reason": "passes_all_tests",
        "outcomes": ["pass"], "start": 10, "end": 11}]}"#;
    let rows = parse_report(p, ok).unwrap().unwrap();
    assert_eq!(rows[0].status, MutantStatus::Survived);
    assert_eq!(rows[0].span, Some((10, 11)));
    // a wrongly typed field is named with its line and column
    let bad = b"{\"dropped\": [\n  {\"task_id\": 3}]}";
    let e = parse_report(p, bad).unwrap_err().to_string();
    assert!(e.starts_with("b/build_report.json:2:"), "{e}");
    assert!(e.contains("invalid type"), "{e}");
}
