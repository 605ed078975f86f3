//! Each mutation family on hand-written snippets, with the exact mutated text asserted.

use execscope::mutate::{mutants, mutants_with, parses, Mutant, MutateError, Operators};
use std::collections::HashSet;

/// Every mutant's edit must match the original and splice back to its code, and its code parses.
fn checked(src: &str) -> Vec<Mutant> {
    checked_with(src, &Operators::paper())
}

/// [`checked`] for the families of `ops`.
pub(crate) fn checked_with(src: &str, ops: &Operators) -> Vec<Mutant> {
    let ms = mutants_with(src, ops).expect("snippet parses");
    let mut codes = HashSet::new();
    for m in &ms {
        assert_eq!(&src[m.edit.start..m.edit.end], m.edit.before, "{m:?}");
        let spliced = format!(
            "{}{}{}",
            &src[..m.edit.start],
            m.edit.after,
            &src[m.edit.end..]
        );
        assert_eq!(spliced, m.code, "{m:?}");
        assert!(parses(&m.code), "{}", m.code);
        assert_ne!(m.code, src);
        assert!(codes.insert(m.code.clone()), "duplicate code {}", m.code);
    }
    let keys: Vec<(usize, &str)> = ms
        .iter()
        .map(|m| (m.edit.start, m.operator.as_str()))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "mutants are ordered by offset then operator");
    ms
}

/// The single mutant with this operator whose `before` text is `before` (panics otherwise).
pub(crate) fn find<'a>(ms: &'a [Mutant], operator: &str, before: &str) -> &'a Mutant {
    let hits: Vec<&Mutant> = ms
        .iter()
        .filter(|m| m.operator == operator && m.edit.before == before)
        .collect();
    assert_eq!(hits.len(), 1, "{operator} on {before:?}: {hits:#?}");
    hits[0]
}

/// (operator, text before, text after) of each mutant, in order.
pub(crate) fn edits<'a>(ms: &[&'a Mutant]) -> Vec<(&'a str, &'a str, &'a str)> {
    ms.iter()
        .map(|m| {
            (
                m.operator.as_str(),
                m.edit.before.as_str(),
                m.edit.after.as_str(),
            )
        })
        .collect()
}

pub(crate) fn of_type<'a>(ms: &'a [Mutant], bug_type: &str) -> Vec<&'a Mutant> {
    ms.iter().filter(|m| m.bug_type == bug_type).collect()
}

#[test]
fn wrong_operator_arithmetic_bitwise_boolean_augmented() {
    let src = "def f(a, b, c, d):\n    x = a + b * 2\n    x += c // d % 3\n    y = a & b | c ^ d << 1\n    return x and y or z\n";
    let ms = checked(src);
    let m = find(&ms, "Add->Sub", "+");
    assert_eq!(m.code, src.replace("a + b * 2", "a - b * 2"));
    assert_eq!(m.line, 2);
    assert_eq!(m.bug_type, "wrong_operator");
    assert_eq!(m.description, "Changed the operator `+` to `-` on line 2.");
    assert_eq!(
        find(&ms, "Mult->Div", "*").code,
        src.replace("b * 2", "b / 2")
    );
    assert_eq!(
        find(&ms, "AugAdd->AugSub", "+=").code,
        src.replace("x += ", "x -= ")
    );
    assert_eq!(
        find(&ms, "AugAdd->AugSub", "+=").description,
        "Changed the augmented assignment `+=` to `-=` on line 3."
    );
    assert_eq!(
        find(&ms, "FloorDiv->Div", "//").code,
        src.replace("c // d", "c / d")
    );
    assert_eq!(
        find(&ms, "Mod->FloorDiv", "%").code,
        src.replace("% 3", "// 3")
    );
    assert_eq!(
        find(&ms, "BitAnd->BitOr", "&").code,
        src.replace("a & b", "a | b")
    );
    assert_eq!(
        find(&ms, "BitOr->BitAnd", "|").code,
        src.replace("b | c", "b & c")
    );
    assert_eq!(
        find(&ms, "BitXor->BitOr", "^").code,
        src.replace("c ^ d", "c | d")
    );
    assert_eq!(
        find(&ms, "LShift->RShift", "<<").code,
        src.replace("<<", ">>")
    );
    assert_eq!(
        find(&ms, "And->Or", "and").code,
        src.replace("x and y or z", "x or y or z")
    );
    assert_eq!(
        find(&ms, "Or->And", "or").code,
        src.replace("x and y or z", "x and y and z")
    );
    assert_eq!(
        find(&ms, "Or->And", "or").description,
        "Changed the boolean operator `or` to `and` on line 5."
    );
    // one mutant per operator site: 2 + 3 + 4 + 2 = 11 operator sites on these lines
    assert_eq!(of_type(&ms, "wrong_operator").len(), 11);
}

