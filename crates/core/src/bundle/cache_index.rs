//! The one index of a bundle's execution cache: which cache row holds each (query row, corpus
//! row) pair, built once per bundle from each snippet's `code_sha256` and each suite's
//! `tests_sha256` in the detected encoding. The PASS truth (`metrics::Truth`), the results writer,
//! the audit and the dashboard all read the cache through it.

use super::model::{code_sha256, tests_key_fn, Bundle};
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub struct CacheIndex {
    /// Per corpus row: SHA-256 of its code.
    pub code_hash: Vec<String>,
    /// Per query row: its suite's `tests_sha256` in the bundle's encoding.
    pub tests_hash: Vec<String>,
    /// Per query row: corpus row → row of `bundle.cache` holding the pair. Snippets with the same
    /// code share the row; of two rows for one key the later wins (`check` refuses such
    /// conflicts, so in a checked bundle they agree).
    held: Vec<HashMap<u32, usize>>,
}

impl CacheIndex {
    pub fn build(bundle: &Bundle) -> CacheIndex {
        let key = tests_key_fn(bundle.tests_key_encoding);
        let code_hash: Vec<String> = bundle.corpus.iter().map(|s| code_sha256(&s.code)).collect();
        let tests_hash: Vec<String> = bundle.queries.iter().map(|q| key(&q.tests)).collect();
        let mut by_code: HashMap<&str, Vec<u32>> = HashMap::new();
        for (c, h) in code_hash.iter().enumerate() {
            by_code.entry(h.as_str()).or_default().push(c as u32);
        }
        // tests hash → cache rows, in file order (so a later row overwrites an earlier one).
        let mut by_tests: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in bundle.cache.iter().enumerate() {
            by_tests.entry(r.tests_sha256.as_str()).or_default().push(i);
        }
        let held = tests_hash
            .iter()
            .map(|t| {
                let mut pairs = HashMap::new();
                for &i in by_tests.get(t.as_str()).map_or(&[][..], Vec::as_slice) {
                    if let Some(rows) = by_code.get(bundle.cache[i].code_sha256.as_str()) {
                        for &c in rows {
                            pairs.insert(c, i);
                        }
                    }
                }
                pairs
            })
            .collect();
        CacheIndex {
            code_hash,
            tests_hash,
            held,
        }
    }

    /// Row of `bundle.cache` holding snippet `c` run against query `q`'s suite.
    pub fn row(&self, q: usize, c: usize) -> Option<usize> {
        self.held.get(q)?.get(&u32::try_from(c).ok()?).copied()
    }

    /// Every pair of query `q` the cache holds: (corpus row, cache row), in no particular order.
    pub fn held(&self, q: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.held
            .get(q)
            .into_iter()
            .flatten()
            .map(|(&c, &i)| (c as usize, i))
    }

    /// Number of query rows indexed.
    pub fn n_queries(&self) -> usize {
        self.held.len()
    }

    /// The cached verdict of snippet `c` on query `q`'s suite: every recorded outcome is a pass
    /// (a record without outcomes passes nothing); `None` when the cache lacks the pair.
    pub fn verdict(&self, bundle: &Bundle, q: usize, c: usize) -> Option<bool> {
        self.outcomes(bundle, q, c).map(|o| {
            !o.is_empty()
                && o.iter().all(|x| {
                    x.parse::<execscope_record::Outcome>()
                        .is_ok_and(|o| o.is_pass())
                })
        })
    }

    /// Cached per-test outcomes of snippet `c` on query `q`'s suite.
    pub fn outcomes<'b>(&self, bundle: &'b Bundle, q: usize, c: usize) -> Option<&'b [String]> {
        self.row(q, c)
            .and_then(|i| bundle.cache.get(i))
            .map(|r| r.outcomes.as_slice())
    }
}
