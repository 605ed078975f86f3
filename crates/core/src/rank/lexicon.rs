//! How BM25 reads the code of each [`Language`]: the one place a language enters the lexical
//! baseline (docs/metrics.md, "Tokenisation in other languages").
//!
//! Python is read exactly as before ([`super::bm25::tokenize`]), so every Python score stays
//! bit-identical. Every other language is read with the same word rule (ASCII letters and
//! digits, split at `_` and camelCase, lowercased) after a lexer pass that knows the language:
//!
//! - **comments and string literals** are kept word for word (a comment is natural language, as
//!   a Python docstring is; a string is data), whatever words they hold;
//! - **the file's preamble** is dropped: `#include`/`#pragma` lines and `using namespace`
//!   (C++), `import`/`package` declarations (Java, Go, JavaScript, TypeScript), `use` and
//!   `extern crate` (Rust). HumanEval-X repeats the same preamble in every snippet of a
//!   language (Rust's lists a dozen paths), which would only lengthen every document;
//! - **syntax-only keywords** are dropped in code: the declaration, type and modifier words
//!   Python code has no counterpart for (`int`, `void`, `public`, `static`, `fn`, `let`, `mut`,
//!   `func`, `var`, `const`, `function`, ...), so a function is about as long in every language
//!   and a query word (`static`, `function`, `int`) never matches syntax. The keywords Python
//!   shares (`if`, `for`, `while`, `return`, `break`, `true`, `in`, ...) and every type or
//!   library name (`string`, `vector`, `HashMap`, `len`) stay, as they do in Python;
//! - **number literals** lose their type suffix (`1LL`, `10u64`, `2.5f`, `0usize`, `7n` read as
//!   `1`, `10`, `2`, `5`, `0`, `7`), as Python's `1` and `2.5` read;
//! - **Rust lifetimes** (`'a`) are no words.
//!
//! Queries are natural language and are read by the Python rule in every language.

use super::bm25::tokenize;
use crate::bundle::Language;

/// The tokens of `code` written in `lang` (see the module docs).
pub fn tokenize_in(lang: Language, code: &str) -> Vec<String> {
    let Some(rules) = rules(lang) else {
        return tokenize(code);
    };
    let mut out = Vec::new();
    let body = without_preamble(rules, code);
    for (segment, kind) in segments(rules, &body) {
        for word in segment.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            if word.is_empty() {
                continue;
            }
            if kind == Kind::Code {
                if rules.dropped.contains(&word) {
                    continue;
                }
                if word.starts_with(|c: char| c.is_ascii_digit()) {
                    out.extend(tokenize(strip_suffix(rules, word)));
                    continue;
                }
            }
            out.extend(tokenize(word));
        }
    }
    out
}

/// What the lexer needs to know about a language.
struct Rules {
    /// Keywords of declarations, types and modifiers that Python code has no counterpart for.
    dropped: &'static [&'static str],
    /// Prefixes of a preamble line (after its indentation).
    preamble: &'static [&'static str],
    /// Number suffixes, longest first.
    suffixes: &'static [&'static str],
    /// `'…'` is a character or string literal (C++, Java, Go, JavaScript); in Rust it may be a
    /// lifetime.
    lifetimes: bool,
    /// Backquotes delimit strings (JavaScript templates, Go raw strings).
    backquotes: bool,
}

const C_SUFFIXES: &[&str] = &[
    "ull", "ULL", "llu", "LLU", "ll", "LL", "ul", "UL", "lu", "LU", "u", "U", "l", "L", "f", "F",
    "z", "Z",
];

