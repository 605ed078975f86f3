//! JSON as Python's `json.loads` reads it, written back as Python source.
//!
//! EvalPlus stores its test inputs as JSON that only Python's reader accepts as the benchmark
//! means it: integers of any size, `NaN` / `Infinity` / `-Infinity`, and strings with lone
//! surrogates (`"\ud800"`). A generic JSON library would round big integers to floats and refuse
//! the rest, so inputs are parsed here into a tree that keeps every number's text, and rendered
//! as Python literals (`ascii()`-style strings) that evaluate, in the judge, to the values
//! `json.loads` gives — then reshaped by [`Py`] (tuples, sets, `complex(...)`) where a benchmark
//! converts them before calling the function.

use std::fmt::Write as _;

/// A parsed JSON value. Numbers keep their text; strings keep their code points (a lone
/// surrogate is a code point Rust's `String` cannot hold).
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    /// The number's text as written (`-12`, `1.5e3`): Python reads it as `json.loads` does.
    Num(String),
    /// `NaN`, `Infinity` or `-Infinity` (Python's extensions).
    Special(&'static str),
    Str(Vec<u32>),
    Arr(Vec<J>),
    /// Members in file order (a repeated key: the last one wins, as in Python).
    Obj(Vec<(Vec<u32>, J)>),
}

impl J {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&J> {
        let J::Obj(members) = self else { return None };
        let want: Vec<u32> = key.chars().map(u32::from).collect();
        members
            .iter()
            .rev()
            .find(|(k, _)| *k == want)
            .map(|(_, v)| v)
    }

    /// A string value as Rust text (a lone surrogate becomes U+FFFD).
    pub fn as_text(&self) -> Option<String> {
        match self {
            J::Str(cps) => Some(text_of(cps)),
            _ => None,
        }
    }

    /// What the value is, in words for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Num(_) | J::Special(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

/// Rust text of code points (lone surrogates as U+FFFD).
pub fn text_of(cps: &[u32]) -> String {
    cps.iter()
        .map(|&c| char::from_u32(c).unwrap_or('\u{fffd}'))
        .collect()
}

/// Parses one JSON text (a whole line of a JSON Lines file). The error says what and at which
/// character column (1-based).
pub fn parse(text: &str) -> Result<J, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("extra data after the value"));
    }
    Ok(v)
}

/// Parses a JSON array (a whole `.json` file of records), giving each item with the byte offset
/// it starts at (so messages can name its line).
pub fn parse_array_items(text: &str) -> Result<Vec<(usize, J)>, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 1,
    };
    p.ws();
    if !p.eat("[") {
        return Err(p.err("expected `[`"));
    }
    let mut items = Vec::new();
    p.ws();
    if !p.eat("]") {
        loop {
            p.ws();
            let at = p.i;
            items.push((at, p.value()?));
            p.ws();
            if p.eat(",") {
                continue;
            }
            if p.eat("]") {
                break;
            }
            return Err(p.err("expected `,` or `]`"));
        }
    }
    p.ws();
    if p.i != p.s.len() {
        return Err(p.err("extra data after the array"));
    }
    Ok(items)
}

