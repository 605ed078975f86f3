//! Families that change control flow: negated conditions, loop iterations, deleted statements,
//! values replaced by `None`, exception handling (rules in the parent module's table).

use super::{push, Sink};
use crate::mutate::family::Family;
use crate::mutate::line_of;
use crate::mutate::operators::{prec, show, text};
use crate::mutate::structural::{delete_lines, named_non_comment};
use tree_sitter::Node;

/// The condition of an `if`/`elif`/`while`, a conditional expression or a comprehension's `if`,
/// wrapped in `not` (parenthesised unless it is an atom, a call, an attribute or a subscript,
/// so `not (a < b)` reads as meant). A condition that already is `not e` is left to
/// [`remove_not`].
pub(super) fn negate(node: Node, src: &str, out: &mut Sink) {
    let (cond, what, noun) = match node.kind() {
        "if_statement" => (node.child_by_field_name("condition"), "if", "`if`"),
        "elif_clause" => (node.child_by_field_name("condition"), "elif", "`elif`"),
        "while_statement" => (
            node.child_by_field_name("condition"),
            "while",
            "`while` loop",
        ),
        "conditional_expression" => (
            named_non_comment(node).get(1).copied(),
            "ternary",
            "conditional expression",
        ),
        "if_clause" => (
            named_non_comment(node).first().copied(),
            "filter",
            "comprehension filter",
        ),
        _ => return,
    };
    let Some(c) = cond else {
        return;
    };
    if c.kind() == "not_operator" {
        return;
    }
    let t = text(c, src);
    let after = if prec(c) < 12 {
        format!("not ({t})")
    } else {
        format!("not {t}")
    };
    let line = line_of(src, c.start_byte());
    let description = format!(
        "Negated the condition `{}` of the {noun} on line {line}.",
        show(t)
    );
    let family = Family::NegateCondition;
    push(
        out,
        family,
        range(c),
        after,
        format!("negate({what})"),
        description,
    );
}

/// `not e` → `e`, anywhere.
pub(super) fn remove_not(node: Node, src: &str, out: &mut Sink) {
    let Some(arg) = node.child_by_field_name("argument") else {
        return;
    };
    let description = format!(
        "Removed the `not` of `{}` on line {}.",
        show(text(arg, src)),
        line_of(src, node.start_byte())
    );
    let after = text(arg, src).to_string();
    push(
        out,
        Family::NegateCondition,
        range(node),
        after,
        "remove_not",
        description,
    );
}

fn range(n: Node) -> (usize, usize) {
    (n.start_byte(), n.end_byte())
}

/// A `for` loop over nothing, once, or reversed; a `while` loop that never runs or stops after
/// one iteration.
pub(super) fn loops(node: Node, src: &str, out: &mut Sink) {
    let family = Family::WrongLoopIterations;
    let line = line_of(src, node.start_byte());
    let is_for = node.kind() == "for_statement";
    let noun = if is_for { "`for`" } else { "`while`" };
    let head = if is_for { "right" } else { "condition" };
    if let Some(x) = node.child_by_field_name(head) {
        let t = text(x, src);
        let none = if is_for { "[]" } else { "False" };
        if !matches!(t, "[]" | "()" | "False") {
            let description = format!(
                "Made the {noun} loop on line {line} run zero times (`{}` → `{none}`).",
                show(t)
            );
            push(
                out,
                family,
                range(x),
                none.to_string(),
                "loop_zero",
                description,
            );
        }
        if is_for && x.kind() != "expression_list" {
            let after = reversed(x, src);
            let description = format!(
                "Made the `for` loop on line {line} run in reverse (`{}` → `{}`).",
                show(t),
                show(&after)
            );
            push(out, family, range(x), after, "loop_reversed", description);
        }
    }
    if let Some((at, after)) = node
        .child_by_field_name("body")
        .and_then(|b| break_after(node, b, src))
    {
        let description = format!(
            "Made the {noun} loop on line {line} stop after its first iteration (`break` at the \
             end of its body)."
        );
        push(out, family, (at, at), after, "loop_once", description);
    }
}

