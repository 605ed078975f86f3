//! Site enumeration for the six mutation families. Each site is one byte-range splice of the
//! original; `mutants` applies, parses and de-duplicates them.
//!
//! Fixed swap tables (one replacement per site, so every site yields exactly one mutant, except
//! integer literals and bounds, which yield a `+1` and a `-1` mutant):
//!
//! | family | rule |
//! |---|---|
//! | wrong_operator (binary) | `+`→`-`, `-`→`+`, `*`→`/`, `/`→`*`, `//`→`/`, `%`→`//`, `**`→`*`, `&`→`\|`, `\|`→`&`, `^`→`\|`, `<<`→`>>`, `>>`→`<<` (`@` is left alone) |
//! | wrong_operator (augmented) | the same table with `=` appended (`+=`→`-=`, …) |
//! | wrong_operator (boolean) | `and`↔`or` |
//! | wrong_comparison | `<`↔`<=`, `>`↔`>=`, `==`↔`!=`, `in`↔`not in`, `is`↔`is not` (`<>` left alone) |
//!
//! Sites inside type annotations (tree-sitter `type` nodes) are skipped: they are evaluated once at
//! definition time and never change what a function computes.

use super::line_of;
use super::structural;
use tree_sitter::{Node, Tree};

/// One candidate splice of the original source.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub start: usize,
    pub end: usize,
    pub after: String,
    pub operator: String,
    pub bug_type: &'static str,
    pub description: String,
}

const BINARY_SWAPS: &[(&str, &str, &str)] = &[
    ("+", "-", "Add->Sub"),
    ("-", "+", "Sub->Add"),
    ("*", "/", "Mult->Div"),
    ("/", "*", "Div->Mult"),
    ("//", "/", "FloorDiv->Div"),
    ("%", "//", "Mod->FloorDiv"),
    ("**", "*", "Pow->Mult"),
    ("&", "|", "BitAnd->BitOr"),
    ("|", "&", "BitOr->BitAnd"),
    ("^", "|", "BitXor->BitOr"),
    ("<<", ">>", "LShift->RShift"),
    (">>", "<<", "RShift->LShift"),
];

const COMPARISON_SWAPS: &[(&str, &str, &str)] = &[
    ("<", "<=", "Lt->LtE"),
    ("<=", "<", "LtE->Lt"),
    (">", ">=", "Gt->GtE"),
    (">=", ">", "GtE->Gt"),
    ("==", "!=", "Eq->NotEq"),
    ("!=", "==", "NotEq->Eq"),
    ("in", "not in", "In->NotIn"),
    ("not in", "in", "NotIn->In"),
    ("is", "is not", "Is->IsNot"),
    ("is not", "is", "IsNot->Is"),
];

/// Binary operators whose operands do not commute, with their Python `ast` names.
const NON_COMMUTATIVE: &[(&str, &str)] = &[
    ("-", "Sub"),
    ("/", "Div"),
    ("//", "FloorDiv"),
    ("%", "Mod"),
    ("**", "Pow"),
    ("<<", "LShift"),
    (">>", "RShift"),
];

/// Comparisons whose operands are swapped by `swap_arguments` (only two-operand comparisons).
const SWAPPABLE_COMPARISONS: &[(&str, &str)] =
    &[("<", "Lt"), ("<=", "LtE"), (">", "Gt"), (">=", "GtE")];

/// Every site of every family, in tree order (the caller sorts).
pub(crate) fn sites(tree: &Tree, src: &str) -> Vec<Site> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_named() && node.kind() == "type" {
            continue;
        }
        visit(node, src, &mut out);
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

