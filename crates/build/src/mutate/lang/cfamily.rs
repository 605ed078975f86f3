//! What the C-family dialects share: literal syntax, precedence of the node kinds their grammars
//! have in common, and the questions about statements the families ask (is it alone on its
//! lines, does it always leave its block, does a `break` leave a loop).

use super::Dialect;
use tree_sitter::Node;

/// Node kinds of a loop, in every dialect's grammar.
pub(super) const LOOPS: &[&str] = &[
    "for_statement",
    "for_in_statement",
    "for_range_loop",
    "enhanced_for_statement",
    "while_statement",
    "do_statement",
    "for_expression",
    "while_expression",
    "loop_expression",
];

/// Node kinds a `break` may leave that are not loops, and function-like nodes a `break` cannot
/// leave.
const NOT_LOOPS: &[&str] = &[
    "switch_statement",
    "switch_expression",
    "switch_block",
    "expression_switch_statement",
    "type_switch_statement",
    "select_statement",
    "function_definition",
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "method_declaration",
    "lambda_expression",
    "function_item",
    "closure_expression",
    "func_literal",
];

/// Block kinds: a statement deleted from one of these leaves a valid (maybe empty) block.
pub(super) const BLOCKS: &[&str] = &[
    "statement_block",
    "compound_statement",
    "block",
    "statement_list",
    "switch_block_statement_group",
    "case_statement",
    "expression_case",
    "default_case",
    "switch_case",
    "switch_default",
];

pub(super) fn text<'a>(node: Node, src: &'a str) -> &'a str {
    &src[node.byte_range()]
}

/// True when the `break` at `node` leaves a loop (so `continue` is valid in its place): its
/// innermost enclosing loop-or-switch is a loop, and it carries no label or value.
pub(super) fn breaks_loop(node: Node) -> bool {
    if node.named_child_count() > 0 {
        return false; // a label (`break outer`) or a value (`break x`)
    }
    let mut p = node.parent();
    while let Some(n) = p {
        if LOOPS.contains(&n.kind()) {
            return true;
        }
        if NOT_LOOPS.contains(&n.kind()) {
            return false;
        }
        p = n.parent();
    }
    false
}

/// A decimal integer literal `digits` + `suffix` whose suffix `suffix_ok` accepts: its value and
/// suffix. No other base, no separators, no leading zero (an octal literal in C and Java).
pub(super) fn int_literal(text: &str, suffix_ok: impl Fn(&str) -> bool) -> Option<(u64, &str)> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let (num, suffix) = text.split_at(digits);
    if num.is_empty() || (num.len() > 1 && num.starts_with('0')) || !suffix_ok(suffix) {
        return None;
    }
    Some((num.parse().ok()?, suffix))
}

/// A plain decimal float literal `int.frac` + `suffix` (either part of the number may be empty,
/// not both; no exponent): its number and suffix.
pub(super) fn float_literal(text: &str, suffix_ok: impl Fn(&str) -> bool) -> Option<(&str, &str)> {
    let n = text
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (num, suffix) = text.split_at(n);
    if num.matches('.').count() != 1 || num == "." || !suffix_ok(suffix) {
        return None;
    }
    Some((num, suffix))
}

/// Binding strength of the C family's binary operators (C++, Java, JavaScript): `**` 16,
/// multiplicative 15, additive 14, shifts 13, relational 11, equality 10, `&` 9, `^` 8, `|` 7,
/// `&&` 6, `||` and `??` 5.
pub(super) fn c_binary_prec(op: &str) -> u8 {
    match op {
        "**" => 16,
        "*" | "/" | "%" => 15,
        "+" | "-" => 14,
        "<<" | ">>" | ">>>" => 13,
        "<=>" => 12,
        "<" | "<=" | ">" | ">=" | "instanceof" | "in" => 11,
        "==" | "!=" | "===" | "!==" => 10,
        "&" => 9,
        "^" => 8,
        "|" => 7,
        "&&" => 6,
        _ => 5,
    }
}

/// Binding strength of an expression node of any dialect: atoms 100, casts 95, unary 90,
/// binary by the dialect's table, conditional 4, assignments, lambdas and ranges 0–2.
pub(super) fn prec(d: &dyn Dialect, node: Node, src: &str) -> u8 {
    match node.kind() {
        "binary_expression" => node
            .child_by_field_name("operator")
            .map_or(5, |op| d.binary_prec(text(op, src))),
        "type_cast_expression" => 95,
        "unary_expression"
        | "update_expression"
        | "pointer_expression"
        | "cast_expression"
        | "reference_expression"
        | "await_expression"
        | "sizeof_expression" => 90,
        "instanceof_expression" | "as_expression" | "satisfies_expression" => 11,
        "ternary_expression" | "conditional_expression" => 4,
        "range_expression" => 2,
        "assignment_expression"
        | "augmented_assignment_expression"
        | "compound_assignment_expr"
        | "arrow_function"
        | "lambda_expression"
        | "closure_expression"
        | "yield_expression"
        | "sequence_expression"
        | "comma_expression"
        | "spread_element" => 0,
        _ => 100,
    }
}

