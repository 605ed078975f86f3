//! The tree-sitter questions the gates ask of task sources: is a test one single-line `assert`,
//! which names does a source define at top level, does a test call the target function, and where
//! is the first such call (for the negative control of `check --oracle`). One tree-sitter parser
//! serves these and the mutation engine (`mutate::parse`).

use crate::mutate::parse::parse_tree as parse;
use tree_sitter::Node;

/// Statements of the module, comments left out.
fn statements(root: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// `Ok(())` when `test` is exactly one `assert` statement on a single line; else why not.
pub fn single_assert(test: &str) -> Result<(), String> {
    if test.trim().is_empty() {
        return Err("empty test".into());
    }
    if test.trim_end_matches(['\n', '\r']).contains(['\n', '\r']) {
        return Err("spans several lines".into());
    }
    let tree = parse(test);
    let root = tree.root_node();
    if root.has_error() {
        return Err("does not parse as Python".into());
    }
    let stmts = statements(root);
    match stmts.as_slice() {
        [one] if one.kind() == "assert_statement" => Ok(()),
        [one] => Err(format!("is a {} statement, not an assert", one.kind())),
        many => Err(format!("has {} statements, not one assert", many.len())),
    }
}

/// Names bound by top-level `def`s (decorated ones included), in source order.
pub fn top_level_defs(src: &str) -> Vec<String> {
    let tree = parse(src);
    let root = tree.root_node();
    let mut out = Vec::new();
    for stmt in statements(root) {
        let def = match stmt.kind() {
            "function_definition" => Some(stmt),
            "decorated_definition" => stmt
                .child_by_field_name("definition")
                .filter(|d| d.kind() == "function_definition"),
            _ => None,
        };
        if let Some(name) = def.and_then(|d| d.child_by_field_name("name")) {
            if let Some(text) = src.get(name.byte_range()) {
                out.push(text.to_string());
            }
        }
    }
    out
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

/// True when `test` calls `name(...)` directly somewhere.
pub fn calls(test: &str, name: &str) -> bool {
    first_call_args(test, name).is_some()
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
    fn single_assert_accepts_only_one_line_assert() {
        assert!(single_assert("assert f(1) == 2").is_ok());
        assert!(single_assert("assert f(1) == 2  # note").is_ok());
        assert!(single_assert("assert f(1) == 2\n").is_ok());
        assert!(single_assert("x = f(1)")
            .unwrap_err()
            .contains("not an assert"));
        assert!(single_assert("assert f(1); assert f(2)")
            .unwrap_err()
            .contains("2 statements"));
        assert!(single_assert("assert f(1) ==\\\n 2")
            .unwrap_err()
            .contains("several lines"));
        assert!(single_assert("assert f(1 == 2").is_err());
        assert!(single_assert("  ").is_err());
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
