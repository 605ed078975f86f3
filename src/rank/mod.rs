//! Ranking: a score for every (query, snippet) pair of every system, and orderings with the tie rule.
//!
//! A system's result is its full score matrix (n_queries × n_corpus). The ranking of a query is the
//! corpus sorted by score descending with ties broken by corpus row ascending (the release's rule);
//! metrics read the score row directly (see `metrics`), so a full sort is only done where a list is
//! shown.

pub mod bm25;
pub mod ties;

use crate::bundle::{Bundle, DenseSystem, Similarity};
use ndarray::{s, Array2, ArrayView2, Axis};
use rayon::prelude::*;
use std::cmp::Ordering;

/// The id of the lexical baseline.
pub const BM25_ID: &str = "BM25";

/// Scores of one system over the whole bundle.
#[derive(Clone, Debug)]
pub struct SystemScores {
    /// npz file stem, or [`BM25_ID`].
    pub id: String,
    /// "cos", "dot" or "bm25".
    pub similarity: String,
    /// n_queries × n_corpus.
    pub scores: Array2<f32>,
}

impl SystemScores {
    pub fn row(&self, q: usize) -> &[f32] {
        self.scores
            .row(q)
            .to_slice()
            .expect("score matrices are standard layout")
    }

    pub fn is_dense(&self) -> bool {
        self.similarity != "bm25"
    }
}

/// Options for [`score_all`].
#[derive(Clone, Debug)]
pub struct RankOptions {
    /// Include the BM25 baseline.
    pub bm25: bool,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions { bm25: true }
    }
}

/// Score every system of the bundle (dense systems in bundle order, then BM25).
pub fn score_all(bundle: &Bundle, opts: &RankOptions) -> Vec<SystemScores> {
    let mut out: Vec<SystemScores> = bundle
        .systems
        .iter()
        .map(|s| SystemScores {
            id: s.id.clone(),
            similarity: s.similarity.as_str().to_string(),
            scores: dense_scores(s),
        })
        .collect();
    if opts.bm25 {
        out.push(bm25_system(bundle));
    }
    out
}

/// BM25 scores of the bundle's queries against its corpus code.
pub fn bm25_system(bundle: &Bundle) -> SystemScores {
    let docs: Vec<&str> = bundle.corpus.iter().map(|c| c.code.as_str()).collect();
    let queries: Vec<&str> = bundle.queries.iter().map(|q| q.text.as_str()).collect();
    let index = bm25::Bm25Index::new(&docs);
    SystemScores {
        id: BM25_ID.to_string(),
        similarity: "bm25".to_string(),
        scores: index.score_all(&queries),
    }
}

/// L2-normalise every row (cosine); a zero row stays zero (the loader refuses those under cosine).
pub fn normalized(m: ArrayView2<f32>) -> Array2<f32> {
    let mut out = m.to_owned();
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .for_each(|mut row| {
            let norm = row
                .iter()
                .map(|&x| (x as f64) * (x as f64))
                .sum::<f64>()
                .sqrt();
            if norm > 0.0 {
                let inv = (1.0 / norm) as f32;
                row.mapv_inplace(|x| x * inv);
            }
        });
    out
}

/// Similarity matrix of a dense system: cosine over L2-normalised rows, or raw dot.
/// The product runs in parallel blocks of query rows (ndarray's GEMM is single-threaded).
pub fn dense_scores(sys: &DenseSystem) -> Array2<f32> {
    match sys.similarity {
        Similarity::Cos => {
            let q = normalized(sys.queries.view());
            let c = normalized(sys.corpus.view());
            block_product(q.view(), c.view())
        }
        Similarity::Dot => block_product(sys.queries.view(), sys.corpus.view()),
    }
}

/// `q · cᵀ`, computed in parallel over blocks of query rows.
pub fn block_product(q: ArrayView2<f32>, c: ArrayView2<f32>) -> Array2<f32> {
    let nq = q.nrows();
    let nc = c.nrows();
    let mut out = Array2::<f32>::zeros((nq, nc));
    if nq == 0 || nc == 0 {
        return out;
    }
    let threads = rayon::current_num_threads().max(1);
    let block = nq.div_ceil(threads * 4).max(16);
    let ct = c.t();
    out.axis_chunks_iter_mut(Axis(0), block)
        .into_par_iter()
        .enumerate()
        .for_each(|(i, mut chunk)| {
            let start = i * block;
            let rows = chunk.nrows();
            let qb = q.slice(s![start..start + rows, ..]);
            ndarray::linalg::general_mat_mul(1.0, &qb, &ct, 0.0, &mut chunk);
        });
    out
}

/// The ranking comparator: score descending, then corpus row ascending.
#[inline]
pub fn rank_cmp(row: &[f32], a: u32, b: u32) -> Ordering {
    row[b as usize]
        .total_cmp(&row[a as usize])
        .then_with(|| a.cmp(&b))
}

/// The first `k` corpus rows of a query's ranking (all of them when k ≥ n), in rank order.
pub fn top_k(row: &[f32], k: usize) -> Vec<u32> {
    let n = row.len();
    let mut idx: Vec<u32> = (0..n as u32).collect();
    if k == 0 {
        return Vec::new();
    }
    if k < n {
        idx.select_nth_unstable_by(k - 1, |&a, &b| rank_cmp(row, a, b));
        idx.truncate(k);
    }
    idx.sort_unstable_by(|&a, &b| rank_cmp(row, a, b));
    idx
}

/// The whole ranking of a query.
pub fn full_order(row: &[f32]) -> Vec<u32> {
    top_k(row, row.len())
}

/// 1-based rank of corpus row `c` under the row tie rule, by counting (O(n), no sort).
pub fn rank_of(row: &[f32], c: usize) -> usize {
    let v = row[c];
    let mut above = 0usize;
    for (i, &s) in row.iter().enumerate() {
        if s > v || (s == v && i < c) {
            above += 1;
        }
    }
    above + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn ties_break_by_row() {
        let row = [0.5f32, 0.9, 0.5, 0.9, 0.1];
        assert_eq!(full_order(&row), vec![1, 3, 0, 2, 4]);
        assert_eq!(top_k(&row, 3), vec![1, 3, 0]);
        assert_eq!(rank_of(&row, 2), 4);
        assert_eq!(rank_of(&row, 1), 1);
        assert!(top_k(&row, 0).is_empty());
        assert_eq!(top_k(&row, 9).len(), 5);
    }

    #[test]
    fn cosine_and_dot() {
        let sys = |sim| DenseSystem {
            id: "t".into(),
            similarity: sim,
            queries: array![[2.0f32, 0.0]],
            corpus: array![[1.0f32, 0.0], [0.0, 3.0], [3.0, 4.0]],
            invocation: None,
        };
        let cos = dense_scores(&sys(Similarity::Cos));
        assert_eq!(cos.row(0).to_vec(), vec![1.0, 0.0, 0.6]);
        let dot = dense_scores(&sys(Similarity::Dot));
        assert_eq!(dot.row(0).to_vec(), vec![2.0, 0.0, 6.0]);
    }

    #[test]
    fn block_product_matches_plain_dot() {
        let q = Array2::from_shape_fn((37, 5), |(i, j)| ((i * 7 + j * 3) % 11) as f32 - 5.0);
        let c = Array2::from_shape_fn((23, 5), |(i, j)| ((i * 5 + j) % 7) as f32 - 3.0);
        assert_eq!(block_product(q.view(), c.view()), q.dot(&c.t()));
    }
}
