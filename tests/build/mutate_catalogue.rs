//! The catalogue's families beyond the paper's six (`--operators all`), each on a hand-written
//! snippet: the sites found, the exact edit, that the result parses and splices back
//! (`checked_with`), and the label (`bug_type`) and description.

use crate::mutate_operators::{checked_with, edits, find, of_type};
use execscope::mutate::{mutants, mutants_with, Family, Mutant, Operators};

/// The snippets of the tests below, one per family (also cross-checked against CPython).
pub(crate) const NEGATE: &str = "def f(x, xs):\n    if x > 0 and x < 9:\n        return [y for y in xs if y]\n    elif not x:\n        return x if x else -1\n    while x:\n        x -= 1\n    return not xs\n";
pub(crate) const DELETE: &str = "def f(xs):\n    \"\"\"Doc.\"\"\"\n    out = []\n    for x in xs:\n        out.append(x)  # keep\n    out.sort(); out.reverse()\n    n = len(out)\n    ...\n    return out\n\nTOP = 1\n";
pub(crate) const SLICE: &str =
    "def f(a, i, j):\n    return a[i:j] + a[::2] + a[1 : -1 : i] + a[i]\n";
pub(crate) const LOOPS: &str = "def f(xs, n, d):\n    for i in range(n):\n        xs[i] += 1\n    for x in reversed(xs):\n        if x:\n            break\n    for x in sorted(xs): print(x)\n    for k in d.keys():\n        continue\n    while n:\n        n -= 1\n    return xs\n";
pub(crate) const NONE: &str = "def f(a, b):\n    c = a + b\n    a.x = 1\n    a[0] = c\n    p, q = b\n    d = None\n    e = g = 2\n    key = lambda t: t[0]\n    if a:\n        return\n    return c, d\n";
pub(crate) const STRING_METHODS: &str = "def f(s, xs):\n    t = s.strip().lower()\n    if t.startswith('#'):\n        return t.split(',', 1)\n    return xs.index(t), s.split(), t.rsplit(maxsplit=2), str.upper(s)\n";
pub(crate) const EXCEPT: &str = "def f(x):\n    try:\n        return int(x)\n    except (ValueError, TypeError) as e:\n        log(e)\n        return None\n    except KeyError:\n        raise\n    except Exception:\n        pass\n    except:\n        return 0\n";
pub(crate) const CONSTANTS: &str = "def f(x, s=''):\n    \"\"\"Docstring.\"\"\"\n    y = 5 + -3 + 0 + 1 + 2 ** x + 2.5 + -0.5 + .25\n    z = 'ab' + f'{x}' + r\"\\d\" + ('a' 'b') + ''\n    return True if y else False\n";
pub(crate) const UNARY: &str = "def f(a, b):\n    return -a + ~b - -1 + -(a * b)\n";

fn only(f: Family) -> Operators {
    Operators::of(&[f])
}

/// The mutants of one family, each checked and labelled with it.
fn family(src: &str, f: Family) -> Vec<Mutant> {
    let ms = checked_with(src, &only(f));
    for m in &ms {
        assert_eq!(m.bug_type, f.as_str(), "{m:?}");
        assert!(m.description.ends_with('.'), "{m:?}");
    }
    ms
}

fn triples(ms: &[Mutant]) -> Vec<(&str, &str, &str)> {
    edits(&ms.iter().collect::<Vec<_>>())
}

