//! The execution cache's keys: `code_sha256` of a snippet and `tests_sha256` of a test suite, in
//! execscope's encoding or one of the other serialisations a release may have hashed (the loader
//! detects which; see docs/bundle-format.md).

use sha2::{Digest, Sha256};

/// Hex SHA-256 of bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// `code_sha256` of the execution cache: SHA-256 of the UTF-8 code.
pub fn code_sha256(code: &str) -> String {
    sha256_hex(code.as_bytes())
}

/// The JSON array of tests exactly as Python's `json.dumps(tests, separators=(",", ":"))` writes
/// it: compact, non-ASCII escaped as `\uXXXX` (surrogate pairs above the BMP).
pub fn python_json_compact(tests: &[String]) -> String {
    python_json_compact_like(tests, ",", true)
}

/// `tests_sha256` of the execution cache, in execscope's (and Python tooling's default) encoding.
pub fn tests_sha256(tests: &[String]) -> String {
    sha256_hex(python_json_compact(tests).as_bytes())
}

/// `tests_sha256` under a named encoding (see [`ENCODINGS`]); `None` or an
/// unknown name → execscope's own (`python-json-compact`).
pub fn tests_key(tests: &[String], name: Option<&str>) -> String {
    match name.and_then(encoding) {
        Some(e) => sha256_hex((e.encode)(tests).as_bytes()),
        None => tests_sha256(tests),
    }
}

/// A key function for an encoding, for code that hashes many suites.
pub fn tests_key_fn(encoding: Option<&str>) -> impl Fn(&[String]) -> String {
    let enc = encoding.map(str::to_string);
    move |tests: &[String]| tests_key(tests, enc.as_deref())
}

/// A candidate serialisation of a test list for `tests_sha256`.
pub struct Encoding {
    pub name: &'static str,
    pub encode: fn(&[String]) -> String,
}

fn python_default(tests: &[String]) -> String {
    python_json_compact_like(tests, ", ", true)
}
fn python_compact_utf8(tests: &[String]) -> String {
    python_json_compact_like(tests, ",", false)
}
fn python_default_utf8(tests: &[String]) -> String {
    python_json_compact_like(tests, ", ", false)
}
fn newline_joined(tests: &[String]) -> String {
    tests.join("\n")
}
fn newline_terminated(tests: &[String]) -> String {
    tests.iter().map(|t| format!("{t}\n")).collect()
}

/// Python's `json.dumps(tests, separators=(sep, ":"), ensure_ascii=ascii)` for a list of strings.
pub fn python_json_compact_like(tests: &[String], sep: &str, ascii: bool) -> String {
    let mut out = String::from("[");
    for (i, t) in tests.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        out.push('"');
        for ch in t.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{08}' => out.push_str("\\b"),
                '\u{0c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || (ascii && (c as u32) > 0x7e) => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out.push(']');
    out
}

/// Encodings tried, most likely first (execscope's own first, so it wins ties).
pub const ENCODINGS: [Encoding; 6] = [
    Encoding {
        name: "python-json-compact",
        encode: python_json_compact,
    },
    Encoding {
        name: "python-json-default",
        encode: python_default,
    },
    Encoding {
        name: "python-json-compact-utf8",
        encode: python_compact_utf8,
    },
    Encoding {
        name: "python-json-default-utf8",
        encode: python_default_utf8,
    },
    Encoding {
        name: "newline-joined",
        encode: newline_joined,
    },
    Encoding {
        name: "newline-terminated",
        encode: newline_terminated,
    },
];

/// The encoding by name.
pub fn encoding(name: &str) -> Option<&'static Encoding> {
    ENCODINGS.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_json_matches_python_dumps() {
        // json.dumps(["assert f('é') == 1", 'a"b\\c\n'], separators=(",", ":"))
        let tests = vec!["assert f('é') == 1".to_string(), "a\"b\\c\n".to_string()];
        assert_eq!(
            python_json_compact(&tests),
            r#"["assert f('\u00e9') == 1","a\"b\\c\n"]"#
        );
        // Above the BMP as a surrogate pair; DEL (0x7f) is escaped too (Python: `[^\ -~]`).
        assert_eq!(
            python_json_compact(&["😀\u{7f}".to_string()]),
            "[\"\\ud83d\\ude00\\u007f\"]"
        );
    }

    #[test]
    fn named_encodings() {
        let t = vec![
            "assert f(1, 2) == 'é'".to_string(),
            "assert g()".to_string(),
        ];
        assert_eq!(tests_key(&t, None), tests_sha256(&t));
        assert_eq!(tests_key(&t, Some("python-json-compact")), tests_sha256(&t));
        assert_eq!(
            tests_key(&t, Some("newline-joined")),
            sha256_hex(b"assert f(1, 2) == '\xc3\xa9'\nassert g()")
        );
    }

    #[test]
    fn sha_of_empty_list() {
        // hashlib.sha256(b"[]").hexdigest()
        assert_eq!(
            tests_sha256(&[]),
            "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
    }

    #[test]
    fn python_encodings() {
        let t = vec!["assert f('é') == 1".to_string(), "b".to_string()];
        // json.dumps(t) and json.dumps(t, ensure_ascii=False, separators=(",", ":"))
        assert_eq!(python_default(&t), r#"["assert f('\u00e9') == 1", "b"]"#);
        assert_eq!(python_compact_utf8(&t), r#"["assert f('é') == 1","b"]"#);
        assert_eq!(python_default_utf8(&t), r#"["assert f('é') == 1", "b"]"#);
    }
}