/// `text` in parentheses when `needed`.
pub(super) fn paren(text: &str, needed: bool) -> String {
    if needed {
        format!("({text})")
    } else {
        text.to_string()
    }
}

/// True when the statement `node` always leaves its block (a `return`, `throw`, `break` or
/// `continue`, a block ending in one, an `if` whose every branch does): a statement after it
/// would never run (and Java refuses one).
pub(super) fn always_leaves(d: &dyn Dialect, node: Node, src: &str) -> bool {
    match d.construct(node, src) {
        super::Construct::Return { .. }
        | super::Construct::Throw
        | super::Construct::Break
        | super::Construct::Continue => true,
        super::Construct::If {
            consequence,
            has_else: true,
            ..
        } => {
            let alternative = node.child_by_field_name("alternative");
            always_leaves(d, consequence, src)
                && alternative.is_some_and(|a| {
                    // `else_clause` wraps the branch in some grammars.
                    let inner = if a.kind() == "else_clause" {
                        a.named_child(0).unwrap_or(a)
                    } else {
                        a
                    };
                    always_leaves(d, inner, src)
                })
        }
        _ if BLOCKS.contains(&node.kind()) => statements(node)
            .last()
            .is_some_and(|s| always_leaves(d, *s, src)),
        _ if node.kind() == "expression_statement" => node
            .named_child(0)
            .is_some_and(|c| always_leaves(d, c, src)),
        _ => false,
    }
}

/// The statements of a block (comments left out; Go's `statement_list` looked into).
pub(super) fn statements(block: Node) -> Vec<Node> {
    let mut cursor = block.walk();
    let kids: Vec<Node> = block
        .named_children(&mut cursor)
        .filter(|c| !c.kind().contains("comment"))
        .collect();
    match kids.as_slice() {
        [list] if list.kind() == "statement_list" => statements(*list),
        _ => kids,
    }
}

/// The splice that deletes the whole lines of the statement `node`: `(start, end, after)`, with
/// `after` empty, or the dialect's empty statement at the statement's indentation when the
/// statement is a braceless body (`if (c) x++;` on two lines), so the code around it keeps its
/// meaning. `None` when anything but indentation precedes it on its first line or anything but a
/// comment follows it on its last.
pub(super) fn delete_lines(
    d: &dyn Dialect,
    node: Node,
    src: &str,
) -> Option<(usize, usize, String)> {
    let r = node.byte_range();
    let line_start = src[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &src[line_start..r.start];
    if !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        return None;
    }
    let line_end = src[r.end..].find('\n').map_or(src.len(), |i| r.end + i + 1);
    let trailing = src[r.end..line_end].trim();
    if !(trailing.is_empty() || trailing.starts_with("//")) {
        return None;
    }
    let in_block = node.parent().is_some_and(|p| BLOCKS.contains(&p.kind()));
    let after = if in_block {
        String::new()
    } else {
        let newline = if src[..line_end].ends_with('\n') {
            "\n"
        } else {
            ""
        };
        format!("{indent}{}{newline}", d.empty_statement())
    };
    Some((line_start, line_end, after))
}

/// Where `break` goes so the loop with body `body` stops after one iteration: after the body's
/// last statement, on a line of its own at that statement's indentation. `None` for a body that
/// is not a block, an empty one, or one whose last statement always leaves the iteration (the
/// `break` would never run).
pub(super) fn break_after(d: &dyn Dialect, body: Node, src: &str) -> Option<(usize, String)> {
    if !BLOCKS.contains(&body.kind()) {
        return None;
    }
    let stmts = statements(body);
    let last = *stmts.last()?;
    if always_leaves(d, last, src) {
        return None;
    }
    let first = stmts[0];
    let line_start = src[..first.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent = &src[line_start..first.start_byte()];
    let brk = d.break_statement();
    if !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        // The body is on the loop's line: `{ x++; }` → `{ x++; break; }`.
        return Some((last.end_byte(), format!(" {brk}")));
    }
    Some((last.end_byte(), format!("\n{indent}{brk}")))
}

