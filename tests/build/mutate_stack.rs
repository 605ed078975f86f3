//! Stacked mutants: disjoint line ranges, back-to-front splicing, parse check, determinism.

use execscope::mutate::{mutants, parses, stack, stacked_candidates, Mutant};

const SRC: &str = "def f(n, xs):\n    if n < 2:\n        return 1\n    total = 0\n    for x in xs[:n]:\n        total += x * 2\n    return total - n\n";

fn pick(ms: &[Mutant], operator: &str, line: usize) -> Mutant {
    ms.iter()
        .find(|m| m.operator == operator && m.line == line)
        .unwrap_or_else(|| panic!("no {operator} on line {line}"))
        .clone()
}

fn parts() -> Vec<Mutant> {
    let ms = mutants(SRC).expect("parses");
    vec![
        pick(&ms, "remove_guard", 2),
        pick(&ms, "int+1", 4),
        pick(&ms, "Mult->Div", 6),
        pick(&ms, "Sub->Add", 7),
        pick(&ms, "AugAdd->AugSub", 6),
    ]
}

#[test]
fn stacks_disjoint_edits_back_to_front() {
    let p = parts();
    // given out of order on purpose
    let s = stack(SRC, &[&p[3], &p[0], &p[2]]).expect("disjoint");
    assert_eq!(
        s.code,
        "def f(n, xs):\n    total = 0\n    for x in xs[:n]:\n        total += x / 2\n    return total + n\n"
    );
    assert_eq!(
        s.bug_types,
        vec!["remove_edge_case_check", "wrong_operator", "wrong_operator"]
    );
    assert_eq!(s.operators, vec!["remove_guard", "Mult->Div", "Sub->Add"]);
    assert_eq!(s.parts, vec![1, 2, 0]);
    assert_eq!(
        s.edits,
        vec![p[0].edit.clone(), p[2].edit.clone(), p[3].edit.clone()]
    );
    assert_eq!(
        s.description,
        "Removed the guard `if n < 2: return 1` on line 2. Changed the operator `*` to `/` on line 6. Changed the operator `-` to `+` on line 7."
    );
    let all = stack(SRC, &[&p[0], &p[1], &p[2], &p[3]]).expect("four disjoint");
    assert_eq!(
        all.code,
        "def f(n, xs):\n    total = 1\n    for x in xs[:n]:\n        total += x / 2\n    return total + n\n"
    );
}

#[test]
fn refuses_overlap_bad_counts_mismatched_edits_and_unparseable_results() {
    let p = parts();
    // both on line 6
    assert_eq!(stack(SRC, &[&p[2], &p[4]]), None);
    // the guard spans lines 2-3; its comparison is on line 2
    let ms = mutants(SRC).expect("parses");
    let lt = pick(&ms, "Lt->LtE", 2);
    assert_eq!(stack(SRC, &[&p[0], &lt]), None);
    // the guard's body (line 3) overlaps too
    let ret = pick(&ms, "int+1", 3);
    assert_eq!(stack(SRC, &[&p[0], &ret]), None);
    // adjacent lines are disjoint
    assert!(stack(SRC, &[&p[0], &p[1]]).is_some());
    assert_eq!(stack(SRC, &[&p[0]]), None);
    let five: Vec<&Mutant> = p.iter().collect();
    assert_eq!(stack(SRC, &five), None);
    let mut stale = p[1].clone();
    stale.edit.before = "1".into();
    assert_eq!(stack(SRC, &[&p[0], &stale]), None);
    let mut broken = p[1].clone();
    broken.edit.after = "(".into();
    assert!(!parses(&SRC.replace("total = 0", "total = (")));
    assert_eq!(stack(SRC, &[&p[0], &broken]), None);
}

#[test]
fn candidates_cover_every_disjoint_combination_and_respect_the_quota() {
    let p = parts();
    let all = stacked_candidates(SRC, &p, 100, 3);
    // five kept, two of them share line 6: C(5,2)-1 = 9 pairs, C(5,3)-3 = 7 triples,
    // C(5,4)-3 = 2 quadruples
    let sizes: Vec<usize> = all.iter().map(|s| s.edits.len()).collect();
    assert_eq!(sizes.iter().filter(|&&k| k == 2).count(), 9);
    assert_eq!(sizes.iter().filter(|&&k| k == 3).count(), 7);
    assert_eq!(sizes.iter().filter(|&&k| k == 4).count(), 2);
    assert!(sizes.windows(2).all(|w| w[0] <= w[1]));
    for s in &all {
        assert!(!(s.parts.contains(&2) && s.parts.contains(&4)), "{s:?}");
        assert!(parses(&s.code));
    }
    let few = stacked_candidates(SRC, &p, 2, 3);
    assert_eq!(few, stacked_candidates(SRC, &p, 2, 3));
    assert_eq!(
        few.iter().map(|s| s.edits.len()).collect::<Vec<_>>(),
        vec![2, 2, 3, 3, 4, 4]
    );
    assert!(few.iter().all(|s| all.contains(s)));
    let spread: std::collections::BTreeSet<Vec<usize>> = (0..16u64)
        .flat_map(|seed| stacked_candidates(SRC, &p, 1, seed))
        .map(|s| s.parts)
        .collect();
    assert!(spread.len() > 3, "seeds should vary the choice: {spread:?}");
    assert!(stacked_candidates(SRC, &p[..1], 4, 0).is_empty());
}
