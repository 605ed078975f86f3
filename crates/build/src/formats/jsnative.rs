//! HumanEval-X's JavaScript tests (`test`: a function of `console.assert(<expr>)` calls, then its
//! call) as the judge's Python tests: each `console.assert` one unit, its expression translated to
//! Python that reproduces JavaScript's semantics on the judge's side ([`SEMANTICS`]: `===`, `==`,
//! truthiness, `JSON.stringify`, number formatting, arithmetic) and calls the function under test
//! through the foreign-call path as `candidate(...)`. No text of the test goes into the sandbox:
//! the judge runs the unit, the candidate only answers calls.
//!
//! Literals are evaluated as JavaScript evaluates them: a number literal is an int when its value
//! is an integer within ±(2^53 − 1) (as the JavaScript stub crosses an answer), else a float
//! (`1e21`, `12345678901234567890`); a parenthesised comma expression is its last operand
//! (`[(0, 0), (1, 4)]` is `[0, 4]`); `undefined` and `null` are `None` (the stub crosses both
//! so). Statements besides the asserts — `let`/`const` of translatable values, `for` loops with an
//! init, a condition and an update, `if`, `x = e`, `x += e`, `x++`, `xs.push(e)` — are
//! translated too, each one a unit's setup for the asserts after it. Any other form (a function
//! defined in the test, `Math.random`, a call of another function than the one under test, `new`)
//! is refused with its reason: the caller falls back to HumanEval's Python check for that task.

use crate::mutate::parse::parse_tree_in;
use execscope_record::Language;
use tree_sitter::Node;

/// The trusted judge-side definitions every unit starts with.
pub const SEMANTICS: &str = include_str!("../../assets/js_semantics.py");

/// The name the function under test is given inside a unit (`check(candidate)`).
const CANDIDATE: &str = "candidate";

/// The units of a JavaScript `test` program whose function under test is `entry`, or why the
/// program cannot be translated (a short phrase: "defines a function in the test").
pub fn tests(test: &str, entry: &str) -> Result<Vec<String>, String> {
    let tree = parse_tree_in(Language::JavaScript, test);
    let root = tree.root_node();
    if root.has_error() {
        return Err("does not parse as JavaScript".into());
    }
    let mut body = None;
    let mut called = None;
    for st in named(root) {
        match st.kind() {
            "comment" | "empty_statement" => {}
            "lexical_declaration" | "function_declaration" if body.is_none() => {
                body = Some(test_function(st, test)?);
            }
            "expression_statement" if called.is_none() => called = Some(st),
            k => return Err(format!("has a top-level {k} beside the test function")),
        }
    }
    let (name, block) = body.ok_or("defines no test function")?;
    let call = called.ok_or("never calls its test function")?;
    let c = call.named_child(0).ok_or("has an empty statement")?;
    let callee = c.child_by_field_name("function");
    let args = c.child_by_field_name("arguments");
    if c.kind() != "call_expression"
        || callee.map(|f| text(f, test)) != Some(name.as_str())
        || args.is_some_and(|a| a.named_child_count() > 0)
    {
        return Err("has a top-level statement besides the call of its test function".into());
    }
    let mut t = Tr {
        src: test,
        entry,
        vars: Vec::new(),
    };
    let mut setup: Vec<String> = Vec::new();
    let mut units = Vec::new();
    for st in named(block) {
        if st.kind() == "comment" || st.kind() == "empty_statement" {
            continue;
        }
        let mut lines = Vec::new();
        t.statement(st, 1, &mut lines)?;
        if has_assert(st, test) {
            let mut body = setup.clone();
            body.extend(lines);
            units.push(unit(&body, entry));
        } else {
            setup.extend(lines);
        }
    }
    if units.is_empty() {
        return Err("holds no console.assert".into());
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

/// Does the statement hold a `console.assert` call?
fn has_assert(n: Node<'_>, src: &str) -> bool {
    if n.kind() == "call_expression"
        && n.child_by_field_name("function")
            .is_some_and(|f| text(f, src) == "console.assert")
    {
        return true;
    }
    named(n).into_iter().any(|c| has_assert(c, src))
}

/// `const testX = () => { ... }` or `function testX() { ... }`: its name and body block.
fn test_function<'t>(st: Node<'t>, src: &str) -> Result<(String, Node<'t>), String> {
    let (name, f) = if st.kind() == "function_declaration" {
        (st.child_by_field_name("name"), Some(st))
    } else {
        let d = named(st)
            .into_iter()
            .find(|c| c.kind() == "variable_declarator")
            .ok_or("has a declaration without a declarator")?;
        (
            d.child_by_field_name("name"),
            d.child_by_field_name("value"),
        )
    };
    let name = name
        .map(|n| text(n, src).to_string())
        .ok_or("has a nameless test function")?;
    let f = f.ok_or("has a test function without a value")?;
    if !matches!(
        f.kind(),
        "arrow_function" | "function_declaration" | "function_expression" | "function"
    ) {
        return Err("declares a top-level value that is not its test function".into());
    }
    let body = f
        .child_by_field_name("body")
        .ok_or("has a test function without a body")?;
    if body.kind() != "statement_block" {
        return Err("has a test function whose body is an expression".into());
    }
    Ok((name, body))
}

struct Tr<'a> {
    src: &'a str,
    entry: &'a str,
    /// The test's own variables (`let`, `const`, a loop's), `_v_<name>` in Python.
    vars: Vec<String>,
}

