//! Fields the release does not state and the loader derives: a query's domain (from its
//! `entry_id`), its function name (from its canonical), and the encoding of the cache's
//! `tests_sha256` key (tried against the cache, never assumed).

use std::collections::HashSet;

use super::model::{python_json_compact, sha256_hex, DOMAINS};

/// The domain named inside an entry id (`exec_string_processing_5` → `string_processing`);
/// the longest of [`DOMAINS`] contained in it, or "" when none is.
pub fn domain_from_entry_id(entry_id: &str) -> String {
    DOMAINS
        .iter()
        .filter(|d| entry_id.contains(*d))
        .max_by_key(|d| d.len())
        .map(|d| d.to_string())
        .unwrap_or_default()
}

/// Name of the first top-level `def` (or `async def`) in Python code; "" when there is none.
pub fn first_top_level_def(code: &str) -> String {
    for line in code.lines() {
        let rest = line
            .strip_prefix("def ")
            .or_else(|| line.strip_prefix("async def "));
        if let Some(rest) = rest {
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                return name;
            }
        }
    }
    String::new()
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
pub(crate) fn python_json_compact_like(tests: &[String], sep: &str, ascii: bool) -> String {
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

/// Try every encoding on the given test suites against the cache's keys; returns the best
/// (most suites found) with its hit count, or `None` when no suite matches under any encoding.
pub fn detect_tests_encoding<'a>(
    suites: impl Iterator<Item = &'a [String]> + Clone,
    cache_keys: &HashSet<&str>,
) -> Option<(&'static str, usize, usize)> {
    let mut best: Option<(&'static str, usize, usize)> = None;
    for enc in &ENCODINGS {
        let mut hits = 0;
        let mut total = 0;
        for tests in suites.clone() {
            total += 1;
            if cache_keys.contains(sha256_hex((enc.encode)(tests).as_bytes()).as_str()) {
                hits += 1;
            }
        }
        if hits > 0 && best.is_none_or(|(_, h, _)| hits > h) {
            best = Some((enc.name, hits, total));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_from_entry_ids() {
        assert_eq!(
            domain_from_entry_id("exec_string_processing_5"),
            "string_processing"
        );
        assert_eq!(domain_from_entry_id("exec_date_time_12"), "date_time");
        assert_eq!(domain_from_entry_id("mbpp_1"), "");
    }

    #[test]
    fn function_names() {
        let code =
            "import re\nR = 3\n\ndef  helper(x):\n    def inner(): pass\n\ndef main(): pass\n";
        assert_eq!(first_top_level_def(code), "helper");
        assert_eq!(first_top_level_def("class A:\n    def f(self): pass\n"), "");
        assert_eq!(first_top_level_def("async def go(): pass"), "go");
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