fn rules(lang: Language) -> Option<&'static Rules> {
    match lang {
        Language::Python => None,
        Language::Cpp => Some(&Rules {
            dropped: &[
                "auto",
                "bool",
                "char",
                "const",
                "constexpr",
                "double",
                "float",
                "int",
                "long",
                "short",
                "signed",
                "unsigned",
                "void",
                "static",
                "inline",
                "template",
                "typename",
                "using",
                "namespace",
                "std",
                "struct",
                "typedef",
                "size_t",
                "int64_t",
                "int32_t",
                "uint64_t",
                "uint32_t",
                "virtual",
                "explicit",
                "public",
                "private",
                "protected",
                "operator",
                "noexcept",
                "override",
                "extern",
                "register",
                "volatile",
                "mutable",
            ],
            preamble: &[
                "#include",
                "#pragma",
                "#define",
                "#ifndef",
                "#endif",
                "using namespace",
            ],
            suffixes: C_SUFFIXES,
            lifetimes: false,
            backquotes: false,
        }),
        Language::Java => Some(&Rules {
            dropped: &[
                "public",
                "private",
                "protected",
                "static",
                "final",
                "void",
                "int",
                "long",
                "short",
                "byte",
                "char",
                "boolean",
                "double",
                "float",
                "extends",
                "implements",
                "throws",
                "var",
                "new",
                "abstract",
                "synchronized",
                "transient",
                "volatile",
                "interface",
                "enum",
                "instanceof",
                "strictfp",
                "native",
                "Override",
            ],
            preamble: &["import ", "package "],
            suffixes: &["l", "L", "f", "F", "d", "D"],
            lifetimes: false,
            backquotes: false,
        }),
        Language::Go => Some(&Rules {
            dropped: &[
                "func",
                "var",
                "const",
                "type",
                "struct",
                "interface",
                "int",
                "int8",
                "int16",
                "int32",
                "int64",
                "uint",
                "uint8",
                "uint16",
                "uint32",
                "uint64",
                "uintptr",
                "float32",
                "float64",
                "complex64",
                "complex128",
                "byte",
                "rune",
                "bool",
                "chan",
                "go",
                "defer",
                "select",
                "fallthrough",
                "goto",
            ],
            preamble: &["package ", "import "],
            suffixes: &[],
            lifetimes: false,
            backquotes: true,
        }),
        Language::JavaScript | Language::TypeScript => Some(&Rules {
            dropped: &[
                "const",
                "let",
                "var",
                "function",
                "new",
                "typeof",
                "void",
                "instanceof",
                "export",
                "default",
                "async",
                "await",
                "yield",
                "static",
                "extends",
                "interface",
                "type",
                "implements",
                "private",
                "public",
                "protected",
                "readonly",
                "declare",
                "namespace",
                "enum",
                "abstract",
                "keyof",
                "number",
                "boolean",
                "any",
                "unknown",
                "never",
                "bigint",
                "symbol",
                "undefined",
            ],
            preamble: &["import ", "export * from", "'use strict'", "\"use strict\""],
            suffixes: &["n"],
            lifetimes: false,
            backquotes: true,
        }),
        Language::Rust => Some(&Rules {
            dropped: &[
                "fn", "let", "mut", "pub", "impl", "const", "static", "struct", "enum", "trait",
                "type", "where", "dyn", "ref", "move", "unsafe", "extern", "crate", "mod", "Self",
                "self", "usize", "isize", "i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32",
                "u64", "u128", "f32", "f64", "bool", "char", "str", "async", "await",
            ],
            preamble: &["use ", "extern crate ", "#![", "#["],
            suffixes: &[
                "usize", "isize", "i128", "u128", "i64", "u64", "i32", "u32", "i16", "u16", "f64",
                "f32", "i8", "u8",
            ],
            lifetimes: true,
            backquotes: false,
        }),
    }
}

/// `code` without its preamble: the lines that start (after indentation) with one of the
/// language's preamble prefixes, each with its continuation (a Go `import (` block to its `)`,
/// a Rust `use` to its `;`).
fn without_preamble(rules: &Rules, code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut until: Option<char> = None;
    for line in code.split_inclusive('\n') {
        let t = line.trim_start();
        if let Some(end) = until {
            if t.trim_end().ends_with(end) || t.trim_start().starts_with(end) {
                until = None;
            }
            continue;
        }
        if rules.preamble.iter().any(|p| t.starts_with(p)) {
            let t = t.trim_end();
            until = if t.ends_with('(') {
                Some(')')
            } else if t.starts_with("use ") && !t.ends_with(';') {
                Some(';')
            } else {
                None
            };
            out.push('\n');
            continue;
        }
        out.push_str(line);
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Code,
    /// A comment or a string literal: every word kept.
    Text,
}

/// `code` cut into code and text (comments, string and character literals), in order. Rust
/// lifetimes are cut out.
fn segments<'a>(rules: &Rules, code: &'a str) -> Vec<(&'a str, Kind)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut start) = (0, 0);
    let flush = |out: &mut Vec<(&'a str, Kind)>, from: usize, to: usize, kind: Kind| {
        if to > from {
            out.push((&code[from..to], kind));
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        // The end of the text that starts at `i`, when one does.
        let text_end = match (c, next) {
            (b'/', Some(b'/')) => Some(find(b, i + 2, b"\n").unwrap_or(b.len())),
            (b'/', Some(b'*')) => Some(find(b, i + 2, b"*/").map_or(b.len(), |e| e + 2)),
            (b'"', _) => Some(quoted(b, i, b'"')),
            (b'`', _) if rules.backquotes => Some(quoted(b, i, b'`')),
            (b'\'', _) => {
                let end = quoted(b, i, b'\'');
                let lifetime = rules.lifetimes
                    && (end > b.len().min(i + 4) || b[i + 1..end.min(b.len())].contains(&b'\n'));
                if lifetime {
                    // `'a`: drop the quote and its name.
                    flush(&mut out, start, i, Kind::Code);
                    let mut j = i + 1;
                    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                        j += 1;
                    }
                    i = j;
                    start = j;
                    continue;
                }
                Some(end)
            }
            _ => None,
        };
        match text_end {
            Some(end) => {
                flush(&mut out, start, i, Kind::Code);
                flush(&mut out, i, end, Kind::Text);
                i = end;
                start = end;
            }
            None => i += 1,
        }
    }
    flush(&mut out, start, b.len(), Kind::Code);
    out
}

