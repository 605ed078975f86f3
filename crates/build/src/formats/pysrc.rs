//! The tree-sitter questions the benchmark readers ask of Python source: a prompt without its
//! function under test, a function's docstring and the description in it, and the statements of
//! a HumanEval `check(candidate)` grouped into tests (see [`check_units`]).

use crate::mutate::parse::parse_tree;
use tree_sitter::Node;

fn text<'s>(src: &'s str, n: Node<'_>) -> &'s str {
    src.get(n.byte_range()).unwrap_or("")
}

/// The top-level `def name` (decorated or not) of `src`, as (whole statement, function node).
fn top_def<'t>(root: Node<'t>, src: &str, name: &str) -> Option<(Node<'t>, Node<'t>)> {
    let mut cursor = root.walk();
    let found = root.named_children(&mut cursor).find_map(|stmt| {
        let def = crate::ast::function_of(stmt)?;
        let n = def.child_by_field_name("name")?;
        (text(src, n) == name).then_some((stmt, def))
    });
    found
}

/// Byte offset of the start of the line holding `byte`.
fn line_start(src: &str, byte: usize) -> usize {
    src[..byte].rfind('\n').map_or(0, |i| i + 1)
}

/// `src` without its top-level `def name` (decorators included): a HumanEval prompt's imports
/// and helpers, the trusted part of the prompt the judge runs before a test. `None` when `src`
/// defines no such function at top level.
pub fn without_def(src: &str, name: &str) -> Option<String> {
    let tree = parse_tree(src);
    let (stmt, _) = top_def(tree.root_node(), src, name)?;
    let start = line_start(src, stmt.start_byte());
    let mut end = stmt.end_byte();
    if src[end..].starts_with('\n') {
        end += 1;
    }
    Some(format!("{}{}", &src[..start], &src[end..]))
}

/// The docstring of the top-level function `name` of `src`, decoded and dedented as Python's
/// `inspect.cleandoc` does; `None` when there is none.
pub fn docstring(src: &str, name: &str) -> Option<String> {
    let tree = parse_tree(src);
    let (_, def) = top_def(tree.root_node(), src, name)?;
    let body = def.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let first = body
        .named_children(&mut cursor)
        .find(|n| n.kind() != "comment")?;
    let s = (first.kind() == "expression_statement")
        .then(|| first.named_child(0))
        .flatten()
        .filter(|s| s.kind() == "string")?;
    Some(cleandoc(&string_value(text(src, s))?))
}

/// The value of a (non-f, non-bytes) Python string literal, escapes decoded; `None` for a form
/// this reader does not decode.
pub fn string_value(lit: &str) -> Option<String> {
    let prefix_len = lit.find(['\'', '"'])?;
    let prefix = lit[..prefix_len].to_ascii_lowercase();
    if prefix.contains('b') || prefix.contains('f') {
        return None;
    }
    let body = &lit[prefix_len..];
    let q = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| body.starts_with(q) && body.len() >= 2 * q.len() && body.ends_with(q))?;
    let inner = &body[q.len()..body.len() - q.len()];
    if prefix.contains('r') {
        return Some(inner.to_string());
    }
    let mut out = String::with_capacity(inner.len());
    let mut it = inner.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('\n') => {}
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    Some(out)
}

