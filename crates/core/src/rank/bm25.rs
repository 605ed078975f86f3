//! Okapi BM25 over the corpus code, computed by execscope itself (k1 = 1.5, b = 0.75).
//!
//! Code in a language other than Python is read by that language's rules
//! ([`super::lexicon`]); Python code and every query by the tokenizer below.
//!
//! Tokenizer (documented in the README, and the same for queries and code): split the text into
//! maximal runs of ASCII letters and digits (so `_`, operators and punctuation separate tokens and
//! `snake_case` gives `snake`, `case`), split each run where a lowercase letter or digit is followed
//! by an uppercase one (`maxValue` → `max`, `value`; `parseHTTPHeader` → `parse`, `httpheader`), and
//! lowercase. Non-ASCII characters separate tokens too.
//!
//! Scoring: idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) (the non-negative Lucene form), and
//! score(q, d) = Σ over query tokens t, duplicates included, of
//! idf(t) · tf(t, d) · (k1 + 1) / (tf(t, d) + k1 · (1 − b + b · |d| / avgdl)).
//! Sums run in f64 in query-token order, so two snippets with the same token bag get bit-identical
//! scores (the tie the paper's mutants create); the result is stored as f32.

use crate::bundle::{Language, Snippet};
use ndarray::Array2;
use rayon::prelude::*;
use std::collections::HashMap;

pub const K1: f64 = 1.5;
pub const B: f64 = 0.75;

