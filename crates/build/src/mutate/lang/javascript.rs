//! JavaScript (tree-sitter-javascript) and TypeScript (tree-sitter-typescript, a superset of the
//! same node kinds plus types, which are never mutated).
//!
//! "Nothing" is `null` (a returned value, an assigned one, an arrow function's value); loops
//! over an `of` collection run zero times over `[]` and reversed over `[...xs].reverse()`;
//! `for … in` (over keys) is not reversed.

use super::cfamily::{self, text};
use super::{Construct as C, Dialect};
use execscope_record::Language;
use tree_sitter::Node;

pub(super) struct Js {
    typescript: bool,
}

pub(super) const JS: Js = Js { typescript: false };
pub(super) const TS: Js = Js { typescript: true };

const FUNCTIONS: &[&str] = &[
    "function_declaration",
    "function_expression",
    "function",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "generator_function",
];

/// The expression inside a `(...)` a statement requires around its condition.
pub(super) fn unparen(n: Node) -> Node {
    if n.kind() == "parenthesized_expression" {
        let mut cursor = n.walk();
        let inner: Vec<Node> = n
            .named_children(&mut cursor)
            .filter(|c| !c.kind().contains("comment"))
            .collect();
        if let [one] = inner.as_slice() {
            return *one;
        }
    }
    n
}

/// The named children of `n` that are not comments.
pub(super) fn named(n: Node) -> Vec<Node> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor)
        .filter(|c| !c.kind().contains("comment"))
        .collect()
}

impl Dialect for Js {
    fn language(&self) -> Language {
        if self.typescript {
            Language::TypeScript
        } else {
            Language::JavaScript
        }
    }

