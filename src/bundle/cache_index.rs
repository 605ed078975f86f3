//! Lookups into a bundle's execution cache by (corpus row, query row), built once per bundle:
//! each snippet's `code_sha256`, each suite's `tests_sha256` in the detected encoding, and the
//! cache row of every held pair. Shared by the results writer, the audit and the dashboard.

use super::model::{code_sha256, tests_key_fn, Bundle};
use std::collections::HashMap;

#[derive(Clone, Debug, Default)]
pub struct CacheIndex {
    /// Per corpus row: SHA-256 of its code.
    pub code_hash: Vec<String>,
    /// Per query row: its suite's `tests_sha256` in the bundle's encoding.
    pub tests_hash: Vec<String>,
    /// tests hash → code hash → row of `bundle.cache` (the last row wins on duplicates).
    rows: HashMap<String, HashMap<String, usize>>,
}

impl CacheIndex {
    pub fn build(bundle: &Bundle) -> CacheIndex {
        let key = tests_key_fn(bundle.tests_key_encoding.as_deref());
        let mut rows: HashMap<String, HashMap<String, usize>> = HashMap::new();
        for (i, r) in bundle.cache.iter().enumerate() {
            rows.entry(r.tests_sha256.clone())
                .or_default()
                .insert(r.code_sha256.clone(), i);
        }
        CacheIndex {
            code_hash: bundle.corpus.iter().map(|s| code_sha256(&s.code)).collect(),
            tests_hash: bundle.queries.iter().map(|q| key(&q.tests)).collect(),
            rows,
        }
    }

    /// Row of `bundle.cache` holding snippet `c` run against query `q`'s suite.
    pub fn row(&self, q: usize, c: usize) -> Option<usize> {
        self.rows
            .get(self.tests_hash.get(q)?)?
            .get(self.code_hash.get(c)?)
            .copied()
    }

    /// Cached per-test outcomes of snippet `c` on query `q`'s suite.
    pub fn outcomes<'b>(&self, bundle: &'b Bundle, q: usize, c: usize) -> Option<&'b [String]> {
        self.row(q, c)
            .and_then(|i| bundle.cache.get(i))
            .map(|r| r.outcomes.as_slice())
    }
}