fn visit(node: Node, src: &str, out: &mut Vec<Site>) {
    match node.kind() {
        "binary_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                token_swap(op, src, BINARY_SWAPS, "", "operator", out);
                if let (Some(l), Some(r)) = (
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ) {
                    if let Some((_, name)) = NON_COMMUTATIVE.iter().find(|(o, _)| *o == op.kind()) {
                        swap_operands(node, l, r, op.kind(), name, src, out);
                    }
                }
            }
        }
        "augmented_assignment" => {
            if let Some(op) = node.child_by_field_name("operator") {
                token_swap(op, src, BINARY_SWAPS, "=", "augmented assignment", out);
            }
        }
        "boolean_operator" => {
            if let Some(op) = node.child_by_field_name("operator") {
                let table = &[("and", "or", "And->Or"), ("or", "and", "Or->And")];
                token_swap(op, src, table, "", "boolean operator", out);
            }
        }
        "comparison_operator" => comparison(node, src, out),
        "integer" => {
            let negated = node
                .parent()
                .is_some_and(|p| p.kind() == "unary_operator" && unary_op(p) == Some("-"));
            if !negated {
                if let Some(v) = int_value(text(node, src)) {
                    let pow_base = node.parent().is_some_and(|p| {
                        p.kind() == "binary_operator"
                            && p.child_by_field_name("operator").map(|o| o.kind()) == Some("**")
                            && p.child_by_field_name("left") == Some(node)
                    });
                    int_sites(node, v as i128, pow_base, src, out);
                }
            }
        }
        "unary_operator" => negative_literal(node, src, out),
        "call" => structural::call(node, src, out),
        "subscript" => structural::subscript(node, src, out),
        "if_statement" => structural::guard(node, src, out),
        _ => {}
    }
}

pub(crate) fn text<'a>(node: Node, src: &'a str) -> &'a str {
    &src[node.byte_range()]
}

/// Source text for a description: whitespace runs collapsed, at most 60 characters.
pub(crate) fn show(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() > 60 {
        let head: String = collapsed.chars().take(57).collect();
        format!("{head}...")
    } else {
        collapsed
    }
}

pub(crate) fn unary_op<'t>(node: Node<'t>) -> Option<&'t str> {
    node.child_by_field_name("operator").map(|o| o.kind())
}

/// Replace one operator token by its entry in `table` (with `suffix` appended to both sides, for
/// augmented assignments).
fn token_swap(
    op: Node,
    src: &str,
    table: &[(&str, &str, &str)],
    suffix: &str,
    what: &str,
    out: &mut Vec<Site>,
) {
    let kind = op.kind();
    let Some((from, to, name)) = table
        .iter()
        .find(|(from, _, _)| format!("{from}{suffix}") == kind)
    else {
        return;
    };
    let (before, after) = (format!("{from}{suffix}"), format!("{to}{suffix}"));
    let (operator, bug_type, noun) = if table == COMPARISON_SWAPS {
        (name.to_string(), "wrong_comparison", "comparison")
    } else if suffix.is_empty() {
        (name.to_string(), "wrong_operator", what)
    } else {
        let (a, b) = name.split_once("->").unwrap_or((name, name));
        (format!("Aug{a}->Aug{b}"), "wrong_operator", what)
    };
    let r = op.byte_range();
    out.push(Site {
        start: r.start,
        end: r.end,
        description: format!(
            "Changed the {noun} `{before}` to `{after}` on line {}.",
            line_of(src, r.start)
        ),
        after,
        operator,
        bug_type,
    });
}

fn comparison(node: Node, src: &str, out: &mut Vec<Site>) {
    let mut cursor = node.walk();
    let ops: Vec<Node> = node
        .children_by_field_name("operators", &mut cursor)
        .collect();
    for &op in &ops {
        token_swap(op, src, COMPARISON_SWAPS, "", "comparison", out);
    }
    let mut cursor = node.walk();
    let operands: Vec<Node> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect();
    if let ([op], [l, r]) = (ops.as_slice(), operands.as_slice()) {
        if let Some((_, name)) = SWAPPABLE_COMPARISONS.iter().find(|(o, _)| *o == op.kind()) {
            swap_operands(node, *l, *r, op.kind(), name, src, out);
        }
    }
}

