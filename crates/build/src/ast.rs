//! The tree-sitter questions the gates and the benchmark readers ask of Python source: does a test
//! parse, which names does a source define at top level and which does it call, does a test call
//! (or hand over) the target function, and where is the first such call (for the negative control
//! of `check --oracle`). One tree-sitter parser serves these and the mutation engine
//! (`mutate::parse`).

use crate::mutate::parse::parse_tree as parse;
use tree_sitter::Node;

/// Statements of the module, comments left out.
fn statements(root: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// `Ok(())` when `test` is Python the judge can run: at least one statement, parsing without
/// an error; else why not ("is empty", "does not parse as Python at line 2"). A single-line
/// `assert` is the simplest case; a HumanEval `check` with its call is another.
pub fn python_test(test: &str) -> Result<(), String> {
    let tree = parse(test);
    let root = tree.root_node();
    if statements(root).is_empty() {
        return Err("is empty".into());
    }
    if root.has_error() {
        let mut at = None;
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            if n.is_error() || n.is_missing() {
                at = Some(n.start_position().row + 1);
                break;
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = n.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
        return Err(match at {
            Some(line) if test.contains('\n') => {
                format!("does not parse as Python (line {line})")
            }
            _ => "does not parse as Python".into(),
        });
    }
    Ok(())
}

/// True when `src` is exactly one expression statement (a value written as Python source).
pub fn single_expression(src: &str) -> bool {
    let tree = parse(src);
    let root = tree.root_node();
    !root.has_error()
        && matches!(statements(root).as_slice(), [one] if one.kind() == "expression_statement"
            && one.named_child_count() == 1)
}

/// The function a statement defines: the statement itself, or a decorated definition's
/// function; `None` for any other statement (a decorated class included).
pub fn function_of(stmt: Node<'_>) -> Option<Node<'_>> {
    match stmt.kind() {
        "function_definition" => Some(stmt),
        "decorated_definition" => stmt
            .child_by_field_name("definition")
            .filter(|d| d.kind() == "function_definition"),
        _ => None,
    }
}

/// Names bound by top-level `def`s (decorated ones included), in source order.
pub fn top_level_defs(src: &str) -> Vec<String> {
    crate::mutate::function_names(crate::mutate::Language::Python, src)
}

/// True when `src` parses without an error node (the mutation engine's own check).
pub use crate::mutate::parses;

/// The first call of `name(...)` in document order (outermost first); returns its argument list
/// text including the parentheses.
pub fn first_call_args(test: &str, name: &str) -> Option<String> {
    let tree = parse(test);
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            let callee = node.child_by_field_name("function");
            if callee
                .is_some_and(|f| f.kind() == "identifier" && test.get(f.byte_range()) == Some(name))
            {
                return node
                    .child_by_field_name("arguments")
                    .and_then(|a| test.get(a.byte_range()))
                    .map(str::to_string);
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The names `src` calls directly (`name(...)`), each once, in document order (outermost
/// first).
pub fn called_names(src: &str) -> Vec<String> {
    let tree = parse(src);
    let mut out: Vec<String> = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "call" {
            if let Some(f) = node
                .child_by_field_name("function")
                .filter(|f| f.kind() == "identifier")
            {
                if let Some(name) = src.get(f.byte_range()) {
                    if !out.iter().any(|n| n == name) {
                        out.push(name.to_string());
                    }
                }
            }
        }
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// True when `test` calls `name(...)` directly somewhere.
pub fn calls(test: &str, name: &str) -> bool {
    first_call_args(test, name).is_some()
}

/// True when `test` calls `name(...)` or passes `name` to a call (`check(name)`, HumanEval's
/// way of handing the function under test to its `check`).
pub fn calls_or_passes(test: &str, name: &str) -> bool {
    if calls(test, name) {
        return true;
    }
    let tree = parse(test);
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "argument_list" {
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|a| a.kind() == "identifier" && test.get(a.byte_range()) == Some(name))
            {
                return true;
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    false
}

/// Where a byte range sits in the signature of a `def` (any depth; lambdas are not `def` lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignatureSpot {
    /// Inside the default value of parameter `parameter` of function `function`; `value` is the
    /// default's full source text.
    Default {
        function: String,
        parameter: String,
        value: String,
    },
    /// Elsewhere in the parameter list or return annotation of `function`.
    Other { function: String },
}

/// Is `start..end` (byte offsets into `src`) entirely inside a function signature (its parameter
/// list or return annotation)? `None` when it is not, or touches the body.
pub fn signature_spot(src: &str, start: usize, end: usize) -> Option<SignatureSpot> {
    let tree = parse(src);
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "function_definition" {
            if let Some(params) = node.child_by_field_name("parameters") {
                let sig_end = node
                    .child_by_field_name("return_type")
                    .map_or(params.end_byte(), |r| r.end_byte());
                if start >= params.start_byte() && end <= sig_end {
                    let text = |n: Node| src.get(n.byte_range()).unwrap_or("").to_string();
                    let function = node
                        .child_by_field_name("name")
                        .map(text)
                        .unwrap_or_default();
                    let mut cursor = params.walk();
                    for p in params.named_children(&mut cursor) {
                        if !matches!(p.kind(), "default_parameter" | "typed_default_parameter") {
                            continue;
                        }
                        if let Some(value) = p.child_by_field_name("value") {
                            if start >= value.start_byte() && end <= value.end_byte() {
                                let parameter =
                                    p.child_by_field_name("name").map(text).unwrap_or_default();
                                return Some(SignatureSpot::Default {
                                    function,
                                    parameter,
                                    value: text(value),
                                });
                            }
                        }
                    }
                    return Some(SignatureSpot::Other { function });
                }
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tests_parse_and_are_not_empty() {
        assert!(python_test("assert f(1) == 2").is_ok());
        assert!(python_test("assert f(1) == 2  # note\n").is_ok());
        assert!(python_test("x = f(1)\nassert x == 2").is_ok());
        assert!(python_test(
            "def check(c):\n    for i in range(3):\n        assert c(i)\n\ncheck(f)\n"
        )
        .is_ok());
        assert!(python_test("assert f(1) ==\\\n 2").is_ok());
        assert_eq!(python_test("  ").unwrap_err(), "is empty");
        assert_eq!(python_test("# only a comment").unwrap_err(), "is empty");
        assert_eq!(
            python_test("assert f(1 == 2").unwrap_err(),
            "does not parse as Python"
        );
        assert_eq!(
            python_test("x = 1\nassert f(x ==\n").unwrap_err(),
            "does not parse as Python (line 2)"
        );
    }

    #[test]
    fn top_level_defs_include_decorated_and_skip_nested() {
        let src = "import x\n@dec\ndef a():\n    def inner():\n        pass\nclass C:\n    def m(self): pass\ndef b(): pass\n";
        assert_eq!(top_level_defs(src), vec!["a", "b"]);
    }

    #[test]
    fn first_call_is_outermost_and_by_name() {
        let t = "assert g(f(f(1), 2)) == [f(3)]";
        assert_eq!(first_call_args(t, "f").as_deref(), Some("(f(1), 2)"));
        assert!(calls(t, "g"));
        assert!(!calls("assert ff(1) == obj.f(2)", "f"));
        assert!(calls_or_passes(
            "def check(c):\n    assert c(1)\ncheck(f)\n",
            "f"
        ));
        assert!(calls_or_passes(t, "f"));
        assert!(!calls_or_passes("assert g(ff) == f", "f"));
    }

    #[test]
    fn signature_spots() {
        let src = "def f(a, n=4, *, sep: str = ' ', origin=(0, 0)) -> int:\n    def g(k=10):\n        return k + 4\n    return a\n";
        let at = |needle: &str, nth: usize| src.match_indices(needle).nth(nth).unwrap().0;
        let spot = |s: usize, len: usize| signature_spot(src, s, s + len);
        let four = at("4", 0);
        assert_eq!(
            spot(four, 1),
            Some(SignatureSpot::Default {
                function: "f".into(),
                parameter: "n".into(),
                value: "4".into()
            })
        );
        let sep = at("' '", 0);
        assert!(
            matches!(spot(sep, 3), Some(SignatureSpot::Default { parameter, .. }) if parameter == "sep")
        );
        let zero = at("0", 1);
        assert!(
            matches!(spot(zero, 1), Some(SignatureSpot::Default { value, .. }) if value == "(0, 0)")
        );
        // Parameter names, the return annotation: signature but not a default.
        assert_eq!(
            spot(at("a", 0), 1),
            Some(SignatureSpot::Other {
                function: "f".into()
            })
        );
        assert_eq!(
            spot(at("int", 0), 3),
            Some(SignatureSpot::Other {
                function: "f".into()
            })
        );
        // A nested def's default; the body (k + 4) is not a signature.
        assert!(
            matches!(spot(at("10", 0), 2), Some(SignatureSpot::Default { function, .. }) if function == "g")
        );
        assert_eq!(spot(at("4", 1), 1), None);
        assert_eq!(spot(at("return a", 0), 8), None);
    }
}
