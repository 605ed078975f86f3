//! The paper's six families over a dialect's [`Construct`]s (the rules of `operators.rs` and
//! `structural.rs`, carried to the C family's syntax):
//!
//! | family | rule |
//! |---|---|
//! | wrong_operator | `+`↔`-`, `*`↔`/`, `%`→`/`, `**`→`*`, `&`↔`\|`, `^`→`\|`, `<<`↔`>>`, `>>>`→`>>`, the same on compound assignments (`+=`→`-=`), `&&`↔`\|\|`; not `+`→`-` on a string concatenation the dialect recognises, where it would not compile |
//! | wrong_comparison | `<`↔`<=`, `>`↔`>=`, `==`↔`!=`, `===`↔`!==` |
//! | swap_arguments | adjacent call arguments (not a string literal against a non-string), the operands of `-`, `/`, `%`, `**`, `<<`, `>>` and of an ordering comparison |
//! | off_by_one | a decimal integer literal ± 1, its type suffix kept (a negative literal is one literal) |
//! | off_by_one_boundary | a non-literal index (`a[i]`, `get(i)`, `charAt(i)`), slice bound (`s[lo:hi]`, `v[lo..hi]`, `substring(lo, hi)`), range bound (`lo..hi`) or C-style loop bound (`for (i = lo; i < hi; ...)`) ± 1 |
//! | remove_edge_case_check | an `if` without `else` whose body is one `return`/`throw`/`panic`, deleted with its lines |
//!
//! Only operators that are binary-expression tokens are touched, never the angle brackets of a
//! template or generic argument list, which the grammars parse as types.

use super::cfamily::{delete_lines, literal_bound, paren, statements, text};
use super::{Construct as C, Dialect};
use crate::mutate::line_of;
use crate::mutate::operators::{show, Site};
use tree_sitter::Node;

/// (from, to, operator name) of a token swap.
type Swaps = &'static [(&'static str, &'static str, &'static str)];

const BINARY_SWAPS: Swaps = &[
    ("+", "-", "Add->Sub"),
    ("-", "+", "Sub->Add"),
    ("*", "/", "Mult->Div"),
    ("/", "*", "Div->Mult"),
    ("%", "/", "Mod->Div"),
    ("**", "*", "Pow->Mult"),
    ("&", "|", "BitAnd->BitOr"),
    ("|", "&", "BitOr->BitAnd"),
    ("^", "|", "BitXor->BitOr"),
    ("<<", ">>", "LShift->RShift"),
    (">>", "<<", "RShift->LShift"),
    (">>>", ">>", "URShift->RShift"),
];

const COMPARISON_SWAPS: Swaps = &[
    ("<", "<=", "Lt->LtE"),
    ("<=", "<", "LtE->Lt"),
    (">", ">=", "Gt->GtE"),
    (">=", ">", "GtE->Gt"),
    ("==", "!=", "Eq->NotEq"),
    ("!=", "==", "NotEq->Eq"),
    ("===", "!==", "StrictEq->StrictNotEq"),
    ("!==", "===", "StrictNotEq->StrictEq"),
];

const BOOLEAN_SWAPS: Swaps = &[("&&", "||", "And->Or"), ("||", "&&", "Or->And")];

/// Non-commutative binary operators, with the names `swap_operands(...)` gives them.
const NON_COMMUTATIVE: &[(&str, &str)] = &[
    ("-", "Sub"),
    ("/", "Div"),
    ("%", "Mod"),
    ("**", "Pow"),
    ("<<", "LShift"),
    (">>", "RShift"),
    ("<", "Lt"),
    ("<=", "LtE"),
    (">", "Gt"),
    (">=", "GtE"),
];

fn site(
    (start, end): (usize, usize),
    after: String,
    operator: impl Into<String>,
    bug_type: &'static str,
    description: String,
) -> Site {
    Site {
        start,
        end,
        after,
        operator: operator.into(),
        bug_type,
        description,
    }
}

