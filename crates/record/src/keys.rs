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

/// `tests_sha256` under an encoding; `None` → execscope's own (`python-json-compact`).
pub fn tests_key(tests: &[String], encoding: Option<TestsEncoding>) -> String {
    match encoding {
        Some(e) => e.key(tests),
        None => tests_sha256(tests),
    }
}

/// A key function for an encoding, for code that hashes many suites.
pub fn tests_key_fn(encoding: Option<TestsEncoding>) -> impl Fn(&[String]) -> String {
    move |tests: &[String]| tests_key(tests, encoding)
}

/// A serialisation of a test list that a release may have hashed into `tests_sha256`; the loader
/// tries each (see `bundle::derive::detect_tests_encoding`) and keeps the one that matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TestsEncoding {
    /// `json.dumps(tests, separators=(",", ":"))`: execscope's own.
    PythonJsonCompact,
    /// `json.dumps(tests)`.
    PythonJsonDefault,
    /// `json.dumps(tests, separators=(",", ":"), ensure_ascii=False)`.
    PythonJsonCompactUtf8,
    /// `json.dumps(tests, ensure_ascii=False)`.
    PythonJsonDefaultUtf8,
    /// The tests joined by `\n`.
    NewlineJoined,
    /// Each test followed by `\n`.
    NewlineTerminated,
}

impl TestsEncoding {
    /// Every encoding, most likely first (execscope's own first, so it wins ties).
    pub const ALL: [TestsEncoding; 6] = [
        TestsEncoding::PythonJsonCompact,
        TestsEncoding::PythonJsonDefault,
        TestsEncoding::PythonJsonCompactUtf8,
        TestsEncoding::PythonJsonDefaultUtf8,
        TestsEncoding::NewlineJoined,
        TestsEncoding::NewlineTerminated,
    ];

    /// The name reports and notes use (`python-json-compact`, …).
    pub fn name(self) -> &'static str {
        match self {
            TestsEncoding::PythonJsonCompact => "python-json-compact",
            TestsEncoding::PythonJsonDefault => "python-json-default",
            TestsEncoding::PythonJsonCompactUtf8 => "python-json-compact-utf8",
            TestsEncoding::PythonJsonDefaultUtf8 => "python-json-default-utf8",
            TestsEncoding::NewlineJoined => "newline-joined",
            TestsEncoding::NewlineTerminated => "newline-terminated",
        }
    }

    /// The encoding by name.
    pub fn from_name(name: &str) -> Option<TestsEncoding> {
        TestsEncoding::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The serialised suite.
    pub fn encode(self, tests: &[String]) -> String {
        match self {
            TestsEncoding::PythonJsonCompact => python_json_compact(tests),
            TestsEncoding::PythonJsonDefault => python_default(tests),
            TestsEncoding::PythonJsonCompactUtf8 => python_compact_utf8(tests),
            TestsEncoding::PythonJsonDefaultUtf8 => python_default_utf8(tests),
            TestsEncoding::NewlineJoined => newline_joined(tests),
            TestsEncoding::NewlineTerminated => newline_terminated(tests),
        }
    }

    /// `tests_sha256` of a suite under this encoding.
    pub fn key(self, tests: &[String]) -> String {
        sha256_hex(self.encode(tests).as_bytes())
    }
}

impl std::fmt::Display for TestsEncoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for TestsEncoding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
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
    fn every_tests_key_encoding_round_trips_by_name_and_hashes_as_documented() {
        let t = vec![
            "assert f(1, 2) == 'é'".to_string(),
            "assert g()".to_string(),
        ];
        assert_eq!(tests_key(&t, None), tests_sha256(&t));
        assert_eq!(
            tests_key(&t, Some(TestsEncoding::PythonJsonCompact)),
            tests_sha256(&t)
        );
        for e in TestsEncoding::ALL {
            assert_eq!(TestsEncoding::from_name(e.name()), Some(e));
        }
        assert_eq!(
            tests_key(&t, Some(TestsEncoding::NewlineJoined)),
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
    fn python_json_dumps_variants_by_hand() {
        let t = vec!["assert f('é') == 1".to_string(), "b".to_string()];
        // json.dumps(t) and json.dumps(t, ensure_ascii=False, separators=(",", ":"))
        assert_eq!(python_default(&t), r#"["assert f('\u00e9') == 1", "b"]"#);
        assert_eq!(python_compact_utf8(&t), r#"["assert f('é') == 1","b"]"#);
        assert_eq!(python_default_utf8(&t), r#"["assert f('é') == 1", "b"]"#);
    }
}
