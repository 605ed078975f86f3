//! The language seam of the mutation engine: which grammar parses a [`Language`], and how the
//! families map onto its syntax.
//!
//! Python keeps its own site rules (`operators`, `structural`, `catalogue`, written against
//! tree-sitter-python), so its mutants stay byte for byte what they were. Every other language
//! is a [`Dialect`]: a module that says what each node of its grammar is, in the terms of one
//! [`Construct`] vocabulary, and how its text is written (literals, negation, a statement's end,
//! a "nothing" value). One engine ([`paper`] for the paper's six families, [`more`] for the
//! catalogue's) turns constructs into byte-range splices, so a new language is a new dialect
//! module and one arm in [`grammar`] and [`dialect`]. docs/bundle-format.md ("Bug types in other
//! languages") lists which family applies to which language, and why not where it does not.
//!
//! Only function bodies are mutated (`#include`s, imports, class shells and signatures are left
//! alone), and nothing inside a type, a `case` label, an annotation or a macro's format string
//! (a dialect's [`Dialect::opaque`]).

mod cfamily;
mod cpp;
mod go;
mod java;
mod javascript;
mod more;
mod paper;
mod rust;

use super::family::Operators;
use super::operators::Site;
use execscope_record::Language;
use tree_sitter::{Node, Tree};

/// The tree-sitter grammar of `lang`.
pub(crate) fn grammar(lang: Language) -> tree_sitter::Language {
    match lang {
        Language::Python => tree_sitter_python::LANGUAGE.into(),
        Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
        Language::Go => tree_sitter_go::LANGUAGE.into(),
        Language::Java => tree_sitter_java::LANGUAGE.into(),
        Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        Language::Rust => tree_sitter_rust::LANGUAGE.into(),
        Language::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    }
}

/// The dialect of a language other than Python (`None` for Python, whose rules are its own).
pub(crate) fn dialect(lang: Language) -> Option<&'static dyn Dialect> {
    match lang {
        Language::Python => None,
        Language::Cpp => Some(&cpp::Cpp),
        Language::Go => Some(&go::Go),
        Language::Java => Some(&java::Java),
        Language::JavaScript => Some(&javascript::JS),
        Language::Rust => Some(&rust::Rust),
        Language::TypeScript => Some(&javascript::TS),
    }
}

/// Every site of `ops`' families in a `lang` source (not Python): the paper's six, then the
/// catalogue's, each in tree order (the caller sorts).
pub(crate) fn sites(
    d: &dyn Dialect,
    tree: &Tree,
    src: &str,
    ops: &Operators,
) -> (Vec<Site>, Vec<Site>) {
    let mut paper_sites = Vec::new();
    let mut more_sites = Vec::new();
    walk(d, tree.root_node(), src, &mut |node, func| {
        let c = d.construct(node, src);
        paper::visit(d, node, &c, src, &mut paper_sites);
        if !ops.paper_only() {
            more::visit(d, node, func, &c, src, &mut more_sites);
        }
    });
    let keep = |s: &Site| ops.contains_name(s.bug_type) && d.accepts(tree, src, s);
    paper_sites.retain(keep);
    more_sites.retain(keep);
    (paper_sites, more_sites)
}

/// Calls `f(node, function)` for every node inside a function body (with the innermost function
/// node around it), in tree order, skipping opaque subtrees.
fn walk<'t>(d: &dyn Dialect, root: Node<'t>, src: &str, f: &mut dyn FnMut(Node<'t>, Node<'t>)) {
    // (node, innermost enclosing function, inside that function's body)
    let mut stack: Vec<(Node<'t>, Option<Node<'t>>, bool)> = vec![(root, None, false)];
    while let Some((node, func, in_body)) = stack.pop() {
        // Nothing the grammar could not read is spliced (`ERROR`, `MISSING`).
        if node.is_error() || node.is_missing() || d.opaque(node, src) {
            continue;
        }
        if let (Some(func), true) = (func, in_body) {
            f(node, func);
        }
        let body = d.function_body(node);
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            let entry = match body {
                Some(b) if b == child => (child, Some(node), true),
                // A function's parameters and signature are not its body.
                Some(_) => (child, Some(node), false),
                None => (child, func, in_body),
            };
            stack.push(entry);
        }
    }
}

