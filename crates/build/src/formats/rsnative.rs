//! HumanEval-X's Rust tests (`test`: `#[cfg(test)] mod tests { use super::*; #[test] fn
//! test_x() { assert!(..); assert_eq!(.., ..); .. } }`) as the judge's Python tests: each
//! statement of a test function that holds an `assert!`, `assert_eq!` or `assert_ne!` one unit,
//! its expressions translated to Python that reproduces Rust's semantics on the judge's side
//! ([`SEMANTICS`]: `==` between values of one type, integer division and remainder truncating
//! toward zero, overflow a panic, `as` casts, f32 arithmetic) and calls the function under test
//! through the foreign-call path as `candidate(...)`. No text of the test goes into the sandbox:
//! the judge runs the unit, the candidate only answers calls.
//!
//! Rust's types are followed as far as the literals need them: the task's declaration gives the
//! function's parameter and result types, a `let` its annotation, and a literal takes the type of
//! what it meets (an argument's parameter, the other side of `==`, `<` or `-`, a `vec!`'s
//! element): a float literal where an `f32` is expected is the `f32` Rust reads (`0.3` is
//! `0.30000001192092896`), and arithmetic on `f32`s rounds to `f32` after each operation, as
//! Rust computes it. `vec![..]` and `[..]` are lists, tuples tuples, `Some(x)` is `x` and `None`
//! `None` (an `Option` crosses so), `String::from`, `.to_string()` and `&` leave the value as it
//! is, `HashMap::from([(k, v), ..])` is a dict. Statements besides the asserts — `let`,
//! `x = e`, `x += e`, `xs.push(e)`, `for i in a..b`, `if` — are translated too, each a unit's
//! setup for the asserts after it. Any other form (random inputs, a function defined in the
//! test, a call of another function than the one under test, a type the judge has no value
//! for: `Box<dyn Any>`, an enum of the program's) is refused with its reason: the caller falls
//! back to HumanEval's Python check for that task.

use super::jsnative::py_str;
use crate::mutate::parse::parse_tree_in;
use execscope_record::Language;
use tree_sitter::Node;

/// The trusted judge-side definitions every unit starts with.
pub const SEMANTICS: &str = include_str!("../../assets/rs_semantics.py");

/// The name the function under test is given inside a unit (`check(candidate)`).
const CANDIDATE: &str = "candidate";

/// The assert macros a unit is made of.
const ASSERTS: [&str; 6] = [
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
];

/// A Rust type as far as the translation follows it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// An integer type by name (`i32`, `usize`).
    Int(String),
    /// `f32` (32) or `f64` (64).
    Float(u8),
    Bool,
    Char,
    /// `String` or `&str`.
    Str,
    /// `Vec<T>`, `[T; N]`, `&[T]`.
    Vec(Box<Ty>),
    Tuple(Vec<Ty>),
    Option(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    /// Not known (an unsuffixed literal's, a type the translation does not follow).
    Unknown,
}

impl Ty {
    fn known(&self) -> bool {
        *self != Ty::Unknown
    }

    /// `self` when known, else `other`.
    fn or(self, other: Ty) -> Ty {
        if self.known() {
            self
        } else {
            other
        }
    }

    /// The kind an operation on values of this type is given (`'i32'`, `'f32'`, `'str'`), or
    /// `None`.
    fn kind(&self) -> String {
        match self {
            Ty::Int(k) => format!("'{k}'"),
            Ty::Float(b) => format!("'f{b}'"),
            Ty::Str => "'str'".into(),
            _ => "None".into(),
        }
    }

    fn elem(&self) -> Ty {
        match self {
            Ty::Vec(t) => (**t).clone(),
            _ => Ty::Unknown,
        }
    }
}

/// The entry's parameter and result types, read from the task's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub params: Vec<Ty>,
    pub ret: Ty,
}

/// The signature of the function `entry` that `declaration` (HumanEval-X's Rust `declaration`:
/// its `use`s and the function's head, the body left open) declares.
pub fn signature(declaration: &str, entry: &str) -> Result<Signature, String> {
    let src = format!("{declaration}\n}}\n");
    let tree = parse_tree_in(Language::Rust, &src);
    let f = find_function(tree.root_node(), &src, entry)
        .ok_or_else(|| format!("its declaration declares no function `{entry}`"))?;
    let mut params = Vec::new();
    if let Some(ps) = f.child_by_field_name("parameters") {
        for p in named(ps) {
            match p.kind() {
                "parameter" => params.push(
                    p.child_by_field_name("type")
                        .map(|t| type_of(t, &src))
                        .unwrap_or(Ty::Unknown),
                ),
                "line_comment" | "block_comment" | "attribute_item" => {}
                k => return Err(format!("has a function under test with a {k}")),
            }
        }
    }
    let ret = f
        .child_by_field_name("return_type")
        .map(|t| type_of(t, &src))
        .unwrap_or(Ty::Unknown);
    Ok(Signature { params, ret })
}

fn find_function<'t>(n: Node<'t>, src: &str, name: &str) -> Option<Node<'t>> {
    if n.kind() == "function_item"
        && n.child_by_field_name("name")
            .is_some_and(|x| text(x, src) == name)
    {
        return Some(n);
    }
    named(n)
        .into_iter()
        .find_map(|c| find_function(c, src, name))
}

