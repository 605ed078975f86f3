//! HumanEval-X's Go tests (`test`: `func TestX(t *testing.T) { assert := assert.New(t);
//! assert.Equal(expected, F(...)); ... }`, testify's `assert`) as the judge's Python tests: each
//! assert one unit, its arguments translated to Python that reproduces Go's and testify's
//! semantics on the judge's side ([`SEMANTICS`]) and calls the function under test through the
//! foreign-call path as `candidate(...)`. No text of the test goes into the sandbox: the judge runs
//! the unit, the candidate only answers calls.
//!
//! Go's types are followed when the test is translated: every expression gets its static type
//! (an untyped constant its kind, typed where Go types it: by the other operand, the parameter or
//! element it fills, or its default type where an `interface{}` takes it), the function under
//! test's parameters and result from the task's declared signature. `assert.Equal` is testify's
//! `ObjectsAreEqual` (`reflect.DeepEqual`, so the types must be the same: `assert.Equal(3, F())`
//! fails when `F` answers a `float64`), with the two types passed to the judge beside the values;
//! integer arithmetic wraps and divides truncating, `len` of a string counts its UTF-8 bytes,
//! a conversion is Go's (`int(2.7)` is 2, `string(r)` a rune's text). Statements between the
//! asserts (`x := e`, `var x T`, `x = e`, `x += e`, `x++`, `for` with a clause or over a
//! `range`, `if`) are translated too, each one the setup of the asserts after it. Anything else
//! (a function literal, `rand`, a call of another function of the program, a rune or a non-basic
//! typed value where an `interface{}` takes it, a `nil` slice) is refused with its reason: the
//! caller falls back to HumanEval's Python check for that task.

use super::jsnative::py_str;
use crate::mutate::parse::parse_tree_in;
use execscope_record::Language;
use tree_sitter::Node;

/// The trusted judge-side definitions every unit starts with.
pub const SEMANTICS: &str = include_str!("../../assets/go_semantics.py");

/// The name the function under test is given inside a unit (`check(candidate)`).
const CANDIDATE: &str = "candidate";

/// The function under test's parameter types and result type, Go's spelling normalised
/// (`rune` is `int32`, `byte` `uint8`, `any` `interface{}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Signature {
    pub params: Vec<String>,
    pub result: String,
}

/// The signature of the function `entry` that the Go `program` defines (the task's declared
/// one: its canonical program), or why it cannot be used.
pub fn signature(program: &str, entry: &str) -> Result<Signature, String> {
    let tree = parse_tree_in(Language::Go, program);
    let root = tree.root_node();
    let f = named(root)
        .into_iter()
        .find(|n| {
            n.kind() == "function_declaration"
                && n.child_by_field_name("name")
                    .is_some_and(|x| text(x, program) == entry)
        })
        .ok_or_else(|| format!("has no function {entry} in the task's program"))?;
    let mut params = Vec::new();
    let plist = f
        .child_by_field_name("parameters")
        .ok_or("has a function under test without parameters")?;
    for p in named(plist) {
        match p.kind() {
            "parameter_declaration" => {
                let ty = go_type(
                    p.child_by_field_name("type")
                        .ok_or("has a parameter without a type")?,
                    program,
                )?;
                let mut c = p.walk();
                let names = p.children_by_field_name("name", &mut c).count().max(1);
                params.extend(std::iter::repeat_n(ty, names));
            }
            "comment" => {}
            _ => return Err("tests a variadic function".into()),
        }
    }
    let result = f
        .child_by_field_name("result")
        .ok_or("tests a function that answers nothing")?;
    let result = if result.kind() == "parameter_list" {
        let rs = named(result);
        match rs.as_slice() {
            [r] if r.child_by_field_name("name").is_none() => go_type(
                r.child_by_field_name("type")
                    .ok_or("has a result without a type")?,
                program,
            )?,
            _ => return Err("tests a function that answers more than one value".into()),
        }
    } else {
        go_type(result, program)?
    };
    Ok(Signature { params, result })
}

/// A type as the judge names it, or why it is not one this reader translates.
fn go_type(n: Node<'_>, src: &str) -> Result<String, String> {
    Ok(match n.kind() {
        "type_identifier" => match text(n, src) {
            "rune" | "int32" => "int32".into(),
            "byte" | "uint8" => "uint8".into(),
            "any" => "interface{}".into(),
            t @ ("int" | "int8" | "int16" | "int64" | "uint" | "uint16" | "uint32" | "uint64"
            | "float64" | "float32" | "string" | "bool") => t.into(),
            t => {
                return Err(format!(
                    "uses the type `{t}`, which this reader does not translate"
                ))
            }
        },
        "slice_type" => format!("[]{}", go_type(field(n, "element")?, src)?),
        "array_type" => {
            let len = field(n, "length")?;
            let v = if len.kind() == "int_literal" {
                int_value(text(len, src))?
            } else {
                return Err("has an array type whose length is not a literal".into());
            };
            format!("[{v}]{}", go_type(field(n, "element")?, src)?)
        }
        "map_type" => format!(
            "map[{}]{}",
            go_type(field(n, "key")?, src)?,
            go_type(field(n, "value")?, src)?
        ),
        "interface_type" if named(n).is_empty() => "interface{}".into(),
        "parenthesized_type" => go_type(n.named_child(0).ok_or("has empty parentheses")?, src)?,
        k => {
            return Err(format!(
                "uses a type this reader does not translate ({k}: {})",
                text(n, src)
            ))
        }
    })
}