#[test]
fn wrong_operator_pow_and_sub() {
    let src = "def f(a, b):\n    return a ** b - a / b\n";
    let ms = checked(src);
    assert_eq!(
        find(&ms, "Pow->Mult", "**").code,
        "def f(a, b):\n    return a * b - a / b\n"
    );
    assert_eq!(
        find(&ms, "Sub->Add", "-").code,
        "def f(a, b):\n    return a ** b + a / b\n"
    );
    assert_eq!(
        find(&ms, "Div->Mult", "/").code,
        "def f(a, b):\n    return a ** b - a * b\n"
    );
}

#[test]
fn wrong_comparison_all_pairs() {
    let src = "def f(x, s):\n    if x < 3 and x is not None:\n        return x not in s\n    return x == 1 or x >= 2 or x in s or x is s or x != 0 or x <= 1 or x > 4\n";
    let ms = checked(src);
    let cases = [
        ("Lt->LtE", "<", "x < 3", "x <= 3"),
        ("IsNot->Is", "is not", "x is not None", "x is None"),
        ("NotIn->In", "not in", "x not in s", "x in s"),
        ("Eq->NotEq", "==", "x == 1", "x != 1"),
        ("GtE->Gt", ">=", "x >= 2", "x > 2"),
        ("In->NotIn", "in", "x in s", "x not in s"),
        ("Is->IsNot", "is", "x is s", "x is not s"),
        ("NotEq->Eq", "!=", "x != 0", "x == 0"),
        ("LtE->Lt", "<=", "x <= 1", "x < 1"),
        ("Gt->GtE", ">", "x > 4", "x >= 4"),
    ];
    for (op, before, from, to) in cases {
        let m = find(&ms, op, before);
        assert_eq!(m.code, src.replacen(from, to, 1), "{op}");
        assert_eq!(m.bug_type, "wrong_comparison");
    }
    assert_eq!(
        find(&ms, "Lt->LtE", "<").description,
        "Changed the comparison `<` to `<=` on line 2."
    );
    assert_eq!(of_type(&ms, "wrong_comparison").len(), 10);
}

#[test]
fn off_by_one_integer_literals() {
    let src = "def f(a, x):\n    return a[0] + 10 + a[-1] + 0 ** x + 0x10 + 1_000\n";
    let ms = checked(src);
    let ints = of_type(&ms, "off_by_one");
    let got: Vec<(&str, &str, &str)> = edits(&ints);
    // hex and underscore literals are left alone; `-1` is one literal; `0 ** x` keeps its meaning
    // as a power base when negated.
    assert_eq!(
        got,
        vec![
            ("int+1", "0", "1"),
            ("int-1", "0", "-1"),
            ("int+1", "10", "11"),
            ("int-1", "10", "9"),
            ("int+1", "-1", "0"),
            ("int-1", "-1", "-2"),
            ("int+1", "0", "1"),
            ("int-1", "0", "(-1)"),
        ]
    );
    assert_eq!(
        ints[1].code,
        "def f(a, x):\n    return a[-1] + 10 + a[-1] + 0 ** x + 0x10 + 1_000\n"
    );
    assert_eq!(
        ints[5].code,
        "def f(a, x):\n    return a[0] + 10 + a[-2] + 0 ** x + 0x10 + 1_000\n"
    );
    assert_eq!(
        ints[7].code,
        "def f(a, x):\n    return a[0] + 10 + a[-1] + (-1) ** x + 0x10 + 1_000\n"
    );
    assert_eq!(
        ints[2].description,
        "Changed the integer literal `10` to `11` on line 2."
    );
}