/// Python precedence of an expression node, loosest 0 .. atoms 15.
pub(crate) fn prec(node: Node) -> u8 {
    match node.kind() {
        "lambda" | "named_expression" => 0,
        "conditional_expression" => 1,
        "boolean_operator" => match node.child_by_field_name("operator").map(|o| o.kind()) {
            Some("or") => 2,
            _ => 3,
        },
        "not_operator" => 4,
        "comparison_operator" => 5,
        "binary_operator" => match node.child_by_field_name("operator").map(|o| o.kind()) {
            Some("|") => 6,
            Some("^") => 7,
            Some("&") => 8,
            Some("<<" | ">>") => 9,
            Some("+" | "-") => 10,
            Some("**") => 13,
            _ => 11,
        },
        "unary_operator" => 12,
        "await" => 14,
        _ => 15,
    }
}

fn paren_if(node: Node, src: &str, needed: bool) -> String {
    if needed {
        format!("({})", text(node, src))
    } else {
        text(node, src).to_string()
    }
}

/// `L op R` → `R op L`, parenthesising an operand only where precedence or associativity would
/// otherwise regroup it (`a - b - c` → `c - (a - b)`).
fn swap_operands(
    whole: Node,
    l: Node,
    r: Node,
    op: &str,
    name: &str,
    src: &str,
    out: &mut Vec<Site>,
) {
    if text(l, src) == text(r, src) {
        return;
    }
    let p = match op {
        "<" | "<=" | ">" | ">=" => 5,
        _ => prec(whole),
    };
    let (new_left, new_right) = if op == "**" {
        (
            paren_if(r, src, prec(r) <= 13),
            paren_if(l, src, prec(l) < 12),
        )
    } else {
        (
            paren_if(r, src, prec(r) < p),
            paren_if(l, src, prec(l) <= p),
        )
    };
    let middle = &src[l.end_byte()..r.start_byte()];
    let after = format!("{new_left}{middle}{new_right}");
    let start = l.start_byte();
    out.push(Site {
        start,
        end: r.end_byte(),
        description: format!(
            "Swapped the operands of `{op}` on line {}: `{}` became `{}`.",
            line_of(src, start),
            show(text(whole, src)),
            show(&after)
        ),
        after,
        operator: format!("swap_operands({name})"),
        bug_type: "swap_arguments",
    });
}

/// Value of a plain decimal integer literal (no `_`, no `L`/`j` suffix, no leading zeros).
pub(crate) fn int_value(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || (s.len() > 1 && s.starts_with('0'))
    {
        return None;
    }
    s.parse().ok()
}

/// A unary minus applied directly to an integer literal is one (negative) literal.
fn negative_literal(node: Node, src: &str, out: &mut Vec<Site>) {
    if unary_op(node) != Some("-") {
        return;
    }
    let Some(arg) = node.child_by_field_name("argument") else {
        return;
    };
    if arg.kind() == "integer" {
        if let Some(v) = int_value(text(arg, src)) {
            int_sites(node, -(v as i128), false, src, out);
        }
    }
}

/// `int+1` and `int-1` for the literal `node` of value `v` (a negative value is a unary minus on
/// a literal, replaced as a whole). A result below zero is written `-N`, parenthesised when it
/// would become the base of `**` (`-1 ** x` means `-(1 ** x)`).
fn int_sites(node: Node, v: i128, pow_base: bool, src: &str, out: &mut Vec<Site>) {
    let r = node.byte_range();
    let before = text(node, src);
    for (delta, operator) in [(1i128, "int+1"), (-1, "int-1")] {
        let n = v + delta;
        let after = if n < 0 && pow_base {
            format!("({n})")
        } else {
            n.to_string()
        };
        out.push(Site {
            start: r.start,
            end: r.end,
            description: format!(
                "Changed the integer literal `{before}` to `{after}` on line {}.",
                line_of(src, r.start)
            ),
            after,
            operator: operator.to_string(),
            bug_type: "off_by_one",
        });
    }
}
