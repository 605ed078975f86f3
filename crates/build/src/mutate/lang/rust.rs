//! Rust (tree-sitter-rust).
//!
//! Rust has no conditional expression (its `if` is one, negated as an `if`), no exceptions (no
//! `wrong_exception_handling`; `panic!` ends a guard like a `throw`), and no null: "nothing" is
//! `Default::default()`, given where the type is written (a function's declared result, not an
//! `impl Trait`; a `let` with a type) or known from the target (an assignment). A literal that is
//! not negative never becomes negative unless its suffix is signed (its type may be unsigned).
//! A loop over a collection runs zero times over `.into_iter().take(0)` and reversed over
//! `.into_iter().rev()`; a range's bounds are `range_bound`s, a range inside an index a slice's.
//! Patterns (`match` arms, `if let`) and a macro's format strings are never mutated.

use super::cfamily::{self, declaration_of, text};
use super::javascript::named;
use super::{Construct as C, Dialect};
use execscope_record::Language;
use tree_sitter::Node;

pub(super) struct Rust;

const SUFFIXES: &[&str] = &[
    "", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

/// A range's start and end bounds and its operator (`..`, `..=`).
fn range_parts<'t, 's>(r: Node<'t>, src: &'s str) -> (Option<Node<'t>>, Option<Node<'t>>, &'s str) {
    let mut cursor = r.walk();
    let kids: Vec<Node<'t>> = r.children(&mut cursor).collect();
    let Some(op) = kids.iter().find(|k| !k.is_named()) else {
        return (None, None, "");
    };
    let start = kids
        .iter()
        .find(|k| k.is_named() && k.end_byte() <= op.start_byte())
        .copied();
    let end = kids
        .iter()
        .find(|k| k.is_named() && k.start_byte() >= op.end_byte())
        .copied();
    (start, end, text(*op, src))
}

fn macro_name<'a>(m: Node, src: &'a str) -> &'a str {
    m.child_by_field_name("macro").map_or("", |n| text(n, src))
}

impl Rust {
    /// The `let` or parameter that declares `name`: its type, or where none is written its
    /// initial value.
    fn declared<'t>(&self, at: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
        let decl = |n: Node<'t>| match n.kind() {
            "parameter" | "let_declaration" => {
                let id = n
                    .child_by_field_name("pattern")
                    .filter(|p| p.kind() == "identifier")?;
                let info = n
                    .child_by_field_name("type")
                    .or_else(|| n.child_by_field_name("value"))?;
                Some((id, info))
            }
            _ => None,
        };
        declaration_of(self, at, name, src, &decl)
    }

    /// True when `name` at `at` is bound by a `let` without a value (`let x;`).
    fn let_without_value<'t>(&self, at: Node<'t>, name: &str, src: &str) -> bool {
        let decl = |n: Node<'t>| -> Option<(Node<'t>, Node<'t>)> {
            let id = (n.kind() == "let_declaration")
                .then(|| n.child_by_field_name("pattern"))
                .flatten()
                .filter(|p| p.kind() == "identifier")?;
            Some((id, n))
        };
        declaration_of(self, at, name, src, &decl)
            .is_some_and(|d| d.child_by_field_name("value").is_none())
    }

    /// True when `e` is certainly a `String` (so `+` on it concatenates).
    fn stringy(&self, e: Node, src: &str) -> bool {
        match e.kind() {
            "string_literal" | "raw_string_literal" => true,
            "type_identifier" => text(e, src) == "String",
            "reference_type" => true, // `&str`, `&String`
            "parenthesized_expression" | "reference_expression" => {
                e.named_child(0).is_some_and(|i| self.stringy(i, src))
            }
            "identifier" => self
                .declared(e, text(e, src), src)
                .is_some_and(|d| d != e && self.stringy(d, src)),
            "macro_invocation" => macro_name(e, src) == "format",
            "call_expression" => e.child_by_field_name("function").is_some_and(|f| {
                let t = text(f, src);
                t.starts_with("String::")
                    || t.ends_with(".to_string")
                    || t.ends_with(".to_owned")
                    || t.ends_with(".to_uppercase")
                    || t.ends_with(".to_lowercase")
                    || t.ends_with(".repeat")
            }),
            "binary_expression" => {
                e.child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "+")
                    && e.child_by_field_name("left")
                        .is_some_and(|l| self.stringy(l, src))
            }
            _ => false,
        }
    }
}

impl Dialect for Rust {
    fn language(&self) -> Language {
        Language::Rust
    }

