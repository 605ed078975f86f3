//! Families that change a value: slice indices removed, string methods swapped, constants
//! replaced, unary operators removed (rules in the parent module's table).

use super::{push, Sink};
use crate::mutate::family::Family;
use crate::mutate::line_of;
use crate::mutate::operators::{int_value, show, text, unary_op};
use crate::mutate::structural::named_non_comment;
use tree_sitter::Node;

/// A slice's start, stop and step, each removed on its own: the start with what follows it up
/// to the first `:`, the stop with what precedes it after that `:`, the step with its `:`.
pub(super) fn slice(node: Node, src: &str, out: &mut Sink) {
    let mut colons: Vec<Node> = Vec::new();
    let mut parts: [Option<Node>; 3] = [None; 3];
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.kind() == ":" {
            colons.push(child);
        } else if child.is_named() && child.kind() != "comment" && colons.len() < 3 {
            parts[colons.len()] = Some(child);
        }
    }
    let family = Family::RemoveSliceIndex;
    let line = line_of(src, node.start_byte());
    let mut cut = |start: usize, end: usize, which: &str, part: Node| {
        let description = format!(
            "Removed the slice {which} `{}` on line {line}.",
            show(text(part, src))
        );
        let operator = format!("remove_slice({which})");
        push(
            out,
            family,
            (start, end),
            String::new(),
            operator,
            description,
        );
    };
    if let (Some(p), Some(c)) = (parts[0], colons.first()) {
        cut(p.start_byte(), c.start_byte(), "start", p);
    }
    if let (Some(p), Some(c)) = (parts[1], colons.first()) {
        cut(c.end_byte(), p.end_byte(), "stop", p);
    }
    if let (Some(p), Some(c)) = (parts[2], colons.get(1)) {
        cut(c.start_byte(), p.end_byte(), "step", p);
    }
}

/// Method-name swaps (from, to). A name the receiver's type lacks (`list.rindex`) only crashes,
/// and selection drops crashes.
const STRING_METHODS: &[(&str, &str)] = &[
    ("lower", "upper"),
    ("upper", "lower"),
    ("islower", "isupper"),
    ("isupper", "islower"),
    ("find", "rfind"),
    ("rfind", "find"),
    ("index", "rindex"),
    ("rindex", "index"),
    ("startswith", "endswith"),
    ("endswith", "startswith"),
    ("strip", "lstrip"),
    ("strip", "rstrip"),
    ("lstrip", "rstrip"),
    ("rstrip", "lstrip"),
    ("ljust", "rjust"),
    ("rjust", "ljust"),
    ("partition", "rpartition"),
    ("rpartition", "partition"),
    ("removeprefix", "removesuffix"),
    ("removesuffix", "removeprefix"),
    ("isalpha", "isdigit"),
    ("isdigit", "isalpha"),
    ("isalnum", "isalpha"),
    ("capitalize", "title"),
    ("title", "capitalize"),
    ("split", "rsplit"),
    ("rsplit", "split"),
];

/// A method call `x.m(...)` whose name is in [`STRING_METHODS`]; `split`/`rsplit` only with a
/// `maxsplit` (two positional arguments or the keyword), since without one they agree.
pub(super) fn string_method(node: Node, src: &str, out: &mut Sink) {
    let Some(name) = node
        .child_by_field_name("function")
        .filter(|f| f.kind() == "attribute")
        .and_then(|f| f.child_by_field_name("attribute"))
    else {
        return;
    };
    let m = text(name, src);
    let args: Vec<Node> = node
        .child_by_field_name("arguments")
        .filter(|a| a.kind() == "argument_list")
        .map(named_non_comment)
        .unwrap_or_default();
    let maxsplit = args.len() >= 2
        || args.iter().any(|a| {
            a.kind() == "keyword_argument"
                && a.child_by_field_name("name").map(|n| text(n, src)) == Some("maxsplit")
        });
    for &(from, to) in STRING_METHODS.iter().filter(|(from, _)| *from == m) {
        if matches!(from, "split" | "rsplit") && !maxsplit {
            continue;
        }
        let description = format!(
            "Called `.{to}()` instead of `.{from}()` on line {}.",
            line_of(src, name.start_byte())
        );
        let family = Family::WrongStringMethod;
        let r = (name.start_byte(), name.end_byte());
        push(
            out,
            family,
            r,
            to.to_string(),
            format!(".{from}->.{to}"),
            description,
        );
    }
}

