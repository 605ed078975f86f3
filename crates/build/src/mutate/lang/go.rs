//! Go (tree-sitter-go).
//!
//! Go has no conditional expression (so no `negate(ternary)`), no exceptions (no
//! `wrong_exception_handling`; `panic(...)` ends a guard like a `throw`), and refuses a local
//! variable nobody reads: a statement is not deleted when it holds the last read of a local
//! variable. "Nothing" is the zero value of the declared result type (`0`, `""`, `false`, `nil`);
//! a `range` loop has no empty or reversed form that compiles for every collection, so
//! `loop_zero` and `loop_reversed` apply to condition loops only (`false`).

use super::cfamily::{self, declaration_of, text};
use super::javascript::named;
use super::{Construct as C, Dialect};
use execscope_record::Language;
use tree_sitter::Node;

pub(super) struct Go;

const FUNCTIONS: &[&str] = &["function_declaration", "method_declaration", "func_literal"];

/// The zero value of a written type, where it has a literal.
fn zero(ty: Node, src: &str) -> Option<&'static str> {
    match ty.kind() {
        "slice_type" | "map_type" | "pointer_type" | "channel_type" | "function_type"
        | "interface_type" => Some("nil"),
        "type_identifier" => match text(ty, src) {
            "int" | "int8" | "int16" | "int32" | "int64" | "uint" | "uint8" | "uint16"
            | "uint32" | "uint64" | "uintptr" | "byte" | "rune" | "float32" | "float64" => {
                Some("0")
            }
            "string" => Some("\"\""),
            "bool" => Some("false"),
            "error" | "any" => Some("nil"),
            _ => None,
        },
        _ => None,
    }
}

impl Go {
    /// What declares the local variable or parameter `name`: (the identifier, the declaring node:
    /// a `parameter_declaration`, `var_spec`, `short_var_declaration` or `range_clause`).
    fn declaration<'t>(&self, at: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
        let decl = |n: Node<'t>| -> Option<(Node<'t>, Node<'t>)> {
            let ids: Vec<Node<'t>> = match n.kind() {
                "parameter_declaration" | "var_spec" => {
                    let mut cursor = n.walk();
                    let v: Vec<Node<'t>> = n.children_by_field_name("name", &mut cursor).collect();
                    v
                }
                "short_var_declaration" | "range_clause" => {
                    n.child_by_field_name("left").map(named).unwrap_or_default()
                }
                _ => return None,
            };
            ids.into_iter()
                .find(|i| text(*i, src) == name)
                .map(|i| (i, n))
        };
        declaration_of(self, at, name, src, &decl)
    }

    /// True when `e` is certainly a `string`: `+` on it concatenates.
    fn stringy(&self, e: Node, src: &str) -> bool {
        match e.kind() {
            "interpreted_string_literal" | "raw_string_literal" => true,
            "parenthesized_expression" => e.named_child(0).is_some_and(|i| self.stringy(i, src)),
            "identifier" => {
                self.declaration(e, text(e, src), src)
                    .is_some_and(|d| match d.kind() {
                        "parameter_declaration" | "var_spec" => d
                            .child_by_field_name("type")
                            .map(|t| text(t, src) == "string")
                            .unwrap_or_else(|| {
                                d.child_by_field_name("value")
                                    .and_then(|v| v.named_child(0))
                                    .is_some_and(|v| self.stringy(v, src))
                            }),
                        "short_var_declaration" => d
                            .child_by_field_name("right")
                            .map(named)
                            .is_some_and(|v| v.len() == 1 && self.stringy(v[0], src)),
                        _ => false,
                    })
            }
            "slice_expression" => e
                .child_by_field_name("operand")
                .is_some_and(|o| self.stringy(o, src)),
            "index_expression" => e.child_by_field_name("operand").is_some_and(|o| {
                o.kind() == "identifier"
                    && self
                        .declaration(o, text(o, src), src)
                        .and_then(|d| d.child_by_field_name("type"))
                        .is_some_and(|t| text(t, src) == "[]string")
            }),
            "call_expression" => e.child_by_field_name("function").is_some_and(|f| {
                let t = text(f, src);
                t == "string"
                    || t == "strconv.Itoa"
                    || t == "strconv.FormatInt"
                    || t.starts_with("fmt.Sprint")
                    || (t.starts_with("strings.")
                        && matches!(
                            &t["strings.".len()..],
                            "ToLower"
                                | "ToUpper"
                                | "Repeat"
                                | "Join"
                                | "Trim"
                                | "TrimSpace"
                                | "TrimLeft"
                                | "TrimRight"
                                | "TrimPrefix"
                                | "TrimSuffix"
                                | "Replace"
                                | "ReplaceAll"
                                | "Title"
                                | "ToTitle"
                        ))
            }),
            "binary_expression" => {
                e.child_by_field_name("operator")
                    .is_some_and(|o| text(o, src) == "+")
                    && [
                        e.child_by_field_name("left"),
                        e.child_by_field_name("right"),
                    ]
                    .into_iter()
                    .flatten()
                    .any(|x| self.stringy(x, src))
            }
            _ => false,
        }
    }
}

