//! Trivial Compiler Equivalence with the real CPython (skipped by name without one): mutants
//! whose compiled code equals the canonical's are equivalent (dead code, constant folding, line
//! numbers only), mutants whose code equals another's are duplicates (`not (x in s)` is
//! `x not in s`), sources CPython refuses are named, and a build never executes any of them.

use crate::common;
use execscope::build::equivalence::{compile_all, group, settle, settle_all, Compiled, Settled};
use execscope::mutate::{mutants_with, Operators};

fn python(test: &str) -> bool {
    common::require_python(test, &["json", "resource"]).is_some()
}

#[test]
fn compiled_code_shows_equivalence_and_duplicates() {
    if !python("compiled_code_shows_equivalence_and_duplicates") {
        return;
    }
    let canonical =
        "def f(x, s):\n    if x in s:\n        return x * 2 ** 3\n    return x\n    x = x + 1\n";
    let mutants = [
        // dead code after the last return: the compiler drops it
        canonical.replace("x = x + 1", "x = x - 1"),
        // folded to the same constant
        canonical.replace("2 ** 3", "8"),
        // only line numbers differ
        canonical.replace("    return x\n    x", "\n    return x\n    x"),
        canonical.replace("if x in s", "if not (x in s)"),
        canonical.replace("if x in s", "if x not in s"),
        canonical.replace("return x * 2", "return x * 3"),
        canonical.replace("    x = x + 1\n", "break\n"),
    ];
    let mut sources: Vec<&str> = vec![canonical];
    sources.extend(mutants.iter().map(String::as_str));
    let compiled = compile_all(&sources).expect("python3 runs");
    assert!(matches!(compiled[0], Compiled::Code(ref d) if d.len() == 64));
    let st = settle(&compiled[0], &compiled[1..], &[true; 7]);
    assert_eq!(
        st,
        vec![
            Settled::Equivalent,
            Settled::Equivalent,
            Settled::Equivalent,
            Settled::Execute,
            Settled::DuplicateOf(3),
            Settled::Execute,
            Settled::DoesNotCompile("SyntaxError: 'break' outside loop (line 5)".into()),
        ]
    );
    // the same sources give the same digests in another process (hash seeds do not matter:
    // a frozenset constant is compared sorted)
    let set = "def g(c):\n    return c in {'a', 'b', 'c', 'd'}\n";
    let again = compile_all(&[set, set]).unwrap();
    assert_eq!(again[0], again[1]);
    assert_eq!(compile_all(&[set]).unwrap()[0], again[0]);
}

#[test]
fn the_catalogue_settles_mutants_before_execution() {
    if !python("the_catalogue_settles_mutants_before_execution") {
        return;
    }
    let src = "def f(x, s):\n    if x in s:\n        return 1\n    return 0\n    print(x)\n";
    let ms = mutants_with(src, &Operators::all()).unwrap();
    let (settled, checked) = settle_all(&[group(src, &ms)]);
    assert!(checked.checked, "{}", checked.note);
    let find = |op: &str, after: &str| {
        let i = ms
            .iter()
            .position(|m| m.operator == op && m.edit.after == after)
            .unwrap_or_else(|| panic!("{op} {after}: {ms:#?}"));
        (i, &settled[0][i])
    };
    // `not (x in s)` (negate_condition) duplicates `x not in s` (wrong_comparison): the paper's
    // family represents the program although its mutant comes later in the list
    let (neg, neg_settled) = find("negate(if)", "not (x in s)");
    let (not_in, not_in_settled) = find("In->NotIn", "not in");
    assert!(neg < not_in);
    assert_eq!(neg_settled, &Settled::DuplicateOf(not_in));
    assert_eq!(not_in_settled, &Settled::Execute);
    // everything in the dead `print(x)` line is equivalent to the canonical
    assert_eq!(find("delete_statement", "").1, &Settled::Equivalent);
}
