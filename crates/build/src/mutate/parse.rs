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

/// Re-parses single-splice variants of one source incrementally from the source's tree.
pub(crate) struct Reparser {
    parser: Parser,
    tree: Tree,
    src_len: usize,
    points: Vec<usize>,
}

impl Reparser {
    pub(crate) fn new(tree: &Tree, src: &str) -> Reparser {
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_python::LANGUAGE.into())
            .expect("tree-sitter-python is built for this tree-sitter ABI");
        // Byte offsets of line starts, for tree-sitter's row/column points.
        let mut points = vec![0];
        points.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Reparser {
            parser,
            tree: tree.clone(),
            src_len: src.len(),
            points,
        }
    }

    fn point(&self, byte: usize) -> tree_sitter::Point {
        let row = self.points.partition_point(|&s| s <= byte) - 1;
        tree_sitter::Point {
            row,
            column: byte - self.points[row],
        }
    }

    /// True when `code` (the source with bytes `start..end` replaced by `after`) parses
    /// without an `ERROR` or `MISSING` node; the same answer as [`parses`].
    pub(crate) fn parses(&mut self, start: usize, end: usize, after: &str, code: &str) -> bool {
        debug_assert_eq!(code.len(), self.src_len - (end - start) + after.len());
        let new_end = start + after.len();
        let start_position = self.point(start);
        let old_end_position = self.point(end);
        // The new end's row/column: count the lines of `after`.
        let new_end_position = match after.rfind('\n') {
            None => tree_sitter::Point {
                row: start_position.row,
                column: start_position.column + after.len(),
            },
            Some(i) => tree_sitter::Point {
                row: start_position.row + after.matches('\n').count(),
                column: after.len() - i - 1,
            },
        };
        let mut edited = self.tree.clone();
        edited.edit(&tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position,
            old_end_position,
            new_end_position,
        });
        match self.parser.parse(code, Some(&edited)) {
            Some(t) => !t.root_node().has_error(),
            None => parses(code),
        }
    }
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