#[test]
fn negate_condition_wraps_conditions_and_removes_not() {
    let src = NEGATE;
    let ms = family(src, Family::NegateCondition);
    assert_eq!(
        triples(&ms),
        vec![
            ("negate(if)", "x > 0 and x < 9", "not (x > 0 and x < 9)"),
            ("negate(filter)", "y", "not y"),
            // `elif not x` is not wrapped again: removing its `not` is the negation
            ("remove_not", "not x", "x"),
            ("negate(ternary)", "x", "not x"),
            ("negate(while)", "x", "not x"),
            ("remove_not", "not xs", "xs"),
        ]
    );
    assert_eq!(
        ms[0].code,
        src.replace("if x > 0 and x < 9:", "if not (x > 0 and x < 9):")
    );
    assert_eq!(
        ms[3].code,
        src.replace("x if x else -1", "x if not x else -1")
    );
    assert_eq!(
        ms[0].description,
        "Negated the condition `x > 0 and x < 9` of the `if` on line 2."
    );
    assert_eq!(ms[2].description, "Removed the `not` of `x` on line 4.");
    // a comparison is parenthesised, a call is not
    let src = "def g(a, b):\n    while a < b:\n        a = h(a)\n    if h(a):\n        return 1\n";
    let ms = family(src, Family::NegateCondition);
    assert_eq!(ms[0].edit.after, "not (a < b)");
    assert_eq!(ms[1].edit.after, "not h(a)");
}

#[test]
fn delete_statement_removes_whole_lines_inside_functions_only() {
    let src = DELETE;
    let ms = family(src, Family::DeleteStatement);
    // the docstring, `...`, the two statements sharing a line and the module-level `TOP = 1`
    // are not sites
    assert_eq!(
        triples(&ms),
        vec![
            ("delete_statement", "    out = []\n", ""),
            (
                "delete_statement",
                "        out.append(x)  # keep\n",
                "        pass\n"
            ),
            ("delete_statement", "    n = len(out)\n", ""),
        ]
    );
    assert_eq!(ms[0].code, src.replace("    out = []\n", ""));
    assert_eq!(ms[1].line, 5);
    assert_eq!(
        ms[1].description,
        "Deleted the statement `out.append(x)` on line 5."
    );
}

#[test]
fn remove_slice_index_drops_each_bound_and_the_step() {
    let src = SLICE;
    let ms = family(src, Family::RemoveSliceIndex);
    assert_eq!(
        triples(&ms),
        vec![
            ("remove_slice(start)", "i", ""),
            ("remove_slice(stop)", "j", ""),
            ("remove_slice(step)", ":2", ""),
            ("remove_slice(start)", "1 ", ""),
            ("remove_slice(stop)", " -1", ""),
            ("remove_slice(step)", ": i", ""),
        ]
    );
    let codes: Vec<&str> = ms.iter().map(|m| m.code.as_str()).collect();
    assert!(codes[0].contains("a[:j] + a[::2]"));
    assert!(codes[1].contains("a[i:] + a[::2]"));
    assert!(codes[2].contains("a[i:j] + a[:] +"));
    assert!(codes[3].contains("a[: -1 : i]"));
    assert!(codes[4].contains("a[1 : : i]"));
    assert!(codes[5].contains("a[1 : -1 ] + a[i]"));
    assert_eq!(ms[1].description, "Removed the slice stop `j` on line 2.");
}

#[test]
fn wrong_loop_iterations_zero_once_reversed_and_break_continue() {
    let src = LOOPS;
    let ms = family(src, Family::WrongLoopIterations);
    assert_eq!(
        triples(&ms),
        vec![
            ("loop_reversed", "range(n)", "reversed(range(n))"),
            ("loop_zero", "range(n)", "[]"),
            ("loop_once", "", "\n        break"),
            ("loop_reversed", "reversed(xs)", "xs"),
            ("loop_zero", "reversed(xs)", "[]"),
            ("break->continue", "break", "continue"),
            // after the `if` (the body's last statement), at the body's indentation
            ("loop_once", "", "\n        break"),
            ("loop_reversed", "sorted(xs)", "reversed(sorted(xs))"),
            ("loop_zero", "sorted(xs)", "[]"),
            ("loop_once", "", "; break"),
            ("loop_reversed", "d.keys()", "reversed(list(d.keys()))"),
            ("loop_zero", "d.keys()", "[]"),
            // no `loop_once` here: the body ends in `continue`, a `break` after it never runs
            ("continue->break", "continue", "break"),
            ("loop_zero", "n", "False"),
            ("loop_once", "", "\n        break"),
        ]
    );
    assert_eq!(
        ms[2].code,
        src.replace("xs[i] += 1\n", "xs[i] += 1\n        break\n")
    );
    assert_eq!(
        ms[6].code,
        src.replace("            break\n", "            break\n        break\n")
    );
    assert_eq!(ms[9].code, src.replace("print(x)\n", "print(x); break\n"));
    assert_eq!(ms[2].line, 3);
    assert_eq!(
        ms[2].description,
        "Made the `for` loop on line 2 stop after its first iteration (`break` at the end of its body)."
    );
    assert_eq!(
        ms[13].description,
        "Made the `while` loop on line 10 run zero times (`n` → `False`)."
    );
}