    fn construct<'t>(&self, node: Node<'t>, src: &str) -> C<'t> {
        let field = |f: &str| node.child_by_field_name(f);
        match node.kind() {
            "binary_expression" => match (field("left"), field("operator"), field("right")) {
                (Some(left), Some(op), Some(right)) => C::Binary { left, op, right },
                _ => C::Other,
            },
            "augmented_assignment_expression" => {
                match (field("left"), field("operator"), field("right")) {
                    (Some(target), Some(op), Some(value)) => C::Compound { target, op, value },
                    _ => C::Other,
                }
            }
            "assignment_expression" => match (field("left"), field("right")) {
                (Some(target), Some(value))
                    if matches!(
                        target.kind(),
                        "identifier" | "member_expression" | "subscript_expression"
                    ) =>
                {
                    C::Assign { target, value }
                }
                _ => C::Other,
            },
            "variable_declarator" => match (field("name"), field("value")) {
                (Some(name), Some(value)) if name.kind() == "identifier" => {
                    if FUNCTIONS.contains(&value.kind()) {
                        C::Other // a function's definition, not a value
                    } else {
                        C::Init { value, typed: true }
                    }
                }
                _ => C::Other,
            },
            "unary_expression" => match (field("operator"), field("argument")) {
                (Some(op), Some(arg)) => C::Unary { op, arg },
                _ => C::Other,
            },
            "number" => {
                let t = text(node, src);
                if self.int_literal(t).is_some() {
                    C::Int
                } else if self.float_literal(t).is_some() {
                    C::Float
                } else {
                    C::Other
                }
            }
            "string" => {
                // A directive (`'use strict'`) is no value.
                if node
                    .parent()
                    .is_some_and(|p| p.kind() == "expression_statement")
                {
                    return C::Other;
                }
                let q = &text(node, src)[..1];
                C::Str {
                    empty: format!("{q}{q}"),
                }
            }
            "template_string" if node.named_child_count() <= 1 => {
                if named(node)
                    .iter()
                    .any(|c| c.kind() == "template_substitution")
                {
                    C::Other
                } else {
                    C::Str { empty: "``".into() }
                }
            }
            "true" => C::Bool(true),
            "false" => C::Bool(false),
            "if_statement" => match (field("condition"), field("consequence")) {
                (Some(c), Some(consequence)) => C::If {
                    cond: Some(unparen(c)),
                    consequence,
                    has_else: field("alternative").is_some(),
                },
                _ => C::Other,
            },
            "while_statement" | "do_statement" => match (field("condition"), field("body")) {
                (Some(c), Some(body)) => C::While {
                    cond: unparen(c),
                    body,
                },
                _ => C::Other,
            },
            "for_statement" => {
                let Some(body) = field("body") else {
                    return C::Other;
                };
                let init = field("initializer").and_then(|i| match i.kind() {
                    "lexical_declaration" | "variable_declaration" => match named(i).as_slice() {
                        [d] => d.child_by_field_name("value"),
                        _ => None,
                    },
                    "expression_statement" => i
                        .named_child(0)
                        .filter(|a| a.kind() == "assignment_expression")
                        .and_then(|a| a.child_by_field_name("right")),
                    _ => None,
                });
                let cond = field("condition").filter(|c| c.is_named()).map(|c| {
                    if c.kind() == "expression_statement" {
                        c.named_child(0).unwrap_or(c)
                    } else {
                        c
                    }
                });
                C::ForC {
                    init,
                    cond,
                    update: field("increment"),
                    body,
                }
            }
            "for_in_statement" => {
                let of = field("operator").is_some_and(|o| text(o, src) == "of");
                match (field("right"), field("body"), of) {
                    (Some(iterable), Some(body), true) => C::ForEach { iterable, body },
                    _ => C::Other,
                }
            }
            "ternary_expression" => match field("condition") {
                Some(cond) => C::Ternary { cond },
                None => C::Other,
            },
            "return_statement" => C::Return {
                value: named(node).first().copied(),
            },
            "throw_statement" => C::Throw,
            "break_statement" => C::Break,
            "continue_statement" => C::Continue,
            "call_expression" => {
                let f = field("function");
                let (name, receiver) = match f {
                    Some(m) if m.kind() == "member_expression" => (
                        m.child_by_field_name("property"),
                        m.child_by_field_name("object"),
                    ),
                    Some(i) if i.kind() == "identifier" => (Some(i), None),
                    _ => (None, None),
                };
                let args = field("arguments")
                    .filter(|a| a.kind() == "arguments")
                    .map(named)
                    .unwrap_or_default();
                C::Call {
                    name,
                    receiver,
                    args,
                }
            }
            "subscript_expression" => match field("index") {
                Some(index) => C::Index { index },
                None => C::Other,
            },
            "catch_clause" => match field("body") {
                Some(body) => C::Catch {
                    types: Vec::new(),
                    param: field("parameter").filter(|p| p.kind() == "identifier"),
                    types_span: None,
                    body,
                    last: true,
                },
                None => C::Other,
            },
            "arrow_function" => match field("body") {
                Some(body) if body.kind() != "statement_block" => C::Lambda { body },
                _ => C::Other,
            },
            _ => C::Other,
        }
    }

    fn deletable(&self, node: Node, _src: &str) -> bool {
        node.kind() == "expression_statement"
            && matches!(
                node.named_child(0).map(|c| c.kind()),
                Some(
                    "call_expression"
                        | "assignment_expression"
                        | "augmented_assignment_expression"
                        | "update_expression"
                        | "await_expression"
                )
            )
    }

    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        if FUNCTIONS.contains(&node.kind()) {
            node.child_by_field_name("body")
        } else {
            None
        }
    }

    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str> {
        match node.kind() {
            "function_declaration" | "generator_function_declaration" | "method_definition" => {
                node.child_by_field_name("name").map(|n| text(n, src))
            }
            "variable_declarator" => {
                let value = node.child_by_field_name("value")?;
                FUNCTIONS
                    .contains(&value.kind())
                    .then(|| node.child_by_field_name("name").map(|n| text(n, src)))
                    .flatten()
            }
            _ => None,
        }
    }

    fn opaque(&self, node: Node, _src: &str) -> bool {
        let k = node.kind();
        matches!(
            k,
            "import_statement"
                | "comment"
                | "regex"
                | "type_annotation"
                | "type_arguments"
                | "type_parameters"
                | "interface_declaration"
                | "type_alias_declaration"
                | "enum_declaration"
                | "predefined_type"
                | "asserts_annotation"
        ) || (self.typescript && k.ends_with("_type"))
    }

    fn prec(&self, node: Node, src: &str) -> u8 {
        cfamily::prec(self, node, src)
    }

    fn binary_prec(&self, op: &str) -> u8 {
        cfamily::c_binary_prec(op)
    }

    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)> {
        cfamily::int_literal(text, |s| s.is_empty() || s == "n")
    }

    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)> {
        cfamily::float_literal(text, str::is_empty)
    }

    fn zero_divisor_is_a_value(&self) -> bool {
        true
    }

    fn empty_iteration(&self, _iterable: Node, _src: &str) -> Option<String> {
        Some("[]".into())
    }

    fn reversed_iteration(&self, iterable: Node, src: &str) -> Option<String> {
        Some(format!("[...{}].reverse()", text(iterable, src)))
    }

    fn nothing(
        &self,
        _value: Node,
        _func: Node,
        _src: &str,
        _returned: bool,
    ) -> Option<(String, &'static str)> {
        Some(("null".into(), "null"))
    }

    fn string_methods(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("toLowerCase", "toUpperCase"),
            ("toUpperCase", "toLowerCase"),
            ("toLocaleLowerCase", "toLocaleUpperCase"),
            ("toLocaleUpperCase", "toLocaleLowerCase"),
            ("startsWith", "endsWith"),
            ("endsWith", "startsWith"),
            ("indexOf", "lastIndexOf"),
            ("lastIndexOf", "indexOf"),
            ("trim", "trimStart"),
            ("trim", "trimEnd"),
            ("trimStart", "trimEnd"),
            ("trimEnd", "trimStart"),
            ("padStart", "padEnd"),
            ("padEnd", "padStart"),
        ]
    }

    fn slice_methods(&self) -> &'static [(&'static str, bool, bool)] {
        if self.typescript {
            // TypeScript's `substring` and `substr` require their start (lib.es5.d.ts).
            &[
                ("slice", true, true),
                ("substring", true, false),
                ("substr", true, false),
            ]
        } else {
            &[
                ("slice", true, true),
                ("substring", true, true),
                ("substr", true, true),
            ]
        }
    }

    fn index_methods(&self) -> &'static [&'static str] {
        &["charAt", "at", "charCodeAt", "codePointAt"]
    }

    fn rethrow(&self, param: Option<&str>) -> Option<String> {
        param.map(|p| format!("throw {p};"))
    }
}