/// The first index ≥ `from` where `pat` starts.
fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

/// The end (exclusive) of the literal quoted by `q` that opens at `open`, backslash escapes
/// skipped; the end of the code when it never closes.
fn quoted(b: &[u8], open: usize, q: u8) -> usize {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == q => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// A number without its type suffix (`1LL` → `1`, `10u64` → `10`); a hexadecimal, binary or
/// octal literal as written.
fn strip_suffix<'a>(rules: &Rules, word: &'a str) -> &'a str {
    let based = word.len() > 1 && matches!(&word[..2], "0x" | "0X" | "0b" | "0B" | "0o" | "0O");
    if based {
        return word; // `0x1F`: its letters are digits
    }
    for s in rules.suffixes {
        if let Some(n) = word.strip_suffix(s) {
            let n = n.strip_suffix('_').unwrap_or(n);
            if n.ends_with(|c: char| c.is_ascii_digit()) {
                return n;
            }
        }
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(lang: Language, code: &str) -> Vec<String> {
        tokenize_in(lang, code)
    }

    #[test]
    fn python_is_read_as_before() {
        let code = "import math\ndef sum_of(xs: int): # int sum\n    return xs[0]+maxValue2X\n";
        assert_eq!(t(Language::Python, code), tokenize(code));
    }

    #[test]
    fn cpp_drops_its_preamble_and_type_keywords_keeps_comments_and_strings() {
        let code = "#include<vector>\nusing namespace std;\n/* int sum of a vector */\nlong long sumOf(vector<int> v){\n    string s = \"int\"; // static int\n    return v[0] + 1LL + 2.5f + 0x1F;\n}\n";
        assert_eq!(
            t(Language::Cpp, code),
            [
                "int", "sum", "of", "a", "vector", "sum", "of", "vector", "v", "string", "s",
                "int", "static", "int", "return", "v", "0", "1", "2", "5", "0x1", "f"
            ]
        );
    }

    #[test]
    fn java_drops_modifiers_and_imports() {
        let code = "import java.util.*;\nclass Solution {\n    public static List<Integer> maxOf(int[] xs, long k) {\n        return new ArrayList<>(List.of(10L, 2.0d));\n    }\n}\n";
        assert_eq!(
            t(Language::Java, code),
            [
                "class", "solution", "list", "integer", "max", "of", "xs", "k", "return", "array",
                "list", "list", "of", "10", "2", "0"
            ]
        );
    }

    #[test]
    fn go_drops_package_import_blocks_and_func() {
        let code = "package main\n\nimport (\n    \"math\"\n    \"strings\"\n)\n\nfunc HasPrefix(s string, n int) bool {\n    x := `raw int`\n    return strings.HasPrefix(s, \"a\") && n > 0\n}\n";
        assert_eq!(
            t(Language::Go, code),
            [
                "has", "prefix", "s", "string", "n", "x", "raw", "int", "return", "strings", "has",
                "prefix", "s", "a", "n", "0"
            ]
        );
    }

    #[test]
    fn javascript_and_typescript_drop_declarations() {
        let code = "const sumOf = (xs) => {\n  let total = 0n; // running total\n  for (const x of xs) total += x;\n  return `sum ${total}`;\n};\n";
        assert_eq!(
            t(Language::JavaScript, code),
            [
                "sum", "of", "xs", "total", "0", "running", "total", "for", "x", "of", "xs",
                "total", "x", "return", "sum", "total"
            ]
        );
        let ts = "function f(a: number): boolean { return a > 1; }";
        assert_eq!(t(Language::TypeScript, ts), ["f", "a", "return", "a", "1"]);
    }

    #[test]
    fn rust_drops_use_lines_lifetimes_and_suffixes_keeps_chars() {
        let code = "use std::{slice::Iter,\n    cmp::max};\nuse md5;\nfn longest<'a>(xs: &'a [String]) -> Option<&'a str> {\n    let mut n = 0usize; // count 'em\n    if xs[0].starts_with('x') { n += 1_u8 as usize; }\n    None\n}\n";
        assert_eq!(
            t(Language::Rust, code),
            [
                "longest", "xs", "string", "option", "n", "0", "count", "em", "if", "xs", "0",
                "starts", "with", "x", "n", "1", "as", "none"
            ]
        );
    }
}