#[test]
fn off_by_one_boundary_range_slice_index() {
    let src = "def f(a, n, i, j):\n    for k in range(n):\n        pass\n    return a[i:j] + a[i] + a[1:n - 1] + list(range(1, len(a)))\n";
    let ms = checked(src);
    let b = of_type(&ms, "off_by_one_boundary");
    let got: Vec<(&str, &str, &str)> = edits(&b);
    assert_eq!(
        got,
        vec![
            ("range_bound+1", "n", "n + 1"),
            ("range_bound-1", "n", "n - 1"),
            ("slice_bound+1", "i", "i + 1"),
            ("slice_bound-1", "i", "i - 1"),
            ("slice_bound+1", "j", "j + 1"),
            ("slice_bound-1", "j", "j - 1"),
            ("index+1", "i", "i + 1"),
            ("index-1", "i", "i - 1"),
            // `a[1:n - 1]`: both bounds carry a literal, so they are off_by_one sites only
            ("range_bound+1", "len(a)", "len(a) + 1"),
            ("range_bound-1", "len(a)", "len(a) - 1"),
        ]
    );
    assert_eq!(b[0].code, src.replace("range(n)", "range(n + 1)"));
    assert_eq!(b[5].code, src.replace("a[i:j]", "a[i:j - 1]"));
    assert_eq!(b[8].code, src.replace("len(a))", "len(a) + 1)"));
    assert_eq!(
        b[0].description,
        "Changed the range stop bound `n` to `n + 1` on line 2."
    );
    assert_eq!(
        b[5].description,
        "Changed the slice stop bound `j` to `j - 1` on line 4."
    );
    // the literal bounds are still mutated, as integers
    assert!(ms
        .iter()
        .any(|m| m.operator == "int+1" && m.code.contains("a[1:n - 2]")));
}

#[test]
fn boundary_parenthesises_loose_expressions_and_skips_annotations() {
    let src = "from typing import List\n\ndef f(a: List[int], b, c) -> List[int]:\n    return a[b or c:]\n";
    let ms = checked(src);
    let b = of_type(&ms, "off_by_one_boundary");
    assert_eq!(b.len(), 2, "{b:#?}");
    assert_eq!(b[0].code, src.replace("a[b or c:]", "a[(b or c) + 1:]"));
    assert_eq!(b[1].edit.after, "(b or c) - 1");
}

#[test]
fn swap_arguments_calls_and_operands() {
    let src = "def f(a, b, c, x):\n    g(a, b, c, key=x)\n    y = a - b - c\n    return x < y < c or 2 ** -x > b % c\n";
    let ms = checked(src);
    let s = of_type(&ms, "swap_arguments");
    let got: Vec<(&str, &str, &str)> = edits(&s);
    assert_eq!(
        got,
        vec![
            ("call_args(0,1)", "a, b", "b, a"),
            ("call_args(1,2)", "b, c", "c, b"),
            // same start: the shorter edit sorts first
            ("swap_operands(Sub)", "a - b", "b - a"),
            ("swap_operands(Sub)", "a - b - c", "c - (a - b)"),
            // the chained comparison `x < y < c` is not swapped
            ("swap_operands(Gt)", "2 ** -x > b % c", "b % c > 2 ** -x"),
            ("swap_operands(Pow)", "2 ** -x", "(-x) ** 2"),
            ("swap_operands(Mod)", "b % c", "c % b"),
        ]
    );
    assert_eq!(s[0].code, src.replace("g(a, b, c", "g(b, a, c"));
    assert_eq!(
        s[0].description,
        "Swapped the arguments `a` and `b` in the call to `g` on line 2."
    );
    assert_eq!(
        s[3].description,
        "Swapped the operands of `-` on line 3: `a - b - c` became `c - (a - b)`."
    );
}

