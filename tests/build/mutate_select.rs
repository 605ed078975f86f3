//! Selection rules on hand-built candidate lists.

use execscope::bundle::model::Edit;
use execscope::mutate::{select, Candidate, DropReason, Mutant, Selection};
use execscope::oracle::outcome::Outcome;
use sha2::{Digest, Sha256};

fn cand(bug_type: &str, code: &str, outcomes: &str, observed: &[Option<&str>]) -> Candidate {
    Candidate {
        mutant: Mutant {
            operator: "op".into(),
            bug_type: bug_type.into(),
            edit: Edit {
                start: 0,
                end: 0,
                before: String::new(),
                after: String::new(),
            },
            code: code.into(),
            line: 1,
            description: String::new(),
        },
        outcomes: outcomes
            .split_whitespace()
            .map(|s| s.parse().expect("outcome"))
            .collect(),
        observed: observed.iter().map(|o| o.map(str::to_string)).collect(),
    }
}

/// Every index is either kept or dropped, exactly once.
fn partition_ok(sel: &Selection, n: usize) {
    let mut all: Vec<usize> = sel.kept.clone();
    all.extend(sel.dropped.iter().map(|(i, _)| *i));
    all.sort();
    assert_eq!(all, (0..n).collect::<Vec<_>>(), "{sel:?}");
}

fn reason(sel: &Selection, i: usize) -> &DropReason {
    &sel.dropped
        .iter()
        .find(|(j, _)| *j == i)
        .expect("dropped")
        .1
}

#[test]
fn drops_passing_crashing_and_duplicate_candidates() {
    let c = vec![
        cand("off_by_one", "a", "pass pass", &[Some("1"), Some("2")]),
        cand(
            "off_by_one",
            "b",
            "FAIL:TypeError ERROR:NameError",
            &[None, None],
        ),
        cand("off_by_one", "c", "pass FAIL", &[Some("1"), Some("3")]),
        cand("wrong_operator", "d", "pass FAIL", &[Some("1"), Some("3")]),
        cand("wrong_operator", "e", "pass FAIL", &[Some("1"), Some("4")]),
        cand("swap_arguments", "f", "TIMEOUT pass", &[None, Some("2")]),
        cand("swap_arguments", "g", "", &[]),
        cand(
            "swap_arguments",
            "h",
            "FAIL FAIL:IndexError",
            &[Some("0"), None],
        ),
    ];
    let sel = select(&c, 4, 7);
    partition_ok(&sel, c.len());
    assert_eq!(sel.kept, vec![2, 4, 7]);
    assert_eq!(reason(&sel, 0), &DropReason::PassesAllTests);
    assert_eq!(reason(&sel, 1), &DropReason::OnlyCrashes);
    // same outcomes and same observed values as #2, although a different bug type
    assert_eq!(reason(&sel, 3), &DropReason::DuplicateOf(2));
    // a failure that is only a timeout is a crash, not a wrong value
    assert_eq!(reason(&sel, 5), &DropReason::OnlyCrashes);
    // an empty suite fails nothing
    assert_eq!(reason(&sel, 6), &DropReason::PassesAllTests);
    assert_eq!(
        DropReason::DuplicateOf(2).to_string(),
        "Duplicate behaviour of #2"
    );
    assert_eq!(DropReason::PassesAllTests.to_string(), "Passes all tests");
    assert_eq!(DropReason::NotChosen.to_string(), "Not chosen (quota)");
}

#[test]
fn duplicate_points_at_the_first_representative() {
    let c = vec![
        cand("off_by_one", "a", "FAIL", &[Some("1")]),
        cand("off_by_one", "b", "FAIL", &[Some("1")]),
        cand("off_by_one", "c", "FAIL", &[Some("1")]),
        cand("off_by_one", "d", "FAIL", &[Some("2")]),
    ];
    let sel = select(&c, 4, 0);
    assert_eq!(sel.kept, vec![0, 3]);
    assert_eq!(
        sel.dropped,
        vec![
            (1, DropReason::DuplicateOf(0)),
            (2, DropReason::DuplicateOf(0))
        ]
    );
}

#[test]
fn quota_drops_the_rest_as_not_chosen() {
    let c: Vec<Candidate> = (0..6)
        .map(|i| {
            cand(
                "off_by_one",
                &format!("code{i}"),
                "FAIL",
                &[Some(&i.to_string())],
            )
        })
        .collect();
    let sel = select(&c, 4, 1);
    partition_ok(&sel, 6);
    assert_eq!(sel.kept.len(), 4);
    assert!(sel.dropped.iter().all(|(_, r)| *r == DropReason::NotChosen));
    assert_eq!(select(&c, 0, 1).kept, Vec::<usize>::new());
}

#[test]
fn distinct_bug_types_come_first_in_bug_types_order() {
    let c = vec![
        cand("wrong_operator", "w", "FAIL", &[Some("w")]),
        cand("off_by_one", "o1", "FAIL", &[Some("o1")]),
        cand("off_by_one", "o2", "FAIL", &[Some("o2")]),
        cand("off_by_one", "o3", "FAIL", &[Some("o3")]),
        cand("swap_arguments", "s", "FAIL", &[Some("s")]),
        cand("legacy_type", "l", "FAIL", &[Some("l")]),
    ];
    // round one visits off_by_one, swap_arguments, wrong_operator, then unknown types
    for seed in 0..10 {
        let sel = select(&c, 2, seed);
        assert!(sel.kept.contains(&4), "{sel:?}");
        assert_eq!(
            sel.kept.iter().filter(|&&i| (1..=3).contains(&i)).count(),
            1
        );
        let sel = select(&c, 4, seed);
        assert!(sel.kept.contains(&0) && sel.kept.contains(&4) && sel.kept.contains(&5));
        // second round: a second off_by_one only once every type has one
        let sel = select(&c, 5, seed);
        assert_eq!(
            sel.kept.iter().filter(|&&i| (1..=3).contains(&i)).count(),
            2
        );
    }
}

/// SHA-256 of the seed's little-endian bytes followed by the code, computed here independently.
fn key(seed: u64, code: &str) -> Vec<u8> {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(code.as_bytes());
    h.finalize().to_vec()
}

#[test]
fn seeded_choice_within_a_type_is_deterministic_and_varies_with_the_seed() {
    let codes = ["x + 1", "x - 1", "x * 2", "x // 2", "x % 3"];
    let c: Vec<Candidate> = codes
        .iter()
        .map(|code| cand("wrong_operator", code, "FAIL", &[Some(code)]))
        .collect();
    let mut picks = std::collections::BTreeSet::new();
    for seed in 0..32u64 {
        let a = select(&c, 1, seed);
        assert_eq!(a, select(&c, 1, seed), "same seed, same result");
        let expected = (0..codes.len())
            .min_by_key(|&i| key(seed, codes[i]))
            .expect("non-empty");
        assert_eq!(a.kept, vec![expected], "seed {seed}");
        picks.insert(expected);
        // the choice does not depend on candidate order
        let mut rev = c.clone();
        rev.reverse();
        let b = select(&rev, 1, seed);
        assert_eq!(rev[b.kept[0]].mutant.code, codes[expected]);
    }
    assert!(picks.len() >= 3, "seeds should spread the picks: {picks:?}");
}

#[test]
fn outcome_helpers_classify_as_expected() {
    assert!(Outcome::Fail.is_plain_fail());
    assert!(!Outcome::FailExc("ValueError".into()).is_plain_fail());
}