/// The units of a Go `test` program whose function under test is `entry` with the signature
/// `sig`, or why the program cannot be translated (a short phrase: "defines a function literal").
pub fn tests(test: &str, entry: &str, sig: &Signature) -> Result<Vec<String>, String> {
    let tree = parse_tree_in(Language::Go, test);
    let root = tree.root_node();
    if root.has_error() {
        return Err("does not parse as Go".into());
    }
    let mut body = None;
    for st in named(root) {
        match st.kind() {
            "comment" => {}
            "function_declaration" if body.is_none() => {
                let name = text(field(st, "name")?, test);
                if !name.starts_with("Test") {
                    return Err(format!("defines the function {name} beside its test"));
                }
                let params = text(field(st, "parameters")?, test);
                if params.split_whitespace().collect::<String>() != "(t*testing.T)" {
                    return Err(
                        "has a test function whose parameters are not (t *testing.T)".into(),
                    );
                }
                body = Some(field(st, "body")?);
            }
            k => return Err(format!("has a top-level {k} beside the test function")),
        }
    }
    let block = body.ok_or("defines no test function")?;
    let mut t = Tr {
        src: test,
        entry,
        sig,
        vars: Vec::new(),
        asserter: false,
    };
    let mut setup: Vec<String> = Vec::new();
    let mut units = Vec::new();
    for st in statements(block) {
        let mut lines = Vec::new();
        t.statement(st, 1, &mut lines)?;
        if t.has_assert(st) {
            let mut body = setup.clone();
            body.extend(lines);
            units.push(unit(&body, entry));
        } else {
            setup.extend(lines);
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

/// A block's statements (its `statement_list`'s), comments and empty statements left out.
fn statements(block: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    for c in named(block) {
        if c.kind() == "statement_list" {
            out.extend(statements(c));
        } else if c.kind() != "comment" && c.kind() != "empty_statement" {
            out.push(c);
        }
    }
    out
}

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    &src[n.byte_range()]
}

fn field<'t>(n: Node<'t>, f: &str) -> Result<Node<'t>, String> {
    n.child_by_field_name(f)
        .ok_or_else(|| format!("has a {} without its {f}", n.kind()))
}

fn has_kind(n: Node<'_>, kinds: &[&str]) -> bool {
    kinds.contains(&n.kind()) || named(n).into_iter().any(|c| has_kind(c, kinds))
}

/// The asserts this reader translates: testify's name, and how many values each takes.
const ASSERTS: [(&str, usize); 5] = [
    ("Equal", 2),
    ("NotEqual", 2),
    ("InDelta", 3),
    ("True", 1),
    ("False", 1),
];

fn untyped(t: &str) -> bool {
    t.starts_with("untyped") || t == "nil"
}

fn is_int(t: &str) -> bool {
    matches!(
        t,
        "int"
            | "int8"
            | "int16"
            | "int32"
            | "int64"
            | "uint"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
    )
}

fn is_numeric(t: &str) -> bool {
    is_int(t) || t == "float64" || t == "float32"
}

/// An untyped constant's default type (`x := 1` is an `int`).
fn default_type(t: &str) -> &str {
    match t {
        "untyped int" => "int",
        "untyped float" => "float64",
        "untyped rune" => "int32",
        "untyped string" => "string",
        "untyped bool" => "bool",
        t => t,
    }
}

/// A type's zero value in Python, or why it has none this reader gives (a nil slice or map).
fn zero(t: &str) -> Result<String, String> {
    Ok(match t {
        "string" => "''".into(),
        "bool" => "False".into(),
        "float64" | "float32" => "0.0".into(),
        "interface{}" => "None".into(),
        t if is_int(t) => "0".into(),
        t => {
            return Err(format!(
                "has a zero {t}, a nil value the answer cannot be told from"
            ))
        }
    })
}

struct Tr<'a> {
    src: &'a str,
    entry: &'a str,
    sig: &'a Signature,
    /// The test's own variables (`_v_<name>` in Python) and their types.
    vars: Vec<(String, String)>,
    /// Whether `assert := assert.New(t)` has been seen (`assert.Equal(e, a)`; else testify's
    /// package functions, `assert.Equal(t, e, a)`).
    asserter: bool,
}

/// A translated expression: Python code and its Go type.
type E = (String, String);

