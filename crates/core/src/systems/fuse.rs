//! Fusion of systems' score matrices into one hybrid (`docs/systems.md`): reciprocal rank
//! fusion, CombSUM and CombMNZ, query by query.
//!
//! Ranks used by fusion are *competition* ranks: a snippet's rank is 1 + the number of snippets
//! of the same query scoring strictly more, so tied snippets share a rank and fusion never breaks
//! a part's tie by corpus row. Sums are taken in f64, parts in the order given, and rounded to
//! float32 once.

use ndarray::{Array2, ArrayView1, Axis};
use rayon::prelude::*;

/// A fusion method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Σ 1 / (k + rank).
    Rrf,
    /// Σ normalised score.
    CombSum,
    /// Σ normalised score × the number of parts that retrieve the snippet.
    CombMnz,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Rrf => "rrf",
            Method::CombSum => "combsum",
            Method::CombMnz => "combmnz",
        }
    }
}

impl std::str::FromStr for Method {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "rrf" => Ok(Method::Rrf),
            "combsum" => Ok(Method::CombSum),
            "combmnz" => Ok(Method::CombMnz),
            _ => Err(format!("unknown method {s:?} (rrf, combsum, combmnz)")),
        }
    }
}

/// Per-query score normalisation of CombSUM / CombMNZ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Norm {
    /// (s − min) / (max − min); 0 for every snippet when all scores are equal.
    MinMax,
    /// (s − mean) / standard deviation (population); 0 when the deviation is 0.
    ZScore,
}

impl Norm {
    pub fn as_str(self) -> &'static str {
        match self {
            Norm::MinMax => "minmax",
            Norm::ZScore => "zscore",
        }
    }
}

impl std::str::FromStr for Norm {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "minmax" => Ok(Norm::MinMax),
            "zscore" => Ok(Norm::ZScore),
            _ => Err(format!("unknown normalisation {s:?} (minmax, zscore)")),
        }
    }
}

/// Fusion settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FuseConfig {
    pub method: Method,
    /// CombSUM / CombMNZ only.
    pub norm: Norm,
    /// RRF's constant (default 60).
    pub k: f64,
    /// CombMNZ: a part retrieves a snippet whose competition rank is ≤ depth (default 100).
    pub depth: usize,
}

impl Default for FuseConfig {
    fn default() -> Self {
        FuseConfig {
            method: Method::Rrf,
            norm: Norm::MinMax,
            k: 60.0,
            depth: 100,
        }
    }
}

/// Competition ranks of a score row: 1 + the number of strictly higher scores.
pub fn competition_ranks(row: ArrayView1<f32>) -> Vec<usize> {
    let n = row.len();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|&a, &b| row[b].total_cmp(&row[a]));
    let mut ranks = vec![0; n];
    let mut start = 0;
    while start < n {
        let v = row[idx[start]];
        let mut end = start;
        while end < n && row[idx[end]] == v {
            end += 1;
        }
        for &i in &idx[start..end] {
            ranks[i] = start + 1;
        }
        start = end.max(start + 1);
    }
    ranks
}

/// A normalised copy of a score row, in f64.
pub fn normalize(row: ArrayView1<f32>, norm: Norm) -> Vec<f64> {
    let v: Vec<f64> = row.iter().map(|&x| f64::from(x)).collect();
    if v.is_empty() {
        return v;
    }
    match norm {
        Norm::MinMax => {
            let min = v.iter().copied().fold(f64::INFINITY, f64::min);
            let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let span = max - min;
            v.iter()
                .map(|&x| if span > 0.0 { (x - min) / span } else { 0.0 })
                .collect()
        }
        Norm::ZScore => {
            let n = v.len() as f64;
            let mean = v.iter().sum::<f64>() / n;
            let var = v.iter().map(|&x| (x - mean) * (x - mean)).sum::<f64>() / n;
            let sd = var.sqrt();
            v.iter()
                .map(|&x| if sd > 0.0 { (x - mean) / sd } else { 0.0 })
                .collect()
        }
    }
}

/// Fuse score matrices of the same shape (n_queries × n_corpus) into one.
pub fn fuse(parts: &[ndarray::ArrayView2<f32>], cfg: &FuseConfig) -> Array2<f32> {
    let Some(first) = parts.first() else {
        return Array2::zeros((0, 0));
    };
    let (nq, nc) = first.dim();
    assert!(
        parts.iter().all(|p| p.dim() == (nq, nc)),
        "fused matrices differ in shape"
    );
    let mut out = Array2::<f32>::zeros((nq, nc));
    out.axis_iter_mut(Axis(0))
        .into_par_iter()
        .enumerate()
        .for_each(|(q, mut dst)| {
            let mut acc = vec![0.0f64; nc];
            let mut hits = vec![0usize; nc];
            for p in parts {
                let row = p.row(q);
                match cfg.method {
                    Method::Rrf => {
                        for (a, r) in acc.iter_mut().zip(competition_ranks(row)) {
                            *a += 1.0 / (cfg.k + r as f64);
                        }
                    }
                    Method::CombSum | Method::CombMnz => {
                        for (a, x) in acc.iter_mut().zip(normalize(row, cfg.norm)) {
                            *a += x;
                        }
                        if cfg.method == Method::CombMnz {
                            for (h, r) in hits.iter_mut().zip(competition_ranks(row)) {
                                *h += usize::from(r <= cfg.depth);
                            }
                        }
                    }
                }
            }
            for (c, d) in dst.iter_mut().enumerate() {
                let v = match cfg.method {
                    Method::CombMnz => acc[c] * hits[c] as f64,
                    _ => acc[c],
                };
                *d = v as f32;
            }
        });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;

    #[test]
    fn ranks_share_ties() {
        let r = array![0.5f32, 0.9, 0.5, 0.1];
        assert_eq!(competition_ranks(r.view()), vec![2, 1, 2, 4]);
    }

    #[test]
    fn rrf_by_hand() {
        let a = array![[3.0f32, 2.0, 1.0]];
        let b = array![[1.0f32, 2.0, 2.0]];
        let f = fuse(&[a.view(), b.view()], &FuseConfig::default());
        // a ranks 1,2,3; b ranks 3,1,1.
        let want = [
            1.0 / 61.0 + 1.0 / 63.0,
            1.0 / 62.0 + 1.0 / 61.0,
            1.0 / 63.0 + 1.0 / 61.0,
        ];
        for (g, w) in f.row(0).iter().zip(want) {
            assert_eq!(*g, w as f32);
        }
    }

    #[test]
    fn combsum_and_combmnz_by_hand() {
        let a = array![[4.0f32, 2.0, 0.0]];
        let b = array![[0.0f32, 10.0, 5.0]];
        let cfg = FuseConfig {
            method: Method::CombSum,
            ..FuseConfig::default()
        };
        let f = fuse(&[a.view(), b.view()], &cfg);
        assert_eq!(f.row(0).to_vec(), vec![1.0, 1.5, 0.5]);
        let cfg = FuseConfig {
            method: Method::CombMnz,
            depth: 1,
            ..FuseConfig::default()
        };
        // Top-1: a retrieves snippet 0, b snippet 1.
        let f = fuse(&[a.view(), b.view()], &cfg);
        assert_eq!(f.row(0).to_vec(), vec![1.0, 1.5, 0.0]);
        let z = normalize(array![1.0f32, 3.0].view(), Norm::ZScore);
        assert_eq!(z, vec![-1.0, 1.0]);
        assert_eq!(
            normalize(array![2.0f32, 2.0].view(), Norm::MinMax),
            vec![0.0, 0.0]
        );
    }
}
