//! PASS(c, T_q): which snippets pass which query's suite.
//!
//! The execution cache answers a pair when it holds it (keyed by code and tests hashes). A pair the
//! cache does not hold falls back to the labels: it passes exactly when the snippet is one of the
//! query's `correct_corpus_ids` (a missing pair never counts as a pass otherwise). Every answer keeps
//! its source so reports can say how many shown verdicts came from the fallback.

use crate::bundle::{Bundle, CacheIndex};
use std::collections::HashMap;

/// Where a PASS verdict came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassSource {
    /// An execution cache row (or a fresh oracle run merged into the cache).
    Cache,
    /// No cached execution: the label (`correct_corpus_ids` membership) decided.
    Label,
}

/// PASS for every (query, snippet) pair of a bundle.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// Per query: corpus rows that pass its suite, ascending.
    pass: Vec<Vec<u32>>,
    /// Per query: verdicts the cache holds.
    cached: Vec<HashMap<u32, bool>>,
    /// Per query: rows of `correct_corpus_ids`, ascending.
    correct: Vec<Vec<u32>>,
}

impl Truth {
    /// Build from the bundle's execution-cache index: every pair the cache holds keeps the
    /// cached verdict; every other pair falls back to the labels.
    pub fn from_index(bundle: &Bundle, index: &CacheIndex) -> Truth {
        let mut truth = Truth::default();
        for (q, query) in bundle.queries.iter().enumerate() {
            let cached: HashMap<u32, bool> = index
                .held(q)
                .map(|(c, i)| (c as u32, bundle.cache[i].passes_all_tests))
                .collect();
            let mut correct: Vec<u32> = query.correct.iter().map(|&c| c as u32).collect();
            correct.sort_unstable();
            correct.dedup();
            truth.push_query(cached, correct);
        }
        truth
    }

    /// [`Truth::from_index`] with an index built for the purpose.
    pub fn from_bundle(bundle: &Bundle) -> Truth {
        Truth::from_index(bundle, &CacheIndex::build(bundle))
    }

    /// Build from explicit verdicts (tests, synthetic data, fresh oracle runs).
    pub fn from_parts(cached: Vec<HashMap<u32, bool>>, correct: Vec<Vec<u32>>) -> Truth {
        let mut truth = Truth::default();
        for (c, r) in cached.into_iter().zip(correct) {
            truth.push_query(c, r);
        }
        truth
    }

    fn push_query(&mut self, cached: HashMap<u32, bool>, correct: Vec<u32>) {
        let mut pass: Vec<u32> = cached
            .iter()
            .filter_map(|(&c, &ok)| ok.then_some(c))
            .collect();
        for &c in &correct {
            if !cached.contains_key(&c) {
                pass.push(c);
            }
        }
        pass.sort_unstable();
        pass.dedup();
        self.pass.push(pass);
        self.cached.push(cached);
        self.correct.push(correct);
    }

    /// A SHA-256 over every verdict and its source (per query: the passing rows, the cached
    /// verdicts in row order, the label rows), for keys of results computed from this truth.
    pub fn digest(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let mut put = |v: &[u32]| {
            h.update((v.len() as u64).to_le_bytes());
            for x in v {
                h.update(x.to_le_bytes());
            }
        };
        for q in 0..self.pass.len() {
            put(&self.pass[q]);
            let mut cached: Vec<(u32, u32)> = self.cached[q]
                .iter()
                .map(|(&c, &ok)| (c, u32::from(ok)))
                .collect();
            cached.sort_unstable();
            put(&cached
                .iter()
                .flat_map(|&(c, ok)| [c, ok])
                .collect::<Vec<_>>());
            put(&self.correct[q]);
        }
        h.finalize().into()
    }

    pub fn n_queries(&self) -> usize {
        self.pass.len()
    }

    /// Rows passing query `q`'s suite.
    pub fn passing(&self, q: usize) -> &[u32] {
        &self.pass[q]
    }

    /// Rows of query `q`'s `correct_corpus_ids` (nDCG relevance).
    pub fn relevant(&self, q: usize) -> &[u32] {
        &self.correct[q]
    }

    pub fn passes(&self, q: usize, c: usize) -> bool {
        self.pass[q].binary_search(&(c as u32)).is_ok()
    }

    pub fn source(&self, q: usize, c: usize) -> PassSource {
        if self.cached[q].contains_key(&(c as u32)) {
            PassSource::Cache
        } else {
            PassSource::Label
        }
    }

    /// Number of (query, snippet) verdicts held by the cache.
    pub fn n_cached(&self) -> usize {
        self.cached.iter().map(HashMap::len).sum()
    }

    /// Record a fresh verdict (e.g. from the oracle) for a pair.
    pub fn set(&mut self, q: usize, c: usize, ok: bool) {
        self.cached[q].insert(c as u32, ok);
        let pass = &mut self.pass[q];
        match (pass.binary_search(&(c as u32)), ok) {
            (Ok(i), false) => {
                pass.remove(i);
            }
            (Err(i), true) => pass.insert(i, c as u32),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_overrides_label_and_missing_pairs_fall_back() {
        // Query 0: correct row 0 cached as FAIL (the cache wins), row 2 cached PASS (a duplicate),
        // row 1 uncached and not correct. Query 1: correct row 1 uncached → passes by label.
        let cached0: HashMap<u32, bool> = [(0, false), (2, true)].into_iter().collect();
        let t = Truth::from_parts(vec![cached0, HashMap::new()], vec![vec![0], vec![1]]);
        assert_eq!(t.passing(0), &[2]);
        assert_eq!(t.passing(1), &[1]);
        assert_eq!(t.source(0, 0), PassSource::Cache);
        assert_eq!(t.source(1, 1), PassSource::Label);
        assert!(!t.passes(0, 1));
        let mut t = t;
        t.set(0, 1, true);
        assert_eq!(t.passing(0), &[1, 2]);
        t.set(0, 2, false);
        assert_eq!(t.passing(0), &[1]);
        assert_eq!(t.n_cached(), 3);
    }
}
