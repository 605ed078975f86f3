//! tree-sitter parsing and the "does it still parse" check.
//!
//! tree-sitter never refuses input: a syntax problem shows up as an `ERROR` node or a zero-width
//! `MISSING` node inside an otherwise complete tree. Both count as "does not parse".

use super::MutateError;
use tree_sitter::{Node, Parser, Tree};

/// Parse Python source. tree-sitter only returns `None` when no language is set or parsing was
/// cancelled, neither of which can happen here.
pub(crate) fn parse_tree(src: &str) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .expect("tree-sitter-python is built for this tree-sitter ABI");
    parser
        .parse(src, None)
        .expect("parsing without a timeout or cancellation flag always yields a tree")
}

/// True when `src` parses as Python without any `ERROR` or `MISSING` node.
///
/// This is tree-sitter's grammar, which is slightly more permissive than CPython: an inconsistent
/// dedent (`IndentationError`) and Python 2 `print x` statements are accepted. No mutation rule
/// changes indentation or introduces either, and the oracle reports any remaining case as
/// `ERROR:SyntaxError`, which selection drops as a crash.
pub fn parses(src: &str) -> bool {
    !parse_tree(src).root_node().has_error()
}

/// The first (in document order) `ERROR` or `MISSING` node of a tree, as an error naming its
/// 1-based line and column.
pub(crate) fn first_problem(tree: &Tree, src: &str) -> Option<MutateError> {
    let root = tree.root_node();
    if !root.has_error() {
        return None;
    }
    let node = find_problem(root).unwrap_or(root);
    let pos = node.start_position();
    let problem = if node.is_missing() {
        format!("missing `{}`", node.kind())
    } else {
        let text = src.get(node.byte_range()).unwrap_or("");
        let first_line = text.lines().next().unwrap_or("").trim();
        let shown: String = first_line.chars().take(40).collect();
        if shown.is_empty() {
            "syntax error".to_string()
        } else {
            format!("syntax error near `{shown}`")
        }
    };
    Some(MutateError::Parse {
        line: pos.row + 1,
        column: pos.column + 1,
        problem,
    })
}

fn find_problem(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children
        .into_iter()
        .filter(|c| c.has_error())
        .find_map(find_problem)
}
