//! The structural families: bound shifts (`off_by_one_boundary`), argument swaps
//! (`swap_arguments`, calls only; operand swaps live with the operators) and guard removal
//! (`remove_edge_case_check`).
//!
//! Double counting with `off_by_one`: a bound that is itself an integer literal (`a[1:]`,
//! `range(10)`, `a[-1]`), or a `+`/`-` expression with an integer-literal operand (`range(n - 1)`,
//! `a[i + 1]`), is *not* a boundary site: shifting that literal by one (an `off_by_one` mutant)
//! already gives the same program up to constant folding. Boundary sites are the non-literal
//! bounds only, rewritten as `bound + 1` / `bound - 1`.

use super::line_of;
use super::operators::{prec, show, text, Site};
use tree_sitter::Node;

/// Node kinds that are literals: a bound made of one of these is an `off_by_one` site instead.
const LITERALS: &[&str] = &[
    "integer",
    "float",
    "string",
    "concatenated_string",
    "true",
    "false",
    "none",
];

pub(crate) fn named_non_comment<'t>(node: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// True when shifting `bound` by one would duplicate an `off_by_one` mutant (see module docs),
/// or when it is not a number at all (a string key).
fn literal_bound(bound: Node) -> bool {
    let kind = bound.kind();
    if LITERALS.contains(&kind) {
        return true;
    }
    let field_kind = |f: &str| bound.child_by_field_name(f).map(|n| n.kind());
    match kind {
        "unary_operator" => matches!(field_kind("argument"), Some("integer" | "float")),
        "binary_operator" => {
            matches!(field_kind("operator"), Some("+" | "-"))
                && (field_kind("left") == Some("integer") || field_kind("right") == Some("integer"))
        }
        _ => false,
    }
}

/// `bound + 1` and `bound - 1` for a non-literal bound.
fn bound_sites(bound: Node, family: &str, what: &str, src: &str, out: &mut Vec<Site>) {
    if literal_bound(bound) {
        return;
    }
    let t = text(bound, src);
    let base = if prec(bound) < 10 {
        format!("({t})")
    } else {
        t.to_string()
    };
    let r = bound.byte_range();
    for (sign, suffix) in [("+", "+1"), ("-", "-1")] {
        let after = format!("{base} {sign} 1");
        out.push(Site {
            start: r.start,
            end: r.end,
            description: format!(
                "Changed the {what} `{}` to `{}` on line {}.",
                show(t),
                show(&after),
                line_of(src, r.start)
            ),
            after,
            operator: format!("{family}{suffix}"),
            bug_type: "off_by_one_boundary",
        });
    }
}

/// A call: the bounds of `range(...)` and every adjacent pair of positional arguments.
pub(crate) fn call(node: Node, src: &str, out: &mut Vec<Site>) {
    let Some(args) = node.child_by_field_name("arguments") else {
        return;
    };
    if args.kind() != "argument_list" {
        return; // a bare generator argument: `f(x for x in y)`
    }
    let func = node.child_by_field_name("function");
    let args = named_non_comment(args);
    let positional = |n: &Node| {
        !matches!(
            n.kind(),
            "keyword_argument" | "list_splat" | "dictionary_splat"
        )
    };
    if func.is_some_and(|f| f.kind() == "identifier" && text(f, src) == "range")
        && args.iter().all(positional)
    {
        let bounds: &[(usize, &str)] = match args.len() {
            1 => &[(0, "range stop bound")],
            2 | 3 => &[(0, "range start bound"), (1, "range stop bound")],
            _ => &[],
        };
        for &(i, what) in bounds {
            bound_sites(args[i], "range_bound", what, src, out);
        }
    }
    let callee = func.map(|f| show(text(f, src))).unwrap_or_default();
    for (i, pair) in args.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        if !positional(&a) || !positional(&b) || text(a, src) == text(b, src) {
            continue;
        }
        let middle = &src[a.end_byte()..b.start_byte()];
        let start = a.start_byte();
        out.push(Site {
            start,
            end: b.end_byte(),
            after: format!("{}{middle}{}", text(b, src), text(a, src)),
            operator: format!("call_args({},{})", i, i + 1),
            bug_type: "swap_arguments",
            description: format!(
                "Swapped the arguments `{}` and `{}` in the call to `{callee}` on line {}.",
                show(text(a, src)),
                show(text(b, src)),
                line_of(src, start)
            ),
        });
    }
}