pub(super) fn visit(d: &dyn Dialect, node: Node, c: &C, src: &str, out: &mut Vec<Site>) {
    match *c {
        C::Binary { left, op, right } => binary(d, node, left, op, right, src, out),
        C::Compound { target, op, value } => {
            let o = text(op, src);
            let bare = o.strip_suffix('=').unwrap_or(o);
            if d.blocks_swap(bare, target, value, src) {
                return;
            }
            if let Some((from, to, name)) = BINARY_SWAPS.iter().find(|(f, _, _)| *f == bare) {
                let (a, b) = name.split_once("->").unwrap_or((name, name));
                let description = format!(
                    "Changed the augmented assignment `{from}=` to `{to}=` on line {}.",
                    line_of(src, op.start_byte())
                );
                out.push(site(
                    (op.start_byte(), op.end_byte()),
                    format!("{to}="),
                    format!("Aug{a}->Aug{b}"),
                    "wrong_operator",
                    description,
                ));
            }
        }
        C::Int => {
            let negated = node.parent().is_some_and(
                |p| matches!(d.construct(p, src), C::Unary { op, .. } if text(op, src) == "-"),
            );
            if !negated {
                if let Some((v, suffix)) = d.int_literal(text(node, src)) {
                    int_sites(d, node, v as i128, suffix, false, src, out);
                }
            }
        }
        C::Unary { op, arg } if text(op, src) == "-" => {
            if matches!(d.construct(arg, src), C::Int) {
                if let Some((v, suffix)) = d.int_literal(text(arg, src)) {
                    int_sites(d, node, -(v as i128), suffix, true, src, out);
                }
            }
        }
        C::Call { name, ref args, .. } => call(d, node, name, args, src, out),
        C::Index { index } => bound_sites(d, index, "index", "index", src, out),
        C::Slice { start, end, .. } => {
            for (b, what) in [(start, "slice start bound"), (end, "slice stop bound")] {
                if let Some(b) = b {
                    bound_sites(d, b, "slice_bound", what, src, out);
                }
            }
        }
        C::Range { start, end } => {
            for (b, what) in [(start, "range start bound"), (end, "range stop bound")] {
                if let Some(b) = b {
                    bound_sites(d, b, "range_bound", what, src, out);
                }
            }
        }
        C::ForC {
            init, cond, update, ..
        } => loop_bounds(d, init, cond, update, src, out),
        C::If {
            cond,
            consequence,
            has_else: false,
        } => guard(d, node, cond, consequence, src, out),
        _ => {}
    }
}

