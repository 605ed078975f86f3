//! Site enumeration for the catalogue's families beyond the paper's six (`--operators all`).
//! Like the six, each site is one byte-range splice of the original that `mutants` applies,
//! re-parses and de-duplicates. Rules per family (the tables in docs/bundle-format.md, "Bug
//! types", say the same):
//!
//! | family | sites (operator names) |
//! |---|---|
//! | negate_condition | the condition of `if`/`elif`/`while`, of `x if c else y` and of a comprehension's `if` wrapped in `not` (`negate(if)`, …), unless it already is a `not` expression; any `not e` → `e` (`remove_not`) |
//! | delete_statement | an expression statement (a call, an assignment, an augmented assignment; not a docstring) inside a function, alone on its lines: its lines deleted, or `pass` when it is its block's only statement |
//! | remove_slice_index | each of a slice's start, stop and step removed (`a[i:j]` → `a[:j]`, `a[i:]`; `a[::k]` → `a[:]`) |
//! | wrong_loop_iterations | a `for` over nothing (`loop_zero`: the iterable → `[]`; a `while` condition → `False`), once (`loop_once`: `break` after the body's last statement) or reversed (`loop_reversed`: `reversed(X)` for a `range`/`list`/`sorted`/`tuple` call or a literal, `reversed(list(X))` otherwise, `reversed(X)` → `X`); `break` ↔ `continue` |
//! | value_to_none | `return e` → `return None`, `t = e` → `t = None` (one plain target, inside a function), `lambda …: e` → `lambda …: None` |
//! | wrong_string_method | a method call's name swapped: `lower`↔`upper`, `islower`↔`isupper`, `find`↔`rfind`, `index`↔`rindex`, `startswith`↔`endswith`, `strip`→`lstrip`/`rstrip`, `lstrip`↔`rstrip`, `ljust`↔`rjust`, `partition`↔`rpartition`, `removeprefix`↔`removesuffix`, `isalpha`↔`isdigit`, `isalnum`→`isalpha`, `capitalize`↔`title`, and `split`↔`rsplit` when a `maxsplit` is given |
//! | wrong_exception_handling | an `except` type broadened to `Exception` (`except->Exception`), a tuple of types narrowed to each one (`except_narrow(i)`), a handler's body → `raise` or → `pass` |
//! | wrong_constant | an integer → `0`, `1`, `-1` (those not within one of it: ±1 is `off_by_one`), a plain decimal float → `0.0` and its value + 1, a non-empty string (not a docstring, not an f-string) → empty, `True` ↔ `False` |
//! | remove_unary_operator | `-e` → `e`, `~e` → `e` for a non-literal `e` (a negative literal is a constant) |
//!
//! Sites inside type annotations are skipped, as for the six.

mod control;
mod values;

pub(crate) use values::float_sites;

use super::family::{Family, Operators};
use super::operators::Site;
use tree_sitter::{Node, Tree};

/// Every site of the catalogue's families in `ops` (the paper's six come from
/// `operators::sites`), in tree order (the caller sorts).
pub(crate) fn sites(tree: &Tree, src: &str, ops: &Operators) -> Vec<Site> {
    let mut out = Vec::new();
    if ops.paper_only() {
        return out;
    }
    // (node, inside a function body)
    let mut stack = vec![(tree.root_node(), false)];
    while let Some((node, in_fn)) = stack.pop() {
        if node.is_named() && node.kind() == "type" {
            continue;
        }
        visit(node, in_fn, src, &mut |f, site| {
            if ops.contains(f) {
                out.push(site);
            }
        });
        let in_fn = in_fn || node.kind() == "function_definition";
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor).map(|c| (c, in_fn)));
    }
    out
}

/// Receives each site with its family.
type Sink<'a> = dyn FnMut(Family, Site) + 'a;

fn visit(node: Node, in_fn: bool, src: &str, out: &mut Sink) {
    match node.kind() {
        "if_statement"
        | "elif_clause"
        | "while_statement"
        | "conditional_expression"
        | "if_clause" => control::negate(node, src, out),
        "not_operator" => control::remove_not(node, src, out),
        _ => {}
    }
    match node.kind() {
        "for_statement" | "while_statement" => control::loops(node, src, out),
        "break_statement" | "continue_statement" => control::loop_control(node, src, out),
        "expression_statement" if in_fn => control::delete_statement(node, src, out),
        "assignment" if in_fn => control::assign_none(node, src, out),
        "return_statement" => control::return_none(node, src, out),
        "lambda" => control::lambda_none(node, src, out),
        "except_clause" => control::except_clause(node, src, out),
        "slice" => values::slice(node, src, out),
        "call" => values::string_method(node, src, out),
        "integer" | "float" | "string" | "true" | "false" => values::constant(node, src, out),
        "unary_operator" => {
            values::constant(node, src, out);
            values::remove_unary(node, src, out);
        }
        _ => {}
    }
}

/// Hands `out` one site of `family` (its `bug_type` filled in).
fn push(
    out: &mut Sink,
    family: Family,
    (start, end): (usize, usize),
    after: String,
    operator: impl Into<String>,
    description: String,
) {
    let site = Site {
        start,
        end,
        after,
        operator: operator.into(),
        bug_type: family.as_str(),
        description,
    };
    out(family, site);
}