/// Split text into lowercase tokens: ASCII alphanumeric runs, further split at camelCase
/// boundaries (a lowercase letter or digit followed by an uppercase letter).
pub fn tokenize(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            if let Some(p) = prev {
                if (p.is_ascii_lowercase() || p.is_ascii_digit()) && ch.is_ascii_uppercase() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            cur.push(ch.to_ascii_lowercase());
            prev = Some(ch);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev = None;
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A BM25 index over a fixed set of documents.
pub struct Bm25Index {
    /// term → id
    vocab: HashMap<String, u32>,
    /// per term id: (doc, tf) postings, doc ascending
    postings: Vec<Vec<(u32, u32)>>,
    /// per doc: length normaliser k1 · (1 − b + b · |d| / avgdl)
    norm: Vec<f64>,
    n_docs: usize,
}

impl Bm25Index {
    /// An index over documents read by the Python rule ([`tokenize`]).
    pub fn new<S: AsRef<str> + Sync>(docs: &[S]) -> Bm25Index {
        Bm25Index::of_tokens(docs.par_iter().map(|d| tokenize(d.as_ref())).collect())
    }

    /// An index over documents each read in its language (`languages[i]` for `docs[i]`;
    /// [`super::lexicon::tokenize_in`]). All Python is [`Bm25Index::new`], bit for bit.
    pub fn with_languages<S: AsRef<str> + Sync>(docs: &[S], languages: &[Language]) -> Bm25Index {
        assert_eq!(docs.len(), languages.len(), "one language per document");
        Bm25Index::of_tokens(
            docs.par_iter()
                .zip(languages.par_iter())
                .map(|(d, l)| super::lexicon::tokenize_in(*l, d.as_ref()))
                .collect(),
        )
    }

    /// The index over a bundle's corpus code, each snippet read in its language.
    pub fn of_corpus(corpus: &[Snippet]) -> Bm25Index {
        let docs: Vec<&str> = corpus.iter().map(|c| c.code.as_str()).collect();
        let languages: Vec<Language> = corpus.iter().map(|c| c.language).collect();
        Bm25Index::with_languages(&docs, &languages)
    }

    fn of_tokens(tokenized: Vec<Vec<String>>) -> Bm25Index {
        let docs = &tokenized;
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut postings: Vec<Vec<(u32, u32)>> = Vec::new();
        let mut total_len = 0usize;
        for (di, toks) in tokenized.iter().enumerate() {
            total_len += toks.len();
            let mut tf: HashMap<u32, u32> = HashMap::new();
            for t in toks {
                let next = vocab.len() as u32;
                let id = *vocab.entry(t.clone()).or_insert(next);
                if id as usize == postings.len() {
                    postings.push(Vec::new());
                }
                *tf.entry(id).or_insert(0) += 1;
            }
            let mut tf: Vec<(u32, u32)> = tf.into_iter().collect();
            tf.sort_unstable();
            for (id, n) in tf {
                postings[id as usize].push((di as u32, n));
            }
        }
        let n_docs = docs.len();
        let avgdl = if n_docs == 0 {
            1.0
        } else {
            (total_len as f64 / n_docs as f64).max(f64::MIN_POSITIVE)
        };
        let norm = tokenized
            .iter()
            .map(|t| K1 * (1.0 - B + B * t.len() as f64 / avgdl))
            .collect();
        Bm25Index {
            vocab,
            postings,
            norm,
            n_docs,
        }
    }

    pub fn n_docs(&self) -> usize {
        self.n_docs
    }

    fn idf(&self, df: usize) -> f64 {
        let n = self.n_docs as f64;
        let df = df as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Scores of every document for one query text, in f64.
    pub fn score_text(&self, query: &str) -> Vec<f64> {
        let mut scores = vec![0.0f64; self.n_docs];
        for tok in tokenize(query) {
            let Some(&id) = self.vocab.get(&tok) else {
                continue;
            };
            let plist = &self.postings[id as usize];
            let idf = self.idf(plist.len());
            for &(d, tf) in plist {
                let tf = tf as f64;
                scores[d as usize] += idf * tf * (K1 + 1.0) / (tf + self.norm[d as usize]);
            }
        }
        scores
    }

    /// Scores for many queries: n_queries × n_docs, stored as f32.
    pub fn score_all<S: AsRef<str> + Sync>(&self, queries: &[S]) -> Array2<f32> {
        let mut out = Array2::<f32>::zeros((queries.len(), self.n_docs));
        out.outer_iter_mut()
            .into_par_iter()
            .zip(queries.par_iter())
            .for_each(|(mut row, q)| {
                for (dst, s) in row.iter_mut().zip(self.score_text(q.as_ref())) {
                    *dst = s as f32;
                }
            });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizer_splits_snake_camel_and_operators() {
        assert_eq!(
            tokenize("def sum_of(xs): return xs[0]+maxValue2X"),
            vec!["def", "sum", "of", "xs", "return", "xs", "0", "max", "value2", "x"]
        );
        assert_eq!(tokenize("HTTPServer é a<=b"), vec!["httpserver", "a", "b"]);
        assert!(tokenize("  +-*/ ").is_empty());
    }

    /// Hand-worked example. Docs: d0 = "a b a" (3 tokens), d1 = "b c" (2), d2 = "c" (1).
    /// N = 3, avgdl = 2. df(a) = 1, df(b) = 2, df(c) = 2.
    /// idf(a) = ln(1 + 2.5/1.5) = ln(8/3); idf(b) = ln(1 + 1.5/2.5) = ln(1.6).
    /// norm(d) = 1.5 · (0.25 + 0.75 · |d| / 2): d0 → 1.5 · 1.375 = 2.0625, d1 → 1.5, d2 → 0.9375.
    /// Query "a b":
    ///   d0 = ln(8/3) · 2 · 2.5 / (2 + 2.0625) + ln(1.6) · 1 · 2.5 / (1 + 2.0625)
    ///   d1 = ln(1.6) · 2.5 / (1 + 1.5);  d2 = 0.
    #[test]
    fn bm25_hand_worked() {
        let idx = Bm25Index::new(&["a b a", "b c", "c"]);
        let s = idx.score_text("a b");
        let idf_a = (8.0f64 / 3.0).ln();
        let idf_b = 1.6f64.ln();
        let d0 = idf_a * 2.0 * 2.5 / (2.0 + 2.0625) + idf_b * 2.5 / (1.0 + 2.0625);
        let d1 = idf_b * 2.5 / 2.5;
        assert!((s[0] - d0).abs() < 1e-12, "{} vs {}", s[0], d0);
        assert!((s[1] - d1).abs() < 1e-12);
        assert_eq!(s[2], 0.0);
        // A repeated query token counts twice.
        let s2 = idx.score_text("b b");
        assert!((s2[1] - 2.0 * d1).abs() < 1e-12);
    }

    #[test]
    fn each_document_is_read_in_its_language_and_python_is_unchanged() {
        use Language::{Cpp, Python, Rust};
        let docs = [
            "def count(xs):\n    return len(xs)\n",
            "#include<vector>\nint count(std::vector<int> xs){ return xs.size(); }\n",
            "fn count(xs: &[i32]) -> usize { xs.len() }\n",
        ];
        let queries = ["count the int values", "return the size", "len of xs"];
        let py = Bm25Index::new(&docs);
        let same = Bm25Index::with_languages(&docs, &[Python; 3]);
        for q in queries {
            let (a, b) = (py.score_text(q), same.score_text(q));
            assert_eq!(
                a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        let mixed = Bm25Index::with_languages(&docs, &[Python, Cpp, Rust]);
        // `int` is C++ syntax (and `include`, `std`, `vector`'s `#include` line its preamble):
        // read as C++ the snippet no longer matches the word; read as Python it did.
        assert!(py.score_text("int")[1] > 0.0);
        assert_eq!(mixed.score_text("int")[1], 0.0);
        assert_eq!(mixed.score_text("include std")[1], 0.0);
        // Words shared with Python code still match: `return`, names, `len`.
        assert!(mixed.score_text("return")[1] > 0.0);
        assert!(mixed.score_text("len")[2] > 0.0);
        // Rust's `fn`, `usize`, `i32` are syntax too.
        assert_eq!(mixed.score_text("fn usize i32")[2], 0.0);
    }

    #[test]
    fn same_token_bag_ties_exactly() {
        let idx = Bm25Index::new(&["if n < 1: return 0", "if n <= 1: return 0", "x"]);
        let s = idx.score_all(&["return n if small"]);
        assert_eq!(s[[0, 0]].to_bits(), s[[0, 1]].to_bits());
    }
}