#[test]
fn value_to_none_returns_assignments_and_lambdas() {
    let src = NONE;
    let ms = family(src, Family::ValueToNone);
    assert_eq!(
        triples(&ms),
        vec![
            ("assign->None", "a + b", "None"),
            ("assign->None", "1", "None"),
            ("assign->None", "c", "None"),
            // `p, q = b` unpacks, `d = None` already is; in `e = g = 2` only the last value
            ("assign->None", "2", "None"),
            ("assign->None", "lambda t: t[0]", "None"),
            ("lambda->None", "t[0]", "None"),
            // a bare `return` has no value
            ("return->None", "c, d", "None"),
        ]
    );
    assert_eq!(ms[3].code, src.replace("e = g = 2", "e = g = None"));
    assert_eq!(
        ms[0].description,
        "Assigned `None` instead of `a + b` to `c` on line 2."
    );
    assert_eq!(
        ms[6].description,
        "Returned `None` instead of `c, d` on line 11."
    );
    // module-level assignments are not sites (a constant the function reads)
    assert!(family("LIMIT = 3\n", Family::ValueToNone).is_empty());
}

#[test]
fn wrong_string_method_swaps_method_names() {
    let src = STRING_METHODS;
    let ms = family(src, Family::WrongStringMethod);
    assert_eq!(
        triples(&ms),
        vec![
            (".strip->.lstrip", "strip", "lstrip"),
            (".strip->.rstrip", "strip", "rstrip"),
            (".lower->.upper", "lower", "upper"),
            (".startswith->.endswith", "startswith", "endswith"),
            (".split->.rsplit", "split", "rsplit"),
            (".index->.rindex", "index", "rindex"),
            // `s.split()` has no maxsplit, so `rsplit` would agree with it
            (".rsplit->.split", "rsplit", "split"),
            (".upper->.lower", "upper", "lower"),
        ]
    );
    assert_eq!(ms[2].code, src.replace(".lower()", ".upper()"));
    assert_eq!(
        ms[2].description,
        "Called `.upper()` instead of `.lower()` on line 2."
    );
}

#[test]
fn wrong_exception_handling_broadens_narrows_and_replaces_handlers() {
    let src = EXCEPT;
    let ms = family(src, Family::WrongExceptionHandling);
    let body = "log(e)\n        return None";
    assert_eq!(
        triples(&ms),
        vec![
            ("except->Exception", "(ValueError, TypeError)", "Exception"),
            ("except_narrow(0)", "(ValueError, TypeError)", "ValueError"),
            ("except_narrow(1)", "(ValueError, TypeError)", "TypeError"),
            ("handler->pass", body, "pass"),
            ("handler->raise", body, "raise"),
            ("except->Exception", "KeyError", "Exception"),
            // a handler that re-raises is not made to re-raise, one that passes not to pass
            ("handler->pass", "raise", "pass"),
            ("handler->raise", "pass", "raise"),
            ("handler->pass", "return 0", "pass"),
            ("handler->raise", "return 0", "raise"),
        ]
    );
    assert_eq!(ms[4].code, src.replace(body, "raise"));
    assert_eq!(
        ms[1].description,
        "Narrowed `except (ValueError, TypeError)` to `except ValueError` on line 4."
    );
    assert_eq!(
        ms[3].description,
        "Made the `except` handler on line 4 swallow the exception (`pass`)."
    );
}