/// A type node as a [`Ty`].
fn type_of(t: Node<'_>, src: &str) -> Ty {
    let args = |t: Node<'_>| -> Vec<Ty> {
        t.child_by_field_name("type_arguments")
            .map(|a| {
                named(a)
                    .into_iter()
                    .filter(|c| !c.kind().contains("comment") && c.kind() != "lifetime")
                    .map(|c| type_of(c, src))
                    .collect()
            })
            .unwrap_or_default()
    };
    match t.kind() {
        "primitive_type" => match text(t, src) {
            "bool" => Ty::Bool,
            "char" => Ty::Char,
            "str" => Ty::Str,
            "f32" => Ty::Float(32),
            "f64" => Ty::Float(64),
            k => Ty::Int(k.to_string()),
        },
        "type_identifier" if text(t, src) == "String" => Ty::Str,
        "reference_type" => t
            .child_by_field_name("type")
            .map(|x| type_of(x, src))
            .unwrap_or(Ty::Unknown),
        "array_type" => Ty::Vec(Box::new(
            t.child_by_field_name("element")
                .map(|x| type_of(x, src))
                .unwrap_or(Ty::Unknown),
        )),
        "tuple_type" => Ty::Tuple(named(t).into_iter().map(|c| type_of(c, src)).collect()),
        "generic_type" => {
            let head = t
                .child_by_field_name("type")
                .map(|h| text(h, src))
                .unwrap_or("");
            let head = head.rsplit("::").next().unwrap_or(head);
            let mut a = args(t).into_iter();
            let mut next = || Box::new(a.next().unwrap_or(Ty::Unknown));
            match head {
                "Vec" | "VecDeque" => Ty::Vec(next()),
                "Option" => Ty::Option(next()),
                "HashMap" | "BTreeMap" => {
                    let k = next();
                    Ty::Map(k, next())
                }
                _ => Ty::Unknown,
            }
        }
        _ => Ty::Unknown,
    }
}

/// The units of a Rust `test` program whose function under test is `entry`, declared by
/// `declaration`, or why the program cannot be translated (a short phrase: "calls `encode_cyclic`,
/// which is not the function under test (decode_cyclic)").
pub fn tests(test: &str, entry: &str, declaration: &str) -> Result<Vec<String>, String> {
    let sig = signature(declaration, entry)?;
    let tree = parse_tree_in(Language::Rust, test);
    let root = tree.root_node();
    if root.has_error() {
        return Err("does not parse as Rust".into());
    }
    let mut module = None;
    for st in named(root) {
        match st.kind() {
            "line_comment" | "block_comment" | "attribute_item" => {}
            "mod_item" if module.is_none() => module = Some(st),
            k => return Err(format!("has a top-level {k} beside its test module")),
        }
    }
    let module = module.ok_or("holds no test module")?;
    let body = module
        .child_by_field_name("body")
        .ok_or("has a test module without a body")?;
    let mut units = Vec::new();
    let mut attribute = false;
    for item in named(body) {
        match item.kind() {
            "line_comment" | "block_comment" | "use_declaration" => {}
            "attribute_item" => attribute = text(item, test).replace(' ', "") == "#[test]",
            "function_item" if attribute => {
                attribute = false;
                if item
                    .child_by_field_name("parameters")
                    .is_some_and(|p| p.named_child_count() > 0)
                {
                    return Err("has a test function with parameters".into());
                }
                let block = item
                    .child_by_field_name("body")
                    .ok_or("has a test function without a body")?;
                let mut t = Tr {
                    entry,
                    sig: &sig,
                    vars: Vec::new(),
                };
                let mut setup: Vec<String> = Vec::new();
                for st in named(block) {
                    if st.kind().contains("comment") {
                        continue;
                    }
                    let mut lines = Vec::new();
                    t.statement(st, test, 1, &mut lines)?;
                    if has_assert(st, test) {
                        let mut body = setup.clone();
                        body.extend(lines);
                        units.push(unit(&body, entry));
                    } else {
                        setup.extend(lines);
                    }
                }
            }
            "function_item" => return Err("defines a helper function in its test module".into()),
            k => return Err(format!("has a {k} in its test module")),
        }
    }
    if units.is_empty() {
        return Err("holds no assert".into());
    }
    Ok(units)
}

/// One unit's text: the semantics, `check` holding `body`, then `check(<entry>)`: the judge binds
/// the entry's name to the foreign call of the candidate's function.
fn unit(body: &[String], entry: &str) -> String {
    format!(
        "{SEMANTICS}\n\ndef check({CANDIDATE}):\n{}\n\n\ncheck({entry})\n",
        body.join("\n")
    )
}

fn named(n: Node<'_>) -> Vec<Node<'_>> {
    let mut c = n.walk();
    n.named_children(&mut c).collect()
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    &src[n.byte_range()]
}

/// A macro's name (`assert_eq`), the last segment of its path.
fn macro_name<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    let m = n
        .child_by_field_name("macro")
        .map(|m| text(m, src))
        .unwrap_or("");
    m.rsplit("::").next().unwrap_or(m)
}