/// True for a node that is a literal the families treat as a constant (a bound made of one is
/// an `off_by_one` site, not an `off_by_one_boundary` one).
pub(super) fn literal_bound(d: &dyn Dialect, bound: Node, src: &str) -> bool {
    use super::Construct as C;
    match d.construct(bound, src) {
        C::Int | C::Float | C::Str { .. } | C::Bool(_) => true,
        C::Unary { arg, .. } => matches!(d.construct(arg, src), C::Int | C::Float),
        C::Binary { left, op, right } => {
            matches!(text(op, src), "+" | "-")
                && (matches!(d.construct(left, src), C::Int)
                    || matches!(d.construct(right, src), C::Int))
        }
        _ => matches!(
            bound.kind(),
            "string_literal" | "char_literal" | "character_literal" | "rune_literal" | "string"
        ),
    }
}

/// The function-like node around `node` (the innermost one with a body), if any.
pub(super) fn enclosing_function<'t>(d: &dyn Dialect, node: Node<'t>) -> Option<Node<'t>> {
    let mut p = node.parent();
    while let Some(n) = p {
        if d.function_body(n).is_some() {
            return Some(n);
        }
        p = n.parent();
    }
    None
}

/// What declares the variable `name` used at `at`: of the nodes of the enclosing function (its
/// parameters included) for which `decl` gives an identifier `name` declared before `at`, the one
/// whose scope (the block, loop, `if` or function around it) is the innermost that holds `at`,
/// mapped to what `decl` pairs with it (a type node, or an initial value where no type is
/// written). A same-named variable of another block is not it.
pub(super) fn declaration_of<'t>(
    d: &dyn Dialect,
    at: Node<'t>,
    name: &str,
    src: &str,
    decl: &dyn Fn(Node<'t>) -> Option<(Node<'t>, Node<'t>)>,
) -> Option<Node<'t>> {
    let func = enclosing_function(d, at)?;
    let holds = |n: Node, x: Node| n.start_byte() <= x.start_byte() && x.end_byte() <= n.end_byte();
    let scope = |id: Node<'t>| {
        let mut p = id.parent();
        while let Some(n) = p {
            let k = n.kind();
            if BLOCKS.contains(&k)
                || LOOPS.contains(&k)
                || matches!(k, "if_statement" | "if_expression")
                || d.function_body(n).is_some()
            {
                return Some(n);
            }
            p = n.parent();
        }
        None
    };
    let mut best: Option<(usize, Node<'t>)> = None;
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        if let Some((id, info)) = decl(n) {
            if text(id, src) == name && id.start_byte() <= at.start_byte() {
                if let Some(sc) = scope(id).filter(|sc| holds(*sc, at)) {
                    let width = sc.end_byte() - sc.start_byte();
                    if best.is_none_or(|(w, _)| width <= w) {
                        best = Some((width, info));
                    }
                }
            }
        }
        let mut cursor = n.walk();
        let kids: Vec<Node<'t>> = n.children(&mut cursor).collect();
        stack.extend(kids.into_iter().rev());
    }
    best.map(|(_, info)| info)
}

/// The first identifier inside a declarator (`x`, `&x`, `*x`, `x[10]`, `x = 1`).
pub(super) fn declarator_name(mut n: Node) -> Option<Node> {
    loop {
        if matches!(n.kind(), "identifier" | "field_identifier") {
            return Some(n);
        }
        n = n
            .child_by_field_name("declarator")
            .or_else(|| n.child_by_field_name("name"))
            .or_else(|| {
                let mut cursor = n.walk();
                let first = n
                    .named_children(&mut cursor)
                    .find(|c| c.kind() == "identifier");
                first
            })?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_split_value_and_suffix() {
        let any = |_: &str| true;
        assert_eq!(int_literal("10", any), Some((10, "")));
        assert_eq!(int_literal("3LL", |s| s == "LL"), Some((3, "LL")));
        assert_eq!(int_literal("0", any), Some((0, "")));
        assert_eq!(int_literal("010", any), None);
        assert_eq!(int_literal("0x1F", |s| s.is_empty()), None);
        assert_eq!(int_literal("1_000", |s| s.is_empty()), None);
        assert_eq!(float_literal("2.5f", |s| s == "f"), Some(("2.5", "f")));
        assert_eq!(float_literal(".5", any), Some((".5", "")));
        assert_eq!(float_literal("1.", any), Some(("1.", "")));
        assert_eq!(float_literal("1e9", |s| s.is_empty()), None);
        assert_eq!(float_literal("12", any), None);
        assert_eq!(float_literal("1.5e3", |s| s.is_empty()), None);
    }
}