/// Python's `inspect.cleandoc`: tabs expanded, the first line stripped, the common indentation
/// of the others removed, leading and trailing blank lines dropped.
pub fn cleandoc(doc: &str) -> String {
    let expanded = doc.replace('\t', "        ");
    let lines: Vec<&str> = expanded.lines().collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim_start().to_string());
        } else {
            out.push(l.get(margin..).unwrap_or("").trim_end().to_string());
        }
    }
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// The description part of a docstring as one line: the text before its examples (a line that
/// starts with `>>>`, or an `Example`, `Examples`, `For example` or `e.g.` heading), whitespace
/// collapsed. A docstring that starts with its examples gives its whole text.
pub fn description(doc: &str) -> String {
    let is_example = |l: &str| {
        let t = l.trim_start().to_ascii_lowercase();
        t.starts_with(">>>")
            || t.starts_with("example")
            || t.starts_with("for example")
            || t.starts_with("for examples")
            || t.starts_with("e.g.")
    };
    let lines: Vec<&str> = doc.lines().collect();
    let cut = lines
        .iter()
        .position(|l| is_example(l))
        .unwrap_or(lines.len());
    let kept = if lines[..cut].iter().all(|l| l.trim().is_empty()) {
        &lines[..]
    } else {
        &lines[..cut]
    };
    kept.iter()
        .flat_map(|l| l.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// How a HumanEval test file maps to tests: one per unit of its `check` body, or the whole
/// `check` as one test (see [`check_units`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckSplit {
    /// One test text per unit: everything outside `check` as written, `def check(candidate):`
    /// with the unit and every setup statement before it, nothing after.
    Units(Vec<String>),
    /// The test file as written: its body cannot be split without changing what it checks.
    Whole(String),
}

/// Does `n` hold a node of one of `kinds`, outside nested functions, classes and lambdas?
fn holds(n: Node<'_>, kinds: &[&str]) -> bool {
    if kinds.contains(&n.kind()) {
        return true;
    }
    let mut cursor = n.walk();
    let found = n.named_children(&mut cursor).any(|c| {
        !matches!(
            c.kind(),
            "function_definition" | "class_definition" | "lambda" | "decorated_definition"
        ) && holds(c, kinds)
    });
    found
}

/// Does `n` hold an `assert` inside a nested function, class or lambda (a helper the body calls)?
fn nested_assert(n: Node<'_>) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if matches!(
            x.kind(),
            "function_definition" | "class_definition" | "lambda" | "decorated_definition"
        ) && holds_any(x, "assert_statement")
        {
            return true;
        }
        let mut cursor = x.walk();
        stack.extend(x.named_children(&mut cursor));
    }
    false
}

fn holds_any(n: Node<'_>, kind: &str) -> bool {
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        if x.kind() == kind {
            return true;
        }
        let mut cursor = x.walk();
        stack.extend(x.named_children(&mut cursor));
    }
    false
}

