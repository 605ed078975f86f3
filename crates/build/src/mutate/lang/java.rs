//! Java (tree-sitter-java).
//!
//! Java refuses code it can prove unreachable (JLS 14.22): a loop whose condition is the
//! constant `false`, a statement after a `break` that always runs. So `loop_zero` does not apply
//! (neither `while (false)` nor an empty collection of an element type the source does not
//! spell compiles), constant conditions are never negated or flipped, and `loop_once` adds no
//! `break` after a statement that always leaves. "Nothing" is `null`, only where the declared
//! type is a reference type (a primitive has none). A statement is not deleted when it is the
//! assignment that gives a variable declared without an initialiser its value (the variable
//! would be "not definitely assigned").

use super::cfamily::{self, declaration_of, text};
use super::javascript::{named, unparen};
use super::{Construct as C, Dialect};
use execscope_record::Language;
use tree_sitter::Node;

pub(super) struct Java;

const PRIMITIVES: &[&str] = &[
    "integral_type",
    "floating_point_type",
    "boolean_type",
    "void_type",
];

impl Java {
    /// The declarator (`x = 1` or `x`) of the local variable or parameter `name`: its node and
    /// the declaration's type.
    fn declaration<'t>(&self, at: Node<'t>, name: &str, src: &str) -> Option<(Node<'t>, Node<'t>)> {
        let decl = |n: Node<'t>| match n.kind() {
            "formal_parameter" | "catch_formal_parameter" | "enhanced_for_statement" => {
                let id = n.child_by_field_name("name")?;
                Some((id, n))
            }
            "variable_declarator" => Some((n.child_by_field_name("name")?, n)),
            _ => None,
        };
        let d = declaration_of(self, at, name, src, &decl)?;
        let ty = if d.kind() == "variable_declarator" {
            d.parent()?.child_by_field_name("type")?
        } else {
            d.child_by_field_name("type")?
        };
        Some((d, ty))
    }

    fn declared_type<'a>(&self, at: Node, name: &str, src: &'a str) -> Option<&'a str> {
        self.declaration(at, name, src).map(|(_, t)| text(t, src))
    }

    /// True when `e` is certainly a `String`: `+` on it concatenates.
    fn stringy(&self, e: Node, src: &str) -> bool {
        match e.kind() {
            "string_literal" => true,
            "parenthesized_expression" => unparen(e) != e && self.stringy(unparen(e), src),
            "identifier" => self.declared_type(e, text(e, src), src) == Some("String"),
            "array_access" => e.child_by_field_name("array").is_some_and(|a| {
                a.kind() == "identifier"
                    && self.declared_type(a, text(a, src), src) == Some("String[]")
            }),
            "method_invocation" => {
                let name = e.child_by_field_name("name").map_or("", |n| text(n, src));
                let object = e.child_by_field_name("object");
                match name {
                    "substring" | "toString" | "valueOf" | "toLowerCase" | "toUpperCase"
                    | "trim" | "strip" | "repeat" | "replace" | "replaceAll" | "join"
                    | "format" | "concat" => true,
                    "get" => object.is_some_and(|o| {
                        o.kind() == "identifier"
                            && self
                                .declared_type(o, text(o, src), src)
                                .is_some_and(|t| t.contains("<String>"))
                    }),
                    _ => false,
                }
            }
            "binary_expression" => {
                e.child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "+")
                    && [
                        e.child_by_field_name("left"),
                        e.child_by_field_name("right"),
                    ]
                    .into_iter()
                    .flatten()
                    .any(|x| self.stringy(x, src))
            }
            _ => false,
        }
    }
}

impl Dialect for Java {
    fn language(&self) -> Language {
        Language::Java
    }