/// The iterable `x` reversed: `reversed(Y)` → `Y`; `reversed(x)` where `x` is certainly a
/// sequence (a `range`, `list`, `sorted` or `tuple` call, a literal); else
/// `reversed(list(x))`, which also reverses an iterator.
fn reversed(x: Node, src: &str) -> String {
    let t = text(x, src);
    let callee = x
        .child_by_field_name("function")
        .filter(|f| f.kind() == "identifier")
        .map(|f| text(f, src));
    let args: Vec<Node> = x
        .child_by_field_name("arguments")
        .filter(|a| a.kind() == "argument_list")
        .map(named_non_comment)
        .unwrap_or_default();
    let positional = |n: &Node| !matches!(n.kind(), "keyword_argument" | "list_splat");
    match (x.kind(), callee, args.as_slice()) {
        ("call", Some("reversed"), [a]) if positional(a) => text(*a, src).to_string(),
        ("call", Some("range" | "list" | "sorted" | "tuple"), _)
        | ("list" | "tuple" | "string" | "list_comprehension", _, _) => format!("reversed({t})"),
        _ => format!("reversed(list({t}))"),
    }
}

/// Where `break` goes so the loop `node` with body `body` stops after one iteration: right after
/// the body's last statement, on a line of its own at the body's indentation (`; break` for a
/// body on the loop's own line). `None` when the last statement already leaves the iteration
/// (`return`, `raise`, `break`, `continue`: a `break` after it would never run).
fn break_after(node: Node, body: Node, src: &str) -> Option<(usize, String)> {
    let stmts = named_non_comment(body);
    let (first, last) = (stmts.first()?, stmts.last()?);
    let leaves = [
        "return_statement",
        "raise_statement",
        "break_statement",
        "continue_statement",
    ];
    if leaves.contains(&last.kind()) {
        return None;
    }
    if line_of(src, first.start_byte()) == line_of(src, node.start_byte()) {
        return Some((last.end_byte(), "; break".to_string()));
    }
    let line_start = src[..first.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent = &src[line_start..first.start_byte()];
    if !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        return None;
    }
    Some((last.end_byte(), format!("\n{indent}break")))
}

/// `break` ↔ `continue`.
pub(super) fn loop_control(node: Node, src: &str, out: &mut Sink) {
    let (from, to) = if node.kind() == "break_statement" {
        ("break", "continue")
    } else {
        ("continue", "break")
    };
    if text(node, src) != from {
        return;
    }
    let description = format!(
        "Changed `{from}` to `{to}` on line {}.",
        line_of(src, node.start_byte())
    );
    let family = Family::WrongLoopIterations;
    push(
        out,
        family,
        range(node),
        to.to_string(),
        format!("{from}->{to}"),
        description,
    );
}

/// An expression statement (a call, an assignment, ...) deleted with its lines; bare strings
/// (docstrings) and `...` do nothing, so deleting them is no bug.
pub(super) fn delete_statement(node: Node, src: &str, out: &mut Sink) {
    let kids = named_non_comment(node);
    if let [only] = kids.as_slice() {
        if matches!(only.kind(), "string" | "concatenated_string" | "ellipsis") {
            return;
        }
    }
    let Some((start, end, after)) = delete_lines(node, src) else {
        return;
    };
    let description = format!(
        "Deleted the statement `{}` on line {}.",
        show(text(node, src)),
        line_of(src, node.start_byte())
    );
    let family = Family::DeleteStatement;
    push(
        out,
        family,
        (start, end),
        after,
        "delete_statement",
        description,
    );
}

/// `t = e` → `t = None` for one plain target (a name, an attribute, a subscript; unpacking
/// `None` would only crash).
pub(super) fn assign_none(node: Node, src: &str, out: &mut Sink) {
    let (Some(left), Some(right)) = (
        node.child_by_field_name("left"),
        node.child_by_field_name("right"),
    ) else {
        return;
    };
    if !matches!(left.kind(), "identifier" | "attribute" | "subscript")
        || matches!(right.kind(), "none" | "assignment" | "yield")
    {
        return;
    }
    let description = format!(
        "Assigned `None` instead of `{}` to `{}` on line {}.",
        show(text(right, src)),
        show(text(left, src)),
        line_of(src, node.start_byte())
    );
    to_none(out, right, "assign->None", description);
}