/// Names of the functions (and methods) `src` defines, in source order: where the execution side
/// checks that a task's entry point exists before mutating it.
pub(crate) fn function_names(d: &dyn Dialect, tree: &Tree, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if let Some(name) = d.function_name(node, src) {
            out.push((node.start_byte(), name.to_string()));
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out.sort();
    out.into_iter().map(|(_, n)| n).collect()
}

/// Names bound by a Python module's top-level `def`s (decorated ones included), in source
/// order (what `ast::top_level_defs` answers, the gates' reading).
pub(crate) fn python_defs(tree: &Tree, src: &str) -> Vec<String> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter_map(|stmt| match stmt.kind() {
            "function_definition" => Some(stmt),
            "decorated_definition" => stmt
                .child_by_field_name("definition")
                .filter(|d| d.kind() == "function_definition"),
            _ => None,
        })
        .filter_map(|f| f.child_by_field_name("name"))
        .filter_map(|n| src.get(n.byte_range()).map(str::to_string))
        .collect()
}

/// One node of a dialect's grammar in the engine's terms. Fields are the nodes the families
/// splice.
#[derive(Clone, Debug)]
pub(crate) enum Construct<'t> {
    /// `left op right`, `op` being the operator token.
    Binary {
        left: Node<'t>,
        op: Node<'t>,
        right: Node<'t>,
    },
    /// `target op= value`; `op` is the whole compound operator token (`+=`).
    Compound {
        target: Node<'t>,
        op: Node<'t>,
        value: Node<'t>,
    },
    /// `target = value` on an existing variable.
    Assign {
        target: Node<'t>,
        value: Node<'t>,
    },
    /// A declaration with an initialiser; `typed` when its type is written out (so a "nothing"
    /// value of that type can be given).
    Init {
        value: Node<'t>,
        typed: bool,
    },
    /// `op arg` for an operator token `op` (`-`, `!`, `~`, ...).
    Unary {
        op: Node<'t>,
        arg: Node<'t>,
    },
    /// An integer literal (maybe with a type suffix).
    Int,
    /// A floating-point literal (maybe with a type suffix).
    Float,
    /// A string literal that can be emptied: its empty form.
    Str {
        empty: String,
    },
    /// `true` / `false`.
    Bool(bool),
    /// `if cond consequence [else ...]`; `cond` is the bare condition expression (inside any
    /// parentheses the syntax requires), `None` for a condition that is a pattern binding.
    If {
        cond: Option<Node<'t>>,
        consequence: Node<'t>,
        has_else: bool,
    },
    /// A loop ruled by a condition (`while`, `do ... while`, Go's `for cond`).
    While {
        cond: Node<'t>,
        body: Node<'t>,
    },
    /// A C-style `for (init; cond; update)`: the loop variable's initial value, the condition,
    /// the update, the body.
    ForC {
        init: Option<Node<'t>>,
        cond: Option<Node<'t>>,
        update: Option<Node<'t>>,
        body: Node<'t>,
    },
    /// A loop over a collection.
    ForEach {
        iterable: Node<'t>,
        body: Node<'t>,
    },
    /// `cond ? a : b`.
    Ternary {
        cond: Node<'t>,
    },
    /// `return [value]`, or a function body's tail expression (Rust).
    Return {
        value: Option<Node<'t>>,
    },
    /// A `throw` / `panic`.
    Throw,
    Break,
    Continue,
    /// A call: the name node of the function or method called, the receiver of a method call
    /// (`None` for a function), the positional arguments.
    Call {
        name: Option<Node<'t>>,
        receiver: Option<Node<'t>>,
        args: Vec<Node<'t>>,
    },
    /// `a[index]`.
    Index {
        index: Node<'t>,
    },
    /// A slice's bounds (`s[lo:hi]`, `v[lo..hi]`); `end_removable` is false where dropping the
    /// end bound does not parse (`lo..=hi`).
    Slice {
        start: Option<Node<'t>>,
        end: Option<Node<'t>>,
        end_removable: bool,
    },
    /// A range `lo..hi` that is not a slice (Rust's loop ranges).
    Range {
        start: Option<Node<'t>>,
        end: Option<Node<'t>>,
    },
    /// A `catch` clause: the caught types (each a node; empty when it catches anything or names
    /// no type), the exception's name, the handler's block, and whether it is its `try`'s last.
    Catch {
        types: Vec<Node<'t>>,
        param: Option<Node<'t>>,
        types_span: Option<Node<'t>>,
        body: Node<'t>,
        last: bool,
    },
    /// A lambda whose body is an expression.
    Lambda {
        body: Node<'t>,
    },
    Other,
}