/// The tests of a HumanEval-style test file (`def check(candidate): ...`).
///
/// The body of `check` is read as a sequence of statements. A statement holding an `assert`
/// (an `assert`, or a loop, `if`, `with` or `try` around asserts) is a *unit*; every other
/// statement (assignments, imports, helper calls) is *setup*. Each unit becomes one test: the
/// file as written, with `check`'s body reduced to every setup statement before the unit (in
/// order) and the unit; setup statements after the last unit go with the last test. A candidate
/// passes every test exactly when it passes the whole `check`, as long as it keeps no state from
/// one call to the next (each test runs the code afresh; docs/task-file.md).
///
/// The body is kept whole (one test) when splitting could change what it checks: no unit, a
/// `return` or `yield` in the body (later asserts would not have run), an assert inside a nested
/// function or class (the units that call it are not visible), or a body on the `def` line.
/// `Err` when the file defines no `check` at top level or does not parse.
pub fn check_units(test: &str) -> Result<CheckSplit, String> {
    let tree = parse_tree(test);
    let root = tree.root_node();
    if root.has_error() {
        return Err("the test code does not parse as Python".into());
    }
    let (stmt, def) =
        top_def(root, test, "check").ok_or("the test code defines no `check` at top level")?;
    let whole = || Ok(CheckSplit::Whole(test.to_string()));
    let body = def
        .child_by_field_name("body")
        .ok_or("`check` has no body")?;
    let mut cursor = body.walk();
    let children: Vec<Node> = body.named_children(&mut cursor).collect();
    let stmts: Vec<Node> = children
        .iter()
        .copied()
        .filter(|n| n.kind() != "comment")
        .collect();
    let Some(first) = children.first() else {
        return whole();
    };
    let def_line = def.start_position().row;
    if stmts.iter().any(|s| s.start_position().row == def_line)
        || stmts
            .iter()
            .any(|s| holds(*s, &["return_statement", "yield"]) || nested_assert(*s))
    {
        return whole();
    }
    let units: Vec<usize> = (0..stmts.len())
        .filter(|&i| holds(stmts[i], &["assert_statement"]))
        .collect();
    if units.len() < 2 {
        return whole();
    }
    let head = &test[..line_start(test, first.start_byte())];
    let mut end = stmt.end_byte();
    if test[end..].starts_with('\n') {
        end += 1;
    }
    let tail = &test[end..];
    // Each statement with the comment lines directly above it.
    let mut pieces: Vec<(Node, String)> = Vec::new();
    let mut pending = String::new();
    for c in &children {
        let piece = &test[line_start(test, c.start_byte())..c.end_byte()];
        pending.push_str(piece);
        pending.push('\n');
        if c.kind() != "comment" {
            pieces.push((*c, std::mem::take(&mut pending)));
        }
    }
    let last_unit = *units.last().expect("two units");
    let mut tests = Vec::with_capacity(units.len());
    for &u in &units {
        let mut body_text = String::new();
        for (i, (_, piece)) in pieces.iter().enumerate() {
            let setup_before = i < u && !units.contains(&i);
            let setup_after_last = u == last_unit && i > u;
            if setup_before || i == u || setup_after_last {
                body_text.push_str(piece);
            }
        }
        tests.push(format!("{head}{body_text}{tail}"));
    }
    Ok(CheckSplit::Units(tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROMPT: &str = "import math\n\n\ndef poly(xs, x):\n    \"\"\"Evaluates a polynomial.\"\"\"\n    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n\n\n@cache\ndef find_zero(xs: list):\n    \"\"\" xs are coefficients of a polynomial.\n    find_zero find x such that poly(x) = 0.\n    >>> round(find_zero([1, 2]), 2)\n    -0.5\n    \"\"\"\n";

    #[test]
    fn prompt_without_the_function_keeps_imports_and_helpers() {
        let setup = without_def(PROMPT, "find_zero").unwrap();
        assert_eq!(
            setup,
            "import math\n\n\ndef poly(xs, x):\n    \"\"\"Evaluates a polynomial.\"\"\"\n    return sum(c * math.pow(x, i) for i, c in enumerate(xs))\n\n\n"
        );
        assert!(without_def(PROMPT, "nothing").is_none());
    }

    #[test]
    fn docstring_description_stops_at_examples() {
        let doc = docstring(PROMPT, "find_zero").unwrap();
        assert_eq!(
            doc,
            "xs are coefficients of a polynomial.\nfind_zero find x such that poly(x) = 0.\n>>> round(find_zero([1, 2]), 2)\n-0.5"
        );
        assert_eq!(
            description(&doc),
            "xs are coefficients of a polynomial. find_zero find x such that poly(x) = 0."
        );
        assert_eq!(
            description("Return x.\n\nFor example:\nf(1) == 1"),
            "Return x."
        );
        assert_eq!(description(">>> f(1)\n1"), ">>> f(1) 1");
        assert_eq!(
            string_value(r#"r'a\n'"#).as_deref(),
            Some(r"a\n"),
            "raw strings stay raw"
        );
        assert_eq!(string_value(r#""a\"b\n""#).as_deref(), Some("a\"b\n"));
        assert!(string_value("b'x'").is_none());
    }

    const CHECK: &str = "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import math\n    # simple cases\n    assert candidate(1) == 1\n    x = 2\n    for i in range(3):\n        assert candidate(i) == i\n    assert abs(candidate(x) - 2) < 1e-6\n    print('done')\n\n";

    #[test]
    fn check_units_carry_the_setup_before_them() {
        let CheckSplit::Units(t) = check_units(CHECK).unwrap() else {
            panic!("splits")
        };
        assert_eq!(t.len(), 3);
        assert_eq!(
            t[0],
            "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import math\n    # simple cases\n    assert candidate(1) == 1\n\n"
        );
        assert_eq!(
            t[1],
            "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import math\n    x = 2\n    for i in range(3):\n        assert candidate(i) == i\n\n"
        );
        assert_eq!(
            t[2],
            "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    import math\n    x = 2\n    assert abs(candidate(x) - 2) < 1e-6\n    print('done')\n\n"
        );
    }

    #[test]
    fn bodies_that_cannot_be_split_stay_whole() {
        for body in [
            "    for _ in range(9):\n        assert candidate(1) == 1\n",
            "    assert candidate(1) == 1\n    return\n    assert candidate(2) == 2\n",
            "    def h(x):\n        assert candidate(x) == x\n    h(1)\n    assert candidate(2) == 2\n",
            "    x = [candidate(i) for i in range(3)]\n",
        ] {
            let src = format!("def check(candidate):\n{body}\n");
            assert_eq!(check_units(&src).unwrap(), CheckSplit::Whole(src.clone()), "{body}");
        }
        let one_line = "def check(candidate): assert candidate(1); assert candidate(2)\n";
        assert!(matches!(check_units(one_line), Ok(CheckSplit::Whole(_))));
        assert!(check_units("def other(c):\n    assert c(1)\n").is_err());
        assert!(check_units("def check(c:\n").is_err());
    }
}