#[test]
fn remove_guard_deletes_whole_lines() {
    let src = "def f(n):\n    if n < 2:\n        return 1\n    if n > 100: raise ValueError(\"big\")  # too big\n    if n == 5:\n        return 5\n    else:\n        return 6\n";
    let ms = checked(src);
    let g = of_type(&ms, "remove_edge_case_check");
    assert_eq!(g.len(), 2, "the if/else is not a guard: {g:#?}");
    assert_eq!(g[0].operator, "remove_guard");
    assert_eq!(
        g[0].code,
        src.replace("    if n < 2:\n        return 1\n", "")
    );
    assert_eq!(g[0].edit.before, "    if n < 2:\n        return 1\n");
    assert_eq!(g[0].edit.after, "");
    assert_eq!(g[0].line, 2);
    assert_eq!(
        g[0].description,
        "Removed the guard `if n < 2: return 1` on line 2."
    );
    assert_eq!(
        g[1].code,
        src.replace("    if n > 100: raise ValueError(\"big\")  # too big\n", "")
    );
    assert_eq!(g[1].line, 4);
}

#[test]
fn remove_guard_keeps_a_lone_block_valid_and_skips_multi_statement_bodies() {
    let src = "def g(xs):\n    for x in xs:\n        if x:\n            return x\n    if not xs:\n        print(xs)\n        return 0\n    return None";
    let ms = checked(src);
    let g = of_type(&ms, "remove_edge_case_check");
    assert_eq!(g.len(), 1, "{g:#?}");
    assert_eq!(
        g[0].code,
        "def g(xs):\n    for x in xs:\n        pass\n    if not xs:\n        print(xs)\n        return 0\n    return None"
    );
    // a guard on the last line without a trailing newline
    let src = "def h(x):\n    if x:\n        return 1";
    let ms = checked(src);
    assert_eq!(
        ms.iter()
            .find(|m| m.operator == "remove_guard")
            .map(|m| m.code.as_str()),
        Some("def h(x):\n    pass")
    );
}

#[test]
fn parse_errors_name_line_and_column() {
    let err = mutants("def f(x):\n    return (x +\n").unwrap_err();
    assert_eq!(
        err,
        MutateError::Parse {
            language: execscope::mutate::Language::Python,
            line: 2,
            column: 5,
            problem: "syntax error near `return (x +`".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "Python parse error at line 2, column 5: syntax error near `return (x +`"
    );
    // a zero-width MISSING node is reported as such
    assert_eq!(
        mutants("def f(:\n    pass\n").unwrap_err().to_string(),
        "Python parse error at line 1, column 7: missing `)`"
    );
    assert!(!parses("def f(:\n    pass\n"));
    assert!(!parses("x = (1, 2\n"));
    assert!(!parses("def f(x)\n    return x\n"));
    assert!(parses("def f(x):\n    return x\n"));
}

#[test]
fn non_ascii_sources_splice_on_char_boundaries() {
    let src = "def f(s):\n    return s + 'é' * 2\n";
    let ms = checked(src);
    assert!(ms
        .iter()
        .any(|m| m.code == "def f(s):\n    return s + 'é' * 3\n"));
}

#[test]
fn textually_identical_mutants_are_kept_once() {
    // removing either of two identical guards gives the same program: only the first survives
    let src = "def f(x):\n    if x:\n        return 1\n    if x:\n        return 1\n    return 0\n";
    let ms = checked(src);
    let g = of_type(&ms, "remove_edge_case_check");
    assert_eq!(g.len(), 1, "{g:#?}");
    assert_eq!(g[0].line, 2);
    assert_eq!(
        g[0].code,
        "def f(x):\n    if x:\n        return 1\n    return 0\n"
    );
}