impl Tr<'_> {
    fn t(&self, n: Node<'_>) -> &str {
        text(n, self.src)
    }

    fn field<'t>(&self, n: Node<'t>, f: &str) -> Result<Node<'t>, String> {
        n.child_by_field_name(f)
            .ok_or_else(|| format!("has a {} without its {f}", n.kind()))
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
            "statement_block" => {
                for s in named(st) {
                    self.statement(s, depth, out)?;
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                for d in named(st)
                    .into_iter()
                    .filter(|d| d.kind() == "variable_declarator")
                {
                    let name = self.field(d, "name")?;
                    if name.kind() != "identifier" {
                        return Err("destructures in a declaration".into());
                    }
                    let value = match d.child_by_field_name("value") {
                        Some(v) => self.expr(v)?,
                        None => "None".into(),
                    };
                    let name = self.t(name).to_string();
                    if !self.vars.contains(&name) {
                        self.vars.push(name.clone());
                    }
                    out.push(format!("{pad}_v_{name} = {value}"));
                }
            }
            "expression_statement" => {
                let e = st.named_child(0).ok_or("has an empty statement")?;
                out.push(format!("{pad}{}", self.effect(e)?));
            }
            "if_statement" => {
                let cond = self.expr(self.field(st, "condition")?)?;
                out.push(format!("{pad}if _js_truthy({cond}):"));
                self.block(self.field(st, "consequence")?, depth + 1, out)?;
                if let Some(alt) = st.child_by_field_name("alternative") {
                    out.push(format!("{pad}else:"));
                    let inner = alt.named_child(0).ok_or("has an empty else")?;
                    self.block(inner, depth + 1, out)?;
                }
            }
            "for_statement" => {
                let init = self.field(st, "initializer")?;
                self.statement(init, depth, out)?;
                let cond = self.field(st, "condition")?;
                let cond = match cond.kind() {
                    "expression_statement" => {
                        cond.named_child(0).ok_or("has an empty condition")?
                    }
                    _ => cond,
                };
                out.push(format!("{pad}while _js_truthy({}):", self.expr(cond)?));
                let body = self.field(st, "body")?;
                if has_kind(
                    body,
                    &["break_statement", "continue_statement", "return_statement"],
                ) {
                    return Err("leaves a loop by break, continue or return".into());
                }
                self.block(body, depth + 1, out)?;
                let incr = self.field(st, "increment")?;
                out.push(format!(
                    "{}{}",
                    "    ".repeat(depth + 1),
                    self.effect(incr)?
                ));
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
    fn block(&mut self, st: Node<'_>, depth: usize, out: &mut Vec<String>) -> Result<(), String> {
        let before = out.len();
        self.statement(st, depth, out)?;
        if out.len() == before {
            out.push(format!("{}pass", "    ".repeat(depth)));
        }
        Ok(())
    }

    /// An expression run for its effect: an assert, an assignment, an update, a `push`.
    fn effect(&mut self, e: Node<'_>) -> Result<String, String> {
        match e.kind() {
            "call_expression" => {
                let f = self.field(e, "function")?;
                let args = self.args(e)?;
                if self.t(f) == "console.assert" {
                    let cond = args
                        .first()
                        .ok_or("has a console.assert without its argument")?;
                    if args.len() != 1 {
                        return Err("has a console.assert with a message".into());
                    }
                    return Ok(format!("assert _js_truthy({cond})"));
                }
                if f.kind() == "member_expression" {
                    let obj = self.field(f, "object")?;
                    let prop = self.t(self.field(f, "property")?);
                    if prop == "push" && obj.kind() == "identifier" && args.len() == 1 {
                        return Ok(format!("{}.append({})", self.var(obj)?, args[0]));
                    }
                }
                self.expr(e)
            }
            "assignment_expression" => {
                let left = self.field(e, "left")?;
                let right = self.expr(self.field(e, "right")?)?;
                Ok(format!("{} = {right}", self.var(left)?))
            }
            "augmented_assignment_expression" => {
                let left = self.field(e, "left")?;
                let op = self
                    .t(self.field(e, "operator")?)
                    .trim_end_matches('=')
                    .to_string();
                let right = self.expr(self.field(e, "right")?)?;
                let v = self.var(left)?;
                Ok(format!("{v} = {}", arith(&op, &v, &right)?))
            }
            "update_expression" => {
                let arg = self.field(e, "argument")?;
                let v = self.var(arg)?;
                let op = if self.t(e).contains("++") { "+" } else { "-" };
                Ok(format!("{v} = _js_arith('{op}', {v}, 1)"))
            }
            k => Err(format!(
                "has an expression statement this reader does not translate ({k})"
            )),
        }
    }

    /// A declared variable's Python name.
    fn var(&self, n: Node<'_>) -> Result<String, String> {
        let name = self.t(n);
        if n.kind() == "identifier" && self.vars.iter().any(|v| v == name) {
            Ok(format!("_v_{name}"))
        } else {
            Err(format!("assigns to `{name}`, not a variable of the test"))
        }
    }

    fn args(&mut self, call: Node<'_>) -> Result<Vec<String>, String> {
        let a = self.field(call, "arguments")?;
        named(a)
            .into_iter()
            .filter(|n| n.kind() != "comment")
            .map(|n| self.expr(n))
            .collect()
    }

    fn expr(&mut self, n: Node<'_>) -> Result<String, String> {
        Ok(match n.kind() {
            "parenthesized_expression" => {
                let inner = n.named_child(0).ok_or("has empty parentheses")?;
                if inner.kind() == "sequence_expression" {
                    return self.sequence(inner);
                }
                self.expr(inner)?
            }
            "sequence_expression" => return self.sequence(n),
            "number" => number(self.t(n))?,
            "string" => py_str(&js_string(self.t(n))?),
            "true" => "True".into(),
            "false" => "False".into(),
            "null" | "undefined" => "None".into(),
            "identifier" => match self.t(n) {
                "undefined" => "None".into(),
                "NaN" => "_es_math.nan".into(),
                "Infinity" => "_es_math.inf".into(),
                _ => self.var(n).map_err(|_| {
                    format!("uses `{}`, which is not a variable of the test", self.t(n))
                })?,
            },
            "array" => {
                let items = named(n)
                    .into_iter()
                    .filter(|c| c.kind() != "comment")
                    .map(|c| {
                        if c.kind() == "spread_element" {
                            Err("spreads into an array".to_string())
                        } else {
                            self.expr(c)
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                if self.t(n).contains(",,") || self.t(n).replace(' ', "").starts_with("[,") {
                    return Err("has an array with holes".into());
                }
                format!("[{}]", items.join(", "))
            }
            "object" => {
                let mut items = Vec::new();
                for p in named(n).into_iter().filter(|c| c.kind() != "comment") {
                    if p.kind() != "pair" {
                        return Err(format!("has an object with a {}", p.kind()));
                    }
                    let k = self.field(p, "key")?;
                    let key = match k.kind() {
                        "property_identifier" => self.t(k).to_string(),
                        "string" => js_string(self.t(k))?,
                        // JavaScript names the property by the number's string: `5` is "5".
                        "number" => {
                            let v = number(self.t(k))?;
                            if !v.bytes().all(|c| c.is_ascii_digit()) {
                                return Err(format!("has an object with the number key {v}"));
                            }
                            v
                        }
                        other => return Err(format!("has an object with a {other} key")),
                    };
                    let v = self.expr(self.field(p, "value")?)?;
                    items.push(format!("{}: {v}", py_str(&key)));
                }
                format!("{{{}}}", items.join(", "))
            }
            "unary_expression" => {
                let op = self.t(self.field(n, "operator")?);
                let arg = self.field(n, "argument")?;
                match op {
                    "!" => format!("(not _js_truthy({}))", self.expr(arg)?),
                    "-" if arg.kind() == "number" => {
                        let v = number(self.t(arg))?;
                        if v == "0" {
                            "-0.0".into()
                        } else {
                            format!("-{v}")
                        }
                    }
                    "-" => format!("_js_neg({})", self.expr(arg)?),
                    "+" => format!("_js_tonum({})", self.expr(arg)?),
                    o => return Err(format!("has the unary operator `{o}`")),
                }
            }
            "binary_expression" => {
                let op = self.t(self.field(n, "operator")?).to_string();
                let a = self.expr(self.field(n, "left")?)?;
                let b = self.expr(self.field(n, "right")?)?;
                match op.as_str() {
                    "===" => format!("_js_seq({a}, {b})"),
                    "!==" => format!("(not _js_seq({a}, {b}))"),
                    "==" => format!("_js_leq({a}, {b})"),
                    "!=" => format!("(not _js_leq({a}, {b}))"),
                    "<" | ">" | "<=" | ">=" => format!("_js_cmp('{op}', {a}, {b})"),
                    "&&" => format!("_js_and({a}, lambda: {b})"),
                    "||" => format!("_js_or({a}, lambda: {b})"),
                    _ => arith(&op, &a, &b)?,
                }
            }
            "call_expression" => self.call(n)?,
            k => {
                return Err(format!(
                    "has an expression this reader does not translate ({k})"
                ))
            }
        })
    }

    /// `(a, b)`: JavaScript's comma operator, the value of its last operand; the others must have
    /// no effect (literals), so leaving them out changes nothing.
    fn sequence(&mut self, n: Node<'_>) -> Result<String, String> {
        let parts = named(n);
        let (last, rest) = parts.split_last().ok_or("has an empty comma expression")?;
        for p in rest {
            self.expr(*p)?;
            if has_kind(
                *p,
                &[
                    "call_expression",
                    "assignment_expression",
                    "update_expression",
                ],
            ) {
                return Err("has a comma expression with an effect".into());
            }
        }
        self.expr(*last)
    }

    fn call(&mut self, n: Node<'_>) -> Result<String, String> {
        let f = self.field(n, "function")?;
        let name = self.t(f).to_string();
        let args = self.args(n)?;
        let one = |what: &str| {
            if args.len() == 1 {
                Ok(args[0].clone())
            } else {
                Err(format!("calls {what} with {} arguments", args.len()))
            }
        };
        Ok(match name.as_str() {
            _ if f.kind() == "identifier" && name == self.entry => {
                format!("{CANDIDATE}({})", args.join(", "))
            }
            "JSON.stringify" => format!("_js_json({})", one("JSON.stringify")?),
            "Math.abs" => format!("_js_abs({})", one("Math.abs")?),
            "String" => format!("_js_str({})", one("String")?),
            "Number" => format!("_js_tonum({})", one("Number")?),
            _ if f.kind() == "member_expression"
                && self.t(self.field(f, "property")?) == "toString"
                && args.is_empty() =>
            {
                format!("_js_str({})", self.expr(self.field(f, "object")?)?)
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

fn has_kind(n: Node<'_>, kinds: &[&str]) -> bool {
    kinds.contains(&n.kind()) || named(n).into_iter().any(|c| has_kind(c, kinds))
}

fn arith(op: &str, a: &str, b: &str) -> Result<String, String> {
    match op {
        "+" | "-" | "*" | "/" | "%" | "**" => Ok(format!("_js_arith('{op}', {a}, {b})")),
        o => Err(format!("has the operator `{o}`")),
    }
}

/// A JavaScript number literal as the Python literal of its value: an int when it is an integer
/// within ±(2^53 − 1), else a float (`1e21`, `0.5`).
pub fn number(lit: &str) -> Result<String, String> {
    let s = lit.replace('_', "");
    if s.ends_with('n') {
        return Err(format!("has the BigInt literal {lit}"));
    }
    let radix = |p: &str, r: u32| -> Result<f64, String> {
        u128::from_str_radix(p, r)
            .map(|v| v as f64)
            .map_err(|_| format!("has the number literal {lit}, which this reader cannot read"))
    };
    let lower = s.to_ascii_lowercase();
    let v = if let Some(h) = lower.strip_prefix("0x") {
        radix(h, 16)?
    } else if let Some(o) = lower.strip_prefix("0o") {
        radix(o, 8)?
    } else if let Some(b) = lower.strip_prefix("0b") {
        radix(b, 2)?
    } else if s.len() > 1 && s.starts_with('0') && s.bytes().all(|c| c.is_ascii_digit()) {
        if s.bytes().all(|c| (b'0'..b'8').contains(&c)) {
            radix(&s, 8)?
        } else {
            radix(&s, 10)?
        }
    } else {
        s.parse::<f64>()
            .map_err(|_| format!("has the number literal {lit}, which this reader cannot read"))?
    };
    const SAFE: f64 = 9_007_199_254_740_991.0;
    Ok(if v.is_infinite() {
        "_es_math.inf".into()
    } else if v.fract() == 0.0 && v.abs() <= SAFE {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    })
}

/// The value of a JavaScript string literal (with its quotes).
pub fn js_string(lit: &str) -> Result<String, String> {
    let inner = &lit[1..lit.len().saturating_sub(1).max(1)];
    let mut units: Vec<u16> = Vec::new();
    let mut cs = inner.chars().peekable();
    let bad = || format!("has the string {lit}, whose escapes this reader cannot read");
    while let Some(c) = cs.next() {
        if c != '\\' {
            let mut b = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut b));
            continue;
        }
        let e = cs.next().ok_or_else(bad)?;
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'v' => Some('\u{b}'),
            '0' if !cs.peek().is_some_and(|d| d.is_ascii_digit()) => Some('\0'),
            '\n' | '\u{2028}' | '\u{2029}' => None,
            'x' => {
                let h: String = (0..2).filter_map(|_| cs.next()).collect();
                let v = u16::from_str_radix(&h, 16).map_err(|_| bad())?;
                units.push(v);
                None
            }
            'u' => {
                let v = if cs.peek() == Some(&'{') {
                    cs.next();
                    let h: String = cs.by_ref().take_while(|&d| d != '}').collect();
                    u32::from_str_radix(&h, 16).map_err(|_| bad())?
                } else {
                    let h: String = (0..4).filter_map(|_| cs.next()).collect();
                    u32::from_str_radix(&h, 16).map_err(|_| bad())?
                };
                let ch = char::from_u32(v);
                match ch {
                    Some(ch) => {
                        let mut b = [0u16; 2];
                        units.extend_from_slice(ch.encode_utf16(&mut b));
                    }
                    None if v <= 0xFFFF => units.push(v as u16),
                    None => return Err(bad()),
                }
                None
            }
            d if d.is_ascii_digit() => return Err(bad()),
            other => Some(other),
        };
        if let Some(ch) = simple {
            let mut b = [0u16; 2];
            units.extend_from_slice(ch.encode_utf16(&mut b));
        }
    }
    String::from_utf16(&units).map_err(|_| format!("has the string {lit}, with a lone surrogate"))
}

/// A Python string literal of `s`, ASCII only.
pub fn py_str(s: &str) -> String {
    let mut out = String::from("'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            ' '..='~' => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests;