/// Deepest nesting accepted (Python's own reader stops near 1,000 with a RecursionError).
const MAX_DEPTH: usize = 512;

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> String {
        let col = std::str::from_utf8(&self.s[..self.i.min(self.s.len())])
            .map(|t| t.chars().count())
            .unwrap_or(self.i)
            + 1;
        format!("invalid JSON at column {col}: {what}")
    }

    fn ws(&mut self) {
        while self
            .s
            .get(self.i)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.i += 1;
        }
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<J, String> {
        let Some(&b) = self.s.get(self.i) else {
            return Err(self.err("expected a value, found the end"));
        };
        match b {
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(self.err("nested too deeply"));
                }
                let v = if b == b'{' {
                    self.object()
                } else {
                    self.array()
                };
                self.depth -= 1;
                v
            }
            b'"' => Ok(J::Str(self.string()?)),
            b't' if self.eat("true") => Ok(J::Bool(true)),
            b'f' if self.eat("false") => Ok(J::Bool(false)),
            b'n' if self.eat("null") => Ok(J::Null),
            b'N' if self.eat("NaN") => Ok(J::Special("NaN")),
            b'I' if self.eat("Infinity") => Ok(J::Special("Infinity")),
            b'-' if self.eat("-Infinity") => Ok(J::Special("-Infinity")),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(self.err("expected a value")),
        }
    }

    fn array(&mut self) -> Result<J, String> {
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.eat("]") {
            return Ok(J::Arr(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            if self.eat(",") {
                continue;
            }
            if self.eat("]") {
                return Ok(J::Arr(items));
            }
            return Err(self.err("expected `,` or `]`"));
        }
    }

    fn object(&mut self) -> Result<J, String> {
        self.i += 1;
        let mut members = Vec::new();
        self.ws();
        if self.eat("}") {
            return Ok(J::Obj(members));
        }
        loop {
            self.ws();
            if self.s.get(self.i) != Some(&b'"') {
                return Err(self.err("expected a string key"));
            }
            let k = self.string()?;
            self.ws();
            if !self.eat(":") {
                return Err(self.err("expected `:`"));
            }
            self.ws();
            let v = self.value()?;
            members.push((k, v));
            self.ws();
            if self.eat(",") {
                continue;
            }
            if self.eat("}") {
                return Ok(J::Obj(members));
            }
            return Err(self.err("expected `,` or `}`"));
        }
    }

    fn number(&mut self) -> Result<J, String> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.s.get(p.i).is_some_and(u8::is_ascii_digit) {
                p.i += 1;
            }
            p.i - s
        };
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.err("expected a digit")),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return Err(self.err("expected a digit after `.`"));
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(self.err("expected a digit in the exponent"));
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).expect("ASCII");
        Ok(J::Num(text.to_string()))
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self
            .s
            .get(self.i..self.i + 4)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.err("expected four hex digits after \\u"))?;
        self.i += 4;
        Ok(h)
    }

    fn string(&mut self) -> Result<Vec<u32>, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return Err(self.err("unterminated string"));
            };
            match b {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    let e = self.s.get(self.i).copied();
                    self.i += 1;
                    let c = match e {
                        Some(b'"') => '"' as u32,
                        Some(b'\\') => '\\' as u32,
                        Some(b'/') => '/' as u32,
                        Some(b'b') => 8,
                        Some(b'f') => 12,
                        Some(b'n') => 10,
                        Some(b'r') => 13,
                        Some(b't') => 9,
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            // A surrogate pair is one character (as Python's reader joins it);
                            // a lone surrogate stays what it is.
                            if (0xD800..0xDC00).contains(&hi)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    self.i = save;
                                    hi
                                }
                            } else {
                                hi
                            }
                        }
                        _ => return Err(self.err("invalid escape")),
                    };
                    out.push(c);
                }
                0..=0x1f => return Err(self.err("control character in a string")),
                _ => {
                    // One UTF-8 character (the text is valid UTF-8).
                    let rest = std::str::from_utf8(&self.s[self.i..])
                        .map_err(|_| self.err("invalid UTF-8"))?;
                    let c = rest.chars().next().expect("non-empty");
                    out.push(u32::from(c));
                    self.i += c.len_utf8();
                }
            }
        }
    }
}

/// Python's `ascii(s)` of a string given by its code points: the literal Python writes, with
/// every non-ASCII character escaped, so it reads back as the same string in any encoding.
pub fn ascii_str(cps: &[u32]) -> String {
    let has_single = cps.contains(&('\'' as u32));
    let has_double = cps.contains(&('"' as u32));
    let quote = if has_single && !has_double { '"' } else { '\'' };
    let mut out = String::with_capacity(cps.len() + 2);
    out.push(quote);
    for &c in cps {
        match c {
            0x5c => out.push_str("\\\\"),
            0x09 => out.push_str("\\t"),
            0x0a => out.push_str("\\n"),
            0x0d => out.push_str("\\r"),
            c if c == quote as u32 => {
                out.push('\\');
                out.push(quote);
            }
            0x20..=0x7e => out.push(char::from_u32(c).expect("ASCII")),
            0..=0xff => {
                let _ = write!(out, "\\x{c:02x}");
            }
            0x100..=0xffff => {
                let _ = write!(out, "\\u{c:04x}");
            }
            _ => {
                let _ = write!(out, "\\U{c:08x}");
            }
        }
    }
    out.push(quote);
    out
}