/// A language's syntax, as the mutation engine needs it. Defaults are the C family's (C++,
/// Java, JavaScript); a dialect overrides what differs.
pub(crate) trait Dialect: Sync {
    fn language(&self) -> Language;

    /// What `node` is.
    fn construct<'t>(&self, node: Node<'t>, src: &str) -> Construct<'t>;

    /// The body of a function-like node (a function, method, lambda, closure): only bodies are
    /// mutated.
    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>>;

    /// The name a definition node defines, for the entry-point check.
    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str>;

    /// True when nothing inside `node` may be mutated (types, case labels, annotations, ...).
    fn opaque(&self, node: Node, src: &str) -> bool;

    /// Binding strength of an expression node: atoms 100, unary 90, binary operators by
    /// [`Dialect::binary_prec`], conditional 10, assignment and lambdas 0.
    fn prec(&self, node: Node, src: &str) -> u8;

    /// Binding strength of a binary operator.
    fn binary_prec(&self, op: &str) -> u8;

    /// Whether a binary operator's operands are evaluated left to right at equal precedence
    /// (every binary operator of these languages except `**`).
    fn right_assoc(&self, op: &str) -> bool {
        op == "**"
    }

    /// An integer literal's decimal value and type suffix (`10` → (10, ""), `3LL` → (3, "LL")),
    /// `None` for another base, a separator, or a leading zero.
    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)>;

    /// A plain decimal float literal's number and suffix (`2.5f` → ("2.5", "f")), `None` for an
    /// exponent or a separator.
    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)>;

    /// False where a literal that is not negative may not become negative (Rust: its type may
    /// be unsigned, and `-` does not apply to it).
    fn negative_literals(&self) -> bool {
        true
    }

    /// `cond` negated (`!(cond)`, parentheses dropped for an atom).
    fn negate(&self, cond: Node, src: &str) -> String {
        let t = &src[cond.byte_range()];
        if self.prec(cond, src) >= 100 {
            format!("!{t}")
        } else {
            format!("!({t})")
        }
    }

    /// The statement that leaves a loop, as written at the end of a body (`break;`).
    fn break_statement(&self) -> &'static str {
        "break;"
    }

    /// What replaces a deleted statement that is a control statement's whole (braceless) body.
    fn empty_statement(&self) -> &'static str {
        ";"
    }

    /// The expression that makes a `while`/`for` loop run zero times, when one compiles.
    fn false_condition(&self) -> Option<&'static str> {
        Some("false")
    }

    /// `loop_zero` for a loop over a collection: the replacement of `iterable`.
    fn empty_iteration(&self, _iterable: Node, _src: &str) -> Option<String> {
        None
    }

    /// `loop_reversed` for a loop over a collection: the replacement of `iterable`.
    fn reversed_iteration(&self, _iterable: Node, _src: &str) -> Option<String> {
        None
    }

    /// `value_to_none`: the "nothing" value that replaces `value` (a returned value, or the
    /// value of an assignment or initialiser) in the function `func`, and the operator's suffix
    /// (`null`, `default`); `None` where the language has no such value of that type.
    fn nothing(
        &self,
        value: Node,
        func: Node,
        src: &str,
        returned: bool,
    ) -> Option<(String, &'static str)>;

    /// The method (and function) renames of `wrong_string_method`: (from, to).
    fn string_methods(&self) -> &'static [(&'static str, &'static str)];

    /// True when the rename of `name` applies to this call (C++: `find` only as a method of a
    /// string, `tolower` only as a function).
    fn string_method_applies(&self, _name: &str, _receiver: Option<Node>, _src: &str) -> bool {
        true
    }

    /// True when the arguments of a call of `name` may be swapped (not Go's `append(slice, x)`,
    /// whose two arguments never have one type).
    fn swappable_arguments(&self, _name: &str) -> bool {
        true
    }

    /// True when the site leaves a program the language's compiler can accept, as far as the
    /// syntax tells (Go: no local variable left unread, no import left unused). Every site of
    /// every family passes through it.
    fn accepts(&self, _tree: &Tree, _src: &str, _site: &Site) -> bool {
        true
    }

    /// True when Java's flow rules apply: a handler that always leaves may not be emptied (the
    /// method could then end without a `return`).
    fn definite_flow(&self) -> bool {
        false
    }

    /// The method calls whose bounds are a slice (`substring(lo, hi)`): name, and whether the
    /// end bound may be dropped (`substring(lo)`) and the start too (`slice()`).
    fn slice_methods(&self) -> &'static [(&'static str, bool, bool)] {
        &[]
    }

    /// The method calls whose one argument is an index (`get(i)`, `charAt(i)`).
    fn index_methods(&self) -> &'static [&'static str] {
        &[]
    }

    /// A handler that re-raises the caught exception, named `param`.
    fn rethrow(&self, _param: Option<&str>) -> Option<String> {
        None
    }

    /// The catch-everything type a handler is broadened to.
    fn broadest_exception(&self) -> Option<&'static str> {
        None
    }

    /// True when swapping the arithmetic operator `op` of `left op right` (or of the compound
    /// assignment `left op= right`) for its mirror would not compile: `+` on strings in a
    /// typed language, `-` between two C++ iterators. A heuristic over declared types; the
    /// execution side records what still fails to compile.
    fn blocks_swap(&self, op: &str, left: Node, right: Node, src: &str) -> bool {
        op == "+" && (self.is_string(left, src) || self.is_string(right, src))
    }

    /// True when `e` is no number to shift by one (a string, a C++ iterator that is not
    /// random-access).
    fn not_a_number(&self, e: Node, src: &str) -> bool {
        self.is_string(e, src)
    }

    /// The type a variable is declared with, as written, when the source says (for the
    /// argument swap: two arguments declared with different types never swap into a program
    /// that compiles).
    fn declared_type(&self, _id: Node, _src: &str) -> Option<String> {
        None
    }

    /// True when a constant divisor of zero is a wrong value, not a crash or a compile error
    /// (JavaScript: `x / 0` is `Infinity`).
    fn zero_divisor_is_a_value(&self) -> bool {
        false
    }

    /// True when a literal at `node` may become negative (Go refuses a constant negative index,
    /// slice bound or length).
    fn negative_allowed_at(&self, _node: Node, _src: &str) -> bool {
        true
    }

    /// True when the expression `e` is certainly a string (from a literal, a declared type, a
    /// string-returning call): `+` on it concatenates, and it is no index to shift by one.
    fn is_string(&self, _e: Node, _src: &str) -> bool {
        false
    }

    /// True for a statement that only has effects (a call, an assignment, an increment), which
    /// `delete_statement` may delete: one whose deletion leaves a program the language accepts
    /// (Java: no variable left unassigned; Go: no variable left unused).
    fn deletable(&self, node: Node, src: &str) -> bool;

    /// The value a function body ends with when it has no `return` (Rust's tail expression).
    fn tail_value<'t>(&self, _body: Node<'t>) -> Option<Node<'t>> {
        None
    }

    /// The loop-breaking statement (`break`) at `node`, when it leaves a loop (not a `switch`),
    /// may become `continue`.
    fn breaks_loop(&self, node: Node) -> bool {
        cfamily::breaks_loop(node)
    }
}