impl<'a> Tr<'a> {
    fn t(&self, n: Node<'_>) -> &'a str {
        text(n, self.src)
    }

    /// Is `n` (or a node inside it) a call of one of testify's asserts?
    fn has_assert(&self, n: Node<'_>) -> bool {
        if n.kind() == "call_expression" && self.assert_name(n).is_some_and(|a| a != "New") {
            return true;
        }
        named(n).into_iter().any(|c| self.has_assert(c))
    }

    /// `assert.Equal(...)`: "Equal".
    fn assert_name(&self, call: Node<'_>) -> Option<&str> {
        let f = call.child_by_field_name("function")?;
        if f.kind() != "selector_expression" {
            return None;
        }
        let op = f.child_by_field_name("operand")?;
        if self.t(op) != "assert" {
            return None;
        }
        Some(self.t(f.child_by_field_name("field")?))
    }

    fn var_type(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// Declares `name` of type `ty`; a name declared again must keep its type (the test's
    /// scopes are one Python function's).
    fn declare(&mut self, name: &str, ty: &str) -> Result<String, String> {
        if name == "_" {
            return Err("assigns to `_`".into());
        }
        if matches!(name, "assert" | "t" | "math" | "strconv" | "len" | "append") {
            return Err(format!("declares a variable named `{name}`"));
        }
        match self.var_type(name) {
            Some(t) if t != ty => Err(format!(
                "declares `{name}` again with another type ({t}, then {ty})"
            )),
            Some(_) => Ok(format!("_v_{name}")),
            None => {
                self.vars.push((name.to_string(), ty.to_string()));
                Ok(format!("_v_{name}"))
            }
        }
    }

    fn statement(
        &mut self,
        st: Node<'_>,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), String> {
        let pad = "    ".repeat(depth);
        match st.kind() {
            "comment" | "empty_statement" => {}
            "block" => {
                for s in statements(st) {
                    self.statement(s, depth, out)?;
                }
            }
            "short_var_declaration" => {
                let left = named(field(st, "left")?);
                let right = named(field(st, "right")?);
                if self.t(st).split_whitespace().collect::<String>() == "assert:=assert.New(t)" {
                    self.asserter = true;
                    return Ok(());
                }
                if left.len() != right.len() {
                    return Err("declares several variables from one call".into());
                }
                let mut names = Vec::new();
                let mut values = Vec::new();
                for (l, r) in left.iter().zip(&right) {
                    if l.kind() != "identifier" {
                        return Err("declares something that is not a name".into());
                    }
                    let (code, ty0) = self.expr(*r)?;
                    let ty = default_type(&ty0).to_string();
                    if ty == "nil" {
                        return Err("declares a variable from an untyped nil".into());
                    }
                    let code = self.fit((code, ty0), &ty)?;
                    values.push(code);
                    names.push((self.t(*l).to_string(), ty));
                }
                let mut pys = Vec::new();
                for (n, ty) in names {
                    pys.push(self.declare(&n, &ty)?);
                }
                out.push(format!("{pad}{} = {}", pys.join(", "), values.join(", ")));
            }
            "var_declaration" => {
                for spec in named(st) {
                    let specs = if spec.kind() == "var_spec_list" {
                        named(spec)
                    } else {
                        vec![spec]
                    };
                    for s in specs.into_iter().filter(|s| s.kind() == "var_spec") {
                        self.var_spec(s, depth, out)?;
                    }
                }
            }
            "assignment_statement" => {
                let left = named(field(st, "left")?);
                let right = named(field(st, "right")?);
                let op = self.t(field(st, "operator")?).to_string();
                if left.len() != 1 || right.len() != 1 {
                    return Err("assigns several values at once".into());
                }
                let (v, ty) = self.target(left[0])?;
                let r = self.expr(right[0])?;
                if op == "=" {
                    let r = self.fit(r, &ty)?;
                    out.push(format!("{pad}{v} = {r}"));
                } else {
                    let bop = op.trim_end_matches('=');
                    let code = self.arith(bop, (v.clone(), ty.clone()), r)?.0;
                    out.push(format!("{pad}{v} = {code}"));
                }
            }
            "inc_statement" | "dec_statement" => {
                let arg = st.named_child(0).ok_or("has an empty ++")?;
                let (v, ty) = self.target(arg)?;
                if !is_numeric(&ty) {
                    return Err(format!("increments a {ty}"));
                }
                let op = if st.kind() == "inc_statement" {
                    "+"
                } else {
                    "-"
                };
                out.push(format!("{pad}{v} = _go_bin('{op}', '{ty}', {v}, 1)"));
            }
            "expression_statement" => {
                let e = st.named_child(0).ok_or("has an empty statement")?;
                if e.kind() != "call_expression" || self.assert_name(e).is_none() {
                    return Err(format!(
                        "has a statement that is no assert: `{}`",
                        first_line(self.t(e))
                    ));
                }
                out.push(format!("{pad}{}", self.assertion(e)?));
            }
            "if_statement" => {
                if st.child_by_field_name("initializer").is_some() {
                    return Err("has an if with an initializer".into());
                }
                let cond = self.expr(field(st, "condition")?)?;
                let cond = self.fit(cond, "bool")?;
                out.push(format!("{pad}if {cond}:"));
                self.block(field(st, "consequence")?, depth + 1, out)?;
                if let Some(alt) = st.child_by_field_name("alternative") {
                    out.push(format!("{pad}else:"));
                    if alt.kind() == "if_statement" {
                        self.statement(alt, depth + 1, out)?;
                    } else {
                        self.block(alt, depth + 1, out)?;
                    }
                }
            }
            "for_statement" => self.for_loop(st, depth, out)?,
            "func_literal" => return Err("defines a function literal".into()),
            k => {
                return Err(format!(
                    "has a statement this reader does not translate ({k})"
                ))
            }
        }
        Ok(())
    }

    /// `var x T`, `var x = e`, `var x T = e`.
    fn var_spec(&mut self, s: Node<'_>, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
        let pad = "    ".repeat(depth);
        let mut c = s.walk();
        let names: Vec<String> = s
            .children_by_field_name("name", &mut c)
            .map(|n| self.t(n).to_string())
            .collect();
        let ty = match s.child_by_field_name("type") {
            Some(t) => Some(go_type(t, self.src)?),
            None => None,
        };
        let values = match s.child_by_field_name("value") {
            Some(v) => named(v),
            None => Vec::new(),
        };
        if !values.is_empty() && values.len() != names.len() {
            return Err("declares several variables from one call".into());
        }
        for (i, name) in names.iter().enumerate() {
            let (code, t) = match (values.get(i), &ty) {
                (Some(v), Some(t)) => {
                    let e = self.expr(*v)?;
                    (self.fit(e, t)?, t.clone())
                }
                (Some(v), None) => {
                    let (code, t) = self.expr(*v)?;
                    let d = default_type(&t).to_string();
                    if d == "nil" {
                        return Err("declares a variable from an untyped nil".into());
                    }
                    (self.fit((code, t), &d)?, d)
                }
                (None, Some(t)) => (zero(t)?, t.clone()),
                (None, None) => return Err("declares a variable without a type".into()),
            };
            let v = self.declare(name, &t)?;
            out.push(format!("{pad}{v} = {code}"));
        }
        Ok(())
    }

    /// A variable assigned to: its Python name and type.
    fn target(&self, n: Node<'_>) -> Result<(String, String), String> {
        let name = self.t(n);
        match (n.kind(), self.var_type(name)) {
            ("identifier", Some(t)) => Ok((format!("_v_{name}"), t.to_string())),
            _ => Err(format!("assigns to `{name}`, not a variable of the test")),
        }
    }

    /// A nested block: at least `pass`.
    fn block(&mut self, st: Node<'_>, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
        let before = out.len();
        self.statement(st, depth, out)?;
        if out.len() == before {
            out.push(format!("{}pass", "    ".repeat(depth)));
        }
        Ok(())
    }

    fn for_loop(
        &mut self,
        st: Node<'_>,
        depth: usize,
        out: &mut Vec<String>,
    ) -> Result<(), String> {
        let pad = "    ".repeat(depth);
        let body = field(st, "body")?;
        if has_kind(
            body,
            &[
                "break_statement",
                "continue_statement",
                "return_statement",
                "goto_statement",
                "labeled_statement",
            ],
        ) {
            return Err("leaves a loop by break, continue, return or goto".into());
        }
        let head = named(st)
            .into_iter()
            .find(|c| c.kind() != "block" && c.kind() != "comment")
            .ok_or("has a for loop without a condition")?;
        match head.kind() {
            "for_clause" => {
                if let Some(init) = head.child_by_field_name("initializer") {
                    self.statement(init, depth, out)?;
                }
                let cond = self.expr(field(head, "condition")?)?;
                let cond = self.fit(cond, "bool")?;
                out.push(format!("{pad}while {cond}:"));
                self.block(body, depth + 1, out)?;
                if let Some(update) = head.child_by_field_name("update") {
                    self.statement(update, depth + 1, out)?;
                }
            }
            "range_clause" => {
                let right = self.expr(field(head, "right")?)?;
                let elem = match right.1.strip_prefix("[]") {
                    Some(e) if e != "uint8" => e.to_string(),
                    _ => return Err(format!("ranges over a {}", right.1)),
                };
                let left = match head.child_by_field_name("left") {
                    Some(l) => named(l),
                    None => Vec::new(),
                };
                let names: Vec<&str> = left.iter().map(|n| self.t(*n)).collect();
                let line = match names.as_slice() {
                    [] => format!("for _ in {}:", right.0),
                    [i] => {
                        let i = self.declare(i, "int")?;
                        format!("for {i} in range(len({})):", right.0)
                    }
                    ["_", x] => {
                        let x = self.declare(x, &elem)?;
                        format!("for {x} in list({}):", right.0)
                    }
                    [i, x] => {
                        let i = self.declare(i, "int")?;
                        let x = self.declare(x, &elem)?;
                        format!("for {i}, {x} in enumerate(list({})):", right.0)
                    }
                    _ => return Err("ranges into more than two names".into()),
                };
                out.push(format!("{pad}{line}"));
                self.block(body, depth + 1, out)?;
            }
            _ => {
                let cond = self.expr(head)?;
                let cond = self.fit(cond, "bool")?;
                out.push(format!("{pad}while {cond}:"));
                self.block(body, depth + 1, out)?;
            }
        }
        Ok(())
    }

    /// One of testify's asserts as a Python `assert`.
    fn assertion(&mut self, call: Node<'_>) -> Result<String, String> {
        let name = self.assert_name(call).unwrap_or_default().to_string();
        let mut args = named(field(call, "arguments")?);
        args.retain(|a| a.kind() != "comment");
        if !self.asserter {
            // testify's package functions take the test first: `assert.Equal(t, e, a)`.
            if args.first().map(|a| self.t(*a)) != Some("t") {
                return Err(format!("calls assert.{name} without its *testing.T"));
            }
            args.remove(0);
        }
        let Some(&(_, n)) = ASSERTS.iter().find(|(a, _)| *a == name) else {
            return Err(format!(
                "calls assert.{name}, which this reader does not translate"
            ));
        };
        // testify's `msgAndArgs` after the values only word a failure: literals are left out
        // (they have no effect); any other expression is refused (Go evaluates it).
        if args.len() < n {
            return Err(format!("calls assert.{name} with too few arguments"));
        }
        if args[n..].iter().any(|a| {
            !matches!(
                a.kind(),
                "interpreted_string_literal" | "raw_string_literal" | "int_literal"
            )
        }) {
            return Err(format!(
                "calls assert.{name} with a message that is not a literal"
            ));
        }
        args.truncate(n);
        // Each value is passed as an interface{}: an untyped constant takes its default type
        // (a rune's is int32); the judge is given the static type beside the value.
        let mut vals = Vec::new();
        for a in args {
            let e = self.expr(a)?;
            if e.1 == "nil" {
                vals.push(("None".to_string(), "nil".to_string()));
                continue;
            }
            let ty = default_type(&e.1).to_string();
            let code = self.fit(e, &ty)?;
            vals.push((code, ty));
        }
        let pair = |i: usize| format!("'{}', {}", vals[i].1, vals[i].0);
        Ok(match name.as_str() {
            "Equal" => format!("assert _go_equal({}, {})", pair(0), pair(1)),
            "NotEqual" => format!("assert not _go_equal({}, {})", pair(0), pair(1)),
            "InDelta" => format!("assert _go_indelta({}, {}, {})", pair(0), pair(1), pair(2)),
            // assert.True(value bool): a bool argument, else it does not compile.
            "True" | "False" => {
                if vals[0].1 != "bool" {
                    return Err(format!("calls assert.{name} on a {}", vals[0].1));
                }
                let not = if name == "False" { "not " } else { "" };
                format!("assert {not}{}", vals[0].0)
            }
            _ => unreachable!("ASSERTS names each translated assert"),
        })
    }

    /// `e` given the type `to` (an untyped constant converted, a value put in an `interface{}`),
    /// or why Go would not compile it or the value would not cross as it is.
    fn fit(&self, e: E, to: &str) -> Result<String, String> {
        let (code, ty) = e;
        if ty == to {
            return Ok(code);
        }
        if to == "interface{}" {
            return match ty.as_str() {
                "nil" => Ok("None".into()),
                "untyped int"
                | "int"
                | "untyped string"
                | "string"
                | "untyped bool"
                | "bool"
                | "float64"
                | "[]interface{}"
                | "map[interface{}]interface{}" => Ok(code),
                "untyped float" => Ok(format!("_go_conv('float64', {code})")),
                t => Err(format!(
                    "puts a {} in an interface{{}}, whose type the value does not carry across",
                    t.trim_start_matches("untyped ")
                )),
            };
        }
        if ty == "nil" {
            return Err(format!(
                "uses nil as a {to} (a nil slice or map crosses as an empty one)"
            ));
        }
        let numeric_const = matches!(
            ty.as_str(),
            "untyped int" | "untyped float" | "untyped rune"
        );
        if numeric_const && is_numeric(to) {
            return Ok(format!("_go_conv('{to}', {code})"));
        }
        if (ty == "untyped string" && to == "string") || (ty == "untyped bool" && to == "bool") {
            return Ok(code);
        }
        Err(format!("uses a {ty} where a {to} is needed"))
    }

    fn expr(&mut self, n: Node<'_>) -> Result<E, String> {
        Ok(match n.kind() {
            "parenthesized_expression" => {
                let (c, t) = self.expr(n.named_child(0).ok_or("has empty parentheses")?)?;
                (format!("({c})"), t)
            }
            "int_literal" => (int_value(self.t(n))?, "untyped int".into()),
            "float_literal" => (float_value(self.t(n))?, "untyped float".into()),
            "rune_literal" => (rune_value(self.t(n))?.to_string(), "untyped rune".into()),
            "interpreted_string_literal" | "raw_string_literal" => {
                (py_str(&string_value(self.t(n))?), "untyped string".into())
            }
            "true" => ("True".into(), "untyped bool".into()),
            "false" => ("False".into(), "untyped bool".into()),
            "nil" => ("None".into(), "nil".into()),
            "identifier" => {
                let name = self.t(n);
                match self.var_type(name) {
                    Some(t) => (format!("_v_{name}"), t.to_string()),
                    None => {
                        return Err(format!(
                            "uses `{name}`, which is not a variable of the test"
                        ))
                    }
                }
            }
            "composite_literal" => {
                let ty = self.literal_type(field(n, "type")?, field(n, "body")?)?;
                (self.composite(field(n, "body")?, &ty)?, ty)
            }
            "unary_expression" => {
                let op = self.t(field(n, "operator")?).to_string();
                let (c, t) = self.expr(field(n, "operand")?)?;
                match op.as_str() {
                    "-" if t.starts_with("untyped") && t != "untyped string" => {
                        (format!("(-{c})"), t)
                    }
                    "-" if is_numeric(&t) => (format!("_go_neg('{t}', {c})"), t),
                    "+" if is_numeric(&t) || t.starts_with("untyped") => (c, t),
                    "!" if t == "bool" || t == "untyped bool" => (format!("(not {c})"), t),
                    o => return Err(format!("has the unary operator `{o}` on a {t}")),
                }
            }
            "binary_expression" => {
                let op = self.t(field(n, "operator")?).to_string();
                let a = self.expr(field(n, "left")?)?;
                let b = self.expr(field(n, "right")?)?;
                match op.as_str() {
                    "&&" | "||" => {
                        let both_untyped = a.1 == "untyped bool" && b.1 == "untyped bool";
                        let a = self.fit(a, "bool")?;
                        let b = self.fit(b, "bool")?;
                        let py = if op == "&&" { "and" } else { "or" };
                        let t = if both_untyped { "untyped bool" } else { "bool" };
                        (format!("({a} {py} {b})"), t.into())
                    }
                    "==" | "!=" | "<" | "<=" | ">" | ">=" => {
                        let (ty, a, b) = self.unify(a, b)?;
                        let ordered = is_numeric(&ty)
                            || ty == "string"
                            || (ty.starts_with("untyped") && ty != "untyped bool");
                        let comparable = ordered || ty == "bool" || ty == "untyped bool";
                        if !comparable || (!ordered && op != "==" && op != "!=") {
                            return Err(format!("compares {ty} values with `{op}`"));
                        }
                        (
                            format!("_go_bin('{op}', '{ty}', {a}, {b})"),
                            "untyped bool".into(),
                        )
                    }
                    _ => self.arith(&op, a, b)?,
                }
            }
            "call_expression" => self.call(n)?,
            "type_conversion_expression" => {
                let to = go_type(field(n, "type")?, self.src)?;
                let e = self.expr(field(n, "operand")?)?;
                self.convert(&to, e)?
            }
            "index_expression" => {
                let (c, t) = self.expr(field(n, "operand")?)?;
                let i = self.expr(field(n, "index")?)?;
                let i = self.fit(i, "int")?;
                let elem = if t == "string" || t == "untyped string" {
                    "uint8".to_string()
                } else if let Some(e) = t.strip_prefix("[]") {
                    e.to_string()
                } else if t.starts_with('[') {
                    t[t.find(']').map_or(0, |p| p + 1)..].to_string()
                } else {
                    return Err(format!("indexes a {t}"));
                };
                (format!("_go_index({c}, {i})"), elem)
            }
            "func_literal" => return Err("defines a function literal".into()),
            k => {
                return Err(format!(
                    "has an expression this reader does not translate ({k}: `{}`)",
                    first_line(self.t(n))
                ))
            }
        })
    }

    /// The common type of a binary operator's operands, and both as Python code of it.
    fn unify(&self, a: E, b: E) -> Result<(String, String, String), String> {
        let rank = |t: &str| match t {
            "untyped int" => Some(0),
            "untyped rune" => Some(1),
            "untyped float" => Some(2),
            _ => None,
        };
        if a.1 == "nil" || b.1 == "nil" {
            return Err("compares with nil".into());
        }
        if untyped(&a.1) && untyped(&b.1) {
            let ty = match (rank(&a.1), rank(&b.1)) {
                (Some(x), Some(y)) => {
                    if x >= y {
                        a.1.clone()
                    } else {
                        b.1.clone()
                    }
                }
                _ if a.1 == b.1 => a.1.clone(),
                _ => return Err(format!("mixes a {} and a {}", a.1, b.1)),
            };
            return Ok((ty, a.0, b.0));
        }
        let ty = if untyped(&a.1) {
            b.1.clone()
        } else {
            a.1.clone()
        };
        let ca = self.fit(a, &ty)?;
        let cb = self.fit(b, &ty)?;
        Ok((ty, ca, cb))
    }

    /// `a op b` for `+ - * / %`.
    fn arith(&self, op: &str, a: E, b: E) -> Result<E, String> {
        if !matches!(op, "+" | "-" | "*" | "/" | "%") {
            return Err(format!("has the operator `{op}`"));
        }
        let (ty, a, b) = self.unify(a, b)?;
        let float = matches!(ty.as_str(), "float64" | "float32" | "untyped float");
        let ok = match op {
            "+" => is_numeric(&ty) || ty == "string" || (untyped(&ty) && ty != "untyped bool"),
            "%" => !float && (is_int(&ty) || ty == "untyped int" || ty == "untyped rune"),
            _ => {
                is_numeric(&ty)
                    || matches!(
                        ty.as_str(),
                        "untyped int" | "untyped rune" | "untyped float"
                    )
            }
        };
        if !ok {
            return Err(format!("has `{op}` on a {ty}"));
        }
        Ok((format!("_go_bin('{op}', '{ty}', {a}, {b})"), ty))
    }

    /// A conversion `T(e)`.
    fn convert(&self, to: &str, e: E) -> Result<E, String> {
        let from = default_type(&e.1).to_string();
        let ok = (is_numeric(to) && (is_numeric(&from) || from == "int32"))
            || (to == "string"
                && (is_int(&from) || from == "string" || from == "[]int32" || from == "[]uint8"))
            || ((to == "[]int32" || to == "[]uint8") && from == "string")
            || to == from;
        if !ok {
            return Err(format!("converts a {} to {to}", e.1));
        }
        Ok((format!("_go_conv('{to}', {})", e.0), to.to_string()))
    }

    /// The type of a composite literal (`[...]T` counted from its body).
    fn literal_type(&self, ty: Node<'_>, body: Node<'_>) -> Result<String, String> {
        if ty.kind() == "implicit_length_array_type" {
            let elem = ty
                .child_by_field_name("element")
                .ok_or("has an array type without an element")?;
            let n = named(body)
                .into_iter()
                .filter(|c| c.kind() != "comment")
                .count();
            return Ok(format!("[{n}]{}", go_type(elem, self.src)?));
        }
        go_type(ty, self.src)
    }

    /// A composite literal's value of type `ty` (a slice a list, an array a tuple, a map a dict).
    fn composite(&mut self, body: Node<'_>, ty: &str) -> Result<String, String> {
        let items: Vec<Node<'_>> = named(body)
            .into_iter()
            .filter(|c| c.kind() != "comment")
            .collect();
        if let Some(rest) = ty.strip_prefix("map[") {
            let (k, v) = split_map(rest)?;
            let mut out = Vec::new();
            for it in items {
                if it.kind() != "keyed_element" {
                    return Err("has a map literal element without a key".into());
                }
                let key = self.element(field(it, "key")?, &k)?;
                let val = self.element(field(it, "value")?, &v)?;
                out.push(format!("{key}: {val}"));
            }
            return Ok(format!("{{{}}}", out.join(", ")));
        }
        let (elem, len) = if let Some(e) = ty.strip_prefix("[]") {
            (e.to_string(), None)
        } else if ty.starts_with('[') {
            let close = ty.find(']').ok_or("has a malformed array type")?;
            let n: usize = ty[1..close]
                .parse()
                .map_err(|_| "has an array type whose length is not a number".to_string())?;
            (ty[close + 1..].to_string(), Some(n))
        } else {
            return Err(format!("has a composite literal of type {ty}"));
        };
        let mut out = Vec::new();
        for it in items {
            if it.kind() == "keyed_element" {
                return Err("has an indexed element in a slice or array literal".into());
            }
            out.push(self.element(it, &elem)?);
        }
        match len {
            Some(n) => {
                // The elements not given are the type's zero value.
                if out.len() > n {
                    return Err("has an array literal longer than its type".into());
                }
                while out.len() < n {
                    out.push(zero(&elem)?);
                }
                Ok(format!(
                    "({}{})",
                    out.join(", "),
                    if n == 1 { "," } else { "" }
                ))
            }
            None if elem == "uint8" => Ok(format!("bytes([{}])", out.join(", "))),
            None => Ok(format!("[{}]", out.join(", "))),
        }
    }

    /// One element of a composite literal, of type `ty` (`{1, 2}` with its type left out).
    fn element(&mut self, n: Node<'_>, ty: &str) -> Result<String, String> {
        let inner = if n.kind() == "literal_element" {
            n.named_child(0).ok_or("has an empty literal element")?
        } else {
            n
        };
        if inner.kind() == "literal_value" {
            return self.composite(inner, ty);
        }
        let e = self.expr(inner)?;
        self.fit(e, ty)
    }

    /// `make([]T, n)` (n zero values), `make(map[K]V)`.
    fn make(&mut self, n: Node<'_>) -> Result<E, String> {
        let args: Vec<Node<'_>> = named(field(n, "arguments")?)
            .into_iter()
            .filter(|a| a.kind() != "comment")
            .collect();
        let ty = go_type(*args.first().ok_or("calls make without a type")?, self.src)?;
        if ty.starts_with("map[") {
            return Ok(("{}".into(), ty));
        }
        let elem = ty
            .strip_prefix("[]")
            .ok_or_else(|| format!("makes a {ty}"))?
            .to_string();
        let len = args.get(1).ok_or("makes a slice without a length")?;
        let len = self.expr(*len)?;
        let len = self.fit(len, "int")?;
        Ok((format!("([{}] * {len})", zero(&elem)?), ty))
    }

    fn call(&mut self, n: Node<'_>) -> Result<E, String> {
        let f = field(n, "function")?;
        let name = self.t(f).to_string();
        if name == "make" {
            return self.make(n);
        }
        let mut arg_nodes = named(field(n, "arguments")?);
        arg_nodes.retain(|a| a.kind() != "comment");
        if arg_nodes.iter().any(|a| a.kind() == "variadic_argument")
            || self.t(field(n, "arguments")?).contains("...")
        {
            return Err("passes a slice as variadic arguments".into());
        }
        if f.kind() == "identifier" && name == self.entry {
            let sig = self.sig.clone();
            if arg_nodes.len() != sig.params.len() {
                return Err(format!(
                    "calls {name} with {} arguments, not {}",
                    arg_nodes.len(),
                    sig.params.len()
                ));
            }
            let mut args = Vec::new();
            for (a, p) in arg_nodes.iter().zip(&sig.params) {
                let e = self.expr(*a)?;
                args.push(self.fit(e, p)?);
            }
            return Ok((
                format!(
                    "_go_ans('{}', {CANDIDATE}({}))",
                    sig.result,
                    args.join(", ")
                ),
                sig.result,
            ));
        }
        // A conversion written as a call: `float64(x)`, `string(r)`, `[]rune(s)`.
        let as_type = match f.kind() {
            "identifier" => match name.as_str() {
                "int" | "int8" | "int16" | "int32" | "int64" | "uint" | "uint8" | "uint16"
                | "uint32" | "uint64" | "float64" | "float32" | "string" | "rune" | "byte" => {
                    Some(match name.as_str() {
                        "rune" => "int32".to_string(),
                        "byte" => "uint8".to_string(),
                        n => n.to_string(),
                    })
                }
                _ => None,
            },
            "slice_type" | "array_type" | "parenthesized_type" => Some(go_type(f, self.src)?),
            _ => None,
        };
        let mut args = Vec::new();
        for a in &arg_nodes {
            args.push(self.expr(*a)?);
        }
        let one = |what: &str| -> Result<E, String> {
            match args.as_slice() {
                [a] => Ok(a.clone()),
                _ => Err(format!("calls {what} with {} arguments", args.len())),
            }
        };
        if let Some(to) = as_type {
            return self.convert(&to, one(&name)?);
        }
        let float1 = |this: &Self, py: &str| -> Result<E, String> {
            let a = this.fit(one(&name)?, "float64")?;
            Ok((format!("{py}({a})"), "float64".into()))
        };
        Ok(match name.as_str() {
            "len" => {
                let (c, t) = one("len")?;
                if !(t == "string"
                    || t == "untyped string"
                    || t.starts_with('[')
                    || t.starts_with("map["))
                {
                    return Err(format!("takes len of a {t}"));
                }
                (format!("_go_len({c})"), "int".into())
            }
            "append" => {
                let mut it = args.into_iter();
                let (s, t) = it.next().ok_or("calls append without a slice")?;
                let elem = t
                    .strip_prefix("[]")
                    .ok_or_else(|| format!("appends to a {t}"))?
                    .to_string();
                let mut items = Vec::new();
                for a in it {
                    items.push(self.fit(a, &elem)?);
                }
                (format!("({s} + [{}])", items.join(", ")), t)
            }
            "math.Abs" => float1(self, "_go_abs")?,
            "math.Sqrt" => float1(self, "_go_sqrt")?,
            "math.Floor" => {
                float1(self, "_go_math.floor").map(|(c, t)| (format!("float({c})"), t))?
            }
            "math.Ceil" => {
                float1(self, "_go_math.ceil").map(|(c, t)| (format!("float({c})"), t))?
            }
            "math.Pow" | "math.Mod" => {
                let [a, b] = args.as_slice() else {
                    return Err(format!("calls {name} with {} arguments", args.len()));
                };
                let a = self.fit(a.clone(), "float64")?;
                let b = self.fit(b.clone(), "float64")?;
                let py = if name == "math.Pow" {
                    "_go_pow"
                } else {
                    "_go_mod"
                };
                (format!("{py}({a}, {b})"), "float64".into())
            }
            "strconv.Itoa" => {
                let a = self.fit(one(&name)?, "int")?;
                (format!("str({a})"), "string".into())
            }
            _ => {
                return Err(format!(
                    "calls `{name}`, which is not the function under test ({})",
                    self.entry
                ))
            }
        })
    }
}

/// `K]V` (a map type after its `map[`): the key and value types.
fn split_map(rest: &str) -> Result<(String, String), String> {
    let mut depth = 0;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Ok((rest[..i].to_string(), rest[i + 1..].to_string())),
            ']' => depth -= 1,
            _ => {}
        }
    }
    Err(format!("has a malformed map type map[{rest}"))
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

/// A Go integer literal's value in decimal (`0x1F`, `0o17`, `017`, `0b101`, `1_000`).
pub fn int_value(lit: &str) -> Result<String, String> {
    let s = lit.replace('_', "").to_ascii_lowercase();
    let bad = || format!("has the integer literal {lit}, which this reader cannot read");
    let v = if let Some(h) = s.strip_prefix("0x") {
        u128::from_str_radix(h, 16)
    } else if let Some(o) = s.strip_prefix("0o") {
        u128::from_str_radix(o, 8)
    } else if let Some(b) = s.strip_prefix("0b") {
        u128::from_str_radix(b, 2)
    } else if s.len() > 1 && s.starts_with('0') {
        u128::from_str_radix(&s[1..], 8)
    } else {
        s.parse::<u128>()
    };
    v.map(|v| v.to_string()).map_err(|_| bad())
}

/// A Go float literal as Python's literal of its value (`1e-6`, `.5`, `3.`).
pub fn float_value(lit: &str) -> Result<String, String> {
    let s = lit.replace('_', "");
    if s.to_ascii_lowercase().starts_with("0x") {
        return Err(format!("has the hexadecimal float {lit}"));
    }
    let v: f64 = s
        .parse()
        .map_err(|_| format!("has the float literal {lit}, which this reader cannot read"))?;
    if v.is_infinite() {
        return Err(format!("has the float literal {lit}, beyond a float64"));
    }
    Ok(format!("{v:?}"))
}

/// The bytes of an escape after its backslash, from `cs`: a byte (`\x41`, `\101`) or a code
/// point's UTF-8 (`\u00e9`); `quote` is the one quote the literal may escape.
fn escape(cs: &mut std::iter::Peekable<std::str::Chars<'_>>, quote: char) -> Option<Vec<u8>> {
    let e = cs.next()?;
    let simple = |c: char| Some(vec![c as u8]);
    match e {
        'a' => simple('\u{7}'),
        'b' => simple('\u{8}'),
        'f' => simple('\u{c}'),
        'n' => simple('\n'),
        'r' => simple('\r'),
        't' => simple('\t'),
        'v' => simple('\u{b}'),
        '\\' => simple('\\'),
        c if c == quote => simple(c),
        'x' => {
            let h: String = (0..2).filter_map(|_| cs.next()).collect();
            u8::from_str_radix(&h, 16).ok().map(|b| vec![b])
        }
        '0'..='7' => {
            let mut o = String::from(e);
            o.extend((0..2).filter_map(|_| cs.next()));
            u8::from_str_radix(&o, 8).ok().map(|b| vec![b])
        }
        'u' | 'U' => {
            let n = if e == 'u' { 4 } else { 8 };
            let h: String = (0..n).filter_map(|_| cs.next()).collect();
            let c = char::from_u32(u32::from_str_radix(&h, 16).ok()?)?;
            Some(c.to_string().into_bytes())
        }
        _ => None,
    }
}

/// A Go string literal's value (interpreted `"..."` or raw `` `...` ``).
pub fn string_value(lit: &str) -> Result<String, String> {
    let bad = || format!("has the string {lit}, whose escapes this reader cannot read");
    if let Some(raw) = lit.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        return Ok(raw.replace('\r', ""));
    }
    let inner = lit
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(bad)?;
    let mut bytes = Vec::new();
    let mut cs = inner.chars().peekable();
    while let Some(c) = cs.next() {
        if c == '\\' {
            bytes.extend(escape(&mut cs, '"').ok_or_else(bad)?);
        } else {
            bytes.extend(c.to_string().bytes());
        }
    }
    String::from_utf8(bytes).map_err(|_| format!("has the string {lit}, which is not UTF-8"))
}

/// A Go rune literal's code point (`'a'`, `'\n'`, `'\x41'`, `'\u00e9'`).
pub fn rune_value(lit: &str) -> Result<u32, String> {
    let bad = || format!("has the rune {lit}, which this reader cannot read");
    let inner = lit
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .ok_or_else(bad)?;
    let mut cs = inner.chars().peekable();
    let c = cs.next().ok_or_else(bad)?;
    let v = if c == '\\' {
        let b = escape(&mut cs, '\'').ok_or_else(bad)?;
        match std::str::from_utf8(&b) {
            Ok(s) if s.chars().count() == 1 => s.chars().next().map_or(0, |c| c as u32),
            // `'\xff'` is the rune 255, not a byte of UTF-8.
            _ if b.len() == 1 => b[0] as u32,
            _ => return Err(bad()),
        }
    } else {
        c as u32
    };
    if cs.next().is_some() {
        return Err(bad());
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