fn binary(
    d: &dyn Dialect,
    whole: Node,
    left: Node,
    op: Node,
    right: Node,
    src: &str,
    out: &mut Vec<Site>,
) {
    let o = text(op, src);
    let line = line_of(src, op.start_byte());
    let r = (op.start_byte(), op.end_byte());
    let tables: [(Swaps, &'static str, &str); 3] = [
        (BINARY_SWAPS, "wrong_operator", "operator"),
        (COMPARISON_SWAPS, "wrong_comparison", "comparison"),
        (BOOLEAN_SWAPS, "wrong_operator", "boolean operator"),
    ];
    for (table, bug_type, noun) in tables {
        if let Some((from, to, name)) = table.iter().find(|(f, _, _)| *f == o) {
            if bug_type == "wrong_operator" && d.blocks_swap(from, left, right, src) {
                continue;
            }
            let description = format!("Changed the {noun} `{from}` to `{to}` on line {line}.");
            out.push(site(r, to.to_string(), *name, bug_type, description));
        }
    }
    let Some((_, name)) = NON_COMMUTATIVE.iter().find(|(x, _)| *x == o) else {
        return;
    };
    let (lt, rt) = (text(left, src), text(right, src));
    if lt == rt {
        return;
    }
    let p = d.binary_prec(o);
    let (pl, pr) = (d.prec(left, src), d.prec(right, src));
    // The right operand moves left and the left one right; parenthesise where the operator's
    // grouping would otherwise regroup them (`a - b - c` → `c - (a - b)`).
    let (new_left, new_right) = if d.right_assoc(o) {
        (paren(rt, pr <= p), paren(lt, pl < p))
    } else {
        (paren(rt, pr < p), paren(lt, pl <= p))
    };
    let middle = &src[left.end_byte()..right.start_byte()];
    let after = format!("{new_left}{middle}{new_right}");
    let description = format!(
        "Swapped the operands of `{o}` on line {line}: `{}` became `{}`.",
        show(text(whole, src)),
        show(&after)
    );
    out.push(site(
        (left.start_byte(), right.end_byte()),
        after,
        format!("swap_operands({name})"),
        "swap_arguments",
        description,
    ));
}

/// `int+1` and `int-1` of the literal `node` of value `v` (a negative value: a unary minus on a
/// literal, replaced whole), its suffix kept.
pub(super) fn int_sites(
    d: &dyn Dialect,
    node: Node,
    v: i128,
    suffix: &str,
    negative: bool,
    src: &str,
    out: &mut Vec<Site>,
) {
    let before = text(node, src);
    for (delta, operator) in [(1i128, "int+1"), (-1, "int-1")] {
        let n = v + delta;
        let Some(after) = int_text(d, node, n, suffix, negative, src) else {
            continue;
        };
        let description = format!(
            "Changed the integer literal `{before}` to `{after}` on line {}.",
            line_of(src, node.start_byte())
        );
        out.push(site(
            (node.start_byte(), node.end_byte()),
            after,
            operator,
            "off_by_one",
            description,
        ));
    }
}

/// The literal `n` with `suffix` in place of `node` (`None` where the dialect forbids a new
/// negative literal); a negative one is parenthesised after a `-` or `+` (`a - -1` would read as
/// a decrement in the C family).
pub(super) fn int_text(
    d: &dyn Dialect,
    node: Node,
    n: i128,
    suffix: &str,
    was_negative: bool,
    src: &str,
) -> Option<String> {
    if n < 0 && !was_negative && !d.negative_literals() && !suffix.starts_with('i') {
        return None;
    }
    if n < 0 && !d.negative_allowed_at(node, src) {
        return None;
    }
    // A constant integer divisor of zero only crashes (Go and Rust refuse it at compile time);
    // in JavaScript it is a value (`Infinity`, `NaN`).
    let divisor = node.parent().is_some_and(|p| {
        matches!(d.construct(p, src), C::Binary { op, right, .. } | C::Compound { op, value: right, .. }
            if right == node && matches!(text(op, src), "/" | "%" | "/=" | "%="))
    });
    if n == 0 && divisor && !d.zero_divisor_is_a_value() {
        return None;
    }
    let t = format!("{n}{suffix}");
    let glued = src[..node.start_byte()].ends_with(['-', '+']);
    Some(if n < 0 && glued { format!("({t})") } else { t })
}

/// A call: its adjacent arguments swapped; the bounds of a slicing method and the index of an
/// indexing one shifted.
fn call(
    d: &dyn Dialect,
    node: Node,
    name: Option<Node>,
    args: &[Node],
    src: &str,
    out: &mut Vec<Site>,
) {
    let method = name.map(|n| text(n, src)).unwrap_or("");
    if d.slice_methods().iter().any(|(m, _, _)| *m == method) {
        for (b, what) in args.iter().zip(["slice start bound", "slice stop bound"]) {
            bound_sites(d, *b, "slice_bound", what, src, out);
        }
    }
    if let [i] = args {
        if d.index_methods().contains(&method) {
            bound_sites(d, *i, "index", "index", src, out);
        }
    }
    let callee = node
        .child_by_field_name("function")
        .map(|f| show(text(f, src)))
        .unwrap_or_else(|| method.to_string());
    if !d.swappable_arguments(method) {
        return;
    }
    for (i, pair) in args.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        if text(a, src) == text(b, src) || !same_kind(d, a, b, src) {
            continue;
        }
        if a.kind() == "spread_element" || b.kind() == "spread_element" {
            continue;
        }
        let middle = &src[a.end_byte()..b.start_byte()];
        let start = a.start_byte();
        out.push(site(
            (start, b.end_byte()),
            format!("{}{middle}{}", text(b, src), text(a, src)),
            format!("call_args({},{})", i, i + 1),
            "swap_arguments",
            format!(
                "Swapped the arguments `{}` and `{}` in the call to `{callee}` on line {}.",
                show(text(a, src)),
                show(text(b, src)),
                line_of(src, start)
            ),
        ));
    }
}