/// A `value_to_none` site: `value` replaced by `None`.
fn to_none(out: &mut Sink, value: Node, operator: &str, description: String) {
    let family = Family::ValueToNone;
    push(
        out,
        family,
        range(value),
        "None".into(),
        operator,
        description,
    );
}

/// `return e` → `return None`.
pub(super) fn return_none(node: Node, src: &str, out: &mut Sink) {
    let [value] = named_non_comment(node)[..] else {
        return;
    };
    if value.kind() == "none" {
        return;
    }
    let description = format!(
        "Returned `None` instead of `{}` on line {}.",
        show(text(value, src)),
        line_of(src, node.start_byte())
    );
    to_none(out, value, "return->None", description);
}

/// `lambda …: e` → `lambda …: None`.
pub(super) fn lambda_none(node: Node, src: &str, out: &mut Sink) {
    let Some(body) = node.child_by_field_name("body") else {
        return;
    };
    if body.kind() == "none" {
        return;
    }
    let description = format!(
        "Made the lambda on line {} return `None` instead of `{}`.",
        line_of(src, node.start_byte()),
        show(text(body, src))
    );
    to_none(out, body, "lambda->None", description);
}

/// An `except` clause: its type broadened to `Exception`, a tuple of types narrowed to each one,
/// its body replaced by `raise` (the exception escapes) or by `pass` (it is swallowed).
/// `except*` groups are left alone.
pub(super) fn except_clause(node: Node, src: &str, out: &mut Sink) {
    let family = Family::WrongExceptionHandling;
    let line = line_of(src, node.start_byte());
    let star = text(node, src)
        .strip_prefix("except")
        .is_some_and(|rest| rest.trim_start().starts_with('*'));
    if star {
        return;
    }
    let ty = node.child_by_field_name("value").and_then(|v| {
        if v.kind() == "as_pattern" {
            named_non_comment(v).first().copied()
        } else {
            Some(v)
        }
    });
    if let Some(ty) = ty {
        let t = text(ty, src);
        let elems = if ty.kind() == "tuple" {
            named_non_comment(ty)
        } else {
            vec![ty]
        };
        let generic = |e: &Node| matches!(text(*e, src), "Exception" | "BaseException");
        if !elems.iter().any(generic) {
            let description = format!(
                "Broadened `except {}` to `except Exception` on line {line}.",
                show(t)
            );
            push(
                out,
                family,
                range(ty),
                "Exception".into(),
                "except->Exception",
                description,
            );
        }
        if ty.kind() == "tuple" && elems.len() >= 2 {
            for (i, e) in elems.iter().enumerate() {
                let one = text(*e, src);
                let description = format!(
                    "Narrowed `except {}` to `except {one}` on line {line}.",
                    show(t)
                );
                let operator = format!("except_narrow({i})");
                push(
                    out,
                    family,
                    range(ty),
                    one.to_string(),
                    operator,
                    description,
                );
            }
        }
    }
    let Some(body) = named_non_comment(node)
        .into_iter()
        .rev()
        .find(|c| c.kind() == "block")
    else {
        return;
    };
    let stmts = named_non_comment(body);
    let (Some(first), Some(last)) = (stmts.first(), stmts.last()) else {
        return;
    };
    let whole = (first.start_byte(), last.end_byte());
    let only = |stmt: &str| stmts.len() == 1 && text(*first, src) == stmt;
    if !only("raise") {
        let description = format!(
            "Made the `except` handler on line {line} re-raise the exception instead of \
             handling it."
        );
        push(
            out,
            family,
            whole,
            "raise".into(),
            "handler->raise",
            description,
        );
    }
    if !only("pass") {
        let description =
            format!("Made the `except` handler on line {line} swallow the exception (`pass`).");
        push(
            out,
            family,
            whole,
            "pass".into(),
            "handler->pass",
            description,
        );
    }
}