/// Most decimal digits CPython compiles in an integer literal (`sys.get_int_max_str_digits()`).
pub const MAX_INT_DIGITS: usize = 4300;

/// A value as Python source, after the benchmark's conversions: what a test passes to the
/// function or compares with.
#[derive(Clone, Debug, PartialEq)]
pub enum Py {
    /// A literal or expression already in Python source (`3`, `'a'`, `float('nan')`).
    Src(String),
    List(Vec<Py>),
    Tuple(Vec<Py>),
    Set(Vec<Py>),
    Dict(Vec<(Py, Py)>),
    /// `name(value)` of a builtin (`float(...)`, `complex(...)`).
    Call(&'static str, Box<Py>),
}

impl Py {
    /// The value `json.loads` gives for `j`, as Python source.
    pub fn from_json(j: &J) -> Result<Py, String> {
        Ok(match j {
            J::Null => Py::Src("None".into()),
            J::Bool(b) => Py::Src(if *b { "True" } else { "False" }.into()),
            J::Num(t) => {
                let int = !t.contains(['.', 'e', 'E']);
                let digits = t.trim_start_matches('-').len();
                if int && digits > MAX_INT_DIGITS {
                    return Err(format!(
                        "an integer of {digits} digits (Python compiles at most {MAX_INT_DIGITS})"
                    ));
                }
                Py::Src(t.clone())
            }
            J::Special("NaN") => Py::Src("float('nan')".into()),
            J::Special("Infinity") => Py::Src("float('inf')".into()),
            J::Special(_) => Py::Src("-float('inf')".into()),
            J::Str(cps) => Py::Src(ascii_str(cps)),
            J::Arr(items) => Py::List(items.iter().map(Py::from_json).collect::<Result<_, _>>()?),
            J::Obj(members) => {
                // Python keeps the last of repeated keys, at the first key's place.
                let mut out: Vec<(Py, Py)> = Vec::new();
                for (k, v) in members {
                    let key = Py::Src(ascii_str(k));
                    let val = Py::from_json(v)?;
                    match out.iter_mut().find(|(ok, _)| *ok == key) {
                        Some(slot) => slot.1 = val,
                        None => out.push((key, val)),
                    }
                }
                Py::Dict(out)
            }
        })
    }

    /// The items Python's `tuple(x)` / `set(x)` iterate: a list's or tuple's items, a string's
    /// characters, a dict's keys.
    pub fn items(&self) -> Result<Vec<Py>, String> {
        match self {
            Py::List(v) | Py::Tuple(v) | Py::Set(v) => Ok(v.clone()),
            Py::Dict(m) => Ok(m.iter().map(|(k, _)| k.clone()).collect()),
            Py::Src(s) if s.starts_with(['\'', '"']) => Ok(chars_of_literal(s)
                .iter()
                .map(|c| Py::Src(c.clone()))
                .collect()),
            other => Err(format!("`{}` is not iterable", other.source())),
        }
    }

    /// Python's `tuple(x)`.
    pub fn tuple(&self) -> Result<Py, String> {
        Ok(Py::Tuple(self.items()?))
    }

    /// True for a list (Python's `isinstance(x, list)` on a value `json.loads` made).
    pub fn is_list(&self) -> bool {
        matches!(self, Py::List(_))
    }

    /// The Python source of the value.
    pub fn source(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, out: &mut String) {
        let seq = |out: &mut String, items: &[Py]| {
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                x.write(out);
            }
        };
        match self {
            Py::Src(s) => out.push_str(s),
            Py::List(v) => {
                out.push('[');
                seq(out, v);
                out.push(']');
            }
            Py::Tuple(v) => {
                out.push('(');
                seq(out, v);
                if v.len() == 1 {
                    out.push(',');
                }
                out.push(')');
            }
            Py::Set(v) if v.is_empty() => out.push_str("set()"),
            Py::Set(v) => {
                out.push('{');
                seq(out, v);
                out.push('}');
            }
            Py::Dict(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    k.write(out);
                    out.push_str(": ");
                    v.write(out);
                }
                out.push('}');
            }
            Py::Call(f, x) => {
                out.push_str(f);
                out.push('(');
                x.write(out);
                out.push(')');
            }
        }
    }
}