/// Does the statement hold an assert macro?
fn has_assert(n: Node<'_>, src: &str) -> bool {
    if n.kind() == "macro_invocation" && ASSERTS.contains(&macro_name(n, src)) {
        return true;
    }
    named(n).into_iter().any(|c| has_assert(c, src))
}

fn has_kind(n: Node<'_>, kinds: &[&str]) -> bool {
    kinds.contains(&n.kind()) || named(n).into_iter().any(|c| has_kind(c, kinds))
}

/// A macro's token tree read as the arguments of a call (`assert_eq!(a, b)`: `[a, b]`) or, for
/// `vec!`, as an array expression: the text parsed again, in a function of its own.
struct MacroArgs {
    src: String,
    tree: tree_sitter::Tree,
}

impl MacroArgs {
    fn read(mac: Node<'_>, src: &str, array: bool) -> Result<MacroArgs, String> {
        let tt = named(mac)
            .into_iter()
            .find(|c| c.kind() == "token_tree")
            .ok_or("has a macro without arguments")?;
        let t = text(tt, src);
        let inner = &t[1..t.len().saturating_sub(1).max(1)];
        let name = macro_name(mac, src);
        let src = if array {
            format!("fn _es_f() {{ let _es_v = [{inner}]; }}\n")
        } else {
            format!("fn _es_f() {{ _es_m({inner}); }}\n")
        };
        let tree = parse_tree_in(Language::Rust, &src);
        if tree.root_node().has_error() {
            return Err(format!(
                "has a `{name}!` whose arguments do not parse as expressions"
            ));
        }
        Ok(MacroArgs { src, tree })
    }

    /// The call's arguments (or the array expression, alone).
    fn nodes(&self, kind: &str) -> Vec<Node<'_>> {
        fn find<'t>(n: Node<'t>, kind: &str) -> Option<Node<'t>> {
            if n.kind() == kind {
                return Some(n);
            }
            named(n).into_iter().find_map(|c| find(c, kind))
        }
        match find(self.tree.root_node(), kind) {
            Some(n) if kind == "arguments" => named(n)
                .into_iter()
                .filter(|c| !c.kind().contains("comment"))
                .collect(),
            Some(n) => vec![n],
            None => Vec::new(),
        }
    }
}

struct Tr<'a> {
    entry: &'a str,
    sig: &'a Signature,
    /// The test's own variables and their types, `_v_<name>` in Python.
    vars: Vec<(String, Ty)>,
}

