//! Fields the release does not state and the loader derives: a query's domain (from its
//! `entry_id`), its function name (from its canonical), and the encoding of the cache's
//! `tests_sha256` key (tried against the cache, never assumed).

use std::collections::HashSet;

use super::model::DOMAINS;
use execscope_record::keys::TestsEncoding;

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

/// Try every encoding on the given test suites against the cache's keys; returns the best
/// (most suites found) with its hit count, or `None` when no suite matches under any encoding.
pub fn detect_tests_encoding<'a>(
    suites: impl Iterator<Item = &'a [String]> + Clone,
    cache_keys: &HashSet<&str>,
) -> Option<(TestsEncoding, usize, usize)> {
    let mut best: Option<(TestsEncoding, usize, usize)> = None;
    for enc in TestsEncoding::ALL {
        let mut hits = 0;
        let mut total = 0;
        for tests in suites.clone() {
            total += 1;
            if cache_keys.contains(enc.key(tests).as_str()) {
                hits += 1;
            }
        }
        if hits > 0 && best.is_none_or(|(_, h, _)| hits > h) {
            best = Some((enc, hits, total));
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
    fn function_name_is_the_first_top_level_def() {
        let code =
            "import re\nR = 3\n\ndef  helper(x):\n    def inner(): pass\n\ndef main(): pass\n";
        assert_eq!(first_top_level_def(code), "helper");
        assert_eq!(first_top_level_def("class A:\n    def f(self): pass\n"), "");
        assert_eq!(first_top_level_def("async def go(): pass"), "go");
    }
}
