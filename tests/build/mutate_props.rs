//! Property tests of the mutator over random Python functions (a small grammar of expressions
//! and statements: arithmetic, comparisons, `not`, calls, method calls, subscripts and slices,
//! literals of every kind, assignments, `if`/`elif`/`else`, `for`/`while` with `break` and
//! `continue`, `try`/`except`, lambdas, returns): under the whole catalogue every mutant passes
//! the unit tests' checks (`checked_with`: its edit matches the original and splices back to
//! its code, its code parses, codes are unique and differ from the original, the list is in
//! (offset, operator) order), every label is a family, a family alone gives only its own, and
//! the paper's families' mutants are exactly the default set's.

use crate::mutate_operators::checked_with;
use execscope::mutate::{mutants, parses, Family, Mutant, Operators};
use proptest::prelude::*;

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "n", "xs", "s", "k"]).prop_map(str::to_string),
        (0u8..12).prop_map(|v| v.to_string()),
        prop::sample::select(vec![
            "-1", "2.5", "0.0", "'x'", "''", "\"ab\"", "True", "None"
        ])
        .prop_map(str::to_string),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 24, 3, |inner| {
        let ops = prop::sample::select(vec![
            "+", "-", "*", "//", "%", "<", "<=", "==", "!=", "and", "or", "in", "is not", "&", "<<",
        ]);
        let methods = prop::sample::select(vec![
            "lower",
            "strip",
            "find",
            "startswith",
            "split",
            "index",
            "rjust",
        ]);
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(l, o, r)| format!("{l} {o} {r}")),
            inner.clone().prop_map(|e| format!("({e})")),
            inner.clone().prop_map(|e| format!("not {e}")),
            inner.clone().prop_map(|e| format!("-{e}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("g({a}, {b})")),
            (inner.clone(), methods, inner.clone()).prop_map(|(o, m, a)| format!("{o}.{m}({a})")),
            (inner.clone(), inner.clone()).prop_map(|(v, i)| format!("xs[{v}:{i}]")),
            inner.clone().prop_map(|i| format!("xs[{i}]")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, c, b)| format!("{a} if {c} else {b}")),
            inner
                .clone()
                .prop_map(|e| format!("[y for y in xs if {e}]")),
            inner.prop_map(|e| format!("(lambda t: {e})")),
        ]
    })
}

/// A block of statements at `indent`, `depth` levels of nesting allowed, `in_loop` when
/// `break`/`continue` are valid.
fn block(indent: usize, depth: u32, in_loop: bool) -> BoxedStrategy<String> {
    let pad = " ".repeat(indent);
    let simple = {
        let pad = pad.clone();
        let mut choices: Vec<BoxedStrategy<String>> = vec![
            expr().prop_map(|e| format!("a = {e}\n")).boxed(),
            expr().prop_map(|e| format!("n += {e}\n")).boxed(),
            expr().prop_map(|e| format!("g({e})\n")).boxed(),
            expr().prop_map(|e| format!("return {e}\n")).boxed(),
        ];
        if in_loop {
            choices.push(Just("break\n".to_string()).boxed());
            choices.push(Just("continue\n".to_string()).boxed());
        }
        prop::strategy::Union::new(choices).prop_map(move |s| format!("{pad}{s}"))
    };
    let stmt: BoxedStrategy<String> = if depth == 0 {
        simple.boxed()
    } else {
        let (p1, p2, p3, p4) = (pad.clone(), pad.clone(), pad.clone(), pad.clone());
        let inner = move |l: bool| block(indent + 4, depth - 1, l);
        prop_oneof![
            3 => simple,
            1 => (expr(), inner(in_loop), prop::option::of(inner(in_loop)))
                .prop_map(move |(c, b, e)| match e {
                    Some(e) => format!("{p1}if {c}:\n{b}{p1}else:\n{e}"),
                    None => format!("{p1}if {c}:\n{b}"),
                }),
            1 => (expr(), inner(true))
                .prop_map(move |(it, b)| format!("{p2}for y in {it}:\n{b}")),
            1 => (expr(), inner(true)).prop_map(move |(c, b)| format!("{p3}while {c}:\n{b}")),
            1 => (inner(in_loop), inner(in_loop)).prop_map(move |(b, h)| format!(
                "{p4}try:\n{b}{p4}except (ValueError, KeyError) as err:\n{h}"
            )),
        ]
        .boxed()
    };
    prop::collection::vec(stmt, 1..4)
        .prop_map(|v| v.concat())
        .boxed()
}

fn function() -> impl Strategy<Value = String> {
    block(4, 2, false).prop_map(|b| format!("def f(a, b, xs, s, n, k):\n{b}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn every_family_makes_valid_distinct_mutants(src in function()) {
        prop_assume!(parses(&src));
        // every mutant checked as in the unit tests (a failed check panics; proptest shrinks)
        let all = checked_with(&src, &Operators::all());
        for m in &all {
            prop_assert!(Family::from_name(&m.bug_type).is_some(), "{:?}", m);
        }
        let paper: Vec<Mutant> = all
            .iter()
            .filter(|m| Family::from_name(&m.bug_type).is_some_and(Family::is_paper))
            .cloned()
            .collect();
        prop_assert_eq!(paper, mutants(&src).expect("mutates"));
        for f in [Family::NegateCondition, Family::WrongLoopIterations, Family::WrongConstant] {
            let alone = checked_with(&src, &Operators::of(&[f]));
            prop_assert!(alone.iter().all(|m| m.bug_type == f.as_str()));
        }
    }
}