/// The names `src` imports packages under (the alias, else the path's last segment).
fn imports<'t>(root: Node<'t>, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "import_spec" {
            let name = n
                .child_by_field_name("name")
                .map(|a| text(a, src).to_string());
            let path = n.child_by_field_name("path").map(|p| {
                let p = text(p, src).trim_matches(['"', '`']);
                p.rsplit('/').next().unwrap_or(p).to_string()
            });
            out.extend(name.or(path));
            continue;
        }
        if matches!(
            n.kind(),
            "source_file" | "import_declaration" | "import_spec_list"
        ) {
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
    }
    out
}

fn each_identifier<'t>(n: Node<'t>, f: &mut dyn FnMut(Node<'t>)) {
    if n.kind() == "identifier" {
        f(n);
        return;
    }
    let mut cursor = n.walk();
    let kids: Vec<Node<'t>> = n.children(&mut cursor).collect();
    for k in kids {
        each_identifier(k, f);
    }
}

/// True for an identifier that is written, not read: a declared name, the whole target of an
/// assignment, the operand of `++`/`--`.
fn is_write(id: Node) -> bool {
    let Some(p) = id.parent() else {
        return false;
    };
    match p.kind() {
        "inc_statement" | "dec_statement" | "var_spec" | "parameter_declaration" => true,
        "expression_list" => p.parent().is_some_and(|g| {
            matches!(
                g.kind(),
                "short_var_declaration" | "assignment_statement" | "range_clause"
            ) && g.child_by_field_name("left") == Some(p)
        }),
        _ => false,
    }
}

impl Dialect for Go {
    fn language(&self) -> Language {
        Language::Go
    }