/// The one-character literals of the characters of an [`ascii_str`] literal.
fn chars_of_literal(lit: &str) -> Vec<String> {
    let body = &lit[1..lit.len() - 1];
    let mut out = Vec::new();
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        let end = if c == '\\' {
            let len = match it.peek().map(|&(_, e)| e) {
                Some('x') => 4,
                Some('u') => 6,
                Some('U') => 10,
                _ => 2,
            };
            for _ in 1..len {
                it.next();
            }
            i + len
        } else {
            i + c.len_utf8()
        };
        let piece = &body[i..end];
        // Re-quote the one character on its own (a quote inside may need the other quotes).
        let cps: Vec<u32> = match piece {
            "\\\\" => vec![0x5c],
            "\\'" => vec![0x27],
            "\\\"" => vec![0x22],
            "\\t" => vec![9],
            "\\n" => vec![10],
            "\\r" => vec![13],
            p if p.starts_with('\\') => vec![u32::from_str_radix(&p[2..], 16).unwrap_or(0xfffd)],
            p => p.chars().map(u32::from).collect(),
        };
        out.push(ascii_str(&cps));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> String {
        Py::from_json(&parse(text).unwrap()).unwrap().source()
    }

    #[test]
    fn numbers_keep_their_text_and_python_extensions_read() {
        assert_eq!(
            lit("[1, -0, 1.5e3, 123456789012345678901234567890, -0.0]"),
            "[1, -0, 1.5e3, 123456789012345678901234567890, -0.0]"
        );
        assert_eq!(
            lit("[NaN, Infinity, -Infinity]"),
            "[float('nan'), float('inf'), -float('inf')]"
        );
        assert!(parse("01").is_err());
        assert!(parse("1.").is_err());
        assert!(parse("[1,]").is_err());
        assert!(parse("[1] x").unwrap_err().contains("column 5"));
        let big = format!("[{}]", "9".repeat(MAX_INT_DIGITS + 1));
        assert!(Py::from_json(&parse(&big).unwrap())
            .unwrap_err()
            .contains("4301 digits"));
    }

    #[test]
    fn strings_as_python_ascii_writes_them() {
        // ascii('it\'s "x"\\\n\x7f é 😀') in Python 3.
        assert_eq!(
            lit(r#""it's \"x\"\\\n\u007f \u00e9 \ud83d\ude00""#),
            r#"'it\'s "x"\\\n\x7f \xe9 \U0001f600'"#
        );
        assert_eq!(lit(r#""it's""#), r#""it's""#);
        // A lone surrogate stays one (Python keeps it as such).
        assert_eq!(lit(r#""\ud800x""#), r"'\ud800x'");
        assert_eq!(lit("\"é\""), r"'\xe9'");
    }

    #[test]
    fn objects_keep_order_and_the_last_repeated_key() {
        assert_eq!(lit(r#"{"b": 1, "a": 2, "b": 3}"#), "{'b': 3, 'a': 2}");
        let j = parse(r#"{"k": "v", "k": "w"}"#).unwrap();
        assert_eq!(j.get("k").and_then(J::as_text).as_deref(), Some("w"));
    }

    #[test]
    fn tuples_sets_and_calls_render_as_python_does() {
        let j = parse(r#"[[1, 2], "ab", [], [3]]"#).unwrap();
        let Py::List(items) = Py::from_json(&j).unwrap() else {
            panic!()
        };
        assert_eq!(items[0].tuple().unwrap().source(), "(1, 2)");
        assert_eq!(items[1].tuple().unwrap().source(), "('a', 'b')");
        assert_eq!(items[2].tuple().unwrap().source(), "()");
        assert_eq!(items[3].tuple().unwrap().source(), "(3,)");
        assert_eq!(Py::Set(vec![]).source(), "set()");
        assert_eq!(
            Py::Call("complex", Box::new(Py::Src("'1+2j'".into()))).source(),
            "complex('1+2j')"
        );
        let quote = Py::from_json(&parse(r#""a'\\""#).unwrap()).unwrap();
        assert_eq!(quote.tuple().unwrap().source(), r#"('a', "'", '\\')"#);
        assert!(Py::Src("3".into()).tuple().is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).unwrap_err().contains("nested too deeply"));
    }
}