/// True when the arguments `a` and `b` may be of one type, as far as the source says: not a
/// string against a non-string, a function against a value, a number against an iterator, nor
/// two variables declared with different types (a typed language refuses the swapped call).
fn same_kind(d: &dyn Dialect, a: Node, b: Node, src: &str) -> bool {
    let stringy = |n: Node| {
        matches!(d.construct(n, src), C::Str { .. })
            || matches!(
                n.kind(),
                "string_literal" | "char_literal" | "character_literal" | "rune_literal"
            )
            || d.is_string(n, src)
    };
    let function = |n: Node| {
        matches!(
            n.kind(),
            "func_literal"
                | "arrow_function"
                | "function_expression"
                | "lambda_expression"
                | "closure_expression"
        )
    };
    let number = |n: Node| matches!(d.construct(n, src), C::Int | C::Float);
    if stringy(a) != stringy(b)
        || function(a) != function(b)
        || (number(a) && d.not_a_number(b, src))
        || (number(b) && d.not_a_number(a, src))
        || d.not_a_number(a, src) != d.not_a_number(b, src)
    {
        return false;
    }
    match (d.declared_type(a, src), d.declared_type(b, src)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// `bound + 1` and `bound - 1` for a non-literal bound (`family±1` operators).
pub(super) fn bound_sites(
    d: &dyn Dialect,
    bound: Node,
    family: &str,
    what: &str,
    src: &str,
    out: &mut Vec<Site>,
) {
    if literal_bound(d, bound, src) || d.not_a_number(bound, src) {
        return;
    }
    let t = text(bound, src);
    let base = paren(t, d.prec(bound, src) < d.binary_prec("+"));
    for (sign, suffix) in [("+", "+1"), ("-", "-1")] {
        let after = format!("{base} {sign} 1");
        let description = format!(
            "Changed the {what} `{}` to `{}` on line {}.",
            show(t),
            show(&after),
            line_of(src, bound.start_byte())
        );
        out.push(site(
            (bound.start_byte(), bound.end_byte()),
            after,
            format!("{family}{suffix}"),
            "off_by_one_boundary",
            description,
        ));
    }
}

/// A C-style `for`: the loop variable's start value and the bound its condition compares it
/// with (the side of the comparison that is not the variable the update changes).
fn loop_bounds(
    d: &dyn Dialect,
    init: Option<Node>,
    cond: Option<Node>,
    update: Option<Node>,
    src: &str,
    out: &mut Vec<Site>,
) {
    if let Some(v) = init {
        bound_sites(d, v, "loop_bound", "loop start bound", src, out);
    }
    let (Some(cond), Some(update)) = (cond, update) else {
        return;
    };
    let C::Binary { left, op, right } = d.construct(cond, src) else {
        return;
    };
    if !matches!(text(op, src), "<" | "<=" | ">" | ">=" | "!=") {
        return;
    }
    let updated = |n: Node| {
        n.kind() == "identifier" && {
            let name = text(n, src);
            text(update, src)
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        }
    };
    let bound = if updated(left) {
        right
    } else if updated(right) {
        left
    } else {
        return;
    };
    bound_sites(d, bound, "loop_bound", "loop stop bound", src, out);
}

/// An `if` without `else` whose body is one `return`/`throw`: its lines deleted.
fn guard(
    d: &dyn Dialect,
    node: Node,
    cond: Option<Node>,
    consequence: Node,
    src: &str,
    out: &mut Vec<Site>,
) {
    let body = if super::cfamily::BLOCKS.contains(&consequence.kind()) {
        match statements(consequence).as_slice() {
            [one] => *one,
            _ => return,
        }
    } else {
        consequence
    };
    let leaves = |n: Node| matches!(d.construct(n, src), C::Return { .. } | C::Throw);
    let inner = if body.kind() == "expression_statement" {
        body.named_child(0).unwrap_or(body)
    } else {
        body
    };
    if !leaves(body) && !leaves(inner) {
        return;
    }
    // Rust wraps an `if` used as a statement in an expression statement: delete that.
    let stmt = match node.parent() {
        Some(p) if p.kind() == "expression_statement" => p,
        _ => node,
    };
    let Some((start, end, after)) = delete_lines(d, stmt, src) else {
        return;
    };
    let cond = cond.map(|c| text(c, src)).unwrap_or("");
    let description = format!(
        "Removed the guard `if {}` (`{}`) on line {}.",
        show(cond),
        show(text(body, src)),
        line_of(src, node.start_byte())
    );
    out.push(site(
        (start, end),
        after,
        "remove_guard",
        "remove_edge_case_check",
        description,
    ));
}