/// A subscript: slice start/stop bounds (not the step) and plain indices.
pub(crate) fn subscript(node: Node, src: &str, out: &mut Vec<Site>) {
    let mut cursor = node.walk();
    let subs: Vec<Node> = node
        .children_by_field_name("subscript", &mut cursor)
        .collect();
    for sub in subs {
        if sub.kind() != "slice" {
            bound_sites(sub, "index", "index", src, out);
            continue;
        }
        // Position within the slice: 0 before the first `:`, 1 after it, 2 after the second.
        let mut position = 0;
        let mut cursor = sub.walk();
        for child in sub.children(&mut cursor) {
            if child.kind() == ":" {
                position += 1;
            } else if child.is_named() && child.kind() != "comment" {
                match position {
                    0 => bound_sites(child, "slice_bound", "slice start bound", src, out),
                    1 => bound_sites(child, "slice_bound", "slice stop bound", src, out),
                    _ => {}
                }
            }
        }
    }
}

/// An `if` with no `elif`/`else` whose body is a single `return` or `raise`: delete its lines.
/// When it is the only statement of its block, it becomes `pass` so the block stays valid.
pub(crate) fn guard(node: Node, src: &str, out: &mut Vec<Site>) {
    if node.child_by_field_name("alternative").is_some() {
        return;
    }
    let Some(body) = node.child_by_field_name("consequence") else {
        return;
    };
    let stmts = named_non_comment(body);
    if !matches!(stmts.as_slice(), [s] if matches!(s.kind(), "return_statement" | "raise_statement"))
    {
        return;
    }
    let Some((start, end, after)) = delete_lines(node, src) else {
        return;
    };
    let r = node.byte_range();
    let cond = node
        .child_by_field_name("condition")
        .map(|c| text(c, src))
        .unwrap_or("");
    out.push(Site {
        start,
        end,
        after,
        operator: "remove_guard".to_string(),
        bug_type: "remove_edge_case_check",
        description: format!(
            "Removed the guard `if {}: {}` on line {}.",
            show(cond),
            show(text(stmts[0], src)),
            line_of(src, r.start)
        ),
    });
}

/// The splice that deletes the whole lines of the statement `node`: `(start, end, after)`, with
/// `after` empty, or `pass` at the statement's indentation when it is the only statement of its
/// block (so the block stays valid). `None` when anything but indentation precedes it on its
/// first line or anything but a comment follows it on its last.
pub(crate) fn delete_lines(node: Node, src: &str) -> Option<(usize, usize, String)> {
    let bytes = src.as_bytes();
    let r = node.byte_range();
    let line_start = src[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &src[line_start..r.start];
    if !indent.bytes().all(|b| b == b' ' || b == b'\t') {
        return None; // something else precedes the statement on its line
    }
    let line_end = src[r.end..].find('\n').map_or(src.len(), |i| r.end + i + 1);
    let trailing = src[r.end..line_end].trim();
    if !(trailing.is_empty() || trailing.starts_with('#')) {
        return None;
    }
    let alone = node
        .parent()
        .is_some_and(|p| p.kind() == "block" && named_non_comment(p).len() == 1);
    let after = if alone {
        let newline = if bytes.get(line_end.wrapping_sub(1)) == Some(&b'\n') {
            "\n"
        } else {
            ""
        };
        format!("{indent}pass{newline}")
    } else {
        String::new()
    };
    Some((line_start, line_end, after))
}
