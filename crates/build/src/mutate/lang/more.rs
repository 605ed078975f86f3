//! The catalogue's families over a dialect's [`Construct`]s (the rules of `catalogue/`, carried
//! to the C family's syntax; docs/bundle-format.md, "Bug types in other languages"):
//!
//! | family | sites (operator names) |
//! |---|---|
//! | negate_condition | the condition of `if`, `while`, `do … while` and `?:` negated (`negate(if)`, …), unless it is a literal or already a `!`; any `!e` → `e` (`remove_not`) |
//! | delete_statement | a statement that only has effects (a call, an assignment, an increment), alone on its lines, deleted |
//! | remove_slice_index | a slice's start or stop removed (`s[lo:hi]` → `s[:hi]`, `v[lo..hi]` → `v[lo..]`, `substring(lo, hi)` → `substring(lo)`) |
//! | wrong_loop_iterations | `loop_zero` (the condition → `false`, the collection → an empty one), `loop_once` (`break` after the body), `loop_reversed` (the collection reversed), `break->continue`, `continue->break` |
//! | value_to_none | a returned value (`return->null`/`return->default`), an assigned or initial value (`assign->…`), an arrow function's value (`lambda->null`) replaced by the language's "nothing" of that type |
//! | wrong_string_method | a string (or character) method or function swapped for its mirror (`toLowerCase`↔`toUpperCase`, `startsWith`↔`endsWith`, `find`↔`rfind`, ...) |
//! | wrong_exception_handling | a `catch` broadened (`except->Exception`), a multi-catch narrowed (`except_narrow(i)`), a handler that re-throws (`handler->raise`) or does nothing (`handler->pass`) |
//! | wrong_constant | an integer → `0`, `1`, `-1` (those more than one away), a float → `0.0` and its value + 1, a string → empty, `true` ↔ `false` |
//! | remove_unary_operator | `-e`, `~e` (Go: `^e`) → `e` for a non-literal `e` |

use super::cfamily::{break_after, delete_lines, text};
use super::paper::int_text;
use super::{Construct as C, Dialect};
use crate::mutate::family::Family;
use crate::mutate::line_of;
use crate::mutate::operators::{show, Site};
use tree_sitter::Node;

fn push(
    out: &mut Vec<Site>,
    family: Family,
    (start, end): (usize, usize),
    after: String,
    operator: impl Into<String>,
    description: String,
) {
    out.push(Site {
        start,
        end,
        after,
        operator: operator.into(),
        bug_type: family.as_str(),
        description,
    });
}

/// True for an assignment or declaration that is a statement of a block (not the initialiser
/// or update of a `for`): the one `value_to_none` replaces the value of.
fn in_block(node: Node) -> bool {
    let mut n = node;
    for _ in 0..3 {
        let Some(p) = n.parent() else {
            return false;
        };
        if super::cfamily::BLOCKS.contains(&p.kind()) {
            return true;
        }
        if !matches!(
            p.kind(),
            "expression_statement"
                | "lexical_declaration"
                | "variable_declaration"
                | "declaration"
                | "local_variable_declaration"
                | "var_declaration"
                | "var_spec_list"
        ) {
            return false;
        }
        n = p;
    }
    false
}

fn range(n: Node) -> (usize, usize) {
    (n.start_byte(), n.end_byte())
}