    fn construct<'t>(&self, node: Node<'t>, src: &str) -> C<'t> {
        let field = |f: &str| node.child_by_field_name(f);
        match node.kind() {
            "binary_expression" => match (field("left"), field("operator"), field("right")) {
                (Some(left), Some(op), Some(right)) => C::Binary { left, op, right },
                _ => C::Other,
            },
            "compound_assignment_expr" => {
                match (field("left"), field("operator"), field("right")) {
                    (Some(target), Some(op), Some(value)) => C::Compound { target, op, value },
                    _ => C::Other,
                }
            }
            "assignment_expression" => match (field("left"), field("right")) {
                (Some(target), Some(value)) => C::Assign { target, value },
                _ => C::Other,
            },
            "let_declaration" => match (field("pattern"), field("value")) {
                (Some(p), Some(value)) if p.kind() == "identifier" => C::Init {
                    value,
                    typed: field("type").is_some(),
                },
                _ => C::Other,
            },
            "unary_expression" => match (node.child(0), node.named_child(0)) {
                (Some(op), Some(arg)) if !op.is_named() => C::Unary { op, arg },
                _ => C::Other,
            },
            "integer_literal" if self.int_literal(text(node, src)).is_some() => C::Int,
            "float_literal" if self.float_literal(text(node, src)).is_some() => C::Float,
            "string_literal" => {
                // A macro's format string (`println!("{}", x)`) must keep its placeholders.
                if node.parent().is_some_and(|p| p.kind() == "token_tree") {
                    return C::Other;
                }
                let t = text(node, src);
                let prefix = &t[..t.find('"').unwrap_or(0)];
                C::Str {
                    empty: format!("{prefix}\"\""),
                }
            }
            "boolean_literal" => C::Bool(text(node, src) == "true"),
            "if_expression" => match field("consequence") {
                Some(consequence) => C::If {
                    cond: field("condition")
                        .filter(|c| !matches!(c.kind(), "let_condition" | "let_chain")),
                    consequence,
                    has_else: field("alternative").is_some(),
                },
                None => C::Other,
            },
            "while_expression" => match (field("condition"), field("body")) {
                (Some(cond), Some(body))
                    if !matches!(cond.kind(), "let_condition" | "let_chain") =>
                {
                    C::While { cond, body }
                }
                _ => C::Other,
            },
            "for_expression" => match (field("value"), field("body")) {
                (Some(iterable), Some(body)) => C::ForEach { iterable, body },
                _ => C::Other,
            },
            "return_expression" => C::Return {
                value: node.named_child(0),
            },
            "macro_invocation"
                if matches!(
                    macro_name(node, src),
                    "panic" | "unreachable" | "unimplemented" | "todo"
                ) =>
            {
                C::Throw
            }
            "break_expression" => C::Break,
            "continue_expression" => C::Continue,
            "call_expression" => {
                let f = field("function").map(|f| {
                    if f.kind() == "generic_function" {
                        f.child_by_field_name("function").unwrap_or(f)
                    } else {
                        f
                    }
                });
                let (name, receiver) = match f {
                    Some(f) if f.kind() == "field_expression" => (
                        f.child_by_field_name("field"),
                        f.child_by_field_name("value"),
                    ),
                    Some(f) if f.kind() == "scoped_identifier" => {
                        (f.child_by_field_name("name"), None)
                    }
                    Some(f) if f.kind() == "identifier" => (Some(f), None),
                    _ => (None, None),
                };
                C::Call {
                    name,
                    receiver,
                    args: field("arguments").map(named).unwrap_or_default(),
                }
            }
            "index_expression" => match named(node).as_slice() {
                [_, r] if r.kind() == "range_expression" => {
                    let (start, end, op) = range_parts(*r, src);
                    C::Slice {
                        start,
                        end,
                        end_removable: op == "..",
                    }
                }
                // `v[a as usize..b]` can parse as a cast of a range: no index to shift.
                [_, index] if !text(*index, src).contains("..") => C::Index { index: *index },
                _ => C::Other,
            },
            "range_expression" if node.parent().is_none_or(|p| p.kind() != "index_expression") => {
                let (start, end, _) = range_parts(node, src);
                C::Range { start, end }
            }
            _ => C::Other,
        }
    }

    fn deletable(&self, node: Node, src: &str) -> bool {
        if node.kind() != "expression_statement" {
            return false;
        }
        match node.named_child(0) {
            Some(e) if e.kind() == "macro_invocation" => {
                !matches!(self.construct(e, src), C::Throw)
            }
            // Not the assignment that gives a `let x;` its value (Rust refuses a read of a
            // possibly-uninitialised binding).
            Some(e) if e.kind() == "assignment_expression" => {
                match e
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                {
                    Some(l) => !self.let_without_value(l, text(l, src), src),
                    None => true,
                }
            }
            Some(e) => matches!(e.kind(), "call_expression" | "compound_assignment_expr"),
            None => false,
        }
    }

    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        match node.kind() {
            "function_item" | "closure_expression" => node.child_by_field_name("body"),
            _ => None,
        }
    }

    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str> {
        (node.kind() == "function_item")
            .then(|| node.child_by_field_name("name").map(|n| text(n, src)))
            .flatten()
    }

    fn opaque(&self, node: Node, _src: &str) -> bool {
        let k = node.kind();
        k.ends_with("_type")
            || k.ends_with("_pattern")
            || k.ends_with("comment")
            || matches!(
                k,
                "use_declaration"
                    | "attribute_item"
                    | "inner_attribute_item"
                    | "type_identifier"
                    | "type_arguments"
                    | "type_parameters"
                    | "lifetime"
                    | "match_pattern"
                    | "macro_definition"
                    | "let_condition"
            )
    }

    fn prec(&self, node: Node, src: &str) -> u8 {
        cfamily::prec(self, node, src)
    }

    /// Rust's levels: `* / %`, `+ -`, `<< >>`, `&`, `^`, `|`, comparisons (looser than the bit
    /// operators, unlike C), `&&`, `||`.
    fn binary_prec(&self, op: &str) -> u8 {
        match op {
            "*" | "/" | "%" => 15,
            "+" | "-" => 14,
            "<<" | ">>" => 13,
            "&" => 12,
            "^" => 11,
            "|" => 10,
            "==" | "!=" | "<" | "<=" | ">" | ">=" => 8,
            "&&" => 6,
            _ => 5,
        }
    }

    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)> {
        cfamily::int_literal(text, |s| SUFFIXES.contains(&s))
    }

    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)> {
        // `1.` followed by a method (`1.max(x)`) is no float; the grammar says so already.
        cfamily::float_literal(text, |s| matches!(s, "" | "f32" | "f64"))
    }

    fn negative_literals(&self) -> bool {
        false
    }

    fn empty_iteration(&self, iterable: Node, src: &str) -> Option<String> {
        let t = cfamily::paren(text(iterable, src), self.prec(iterable, src) < 100);
        Some(format!("{t}.into_iter().take(0)"))
    }

    fn reversed_iteration(&self, iterable: Node, src: &str) -> Option<String> {
        let t = text(iterable, src);
        if let Some(inner) = t.strip_suffix(".rev()") {
            return Some(inner.to_string());
        }
        let t = cfamily::paren(t, self.prec(iterable, src) < 100);
        Some(format!("{t}.into_iter().rev()"))
    }

    fn nothing(
        &self,
        value: Node,
        func: Node,
        src: &str,
        returned: bool,
    ) -> Option<(String, &'static str)> {
        let known = if returned {
            func.kind() == "function_item"
                && func
                    .child_by_field_name("return_type")
                    .is_some_and(|t| !text(t, src).starts_with("impl"))
        } else {
            match value.parent().map(|p| self.construct(p, src)) {
                Some(C::Init { typed, .. }) => typed,
                Some(C::Assign { .. }) => true,
                _ => false,
            }
        };
        known.then(|| ("Default::default()".to_string(), "default"))
    }

    fn tail_value<'t>(&self, body: Node<'t>) -> Option<Node<'t>> {
        let last = *named(body).last()?;
        let statement = matches!(
            last.kind(),
            "expression_statement"
                | "let_declaration"
                | "if_expression"
                | "match_expression"
                | "loop_expression"
                | "while_expression"
                | "for_expression"
                | "block"
                | "return_expression"
                | "unit_expression"
                | "macro_invocation"
        ) || last.kind().ends_with("_item")
            || last.kind() == "use_declaration";
        (!statement).then_some(last)
    }

    fn string_methods(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("to_lowercase", "to_uppercase"),
            ("to_uppercase", "to_lowercase"),
            ("to_ascii_lowercase", "to_ascii_uppercase"),
            ("to_ascii_uppercase", "to_ascii_lowercase"),
            ("is_lowercase", "is_uppercase"),
            ("is_uppercase", "is_lowercase"),
            ("is_ascii_lowercase", "is_ascii_uppercase"),
            ("is_ascii_uppercase", "is_ascii_lowercase"),
            ("is_alphabetic", "is_numeric"),
            ("is_numeric", "is_alphabetic"),
            ("is_ascii_alphabetic", "is_ascii_digit"),
            ("is_ascii_digit", "is_ascii_alphabetic"),
            ("is_alphanumeric", "is_alphabetic"),
            ("is_ascii_alphanumeric", "is_ascii_alphabetic"),
            ("starts_with", "ends_with"),
            ("ends_with", "starts_with"),
            ("find", "rfind"),
            ("rfind", "find"),
            ("trim", "trim_start"),
            ("trim", "trim_end"),
            ("trim_start", "trim_end"),
            ("trim_end", "trim_start"),
            ("trim_start_matches", "trim_end_matches"),
            ("trim_end_matches", "trim_start_matches"),
            ("strip_prefix", "strip_suffix"),
            ("strip_suffix", "strip_prefix"),
            ("split", "rsplit"),
            ("rsplit", "split"),
            ("splitn", "rsplitn"),
            ("rsplitn", "splitn"),
        ]
    }

    fn index_methods(&self) -> &'static [&'static str] {
        &["get", "nth"]
    }

    fn is_string(&self, e: Node, src: &str) -> bool {
        self.stringy(e, src)
    }

    fn declared_type(&self, id: Node, src: &str) -> Option<String> {
        if id.kind() != "identifier" {
            return None;
        }
        let d = self.declared(id, text(id, src), src)?;
        // A written type (a `let`'s initial value is no type).
        (d.kind().ends_with("_type") || d.kind() == "type_identifier")
            .then(|| text(d, src).to_string())
    }

    /// `String + &str` is the one concatenation; a `&str` on the left never compiled.
    fn blocks_swap(&self, op: &str, left: Node, _right: Node, src: &str) -> bool {
        op == "+" && self.stringy(left, src)
    }
}