/// A literal replaced: integers by 0, 1 and -1 (those more than one away: ±1 is `off_by_one`),
/// plain decimal floats by 0.0 and by their value + 1, non-empty strings by an empty one (same
/// prefix and quote; not docstrings, f-strings or parts of an implicit concatenation), `True`
/// and `False` by each other. A negative literal (`-3`, `-0.5`) is one literal, replaced whole.
pub(super) fn constant(node: Node, src: &str, out: &mut Sink) {
    let negated = |n: Node| {
        n.parent()
            .is_some_and(|p| p.kind() == "unary_operator" && unary_op(p) == Some("-"))
    };
    let family = Family::WrongConstant;
    let line = line_of(src, node.start_byte());
    let before = text(node, src);
    let mut replace = |after: String, operator: &str| {
        let description =
            format!("Replaced the constant `{before}` with `{after}` on line {line}.");
        let r = (node.start_byte(), node.end_byte());
        push(out, family, r, after, operator, description);
    };
    let (literal, negative) = match node.kind() {
        "unary_operator" if unary_op(node) == Some("-") => {
            match node.child_by_field_name("argument") {
                Some(a) if matches!(a.kind(), "integer" | "float") => (a, true),
                _ => return,
            }
        }
        "integer" | "float" if !negated(node) => (node, false),
        "true" => return replace("False".into(), "True->False"),
        "false" => return replace("True".into(), "False->True"),
        "string" => {
            if let Some(after) = emptied(node, src) {
                replace(after, "str->empty");
            }
            return;
        }
        _ => return,
    };
    let t = text(literal, src);
    if literal.kind() == "integer" {
        let Some(v) = int_value(t) else {
            return;
        };
        let v = if negative { -(v as i128) } else { v as i128 };
        let pow_base = node.parent().is_some_and(|p| {
            p.kind() == "binary_operator"
                && p.child_by_field_name("operator").map(|o| o.kind()) == Some("**")
                && p.child_by_field_name("left") == Some(node)
        });
        for (n, operator) in [(0i128, "int->0"), (1, "int->1"), (-1, "int->-1")] {
            if (n - v).abs() > 1 {
                let after = if n < 0 && pow_base {
                    format!("({n})")
                } else {
                    n.to_string()
                };
                replace(after, operator);
            }
        }
    } else if let Some((zero, plus_one)) = float_sites(t, negative) {
        if !zero {
            replace("0.0".into(), "float->0.0");
        }
        replace(plus_one, "float+1");
    }
}

/// For a plain decimal float literal (`1.5`, `2.`, `.25`; no exponent, `_` or `j`; at most 30
/// characters), negated when `negative`: whether it is zero, and its value + 1 written exactly
/// (decimal arithmetic on the digits, so `0.1` becomes `1.1`, never `1.1000000000000001`).
pub(crate) fn float_sites(t: &str, negative: bool) -> Option<(bool, String)> {
    let (int, frac) = t.split_once('.')?;
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || !digits(frac) || (int.is_empty() && frac.is_empty()) || t.len() > 30 {
        return None;
    }
    let k = frac.len();
    let scale = 10i128.pow(k as u32);
    let n: i128 = format!("0{int}{frac}").parse().ok()?;
    let v = if negative { -n } else { n } + scale;
    let (sign, a) = if v < 0 { ("-", -v) } else { ("", v) };
    let text = if k == 0 {
        format!("{sign}{a}.")
    } else {
        format!("{sign}{}.{:0k$}", a / scale, a % scale)
    };
    Some((n == 0, text))
}

/// The empty string with `node`'s prefix and quote character, when `node` is a non-empty
/// string literal that is not a docstring, an f-string or part of an implicit concatenation.
fn emptied(node: Node, src: &str) -> Option<String> {
    let parent = node.parent()?;
    let docstring = parent.kind() == "expression_statement" && named_non_comment(parent).len() == 1;
    if docstring || parent.kind() == "concatenated_string" {
        return None;
    }
    let mut cursor = node.walk();
    let kids: Vec<Node> = node.children(&mut cursor).collect();
    let (start, end) = (kids.first()?, kids.last()?);
    if start.kind() != "string_start" || end.kind() != "string_end" {
        return None;
    }
    if start.end_byte() >= end.start_byte() || kids.iter().any(|k| k.kind() == "interpolation") {
        return None;
    }
    let opening = text(*start, src);
    let quote = opening.chars().last()?;
    let prefix = opening.trim_end_matches(quote);
    if prefix.contains(['f', 'F']) {
        return None;
    }
    Some(format!("{prefix}{quote}{quote}"))
}

/// `-e` → `e` and `~e` → `e` for a non-literal `e`.
pub(super) fn remove_unary(node: Node, src: &str, out: &mut Sink) {
    let Some(op @ ("-" | "~")) = unary_op(node) else {
        return;
    };
    let Some(arg) = node.child_by_field_name("argument") else {
        return;
    };
    if matches!(arg.kind(), "integer" | "float") {
        return;
    }
    let description = format!(
        "Removed the unary `{op}` of `{}` on line {}.",
        show(text(arg, src)),
        line_of(src, node.start_byte())
    );
    let family = Family::RemoveUnaryOperator;
    let r = (node.start_byte(), node.end_byte());
    let operator = format!("remove_unary({op})");
    push(
        out,
        family,
        r,
        text(arg, src).to_string(),
        operator,
        description,
    );
}