    fn construct<'t>(&self, node: Node<'t>, src: &str) -> C<'t> {
        let field = |f: &str| node.child_by_field_name(f);
        match node.kind() {
            "binary_expression" => match (field("left"), field("operator"), field("right")) {
                (Some(left), Some(op), Some(right)) => C::Binary { left, op, right },
                _ => C::Other,
            },
            "assignment_expression" => match (field("left"), field("operator"), field("right")) {
                (Some(target), Some(op), Some(value)) if text(op, src) == "=" => {
                    C::Assign { target, value }
                }
                (Some(target), Some(op), Some(value)) => C::Compound { target, op, value },
                _ => C::Other,
            },
            "variable_declarator" => match field("value") {
                Some(value) if value.kind() != "array_initializer" => {
                    let typed = node
                        .parent()
                        .and_then(|p| p.child_by_field_name("type"))
                        .is_some_and(|t| text(t, src) != "var");
                    C::Init { value, typed }
                }
                _ => C::Other,
            },
            "unary_expression" => match (field("operator"), field("operand")) {
                (Some(op), Some(arg)) => C::Unary { op, arg },
                _ => C::Other,
            },
            "decimal_integer_literal" if self.int_literal(text(node, src)).is_some() => C::Int,
            "decimal_floating_point_literal" if self.float_literal(text(node, src)).is_some() => {
                C::Float
            }
            "string_literal" if !text(node, src).starts_with("\"\"\"") => C::Str {
                empty: "\"\"".into(),
            },
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
                let init = field("init").and_then(|i| match i.kind() {
                    "local_variable_declaration" => {
                        let mut cursor = i.walk();
                        let ds: Vec<Node> = i
                            .children_by_field_name("declarator", &mut cursor)
                            .collect();
                        match ds.as_slice() {
                            [d] => d.child_by_field_name("value"),
                            _ => None,
                        }
                    }
                    "assignment_expression" => i.child_by_field_name("right"),
                    _ => None,
                });
                C::ForC {
                    init,
                    cond: field("condition"),
                    update: field("update"),
                    body,
                }
            }
            "enhanced_for_statement" => match (field("value"), field("body")) {
                (Some(iterable), Some(body)) => C::ForEach { iterable, body },
                _ => C::Other,
            },
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
            "method_invocation" => C::Call {
                name: field("name"),
                receiver: field("object"),
                args: field("arguments").map(named).unwrap_or_default(),
            },
            "array_access" => match field("index") {
                Some(index) => C::Index { index },
                None => C::Other,
            },
            "catch_clause" => {
                let param = named(node)
                    .into_iter()
                    .find(|c| c.kind() == "catch_formal_parameter");
                let (Some(param), Some(body)) = (param, field("body")) else {
                    return C::Other;
                };
                let span = named(param).into_iter().find(|c| c.kind() == "catch_type");
                let last = node
                    .next_named_sibling()
                    .is_none_or(|s| s.kind() != "catch_clause");
                C::Catch {
                    types: span.map(named).unwrap_or_default(),
                    param: param.child_by_field_name("name"),
                    types_span: span,
                    body,
                    last,
                }
            }
            _ => C::Other,
        }
    }

    fn deletable(&self, node: Node, src: &str) -> bool {
        if node.kind() != "expression_statement" {
            return false;
        }
        let Some(e) = node.named_child(0) else {
            return false;
        };
        match e.kind() {
            "method_invocation" | "update_expression" | "object_creation_expression" => true,
            "assignment_expression" => {
                // Not the assignment that gives a variable declared without a value its value.
                let target = e.child_by_field_name("left");
                let plain = e
                    .child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "=");
                match target {
                    Some(t) if plain && t.kind() == "identifier" => {
                        self.declaration(t, text(t, src), src).is_none_or(|(d, _)| {
                            d.kind() != "variable_declarator"
                                || d.child_by_field_name("value").is_some()
                        })
                    }
                    _ => true,
                }
            }
            _ => false,
        }
    }

    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        match node.kind() {
            "method_declaration" | "constructor_declaration" | "lambda_expression" => {
                node.child_by_field_name("body")
            }
            _ => None,
        }
    }

    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str> {
        (node.kind() == "method_declaration")
            .then(|| node.child_by_field_name("name").map(|n| text(n, src)))
            .flatten()
    }

    fn opaque(&self, node: Node, _src: &str) -> bool {
        let k = node.kind();
        k.ends_with("_type")
            || k.ends_with("comment")
            || matches!(
                k,
                "import_declaration"
                    | "package_declaration"
                    | "type_identifier"
                    | "type_arguments"
                    | "type_parameters"
                    | "annotation"
                    | "marker_annotation"
                    | "switch_label"
                    | "dimensions"
            )
    }

    fn prec(&self, node: Node, src: &str) -> u8 {
        cfamily::prec(self, node, src)
    }

    fn binary_prec(&self, op: &str) -> u8 {
        cfamily::c_binary_prec(op)
    }

    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)> {
        cfamily::int_literal(text, |s| matches!(s, "" | "l" | "L"))
    }

    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)> {
        cfamily::float_literal(text, |s| matches!(s, "" | "f" | "F" | "d" | "D"))
    }

    fn false_condition(&self) -> Option<&'static str> {
        None
    }

    fn nothing(
        &self,
        value: Node,
        func: Node,
        src: &str,
        returned: bool,
    ) -> Option<(String, &'static str)> {
        let ty = if returned {
            (func.kind() == "method_declaration")
                .then(|| func.child_by_field_name("type"))
                .flatten()?
        } else {
            let p = value.parent()?;
            match p.kind() {
                "variable_declarator" => p.parent()?.child_by_field_name("type")?,
                "assignment_expression" => {
                    let t = p.child_by_field_name("left")?;
                    if t.kind() != "identifier" {
                        return None;
                    }
                    self.declaration(t, text(t, src), src)?.1
                }
                _ => return None,
            }
        };
        let reference = !PRIMITIVES.contains(&ty.kind()) && text(ty, src) != "var";
        reference.then(|| ("null".to_string(), "null"))
    }

    fn string_methods(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("toLowerCase", "toUpperCase"),
            ("toUpperCase", "toLowerCase"),
            ("startsWith", "endsWith"),
            ("endsWith", "startsWith"),
            ("indexOf", "lastIndexOf"),
            ("lastIndexOf", "indexOf"),
            ("isLowerCase", "isUpperCase"),
            ("isUpperCase", "isLowerCase"),
            ("isLetter", "isDigit"),
            ("isDigit", "isLetter"),
            ("isLetterOrDigit", "isLetter"),
            ("strip", "stripLeading"),
            ("strip", "stripTrailing"),
            ("stripLeading", "stripTrailing"),
            ("stripTrailing", "stripLeading"),
        ]
    }

    fn slice_methods(&self) -> &'static [(&'static str, bool, bool)] {
        &[("substring", true, false)]
    }

    fn index_methods(&self) -> &'static [&'static str] {
        &["get", "charAt", "codePointAt"]
    }

    fn definite_flow(&self) -> bool {
        true
    }

    fn rethrow(&self, param: Option<&str>) -> Option<String> {
        param.map(|p| format!("throw {p};"))
    }

    fn broadest_exception(&self) -> Option<&'static str> {
        Some("Exception")
    }

    fn is_string(&self, e: Node, src: &str) -> bool {
        self.stringy(e, src)
    }

    fn declared_type(&self, id: Node, src: &str) -> Option<String> {
        (id.kind() == "identifier")
            .then(|| Java::declared_type(self, id, text(id, src), src))
            .flatten()
            .map(str::to_string)
    }
}
