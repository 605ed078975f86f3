//! C++ (tree-sitter-cpp).
//!
//! "Nothing" is the value-initialised `{}` (`return {};` is 0, `false`, an empty string or
//! vector), given where the type is written (not in a lambda, whose return type is deduced, nor
//! for `auto`). A range-`for` has no empty or reversed form that compiles for every collection,
//! so `loop_zero` and `loop_reversed` apply to `while` and C-style loops only (`false`). Nothing
//! inside a template argument list, a type, a preprocessor line or a `case` label is mutated,
//! so a `<` of `vector<int>` is never a comparison.

use super::cfamily::{self, declaration_of, declarator_name, text};
use super::javascript::{named, unparen};
use super::{Construct as C, Dialect};
use execscope_record::Language;
use tree_sitter::Node;

pub(super) struct Cpp;

impl Cpp {
    /// The type a variable is declared with, as written.
    fn declared_type<'a, 't>(&self, at: Node<'t>, name: &str, src: &'a str) -> Option<&'a str> {
        let decl = |n: Node<'t>| -> Option<(Node<'t>, Node<'t>)> {
            match n.kind() {
                "parameter_declaration" | "optional_parameter_declaration" | "declaration" => {
                    let ty = n.child_by_field_name("type")?;
                    let mut cursor = n.walk();
                    let found = n
                        .children_by_field_name("declarator", &mut cursor)
                        .filter_map(declarator_name)
                        .find(|id| text(*id, src) == name);
                    found.map(|id| (id, ty))
                }
                _ => None,
            }
        };
        declaration_of(self, at, name, src, &decl).map(|t| text(t, src))
    }

    /// True when the expression `e` is certainly a `std::string` (or a container of them,
    /// indexed): `+` on it is a concatenation.
    fn stringy(&self, e: Node, src: &str) -> bool {
        match e.kind() {
            "string_literal" | "concatenated_string" | "raw_string_literal" => true,
            "parenthesized_expression" => unparen(e) != e && self.stringy(unparen(e), src),
            "identifier" => self
                .declared_type(e, text(e, src), src)
                .is_some_and(|t| t.contains("string")),
            "subscript_expression" => e.child_by_field_name("argument").is_some_and(|a| {
                a.kind() == "identifier"
                    && self
                        .declared_type(a, text(a, src), src)
                        .is_some_and(|t| t.contains("<string") || t.contains("<std::string"))
            }),
            "call_expression" => e.child_by_field_name("function").is_some_and(|f| {
                let name = match f.kind() {
                    "field_expression" => f.child_by_field_name("field"),
                    "qualified_identifier" => f.child_by_field_name("name"),
                    _ => Some(f),
                };
                name.is_some_and(|n| matches!(text(n, src), "substr" | "to_string" | "string"))
            }),
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

fn iterator_like(e: Node, src: &str) -> bool {
    let t = text(e, src);
    ["begin()", "end()", "rbegin()", "rend()"]
        .iter()
        .any(|m| t.contains(m))
}

impl Dialect for Cpp {
    fn language(&self) -> Language {
        Language::Cpp
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
            "init_declarator" => {
                let typed = node
                    .parent()
                    .and_then(|p| p.child_by_field_name("type"))
                    .is_some_and(|t| t.kind() != "placeholder_type_specifier");
                match field("value") {
                    Some(value)
                        if !matches!(value.kind(), "initializer_list" | "argument_list") =>
                    {
                        C::Init { value, typed }
                    }
                    _ => C::Other,
                }
            }
            "unary_expression" => match (field("operator"), field("argument")) {
                (Some(op), Some(arg)) => C::Unary { op, arg },
                _ => C::Other,
            },
            "number_literal" => {
                let t = text(node, src);
                if self.int_literal(t).is_some() {
                    C::Int
                } else if self.float_literal(t).is_some() {
                    C::Float
                } else {
                    C::Other
                }
            }
            "string_literal" => {
                let plain = text(node, src).starts_with('"');
                let joined = node
                    .parent()
                    .is_some_and(|p| p.kind() == "concatenated_string");
                if plain && !joined {
                    C::Str {
                        empty: "\"\"".into(),
                    }
                } else {
                    C::Other
                }
            }
            "true" => C::Bool(true),
            "false" => C::Bool(false),
            "if_statement" => {
                let cond = field("condition")
                    .and_then(|c| c.child_by_field_name("value"))
                    .filter(|v| v.kind() != "declaration");
                match field("consequence") {
                    Some(consequence) => C::If {
                        cond,
                        consequence,
                        has_else: field("alternative").is_some(),
                    },
                    None => C::Other,
                }
            }
            "while_statement" | "do_statement" => {
                let cond = field("condition")
                    .map(|c| c.child_by_field_name("value").unwrap_or_else(|| unparen(c)));
                match (cond, field("body")) {
                    (Some(cond), Some(body)) if cond.kind() != "declaration" => {
                        C::While { cond, body }
                    }
                    _ => C::Other,
                }
            }
            "for_statement" => {
                let Some(body) = field("body") else {
                    return C::Other;
                };
                let init = field("initializer").and_then(|i| match i.kind() {
                    "declaration" => match named(i).as_slice() {
                        [_, d] => d.child_by_field_name("value"),
                        _ => None,
                    },
                    "assignment_expression" => i.child_by_field_name("right"),
                    _ => None,
                });
                C::ForC {
                    init: init.filter(|v| v.kind() != "initializer_list"),
                    cond: field("condition"),
                    update: field("update"),
                    body,
                }
            }
            "for_range_loop" => match (field("right"), field("body")) {
                (Some(iterable), Some(body)) => C::ForEach { iterable, body },
                _ => C::Other,
            },
            "conditional_expression" => match field("condition") {
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
                let (name, receiver) = match field("function") {
                    Some(f) if f.kind() == "field_expression" => (
                        f.child_by_field_name("field"),
                        f.child_by_field_name("argument"),
                    ),
                    Some(f) if f.kind() == "qualified_identifier" => {
                        (f.child_by_field_name("name"), None)
                    }
                    Some(f) if f.kind() == "identifier" => (Some(f), None),
                    _ => (None, None),
                };
                let args = field("arguments").map(named).unwrap_or_default();
                C::Call {
                    name,
                    receiver,
                    args,
                }
            }
            "subscript_expression" => match field("indices").map(named).as_deref() {
                Some([index]) => C::Index { index: *index },
                _ => C::Other,
            },
            "catch_clause" => {
                let (Some(params), Some(body)) = (field("parameters"), field("body")) else {
                    return C::Other;
                };
                let param = named(params)
                    .first()
                    .and_then(|p| p.child_by_field_name("declarator"))
                    .and_then(declarator_name);
                let last = node
                    .next_named_sibling()
                    .is_none_or(|s| s.kind() != "catch_clause");
                C::Catch {
                    types: Vec::new(),
                    param,
                    types_span: Some(params),
                    body,
                    last,
                }
            }
            _ => C::Other,
        }
    }

    fn deletable(&self, node: Node, _src: &str) -> bool {
        node.kind() == "expression_statement"
            && matches!(
                node.named_child(0).map(|c| c.kind()),
                Some("call_expression" | "assignment_expression" | "update_expression")
            )
    }

    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        match node.kind() {
            "function_definition" | "lambda_expression" => node.child_by_field_name("body"),
            _ => None,
        }
    }

    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str> {
        if node.kind() != "function_definition" {
            return None;
        }
        let mut d = node.child_by_field_name("declarator")?;
        while d.kind() != "function_declarator" {
            d = d.child_by_field_name("declarator")?;
        }
        let name = d.child_by_field_name("declarator")?;
        let name = match name.kind() {
            "qualified_identifier" => name.child_by_field_name("name")?,
            _ => name,
        };
        Some(text(name, src))
    }

    fn opaque(&self, node: Node, _src: &str) -> bool {
        let k = node.kind();
        if k.starts_with("preproc_") || k.ends_with("_type") || k.ends_with("_type_specifier") {
            return true;
        }
        if matches!(
            k,
            "template_argument_list"
                | "template_parameter_list"
                | "type_descriptor"
                | "type_identifier"
                | "attribute_declaration"
                | "static_assert_declaration"
                | "using_declaration"
                | "alias_declaration"
                | "comment"
                | "linkage_specification"
        ) {
            return k != "linkage_specification" || node.child_by_field_name("body").is_none();
        }
        // A `case` label's value: two equal labels do not compile.
        node.parent().is_some_and(|p| {
            p.kind() == "case_statement" && p.child_by_field_name("value") == Some(node)
        })
    }

    fn prec(&self, node: Node, src: &str) -> u8 {
        cfamily::prec(self, node, src)
    }

    fn binary_prec(&self, op: &str) -> u8 {
        cfamily::c_binary_prec(op)
    }

    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)> {
        cfamily::int_literal(text, |s| {
            s.len() <= 3
                && s.bytes()
                    .all(|b| matches!(b, b'u' | b'U' | b'l' | b'L' | b'z' | b'Z'))
        })
    }

    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)> {
        cfamily::float_literal(text, |s| matches!(s, "" | "f" | "F" | "l" | "L"))
    }

    fn nothing(
        &self,
        value: Node,
        func: Node,
        _src: &str,
        returned: bool,
    ) -> Option<(String, &'static str)> {
        let typed = if returned {
            func.kind() == "function_definition"
                && func
                    .child_by_field_name("type")
                    .is_some_and(|t| t.kind() != "placeholder_type_specifier")
        } else {
            match value.parent() {
                Some(p) if p.kind() == "init_declarator" => {
                    matches!(self.construct(p, _src), C::Init { typed: true, .. })
                }
                _ => true,
            }
        };
        (typed && value.kind() != "initializer_list").then(|| ("{}".to_string(), "default"))
    }

    fn string_methods(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("find", "rfind"),
            ("rfind", "find"),
            ("find_first_of", "find_last_of"),
            ("find_last_of", "find_first_of"),
            ("find_first_not_of", "find_last_not_of"),
            ("find_last_not_of", "find_first_not_of"),
            ("tolower", "toupper"),
            ("toupper", "tolower"),
            ("islower", "isupper"),
            ("isupper", "islower"),
            ("isalpha", "isdigit"),
            ("isdigit", "isalpha"),
            ("isalnum", "isalpha"),
        ]
    }

    fn string_method_applies(&self, name: &str, receiver: Option<Node>, src: &str) -> bool {
        if name.contains("find") {
            // `std::find` over iterators has no `rfind`; `map::find` neither.
            receiver.is_some_and(|r| self.stringy(r, src))
        } else {
            receiver.is_none()
        }
    }

    fn slice_methods(&self) -> &'static [(&'static str, bool, bool)] {
        &[("substr", true, true)]
    }

    fn index_methods(&self) -> &'static [&'static str] {
        &["at"]
    }

    fn rethrow(&self, _param: Option<&str>) -> Option<String> {
        Some("throw;".into())
    }

    fn broadest_exception(&self) -> Option<&'static str> {
        Some("(...)")
    }

    fn is_string(&self, e: Node, src: &str) -> bool {
        self.stringy(e, src)
    }

    fn not_a_number(&self, e: Node, src: &str) -> bool {
        self.stringy(e, src) || iterator_like(e, src)
    }

    fn declared_type(&self, id: Node, src: &str) -> Option<String> {
        (id.kind() == "identifier")
            .then(|| Cpp::declared_type(self, id, text(id, src), src))
            .flatten()
            .map(str::to_string)
    }

    /// C++ refuses a constant negative array size (`int f[-1]`, `new int[-1]`).
    fn negative_allowed_at(&self, node: Node, _src: &str) -> bool {
        let size = |p: Node, field: &str| p.child_by_field_name(field) == Some(node);
        node.parent().is_none_or(|p| match p.kind() {
            "array_declarator" => !size(p, "size"),
            "new_declarator" => !size(p, "length"),
            _ => true,
        })
    }

    fn blocks_swap(&self, op: &str, left: Node, right: Node, src: &str) -> bool {
        match op {
            "+" => self.stringy(left, src) || self.stringy(right, src),
            "-" => iterator_like(left, src) && iterator_like(right, src),
            _ => false,
        }
    }
}