    fn construct<'t>(&self, node: Node<'t>, src: &str) -> C<'t> {
        let field = |f: &str| node.child_by_field_name(f);
        let single = |list: Option<Node<'t>>| match list.map(named).as_deref() {
            Some([one]) => Some(*one),
            _ => None,
        };
        match node.kind() {
            "binary_expression" => match (field("left"), field("operator"), field("right")) {
                (Some(left), Some(op), Some(right)) => C::Binary { left, op, right },
                _ => C::Other,
            },
            "assignment_statement" => {
                match (
                    single(field("left")),
                    field("operator"),
                    single(field("right")),
                ) {
                    (Some(target), Some(op), Some(value)) if text(op, src) == "=" => {
                        C::Assign { target, value }
                    }
                    (Some(target), Some(op), Some(value)) => C::Compound { target, op, value },
                    _ => C::Other,
                }
            }
            "var_spec" => match single(field("value")) {
                Some(value) => C::Init {
                    value,
                    typed: field("type").is_some(),
                },
                None => C::Other,
            },
            "unary_expression" => match (field("operator"), field("operand")) {
                (Some(op), Some(arg)) => C::Unary { op, arg },
                _ => C::Other,
            },
            "int_literal" if self.int_literal(text(node, src)).is_some() => C::Int,
            "float_literal" if self.float_literal(text(node, src)).is_some() => C::Float,
            "interpreted_string_literal" => C::Str {
                empty: "\"\"".into(),
            },
            "raw_string_literal" => C::Str { empty: "``".into() },
            "true" => C::Bool(true),
            "false" => C::Bool(false),
            "if_statement" => match field("consequence") {
                Some(consequence) => C::If {
                    cond: field("condition"),
                    consequence,
                    has_else: field("alternative").is_some(),
                },
                None => C::Other,
            },
            "for_statement" => {
                let Some(body) = field("body") else {
                    return C::Other;
                };
                let head = named(node).into_iter().find(|c| *c != body);
                match head {
                    Some(h) if h.kind() == "for_clause" => {
                        let init = h
                            .child_by_field_name("initializer")
                            .filter(|i| i.kind() == "short_var_declaration")
                            .and_then(|i| single(i.child_by_field_name("right")));
                        C::ForC {
                            init,
                            cond: h.child_by_field_name("condition"),
                            update: h.child_by_field_name("update"),
                            body,
                        }
                    }
                    Some(h) if h.kind() == "range_clause" => match h.child_by_field_name("right") {
                        Some(iterable) => C::ForEach { iterable, body },
                        None => C::Other,
                    },
                    Some(cond) => C::While { cond, body },
                    None => C::Other,
                }
            }
            "return_statement" => C::Return {
                value: single(named(node).first().copied()),
            },
            "expression_statement"
                if node.named_child(0).is_some_and(|c| {
                    c.kind() == "call_expression"
                        && c.child_by_field_name("function")
                            .is_some_and(|f| text(f, src) == "panic")
                }) =>
            {
                C::Throw
            }
            "break_statement" => C::Break,
            "continue_statement" => C::Continue,
            "call_expression" => {
                let (name, receiver) = match field("function") {
                    Some(f) if f.kind() == "selector_expression" => (
                        f.child_by_field_name("field"),
                        f.child_by_field_name("operand"),
                    ),
                    Some(f) if f.kind() == "identifier" => (Some(f), None),
                    _ => (None, None),
                };
                let args = field("arguments")
                    .map(named)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|a| a.kind() != "variadic_argument")
                    .collect();
                C::Call {
                    name,
                    receiver,
                    args,
                }
            }
            "index_expression" => match field("index") {
                Some(index) => C::Index { index },
                None => C::Other,
            },
            "slice_expression" => C::Slice {
                start: field("start"),
                end: field("end"),
                end_removable: field("capacity").is_none(),
            },
            _ => C::Other,
        }
    }

    fn deletable(&self, node: Node, src: &str) -> bool {
        let effect = match node.kind() {
            "assignment_statement" | "inc_statement" | "dec_statement" => true,
            "expression_statement" => {
                node.named_child(0)
                    .is_some_and(|c| c.kind() == "call_expression")
                    && !matches!(self.construct(node, src), C::Throw)
            }
            _ => false,
        };
        effect
    }

    fn function_body<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        if FUNCTIONS.contains(&node.kind()) {
            node.child_by_field_name("body")
        } else {
            None
        }
    }

    fn function_name<'a>(&self, node: Node, src: &'a str) -> Option<&'a str> {
        matches!(node.kind(), "function_declaration" | "method_declaration")
            .then(|| node.child_by_field_name("name").map(|n| text(n, src)))
            .flatten()
    }

    fn opaque(&self, node: Node, _src: &str) -> bool {
        let k = node.kind();
        if k.ends_with("_type")
            || matches!(
                k,
                "import_declaration"
                    | "package_clause"
                    | "type_identifier"
                    | "qualified_type"
                    | "type_arguments"
                    | "type_declaration"
                    | "comment"
            )
        {
            return true;
        }
        // A `case` label's values: two equal constant labels do not compile.
        node.parent().is_some_and(|p| {
            p.kind() == "expression_case" && p.child_by_field_name("value") == Some(node)
        })
    }

    fn prec(&self, node: Node, src: &str) -> u8 {
        cfamily::prec(self, node, src)
    }

    /// Go's five levels: `* / % << >> & &^`, `+ - | ^`, comparisons, `&&`, `||`.
    fn binary_prec(&self, op: &str) -> u8 {
        match op {
            "*" | "/" | "%" | "<<" | ">>" | "&" | "&^" => 15,
            "+" | "-" | "|" | "^" => 14,
            "==" | "!=" | "<" | "<=" | ">" | ">=" => 10,
            "&&" => 6,
            _ => 5,
        }
    }

    fn int_literal<'a>(&self, text: &'a str) -> Option<(u64, &'a str)> {
        cfamily::int_literal(text, str::is_empty)
    }

    fn float_literal<'a>(&self, text: &'a str) -> Option<(&'a str, &'a str)> {
        cfamily::float_literal(text, str::is_empty)
    }

    fn break_statement(&self) -> &'static str {
        "break"
    }

    fn nothing(
        &self,
        value: Node,
        func: Node,
        src: &str,
        returned: bool,
    ) -> Option<(String, &'static str)> {
        let ty = if returned {
            func.child_by_field_name("result")
                .filter(|r| r.kind() != "parameter_list")?
        } else {
            let spec = value.parent()?.parent()?;
            (spec.kind() == "var_spec")
                .then(|| spec.child_by_field_name("type"))
                .flatten()?
        };
        zero(ty, src).map(|z| (z.to_string(), "default"))
    }

    fn string_methods(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("ToLower", "ToUpper"),
            ("ToUpper", "ToLower"),
            ("HasPrefix", "HasSuffix"),
            ("HasSuffix", "HasPrefix"),
            ("Index", "LastIndex"),
            ("LastIndex", "Index"),
            ("IndexByte", "LastIndexByte"),
            ("LastIndexByte", "IndexByte"),
            ("IndexAny", "LastIndexAny"),
            ("LastIndexAny", "IndexAny"),
            ("TrimLeft", "TrimRight"),
            ("TrimRight", "TrimLeft"),
            ("TrimPrefix", "TrimSuffix"),
            ("TrimSuffix", "TrimPrefix"),
            ("IsLower", "IsUpper"),
            ("IsUpper", "IsLower"),
            ("IsLetter", "IsDigit"),
            ("IsDigit", "IsLetter"),
        ]
    }

    fn swappable_arguments(&self, name: &str) -> bool {
        !matches!(name, "append" | "make" | "new" | "delete" | "copy")
    }

    /// Go refuses a local variable nobody reads and an import nobody uses: a site that removes
    /// the last read of one (a deleted statement or guard, a value replaced, a condition made
    /// `false`) is not made. A write (the target of `=`, `:=`, `+=`, `++`) is no read.
    fn accepts(&self, tree: &tree_sitter::Tree, src: &str, site: &super::Site) -> bool {
        let (start, end) = (site.start, site.end);
        if start == end {
            return true;
        }
        let root = tree.root_node();
        let Some(cover) = root.descendant_for_byte_range(start, end) else {
            return true;
        };
        let inside = |n: Node| n.start_byte() >= start && n.end_byte() <= end;
        let outside = |n: Node| n.end_byte() <= start || n.start_byte() >= end;
        let kept = |name: &str| {
            site.after
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == name)
        };
        let mut removed: Vec<Node> = Vec::new();
        each_identifier(cover, &mut |id| {
            if inside(id) && !is_write(id) && !kept(text(id, src)) {
                removed.push(id);
            }
        });
        let packages = imports(root, src);
        removed.into_iter().all(|id| {
            let name = text(id, src);
            let package = packages.iter().any(|p| p == name)
                && id
                    .parent()
                    .is_some_and(|p| p.kind() == "selector_expression");
            let scope = if package {
                Some(root)
            } else {
                // A local declared outside the removed text (a parameter may go unread).
                // Its scope: what holds the declaration (the block, or the `if`/`for` whose
                // header declares it), so a same-named variable elsewhere is no read of it.
                match self.declaration(id, name, src) {
                    Some(d) if d.kind() != "parameter_declaration" && outside(d) => {
                        let mut scope = d.parent();
                        while let Some(p) = scope.filter(|p| {
                            matches!(
                                p.kind(),
                                "var_declaration" | "var_spec_list" | "for_clause" | "range_clause"
                            )
                        }) {
                            scope = p.parent();
                        }
                        scope
                    }
                    _ => None,
                }
            };
            let Some(scope) = scope else {
                return true;
            };
            let mut reads = 0;
            each_identifier(scope, &mut |other| {
                if outside(other) && text(other, src) == name && !is_write(other) {
                    reads += 1;
                }
            });
            reads > 0
        })
    }

    fn is_string(&self, e: Node, src: &str) -> bool {
        self.stringy(e, src)
    }

    fn declared_type(&self, id: Node, src: &str) -> Option<String> {
        if id.kind() != "identifier" {
            return None;
        }
        let d = self.declaration(id, text(id, src), src)?;
        d.child_by_field_name("type")
            .map(|t| text(t, src).to_string())
    }

    /// Go refuses a constant negative index, slice bound, or `make` length.
    fn negative_allowed_at(&self, node: Node, src: &str) -> bool {
        let Some(p) = node.parent() else {
            return true;
        };
        match p.kind() {
            "index_expression" => p.child_by_field_name("index") != Some(node),
            "slice_expression" => false,
            "argument_list" => p
                .parent()
                .and_then(|c| c.child_by_field_name("function"))
                .is_none_or(|f| text(f, src) != "make"),
            _ => true,
        }
    }
}