pub(super) fn visit(
    d: &dyn Dialect,
    node: Node,
    func: Node,
    c: &C,
    src: &str,
    out: &mut Vec<Site>,
) {
    if d.function_body(func) == Some(node) {
        if let Some(tail) = d.tail_value(node) {
            to_nothing(d, tail, func, src, "return", true, out);
        }
    }
    if d.deletable(node, src) {
        if let Some((start, end, after)) = delete_lines(d, node, src) {
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
    }
    match *c {
        C::If {
            cond: Some(cond), ..
        } => negate(d, cond, "if", "`if`", src, out),
        C::While { cond, body } => {
            let what = if node.kind() == "do_statement" {
                "do_while"
            } else {
                "while"
            };
            negate(d, cond, what, "loop", src, out);
            loops(d, node, Some(cond), None, body, src, out);
        }
        C::ForC { cond, body, .. } => loops(d, node, cond, None, body, src, out),
        C::ForEach { iterable, body } => loops(d, node, None, Some(iterable), body, src, out),
        C::Ternary { cond } => negate(d, cond, "ternary", "conditional expression", src, out),
        C::Unary { op, arg } => unary(d, node, op, arg, src, out),
        C::Slice {
            start,
            end,
            end_removable,
        } => {
            let line = line_of(src, node.start_byte());
            let mut cut = |part: Node, which: &str| {
                let description = format!(
                    "Removed the slice {which} `{}` on line {line}.",
                    show(text(part, src))
                );
                let operator = format!("remove_slice({which})");
                let family = Family::RemoveSliceIndex;
                push(
                    out,
                    family,
                    range(part),
                    String::new(),
                    operator,
                    description,
                );
            };
            if let Some(s) = start {
                cut(s, "start");
            }
            if let (Some(e), true) = (end, end_removable) {
                cut(e, "stop");
            }
        }
        C::Call {
            name,
            receiver,
            ref args,
        } => {
            call_slice(d, node, name, args, src, out);
            string_method(d, name, receiver, src, out);
        }
        C::Break | C::Continue => loop_control(d, node, c, src, out),
        C::Return { value: Some(v) } => to_nothing(d, v, func, src, "return", true, out),
        C::Assign { .. } | C::Init { .. } if !in_block(node) => {}
        C::Assign { target, value } => {
            let what = format!("assign:{}", show(text(target, src)));
            to_nothing(d, value, func, src, &what, false, out)
        }
        C::Init { value, .. } => {
            let target = node
                .child_by_field_name("name")
                .or_else(|| node.child_by_field_name("declarator"))
                .or_else(|| node.child_by_field_name("pattern"))
                .map_or(String::new(), |t| show(text(t, src)));
            to_nothing(d, value, func, src, &format!("assign:{target}"), false, out)
        }
        C::Lambda { body } => to_nothing(d, body, func, src, "lambda", false, out),
        C::Catch {
            ref types,
            param,
            types_span,
            body,
            last,
        } => catch(d, node, types, param, types_span, body, last, src, out),
        C::Int | C::Float | C::Str { .. } | C::Bool(_) => constant(d, node, c, src, out),
        _ => {}
    }
}

/// The condition `cond` negated, unless it is a literal (a loop that provably never runs does
/// not compile in Java) or already a negation (`remove_not` undoes that one).
fn negate(d: &dyn Dialect, cond: Node, what: &str, noun: &str, src: &str, out: &mut Vec<Site>) {
    match d.construct(cond, src) {
        C::Bool(_) | C::Int => return,
        C::Unary { op, .. } if text(op, src) == "!" => return,
        _ => {}
    }
    let t = text(cond, src);
    let description = format!(
        "Negated the condition `{}` of the {noun} on line {}.",
        show(t),
        line_of(src, cond.start_byte())
    );
    let after = d.negate(cond, src);
    let family = Family::NegateCondition;
    push(
        out,
        family,
        range(cond),
        after,
        format!("negate({what})"),
        description,
    );
}

/// `!e` → `e` (`remove_not`); `-e` and `~e` → `e` for a non-literal `e` (`remove_unary`).
fn unary(d: &dyn Dialect, node: Node, op: Node, arg: Node, src: &str, out: &mut Vec<Site>) {
    let o = text(op, src);
    let line = line_of(src, node.start_byte());
    let a = text(arg, src);
    match o {
        "!" => {
            let description = format!("Removed the `!` of `{}` on line {line}.", show(a));
            let family = Family::NegateCondition;
            push(
                out,
                family,
                range(node),
                a.to_string(),
                "remove_not",
                description,
            );
        }
        "-" | "~" | "^" => {
            if o == "-" && matches!(d.construct(arg, src), C::Int | C::Float) {
                constant(d, node, &C::Other, src, out);
                return;
            }
            if o == "^" && d.language() != execscope_record::Language::Go {
                return;
            }
            let description = format!("Removed the unary `{o}` of `{}` on line {line}.", show(a));
            let family = Family::RemoveUnaryOperator;
            let operator = format!("remove_unary({o})");
            push(
                out,
                family,
                range(node),
                a.to_string(),
                operator,
                description,
            );
        }
        _ => {}
    }
}

/// A loop run zero times, once, or over its collection reversed.
fn loops(
    d: &dyn Dialect,
    node: Node,
    cond: Option<Node>,
    iterable: Option<Node>,
    body: Node,
    src: &str,
    out: &mut Vec<Site>,
) {
    let family = Family::WrongLoopIterations;
    let line = line_of(src, node.start_byte());
    let is_do = node.kind() == "do_statement";
    if let (Some(c), Some(no), false) = (cond, d.false_condition(), is_do) {
        let t = text(c, src);
        if t != no && !matches!(d.construct(c, src), C::Bool(_)) {
            let description = format!(
                "Made the loop on line {line} run zero times (`{}` → `{no}`).",
                show(t)
            );
            push(
                out,
                family,
                range(c),
                no.to_string(),
                "loop_zero",
                description,
            );
        }
    }
    if let Some(x) = iterable {
        let t = text(x, src);
        if let Some(after) = d.empty_iteration(x, src) {
            let description = format!(
                "Made the loop on line {line} run zero times (`{}` → `{}`).",
                show(t),
                show(&after)
            );
            push(out, family, range(x), after, "loop_zero", description);
        }
        if let Some(after) = d.reversed_iteration(x, src) {
            let description = format!(
                "Made the loop on line {line} run in reverse (`{}` → `{}`).",
                show(t),
                show(&after)
            );
            push(out, family, range(x), after, "loop_reversed", description);
        }
    }
    if is_do {
        return;
    }
    if let Some((at, after)) = break_after(d, body, src) {
        let description = format!(
            "Made the loop on line {line} stop after its first iteration (`break` at the end of \
             its body)."
        );
        push(out, family, (at, at), after, "loop_once", description);
    }
}

/// `break` ↔ `continue` (a `break` only where it leaves a loop, not a `switch`).
fn loop_control(d: &dyn Dialect, node: Node, c: &C, src: &str, out: &mut Vec<Site>) {
    let (from, to) = match c {
        C::Break if d.breaks_loop(node) => ("break", "continue"),
        C::Continue if node.named_child_count() == 0 => ("continue", "break"),
        _ => return,
    };
    // The keyword only: a statement's `;` stays where it is.
    let kw = (node.start_byte(), node.start_byte() + from.len());
    if src.get(kw.0..kw.1) != Some(from) {
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
        kw,
        to.to_string(),
        format!("{from}->{to}"),
        description,
    );
}

/// `value` replaced by the dialect's "nothing" of its type (`value_to_none`).
fn to_nothing(
    d: &dyn Dialect,
    value: Node,
    func: Node,
    src: &str,
    what: &str,
    returned: bool,
    out: &mut Vec<Site>,
) {
    let Some((after, suffix)) = d.nothing(value, func, src, returned) else {
        return;
    };
    let t = text(value, src);
    // The value that already is "nothing" (`0` for `{}` in C++, `None` for Rust's default)
    // makes an equivalent program.
    let zero = match d.construct(value, src) {
        C::Int | C::Float => t
            .trim_start_matches(['0', '.'])
            .chars()
            .all(|c| !c.is_ascii_digit()),
        C::Bool(b) => !b,
        C::Str { ref empty } => t == empty,
        _ => matches!(
            t,
            "None" | "nil" | "nullptr" | "null" | "NULL" | "undefined"
        ),
    };
    if t == after || (suffix == "default" && zero) {
        return;
    }
    let line = line_of(src, value.start_byte());
    let (kind, target) = what.split_once(':').unwrap_or((what, ""));
    let description = match kind {
        "return" => format!(
            "Returned `{after}` instead of `{}` on line {line}.",
            show(t)
        ),
        "lambda" => format!(
            "Made the function on line {line} return `{after}` instead of `{}`.",
            show(t)
        ),
        _ => format!(
            "Assigned `{after}` instead of `{}` to `{target}` on line {line}.",
            show(t)
        ),
    };
    let family = Family::ValueToNone;
    push(
        out,
        family,
        range(value),
        after,
        format!("{kind}->{suffix}"),
        description,
    );
}

/// A slicing method's stop bound removed (`substring(lo, hi)` → `substring(lo)`), or its only
/// bound where the method takes none (`slice(lo)` → `slice()`).
fn call_slice(
    d: &dyn Dialect,
    node: Node,
    name: Option<Node>,
    args: &[Node],
    src: &str,
    out: &mut Vec<Site>,
) {
    let Some(m) = name.map(|n| text(n, src)) else {
        return;
    };
    let Some(&(_, stop, start)) = d.slice_methods().iter().find(|(x, _, _)| *x == m) else {
        return;
    };
    let line = line_of(src, node.start_byte());
    let family = Family::RemoveSliceIndex;
    match args {
        [lo, hi] if stop => {
            let description = format!(
                "Removed the slice stop `{}` of `{m}` on line {line}.",
                show(text(*hi, src))
            );
            let r = (lo.end_byte(), hi.end_byte());
            push(
                out,
                family,
                r,
                String::new(),
                "remove_slice(stop)",
                description,
            );
        }
        [lo] if start => {
            let description = format!(
                "Removed the slice start `{}` of `{m}` on line {line}.",
                show(text(*lo, src))
            );
            push(
                out,
                family,
                range(*lo),
                String::new(),
                "remove_slice(start)",
                description,
            );
        }
        _ => {}
    }
}

/// A method or function name swapped for its mirror.
fn string_method(
    d: &dyn Dialect,
    name: Option<Node>,
    receiver: Option<Node>,
    src: &str,
    out: &mut Vec<Site>,
) {
    let Some(name) = name else {
        return;
    };
    let m = text(name, src);
    if !d.string_method_applies(m, receiver, src) {
        return;
    }
    for &(from, to) in d.string_methods().iter().filter(|(f, _)| *f == m) {
        let description = format!(
            "Called `{to}` instead of `{from}` on line {}.",
            line_of(src, name.start_byte())
        );
        let family = Family::WrongStringMethod;
        push(
            out,
            family,
            range(name),
            to.to_string(),
            format!(".{from}->.{to}"),
            description,
        );
    }
}

/// A `catch` clause: broadened, narrowed, made to re-throw or to swallow.
#[allow(clippy::too_many_arguments)]
fn catch(
    d: &dyn Dialect,
    node: Node,
    types: &[Node],
    param: Option<Node>,
    types_span: Option<Node>,
    body: Node,
    last: bool,
    src: &str,
    out: &mut Vec<Site>,
) {
    let family = Family::WrongExceptionHandling;
    let line = line_of(src, node.start_byte());
    let name = param.map(|p| text(p, src));
    if let (Some(span), Some(broad), true) = (types_span, d.broadest_exception(), last) {
        let t = text(span, src);
        // Broadening drops the parameter where the language's catch-all has none (C++'s
        // `...`): only when the handler does not use it.
        let used = name.is_some_and(|n| {
            text(body, src)
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == n)
        });
        if t != broad && !(broad.contains("...") && used) {
            let description = format!(
                "Broadened `catch ({})` to `catch ({broad})` on line {line}.",
                show(t)
            );
            push(
                out,
                family,
                range(span),
                broad.to_string(),
                "except->Exception",
                description,
            );
        }
    }
    if types.len() >= 2 {
        if let Some(span) = types_span {
            for (i, one) in types.iter().enumerate() {
                let one = text(*one, src);
                let description = format!(
                    "Narrowed `catch ({})` to `catch ({one})` on line {line}.",
                    show(text(span, src))
                );
                let operator = format!("except_narrow({i})");
                push(
                    out,
                    family,
                    range(span),
                    one.to_string(),
                    operator,
                    description,
                );
            }
        }
    }
    let inner = text(body, src)
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .trim()
        .to_string();
    if let Some(rethrow) = d.rethrow(name) {
        if inner != rethrow {
            let description = format!(
                "Made the `catch` handler on line {line} re-throw the exception instead of \
                 handling it."
            );
            let after = format!("{{ {rethrow} }}");
            push(
                out,
                family,
                range(body),
                after,
                "handler->raise",
                description,
            );
        }
    }
    let leaves = super::cfamily::always_leaves(d, body, src);
    // Java: emptying a handler that returns could leave the method without a `return`.
    let flow_breaks = leaves && d.definite_flow();
    if !inner.is_empty() && !flow_breaks {
        let description =
            format!("Made the `catch` handler on line {line} swallow the exception (`{{}}`).");
        push(
            out,
            family,
            range(body),
            "{}".into(),
            "handler->pass",
            description,
        );
    }
}

