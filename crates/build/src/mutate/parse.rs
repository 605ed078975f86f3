//! tree-sitter parsing and the "does it still parse" check, for every [`Language`] (its grammar
//! is [`super::lang::grammar`]).
//!
//! tree-sitter never refuses input: a syntax problem shows up as an `ERROR` node or a zero-width
//! `MISSING` node inside an otherwise complete tree. Both count as "does not parse".

use super::MutateError;
use execscope_record::Language;
use tree_sitter::{Node, Parser, Tree};

/// A parser for `lang`. tree-sitter only refuses a grammar built for another ABI, which the
/// lock file rules out (every grammar is built against the one `tree-sitter-language`).
fn parser(lang: Language) -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&super::lang::grammar(lang))
        .expect("every grammar is built for this tree-sitter ABI");
    parser
}

/// Parse Python source. tree-sitter only returns `None` when no language is set or parsing was
/// cancelled, neither of which can happen here.
pub(crate) fn parse_tree(src: &str) -> Tree {
    parse_tree_in(Language::Python, src)
}

/// Parse source in `lang` (as [`parse_tree`]).
pub(crate) fn parse_tree_in(lang: Language, src: &str) -> Tree {
    parser(lang)
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
    parses_in(Language::Python, src)
}

/// True when `src` parses in `lang`'s tree-sitter grammar without any `ERROR` or `MISSING`
/// node. A grammar accepts more than the language's compiler (it checks no types and no
/// declarations), so parsing is necessary, not sufficient, for a mutant to compile.
pub fn parses_in(lang: Language, src: &str) -> bool {
    !parse_tree_in(lang, src).root_node().has_error()
}

/// Re-parses single-splice variants of one source incrementally from the source's tree.
pub(crate) struct Reparser {
    lang: Language,
    parser: Parser,
    /// The source's own `ERROR`/`MISSING` spans (none for Python, whose source must parse).
    errors: Vec<(usize, usize)>,
    tree: Tree,
    src_len: usize,
    points: Vec<usize>,
}

impl Reparser {
    pub(crate) fn new(lang: Language, tree: &Tree, src: &str) -> Reparser {
        let parser = parser(lang);
        // Byte offsets of line starts, for tree-sitter's row/column points.
        let mut points = vec![0];
        points.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Reparser {
            lang,
            parser,
            errors: error_spans(tree),
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
    /// without an `ERROR` or `MISSING` node (the same answer as [`parses_in`]), or, for a source
    /// that has some (a grammar that misreads a construct its compiler accepts, such as
    /// tree-sitter-cpp on `typeid(int)`), without one where the source had none: every error
    /// span of `code`, in the source's offsets, meets one of the source's.
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
        let tree = match self.parser.parse(code, Some(&edited)) {
            Some(t) => t,
            None => parse_tree_in(self.lang, code),
        };
        if !tree.root_node().has_error() {
            return true;
        }
        if self.errors.is_empty() {
            return false;
        }
        // A mutant offset back in the source: before the edit it is the same, after it shifted,
        // inside the new text at the edit's start.
        let back = |p: usize| {
            if p <= start {
                p
            } else if p >= new_end {
                p + end - new_end
            } else {
                start
            }
        };
        error_spans(&tree).into_iter().all(|(s, e)| {
            let (s, e) = (back(s), back(e));
            self.errors.iter().any(|&(os, oe)| s <= oe && os <= e)
        })
    }
}

/// The byte spans of a tree's outermost `ERROR` and `MISSING` nodes, in document order.
pub(crate) fn error_spans(tree: &Tree) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if !tree.root_node().has_error() {
        return out;
    }
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.is_error() || n.is_missing() {
            out.push((n.start_byte(), n.end_byte()));
            continue;
        }
        if n.has_error() {
            let mut cursor = n.walk();
            let kids: Vec<Node> = n.children(&mut cursor).collect();
            stack.extend(kids.into_iter().rev());
        }
    }
    out
}

/// The byte spans of the `ERROR` and `MISSING` nodes of `src` in `lang`'s grammar (empty when it
/// parses): what a mutant of `src` may not add to.
pub fn parse_errors_in(lang: Language, src: &str) -> Vec<std::ops::Range<usize>> {
    error_spans(&parse_tree_in(lang, src))
        .into_iter()
        .map(|(s, e)| s..e)
        .collect()
}

/// The first (in document order) `ERROR` or `MISSING` node of a tree of `lang` source, as an
/// error naming its 1-based line and column.
pub(crate) fn first_problem(lang: Language, tree: &Tree, src: &str) -> Option<MutateError> {
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
        language: lang,
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