impl Tr<'_> {
    fn field<'t>(&self, n: Node<'t>, f: &str) -> Result<Node<'t>, String> {
        n.child_by_field_name(f)
            .ok_or_else(|| format!("has a {} without its {f}", n.kind()))
    }

    fn var_ty(&self, name: &str) -> Option<Ty> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
    }

    fn statement(
        &mut self,
        st: Node<'_>,
        src: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), String> {
        let pad = "    ".repeat(depth);
        match st.kind() {
            "line_comment" | "block_comment" | "empty_statement" => {}
            "let_declaration" => {
                let pat = self.field(st, "pattern")?;
                if pat.kind() != "identifier" {
                    return Err(format!("has a let with the pattern `{}`", text(pat, src)));
                }
                if st.child_by_field_name("alternative").is_some() {
                    return Err("has a let-else".into());
                }
                let declared = st
                    .child_by_field_name("type")
                    .map(|t| type_of(t, src))
                    .unwrap_or(Ty::Unknown);
                let name = text(pat, src).to_string();
                if depth > 1 && self.var_ty(&name).is_some() {
                    return Err(format!("shadows the variable `{name}` in a nested block"));
                }
                let (value, ty) = match st.child_by_field_name("value") {
                    Some(v) => {
                        let ty = declared.or(self.synth(v, src));
                        (self.expr(v, src, &ty)?, ty)
                    }
                    None => ("None".to_string(), declared),
                };
                self.vars.push((name.clone(), ty));
                out.push(format!("{pad}_v_{name} = {value}"));
            }
            "expression_statement" => {
                let e = st.named_child(0).ok_or("has an empty statement")?;
                self.statement(e, src, depth, out)?;
            }
            "block" => {
                for s in named(st) {
                    self.statement(s, src, depth, out)?;
                }
            }
            "for_expression" => {
                let pat = self.field(st, "pattern")?;
                let name = match pat.kind() {
                    "identifier" => text(pat, src).to_string(),
                    "_" => "_".to_string(),
                    _ if text(pat, src) == "_" => "_".to_string(),
                    _ => return Err(format!("has a for loop over `{}`", text(pat, src))),
                };
                let range = self.field(st, "value")?;
                if range.kind() != "range_expression" || named(range).len() != 2 {
                    return Err("has a for loop over something else than a range a..b".into());
                }
                let ends = named(range);
                let ty = self.synth(ends[0], src).or(self.synth(ends[1], src));
                let lo = self.expr(ends[0], src, &ty)?;
                let hi = self.expr(ends[1], src, &ty)?;
                let hi = if text(range, src).contains("..=") {
                    format!("_rs_op('+', {hi}, 1, None)")
                } else {
                    hi
                };
                let py = if name == "_" {
                    "_".to_string()
                } else {
                    if self.var_ty(&name).is_some() {
                        return Err(format!("shadows the variable `{name}` in a loop"));
                    }
                    self.vars.push((name.clone(), ty));
                    format!("_v_{name}")
                };
                out.push(format!("{pad}for {py} in range({lo}, {hi}):"));
                self.block(self.field(st, "body")?, src, depth + 1, out)?;
            }
            "if_expression" => {
                let cond = self.field(st, "condition")?;
                let c = self.expr(cond, src, &Ty::Bool)?;
                out.push(format!("{pad}if _rs_bool({c}):"));
                self.block(self.field(st, "consequence")?, src, depth + 1, out)?;
                if let Some(alt) = st.child_by_field_name("alternative") {
                    let inner = alt.named_child(0).ok_or("has an empty else")?;
                    out.push(format!("{pad}else:"));
                    self.block(inner, src, depth + 1, out)?;
                }
            }
            "macro_invocation" => {
                let line = self.macro_statement(st, src)?;
                out.push(format!("{pad}{line}"));
            }
            "assignment_expression" => {
                let left = self.field(st, "left")?;
                let (v, ty) = self.var(left, src)?;
                let right = self.expr(self.field(st, "right")?, src, &ty)?;
                out.push(format!("{pad}{v} = {right}"));
            }
            "compound_assignment_expr" => {
                let left = self.field(st, "left")?;
                let (v, ty) = self.var(left, src)?;
                let op = text(self.field(st, "operator")?, src).trim_end_matches('=');
                if !matches!(op, "+" | "-" | "*" | "/" | "%") {
                    return Err(format!("has the operator `{op}=`"));
                }
                let right_node = self.field(st, "right")?;
                let ty = ty.or(self.synth(right_node, src));
                let right = self.expr(right_node, src, &ty)?;
                out.push(format!(
                    "{pad}{v} = _rs_op('{op}', {v}, {right}, {})",
                    ty.kind()
                ));
            }
            "call_expression" => {
                let f = self.field(st, "function")?;
                if f.kind() == "field_expression" {
                    let obj = self.field(f, "value")?;
                    let method = text(self.field(f, "field")?, src);
                    let args = named(self.field(st, "arguments")?);
                    if method == "push" && args.len() == 1 {
                        let (v, ty) = self.var(obj, src)?;
                        let ty = ty.elem();
                        let ty = ty.or(self.synth(args[0], src));
                        let a = self.expr(args[0], src, &ty)?;
                        out.push(format!("{pad}{v}.append({a})"));
                        return Ok(());
                    }
                }
                let e = self.expr(st, src, &Ty::Unknown)?;
                out.push(format!("{pad}{e}"));
            }
            k => {
                return Err(format!(
                    "has a statement this reader does not translate ({k})"
                ))
            }
        }
        Ok(())
    }

    /// A nested block: at least `pass`.
    fn block(
        &mut self,
        st: Node<'_>,
        src: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), String> {
        let before = out.len();
        let vars = self.vars.len();
        self.statement(st, src, depth, out)?;
        // The block's own variables end with it.
        self.vars.truncate(vars);
        if out.len() == before {
            out.push(format!("{}pass", "    ".repeat(depth)));
        }
        Ok(())
    }

    /// An assert macro as a Python `assert`.
    fn macro_statement(&mut self, m: Node<'_>, src: &str) -> Result<String, String> {
        let name = macro_name(m, src);
        if !ASSERTS.contains(&name) {
            return Err(format!("has the macro `{name}!`"));
        }
        let args = MacroArgs::read(m, src, false)?;
        let a = args.nodes("arguments");
        let s = args.src.as_str();
        if name.ends_with("assert") {
            let c = a.first().ok_or("has an assert! without its condition")?;
            // The message (further arguments) is formatted only when the assert fails.
            return Ok(format!("assert _rs_bool({})", self.expr(*c, s, &Ty::Bool)?));
        }
        if a.len() < 2 {
            return Err(format!("has an {name}! without two values"));
        }
        let ty = self.synth(a[0], s).or(self.synth(a[1], s));
        let l = self.expr(a[0], s, &ty)?;
        let r = self.expr(a[1], s, &ty)?;
        Ok(if name.ends_with("_eq") {
            format!("assert _rs_eq({l}, {r})")
        } else {
            format!("assert not _rs_eq({l}, {r})")
        })
    }

    /// A variable of the test being assigned: its Python name and type.
    fn var(&self, n: Node<'_>, src: &str) -> Result<(String, Ty), String> {
        let name = text(n, src);
        match self.var_ty(name) {
            Some(t) if n.kind() == "identifier" => Ok((format!("_v_{name}"), t)),
            _ => Err(format!("assigns to `{name}`, not a variable of the test")),
        }
    }

    /// The type of an expression as far as it can be told without a context.
    fn synth(&self, n: Node<'_>, src: &str) -> Ty {
        match n.kind() {
            "parenthesized_expression" | "reference_expression" => named(n)
                .last()
                .map(|c| self.synth(*c, src))
                .unwrap_or(Ty::Unknown),
            "unary_expression" => {
                if text(n, src).starts_with('!') {
                    match n.named_child(0).map(|c| self.synth(c, src)) {
                        Some(Ty::Bool) => Ty::Bool,
                        _ => Ty::Unknown,
                    }
                } else {
                    n.named_child(0)
                        .map(|c| self.synth(c, src))
                        .unwrap_or(Ty::Unknown)
                }
            }
            "integer_literal" => int_suffix(text(n, src))
                .map(|k| Ty::Int(k.into()))
                .unwrap_or(Ty::Unknown),
            "float_literal" => match text(n, src) {
                t if t.ends_with("f32") => Ty::Float(32),
                t if t.ends_with("f64") => Ty::Float(64),
                _ => Ty::Unknown,
            },
            "string_literal" | "raw_string_literal" => Ty::Str,
            "char_literal" => Ty::Char,
            "boolean_literal" => Ty::Bool,
            "identifier" => self.var_ty(text(n, src)).unwrap_or(Ty::Unknown),
            "type_cast_expression" => n
                .child_by_field_name("type")
                .map(|t| type_of(t, src))
                .unwrap_or(Ty::Unknown),
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| text(o, src))
                    .unwrap_or("");
                if matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||") {
                    return Ty::Bool;
                }
                let l = n.child_by_field_name("left");
                let r = n.child_by_field_name("right");
                l.map(|l| self.synth(l, src))
                    .unwrap_or(Ty::Unknown)
                    .or(r.map(|r| self.synth(r, src)).unwrap_or(Ty::Unknown))
            }
            "tuple_expression" => {
                Ty::Tuple(named(n).into_iter().map(|c| self.synth(c, src)).collect())
            }
            "array_expression" => match named(n).first() {
                Some(c) => Ty::Vec(Box::new(self.synth(*c, src))),
                None => Ty::Vec(Box::new(Ty::Unknown)),
            },
            "macro_invocation" if macro_name(n, src) == "vec" => {
                match MacroArgs::read(n, src, true) {
                    Ok(a) => a
                        .nodes("array_expression")
                        .first()
                        .map(|x| self.synth(*x, &a.src))
                        .unwrap_or(Ty::Unknown),
                    Err(_) => Ty::Unknown,
                }
            }
            "call_expression" => {
                let Some(f) = n.child_by_field_name("function") else {
                    return Ty::Unknown;
                };
                let name = text(f, src);
                if f.kind() == "identifier" && name == self.entry {
                    return self.sig.ret.clone();
                }
                match name {
                    "String::from" | "String::new" => return Ty::Str,
                    "f64::abs" => return Ty::Float(64),
                    "f32::abs" => return Ty::Float(32),
                    "Some" => {
                        return Ty::Option(Box::new(
                            n.child_by_field_name("arguments")
                                .and_then(|a| a.named_child(0))
                                .map(|a| self.synth(a, src))
                                .unwrap_or(Ty::Unknown),
                        ))
                    }
                    _ => {}
                }
                if f.kind() == "field_expression" {
                    let method = f
                        .child_by_field_name("field")
                        .map(|m| text(m, src))
                        .unwrap_or("");
                    let obj = f.child_by_field_name("value");
                    return match method {
                        "to_string" | "to_owned" => Ty::Str,
                        "abs" | "clone" => obj.map(|o| self.synth(o, src)).unwrap_or(Ty::Unknown),
                        _ => Ty::Unknown,
                    };
                }
                Ty::Unknown
            }
            _ => Ty::Unknown,
        }
    }

    /// An expression as Python, `hint` the type its context gives it (or [`Ty::Unknown`]).
    fn expr(&mut self, n: Node<'_>, src: &str, hint: &Ty) -> Result<String, String> {
        Ok(match n.kind() {
            "parenthesized_expression" => {
                let inner = n.named_child(0).ok_or("has empty parentheses")?;
                format!("({})", self.expr(inner, src, hint)?)
            }
            "reference_expression" => {
                let v = self.field(n, "value")?;
                self.expr(v, src, hint)?
            }
            "integer_literal" => int_literal(text(n, src), hint, false)?,
            "float_literal" => float_literal(text(n, src), hint, false)?,
            "string_literal" => py_str(&rust_string(text(n, src))?),
            "raw_string_literal" => py_str(&raw_string(text(n, src))?),
            "char_literal" => py_str(&rust_char(text(n, src))?),
            "boolean_literal" => match text(n, src) {
                "true" => "True".into(),
                _ => "False".into(),
            },
            "identifier" => match text(n, src) {
                "None" => "None".into(),
                name => match self.var_ty(name) {
                    Some(_) => format!("_v_{name}"),
                    None => {
                        return Err(format!(
                            "uses `{name}`, which is not a variable of the test"
                        ))
                    }
                },
            },
            "unary_expression" => {
                let arg = n.named_child(0).ok_or("has an empty unary expression")?;
                let t = text(n, src);
                if t.starts_with('-') {
                    let ty = hint.clone().or(self.synth(arg, src));
                    match arg.kind() {
                        "integer_literal" => int_literal(text(arg, src), &ty, true)?,
                        "float_literal" => float_literal(text(arg, src), &ty, true)?,
                        _ => format!("_rs_neg({}, {})", self.expr(arg, src, &ty)?, ty.kind()),
                    }
                } else if t.starts_with('!') {
                    let ty = self.synth(arg, src);
                    if matches!(ty, Ty::Int(_)) {
                        return Err("has a bitwise `!`".into());
                    }
                    format!("(not _rs_bool({}))", self.expr(arg, src, &Ty::Bool)?)
                } else if t.starts_with('*') {
                    self.expr(arg, src, hint)?
                } else {
                    return Err(format!("has the unary expression `{t}`"));
                }
            }
            "binary_expression" => {
                let op = text(self.field(n, "operator")?, src).to_string();
                let l = self.field(n, "left")?;
                let r = self.field(n, "right")?;
                match op.as_str() {
                    "&&" | "||" => {
                        let a = self.expr(l, src, &Ty::Bool)?;
                        let b = self.expr(r, src, &Ty::Bool)?;
                        let py = if op == "&&" { "and" } else { "or" };
                        format!("(_rs_bool({a}) {py} _rs_bool({b}))")
                    }
                    "==" | "!=" | "<" | ">" | "<=" | ">=" => {
                        let ty = self.synth(l, src).or(self.synth(r, src));
                        let a = self.expr(l, src, &ty)?;
                        let b = self.expr(r, src, &ty)?;
                        match op.as_str() {
                            "==" => format!("_rs_eq({a}, {b})"),
                            "!=" => format!("(not _rs_eq({a}, {b}))"),
                            _ => format!("_rs_cmp('{op}', {a}, {b})"),
                        }
                    }
                    "+" | "-" | "*" | "/" | "%" => {
                        let hinted = match hint {
                            Ty::Int(_) | Ty::Float(_) | Ty::Str => hint.clone(),
                            _ => Ty::Unknown,
                        };
                        let ty = hinted.or(self.synth(l, src)).or(self.synth(r, src));
                        // `String + &str`: the right side is a string whatever the left's type.
                        let a = self.expr(l, src, &ty)?;
                        let b = self.expr(r, src, &ty)?;
                        format!("_rs_op('{op}', {a}, {b}, {})", ty.kind())
                    }
                    o => return Err(format!("has the operator `{o}`")),
                }
            }
            "type_cast_expression" => {
                let to = type_of(self.field(n, "type")?, src);
                let kind = match &to {
                    Ty::Int(k) => k.clone(),
                    Ty::Float(b) => format!("f{b}"),
                    Ty::Char => "char".into(),
                    _ => return Err(format!("casts to `{}`", text(self.field(n, "type")?, src))),
                };
                let v = self.field(n, "value")?;
                let ty = self.synth(v, src);
                format!("_rs_as({}, '{kind}')", self.expr(v, src, &ty)?)
            }
            "tuple_expression" => {
                let items = named(n)
                    .into_iter()
                    .filter(|c| !c.kind().contains("comment"))
                    .enumerate()
                    .map(|(i, c)| {
                        let t = match hint {
                            Ty::Tuple(ts) => ts.get(i).cloned().unwrap_or(Ty::Unknown),
                            _ => Ty::Unknown,
                        };
                        self.expr(c, src, &t)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            "array_expression" => self.array(n, src, hint)?,
            "macro_invocation" => {
                let name = macro_name(n, src);
                if name != "vec" {
                    return Err(format!("has the macro `{name}!` in an expression"));
                }
                let args = MacroArgs::read(n, src, true)?;
                let a = args.nodes("array_expression");
                let arr = a.first().ok_or("has a vec! that is not a list")?;
                self.array(*arr, &args.src, hint)?
            }
            "call_expression" => self.call(n, src, hint)?,
            k => {
                return Err(format!(
                    "has an expression this reader does not translate ({k})"
                ))
            }
        })
    }

    /// `[a, b]` or `[x; n]` (a `vec!`'s too) as a list.
    fn array(&mut self, n: Node<'_>, src: &str, hint: &Ty) -> Result<String, String> {
        let elem = hint.elem();
        if let Some(len) = n.child_by_field_name("length") {
            let item = named(n)
                .into_iter()
                .find(|c| c.id() != len.id() && !c.kind().contains("comment"))
                .ok_or("has an array [x; n] without its x")?;
            if has_kind(item, &["call_expression", "macro_invocation"]) {
                return Err("has an array [x; n] whose x is computed".into());
            }
            let ty = elem.or(self.synth(item, src));
            let x = self.expr(item, src, &ty)?;
            let k = self.expr(len, src, &Ty::Int("usize".into()))?;
            return Ok(format!("[{x} for _ in range({k})]"));
        }
        let items = named(n)
            .into_iter()
            .filter(|c| !c.kind().contains("comment") && c.kind() != "attribute_item")
            .collect::<Vec<_>>();
        let ty = elem.or(items
            .iter()
            .map(|c| self.synth(*c, src))
            .find(Ty::known)
            .unwrap_or(Ty::Unknown));
        let items = items
            .into_iter()
            .map(|c| self.expr(c, src, &ty))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(format!("[{}]", items.join(", ")))
    }

    fn call(&mut self, n: Node<'_>, src: &str, hint: &Ty) -> Result<String, String> {
        let f = self.field(n, "function")?;
        let name = text(f, src).to_string();
        let args = named(self.field(n, "arguments")?)
            .into_iter()
            .filter(|c| !c.kind().contains("comment"))
            .collect::<Vec<_>>();
        let one = |what: &str| -> Result<Node<'_>, String> {
            match args.as_slice() {
                [a] => Ok(*a),
                _ => Err(format!("calls {what} with {} arguments", args.len())),
            }
        };
        if f.kind() == "identifier" && name == self.entry {
            if args.len() != self.sig.params.len() {
                return Err(format!(
                    "calls {} with {} arguments where it takes {}",
                    self.entry,
                    args.len(),
                    self.sig.params.len()
                ));
            }
            let params = self.sig.params.clone();
            let a = args
                .iter()
                .zip(&params)
                .map(|(a, t)| self.expr(*a, src, t))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(format!("{CANDIDATE}({})", a.join(", ")));
        }
        match name.as_str() {
            "Some" => {
                let inner = match hint {
                    Ty::Option(t) => (**t).clone(),
                    _ => Ty::Unknown,
                };
                // `Some(x)` crosses as `x`.
                return self.expr(one("Some")?, src, &inner);
            }
            "String::from" => return self.expr(one("String::from")?, src, &Ty::Str),
            "String::new" | "Vec::new" | "HashMap::new" if !args.is_empty() => {
                return Err(format!("calls {name} with arguments"))
            }
            "String::new" => return Ok("''".into()),
            "Vec::new" => return Ok("[]".into()),
            "HashMap::new" => return Ok("{}".into()),
            "f64::abs" | "f32::abs" => {
                let ty = Ty::Float(if name.starts_with("f32") { 32 } else { 64 });
                return Ok(format!(
                    "_rs_abs({}, {})",
                    self.expr(one(&name)?, src, &ty)?,
                    ty.kind()
                ));
            }
            "HashMap::from" => {
                let arr = one("HashMap::from")?;
                if arr.kind() != "array_expression" || arr.child_by_field_name("length").is_some() {
                    return Err("calls HashMap::from with something else than [(k, v), ..]".into());
                }
                let (kt, vt) = match hint {
                    Ty::Map(k, v) => ((**k).clone(), (**v).clone()),
                    _ => (Ty::Unknown, Ty::Unknown),
                };
                let mut pairs = Vec::new();
                for p in named(arr)
                    .into_iter()
                    .filter(|c| !c.kind().contains("comment"))
                {
                    let p = strip_parens(p);
                    let kv = named(p);
                    if p.kind() != "tuple_expression" || kv.len() != 2 {
                        return Err("calls HashMap::from with an item that is not a pair".into());
                    }
                    let kt = kt.clone().or(self.synth(kv[0], src));
                    let vt = vt.clone().or(self.synth(kv[1], src));
                    pairs.push(format!(
                        "({}, {})",
                        self.expr(kv[0], src, &kt)?,
                        self.expr(kv[1], src, &vt)?
                    ));
                }
                // Later pairs replace earlier ones with the same key, as `HashMap::from`.
                return Ok(format!("dict([{}])", pairs.join(", ")));
            }
            _ => {}
        }
        if f.kind() == "field_expression" {
            let obj = self.field(f, "value")?;
            let method = text(self.field(f, "field")?, src);
            let ty = hint.clone().or(self.synth(obj, src));
            match (method, args.len()) {
                ("to_string", 0) => {
                    let t = self.synth(obj, src);
                    if matches!(t, Ty::Float(_)) {
                        return Err("formats a float with to_string".into());
                    }
                    return Ok(format!("_rs_str({})", self.expr(obj, src, &t)?));
                }
                ("to_owned" | "clone", 0) => return self.expr(obj, src, hint),
                ("abs", 0) => {
                    return Ok(format!(
                        "_rs_abs({}, {})",
                        self.expr(obj, src, &ty)?,
                        ty.kind()
                    ))
                }
                _ => {}
            }
        }
        Err(format!(
            "calls `{name}`, which is not the function under test ({})",
            self.entry
        ))
    }
}

fn strip_parens(mut n: Node<'_>) -> Node<'_> {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// The integer types a literal's suffix may name.
const INT_KINDS: [&str; 12] = [
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];

fn int_suffix(lit: &str) -> Option<&'static str> {
    let l = lit.to_ascii_lowercase();
    if l.starts_with("0x") && !l.contains('i') && !l.contains('u') {
        return None;
    }
    INT_KINDS.into_iter().find(|k| lit.ends_with(k))
}

/// The range of an integer type.
fn int_range(kind: &str) -> Option<(i128, u128)> {
    let bits: u32 = match kind.trim_start_matches(['i', 'u']) {
        "size" => 64,
        b => b.parse().ok()?,
    };
    Some(if kind.starts_with('i') {
        let lo = if bits == 128 {
            i128::MIN
        } else {
            -(1i128 << (bits - 1))
        };
        (lo, (1u128 << (bits - 1)) - 1)
    } else {
        (
            0,
            if bits == 128 {
                u128::MAX
            } else {
                (1u128 << bits) - 1
            },
        )
    })
}

/// A Rust integer literal (`42`, `0x1F`, `1_000u64`; `neg`: after a unary minus) as the Python
/// int of its value, or an error when it does not fit the type it has (Rust would not compile).
pub fn int_literal(lit: &str, hint: &Ty, neg: bool) -> Result<String, String> {
    let suffix = int_suffix(lit);
    let digits = lit[..lit.len() - suffix.map_or(0, str::len)].replace('_', "");
    let lower = digits.to_ascii_lowercase();
    let (body, radix) = if let Some(h) = lower.strip_prefix("0x") {
        (h.to_string(), 16)
    } else if let Some(o) = lower.strip_prefix("0o") {
        (o.to_string(), 8)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (b.to_string(), 2)
    } else {
        (lower.clone(), 10)
    };
    let v = u128::from_str_radix(&body, radix)
        .map_err(|_| format!("has the integer literal {lit}, which this reader cannot read"))?;
    let kind = match (suffix, hint) {
        (Some(k), _) => Some(k.to_string()),
        (None, Ty::Int(k)) => Some(k.clone()),
        (None, Ty::Float(_)) => {
            return Err(format!(
                "has the integer literal {lit} where a float is expected"
            ))
        }
        _ => None,
    };
    if let Some((lo, hi)) = kind.as_deref().and_then(int_range) {
        let fits = if neg {
            lo < 0 && v <= lo.unsigned_abs()
        } else {
            v <= hi
        };
        if !fits {
            return Err(format!(
                "has the literal {}{lit}, out of range for {}",
                if neg { "-" } else { "" },
                kind.unwrap_or_default()
            ));
        }
    }
    Ok(if neg && v != 0 {
        format!("-{v}")
    } else {
        v.to_string()
    })
}

/// A Rust float literal (`0.3`, `1e-6`, `2.5f32`; `neg`: after a unary minus) as the Python
/// float of the value Rust reads: an `f32` (by its suffix or its context) rounded to `f32`.
pub fn float_literal(lit: &str, hint: &Ty, neg: bool) -> Result<String, String> {
    let s = lit.replace('_', "");
    let (body, bits) = if let Some(b) = s.strip_suffix("f32") {
        (b.to_string(), 32)
    } else if let Some(b) = s.strip_suffix("f64") {
        (b.to_string(), 64)
    } else {
        (s.clone(), if *hint == Ty::Float(32) { 32 } else { 64 })
    };
    let bad = || format!("has the float literal {lit}, which this reader cannot read");
    let v = if bits == 32 {
        body.parse::<f32>().map_err(|_| bad())? as f64
    } else {
        body.parse::<f64>().map_err(|_| bad())?
    };
    let v = if neg { -v } else { v };
    Ok(if v.is_infinite() {
        format!("_es_math.copysign(_es_math.inf, {v:?})", v = v.signum())
    } else {
        format!("{v:?}")
    })
}

/// The value of a Rust string literal (`"a\n\u{e9}"`, with its quotes).
pub fn rust_string(lit: &str) -> Result<String, String> {
    if !lit.starts_with('"') {
        return Err(format!("has the string {lit}, which is not a str"));
    }
    unescape(&lit[1..lit.len().saturating_sub(1).max(1)], lit)
}

/// The value of a raw string literal (`r"a\b"`, `r#"a"b"#`).
pub fn raw_string(lit: &str) -> Result<String, String> {
    let t = lit
        .strip_prefix('r')
        .ok_or_else(|| format!("has the string {lit}, which is not a str"))?;
    let hashes = t.len() - t.trim_start_matches('#').len();
    let inner = &t[hashes..t.len() - hashes];
    Ok(inner[1..inner.len().saturating_sub(1).max(1)].to_string())
}

/// The value of a Rust char literal (`'a'`, `'\''`, `'\u{e9}'`), a one-character string.
pub fn rust_char(lit: &str) -> Result<String, String> {
    let s = unescape(&lit[1..lit.len().saturating_sub(1).max(1)], lit)?;
    if s.chars().count() != 1 {
        return Err(format!("has the char {lit}, which this reader cannot read"));
    }
    Ok(s)
}

fn unescape(inner: &str, lit: &str) -> Result<String, String> {
    let bad = || format!("has the literal {lit}, whose escapes this reader cannot read");
    let mut out = String::new();
    let mut cs = inner.chars().peekable();
    while let Some(c) = cs.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match cs.next().ok_or_else(bad)? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '0' => out.push('\0'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'x' => {
                let h: String = (0..2).filter_map(|_| cs.next()).collect();
                let v = u8::from_str_radix(&h, 16).map_err(|_| bad())?;
                if v > 0x7f {
                    return Err(bad());
                }
                out.push(v as char);
            }
            'u' => {
                if cs.next() != Some('{') {
                    return Err(bad());
                }
                let h: String = cs.by_ref().take_while(|&d| d != '}').collect();
                let v = u32::from_str_radix(&h.replace('_', ""), 16).map_err(|_| bad())?;
                out.push(char::from_u32(v).ok_or_else(bad)?);
            }
            '\n' => {
                // A line continuation: the newline and the next line's leading whitespace go.
                while cs.peek().is_some_and(|c| c.is_whitespace()) {
                    cs.next();
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