/// A literal replaced: integers by 0, 1 and -1 (those more than one away), floats by 0.0 and
/// their value + 1, strings by an empty one, booleans by their opposite. A negative number
/// (`-3`) is one literal, replaced whole (called with its unary node and [`C::Other`]).
fn constant(d: &dyn Dialect, node: Node, c: &C, src: &str, out: &mut Vec<Site>) {
    let family = Family::WrongConstant;
    let line = line_of(src, node.start_byte());
    let before = text(node, src);
    let mut replace = |after: String, operator: &str| {
        let description =
            format!("Replaced the constant `{before}` with `{after}` on line {line}.");
        push(out, family, range(node), after, operator, description);
    };
    let negated_child = |n: Node| {
        n.parent().is_some_and(|p| {
            matches!(d.construct(p, src), C::Unary { op, arg } if text(op, src) == "-" && arg == n)
        })
    };
    let (literal, negative) = match c {
        C::Other => match d.construct(node, src) {
            C::Unary { arg, .. } => (arg, true),
            _ => return,
        },
        C::Bool(b) => {
            // A loop's whole condition: `loop_zero` makes that mutant (and Java refuses it).
            let mut holder = node.parent();
            while let Some(p) = holder
                .filter(|p| matches!(p.kind(), "parenthesized_expression" | "condition_clause"))
            {
                holder = p.parent();
            }
            let loop_cond = holder.is_some_and(|p| match d.construct(p, src) {
                C::While { cond, .. }
                | C::ForC {
                    cond: Some(cond), ..
                } => cond == node,
                _ => false,
            });
            if !loop_cond {
                let after = (!b).to_string();
                replace(after.clone(), &format!("{}->{}", title(*b), title(!b)));
            }
            return;
        }
        C::Str { empty } => {
            if before != empty {
                replace(empty.clone(), "str->empty");
            }
            return;
        }
        _ if negated_child(node) => return,
        _ => (node, false),
    };
    let t = text(literal, src);
    match d.construct(literal, src) {
        C::Int => {
            let Some((v, suffix)) = d.int_literal(t) else {
                return;
            };
            let v = if negative { -(v as i128) } else { v as i128 };
            for (n, operator) in [(0i128, "int->0"), (1, "int->1"), (-1, "int->-1")] {
                if (n - v).abs() > 1 {
                    if let Some(after) = int_text(d, node, n, suffix, negative, src) {
                        replace(after, operator);
                    }
                }
            }
        }
        C::Float => {
            let Some((num, suffix)) = d.float_literal(t) else {
                return;
            };
            if let Some((zero, plus_one)) = crate::mutate::catalogue::float_sites(num, negative) {
                if !zero {
                    replace(format!("0.0{suffix}"), "float->0.0");
                }
                if plus_one.starts_with('-') && !negative && !d.negative_literals() {
                    return;
                }
                replace(format!("{plus_one}{suffix}"), "float+1");
            }
        }
        _ => {}
    }
}

fn title(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