#[test]
fn wrong_constant_numbers_strings_and_booleans() {
    let src = CONSTANTS;
    let ms = family(src, Family::WrongConstant);
    assert_eq!(
        triples(&ms),
        vec![
            ("int->-1", "5", "-1"),
            ("int->0", "5", "0"),
            ("int->1", "5", "1"),
            ("int->-1", "-3", "-1"),
            ("int->0", "-3", "0"),
            ("int->1", "-3", "1"),
            // 0 and 1 have no replacement more than one away but -1 (for 1)
            ("int->-1", "1", "-1"),
            // a power's base is parenthesised when negative
            ("int->-1", "2", "(-1)"),
            ("int->0", "2", "0"),
            ("float+1", "2.5", "3.5"),
            ("float->0.0", "2.5", "0.0"),
            ("float+1", "-0.5", "0.5"),
            ("float->0.0", "-0.5", "0.0"),
            ("float+1", ".25", "1.25"),
            ("float->0.0", ".25", "0.0"),
            // not the f-string, the implicit concatenation or the empty string
            ("str->empty", "'ab'", "''"),
            ("str->empty", "r\"\\d\"", "r\"\""),
            ("True->False", "True", "False"),
            ("False->True", "False", "True"),
        ]
    );
    assert_eq!(ms[7].code, src.replace("2 ** x", "(-1) ** x"));
    assert_eq!(
        ms[0].description,
        "Replaced the constant `5` with `-1` on line 3."
    );
}

#[test]
fn remove_unary_operator_keeps_literals_for_wrong_constant() {
    let src = UNARY;
    let ms = family(src, Family::RemoveUnaryOperator);
    assert_eq!(
        triples(&ms),
        vec![
            ("remove_unary(-)", "-a", "a"),
            ("remove_unary(~)", "~b", "b"),
            ("remove_unary(-)", "-(a * b)", "(a * b)"),
        ]
    );
    assert_eq!(
        ms[2].code,
        "def f(a, b):\n    return -a + ~b - -1 + (a * b)\n"
    );
    assert_eq!(ms[0].description, "Removed the unary `-` of `a` on line 2.");
}

/// One snippet with a site of every family.
pub(crate) const EVERY_FAMILY: &str = "def f(xs, s, n):\n    if not xs:\n        return []\n    out = []\n    for x in xs[1:n]:\n        if not x or x < n:\n            continue\n        out.append(-x * 2)\n    try:\n        t = s.lower()\n    except ValueError:\n        return None\n    f(n, s)\n    return out if t else n\n";

#[test]
fn every_family_has_sites_and_the_paper_subset_is_the_default() {
    let all = checked_with(EVERY_FAMILY, &Operators::all());
    for f in Family::ALL {
        assert!(
            all.iter().any(|m| m.bug_type == f.as_str()),
            "no {f} mutant in {all:#?}"
        );
        // a family alone gives exactly its mutants of the whole catalogue (no other family
        // claimed one of their codes first, in this snippet)
        let alone = mutants_with(EVERY_FAMILY, &only(f)).unwrap();
        let within: Vec<Mutant> = all
            .iter()
            .filter(|m| m.bug_type == f.as_str())
            .cloned()
            .collect();
        assert_eq!(alone, within, "{f}");
    }
    let paper: Vec<Mutant> = all
        .iter()
        .filter(|m| Family::from_name(&m.bug_type).is_some_and(Family::is_paper))
        .cloned()
        .collect();
    assert_eq!(paper, mutants(EVERY_FAMILY).unwrap());
    assert_eq!(
        of_type(&all, "wrong_loop_iterations").len(),
        4,
        "zero, reversed and once (after the append) of the `for`; continue->break"
    );
    assert_eq!(find(&all, "loop_zero", "xs[1:n]").edit.after, "[]");
}
