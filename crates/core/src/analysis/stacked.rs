//! Deception of stacked mutations (`docs/analysis.md`; source: the ExecRetrieval paper, App. G.2): does composing 2–4 verified
//! single edits make a variant easier to tell from its canonical?
//!
//! For every dense system that carries vectors for the bundle's stacked variants, a variant is
//! deceiving when s(q, variant) ≥ s(q, canonical). The single-mutation baseline (n = 1) is the
//! query's paired distractors. As in the paper, the comparison is restricted to the matched
//! queries that have variants at every count, aggregated per query first (mean over that query's
//! variants of a count, then mean over systems) and then averaged over queries; Δ vs n = 1 has a
//! paired query-level bootstrap interval.

use crate::engine::Engine;
use crate::rank::normalized;
use crate::stats::Resamples;
use ndarray::Array2;

/// One row of the stacked-mutation table.
#[derive(Clone, Debug, PartialEq)]
pub struct StackedRow {
    pub n_edits: usize,
    /// Variants of this count over the matched queries (per system, summed).
    pub variants: usize,
    pub deception: f64,
    /// Δ vs n = 1 and its 95% interval (None for n = 1).
    pub delta: Option<(f64, f64, f64)>,
}

/// The stacked-mutation table of an engine.
#[derive(Clone, Debug, PartialEq)]
pub struct StackedDeception {
    pub systems: Vec<String>,
    pub matched_queries: usize,
    pub rows: Vec<StackedRow>,
}

fn score(sim_cos: bool, q: &[f32], v: &[f32]) -> f32 {
    if sim_cos {
        let nq = q.iter().map(|x| x * x).sum::<f32>().sqrt();
        let nv = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if nq == 0.0 || nv == 0.0 {
            return 0.0;
        }
        q.iter().zip(v).map(|(a, b)| a * b).sum::<f32>() / (nq * nv)
    } else {
        q.iter().zip(v).map(|(a, b)| a * b).sum()
    }
}

/// `None` when the bundle has no stacked variants with vectors for any dense system.
pub fn stacked_deception(
    engine: &Engine,
    replicates: usize,
    seed: u64,
) -> Option<StackedDeception> {
    let b = &engine.bundle();
    if b.stacked.is_empty() || b.stacked_vectors.is_empty() {
        return None;
    }
    let max_n = b
        .stacked
        .iter()
        .map(|v| v.n_edits)
        .max()
        .unwrap_or(1)
        .max(1);
    let nq = b.queries.len();
    // per system: per query: per n (1..=max_n): (deceived, total)
    let mut per_system: Vec<Vec<Vec<(f64, usize)>>> = Vec::new();
    let mut systems = Vec::new();
    for sys in &b.systems {
        let Some(vectors) = b.stacked_vectors.get(&sys.id) else {
            continue;
        };
        let Some(scores) = engine.scores().iter().find(|s| s.id == sys.id) else {
            continue;
        };
        let cos = sys.similarity == crate::bundle::Similarity::Cos;
        let qv: Array2<f32> = if cos {
            normalized(sys.queries.view())
        } else {
            sys.queries.clone()
        };
        let mut cells = vec![vec![(0.0, 0usize); max_n + 1]; nq];
        for (q, query) in b.queries.iter().enumerate() {
            let Some(&canon) = query.correct.first() else {
                continue;
            };
            let row = scores.row(q);
            for &d in &query.paired {
                cells[q][1].0 += f64::from(u8::from(row[d] >= row[canon]));
                cells[q][1].1 += 1;
            }
        }
        for (vi, v) in b.stacked.iter().enumerate() {
            let Some(&canon) = b.queries[v.query].correct.first() else {
                continue;
            };
            let qrow = qv.row(v.query);
            let s = score(
                cos,
                qrow.as_slice().unwrap_or(&[]),
                vectors.row(vi).as_slice().unwrap_or(&[]),
            );
            let c = scores.row(v.query)[canon];
            let cell = &mut cells[v.query][v.n_edits.min(max_n)];
            cell.0 += f64::from(u8::from(s >= c));
            cell.1 += 1;
        }
        per_system.push(cells);
        systems.push(sys.id.clone());
    }
    if systems.is_empty() {
        return None;
    }
    // Matched: every system has at least one variant at every count 1..=max_n.
    let matched: Vec<usize> = (0..nq)
        .filter(|&q| {
            per_system
                .iter()
                .all(|c| (1..=max_n).all(|n| c[q][n].1 > 0))
        })
        .collect();
    let per_query = |n: usize| -> Vec<f64> {
        matched
            .iter()
            .map(|&q| {
                per_system
                    .iter()
                    .map(|c| c[q][n].0 / c[q][n].1 as f64)
                    .sum::<f64>()
                    / per_system.len() as f64
            })
            .collect()
    };
    let base = per_query(1);
    let plan = Resamples::new(matched.len(), replicates.max(1), seed);
    let mean = |v: &[f64]| {
        if v.is_empty() {
            f64::NAN
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let rows = (1..=max_n)
        .map(|n| {
            let vals = per_query(n);
            let variants = matched
                .iter()
                .map(|&q| per_system.iter().map(|c| c[q][n].1).sum::<usize>())
                .sum();
            StackedRow {
                n_edits: n,
                variants,
                deception: mean(&vals),
                delta: (n > 1 && !matched.is_empty()).then(|| plan.paired_diff_ci(&vals, &base)),
            }
        })
        .collect();
    Some(StackedDeception {
        systems,
        matched_queries: matched.len(),
        rows,
    })
}
