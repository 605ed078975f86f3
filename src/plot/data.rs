//! The series each figure draws, built from the report's own rows (one source of numbers); tests
//! compare them with the matching report tables.

use crate::analysis::significance::Significance;
use crate::analysis::Anatomy;
use crate::engine::Engine;
use crate::report::anatomy::{
    bugtype_rows, density_rows, gap_rows, miss_rows, DensityRow, GapRow, MissRow,
};
use crate::report::leaderboard::{domain_rows, Leaderboard};
use crate::report::pairs::{pair_rows, PairRow};

/// One system's point in the forest plot.
#[derive(Clone, Debug, PartialEq)]
pub struct ForestPoint {
    pub system: String,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// Not distinguishable from the leader (and not level with the best value): the report's †.
    pub tied_with_leader: bool,
}

/// Forest-plot series for `exec@k`, in leaderboard order. `None` when k is not evaluated.
pub fn forest_data(lb: &Leaderboard, sig: &Significance, key: &str) -> Option<Vec<ForestPoint>> {
    let ci = sig.cell_index(key)?;
    let best = lb
        .rows
        .iter()
        .map(|x| x.metric(key))
        .fold(f64::NEG_INFINITY, f64::max);
    let tier = sig.tier(key);
    Some(
        lb.rows
            .iter()
            .map(|r| {
                let iv = &sig.intervals[ci][r.system];
                let mean = r.metric(key);
                ForestPoint {
                    system: r.id.clone(),
                    mean,
                    low: iv.low,
                    high: iv.high,
                    tied_with_leader: tier.is_some_and(|t| t.tied[r.system]) && mean < best,
                }
            })
            .collect(),
    )
}

/// Density curves: the density table's rows (per system, expected exec@1 at d = 0, 1, …
/// retained distractors per query).
pub fn density_data(a: &Anatomy) -> Vec<DensityRow> {
    density_rows(a)
}

/// Deception by bug type: the bug types (the overall row excluded) and, per system (anatomy
/// order), its deception rate (fraction) on each type.
pub fn bugtype_data(a: &Anatomy) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let rows: Vec<_> = bugtype_rows(a)
        .into_iter()
        .filter(|r| r.bug_type.is_some())
        .collect();
    let types = rows.iter().map(|r| r.label().to_string()).collect();
    let series = a
        .systems
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (
                s.id.clone(),
                rows.iter().map(|r| r.per_system[i].rate()).collect(),
            )
        })
        .collect();
    (types, series)
}

/// Rank-1 miss composition: the misses table's rows (paired-distractor and other misses).
pub fn misses_data(a: &Anatomy) -> Vec<MissRow> {
    miss_rows(a)
}

/// Per-domain exec@1: the domains and, per system (leaderboard order), its value per domain
/// (the domains table's rows).
pub fn domain_data(lb: &Leaderboard) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let rows = domain_rows(lb);
    let domains = rows
        .first()
        .map(|r| r.exec1.iter().map(|(d, _)| d.clone()).collect())
        .unwrap_or_default();
    let series = rows
        .into_iter()
        .map(|r| (r.id, r.exec1.into_iter().map(|(_, v)| v).collect()))
        .collect();
    (domains, series)
}

/// Score-gap histograms: the gaps table's rows, whose summaries' `histogram` bins are drawn.
pub fn gap_data(a: &Anatomy) -> Vec<GapRow> {
    gap_rows(a)
}

/// One cell of the pairwise matrix: row system minus column system.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairCell {
    /// Mean per-query difference (row − column).
    pub delta: f64,
    /// The pairs table's p-value (exact or tie-averaged McNemar), when the cell has one.
    pub p: Option<f64>,
}

/// `matrix[row][column]`.
pub type PairMatrix = Vec<Vec<Option<PairCell>>>;

/// Pairwise matrix on one cell (e.g. `exec@1`), systems in leaderboard order; the diagonal is
/// `None`. Built from `report::pairs::pair_rows`, the rows of the pairs table.
pub fn pairs_data(
    engine: &Engine,
    lb: &Leaderboard,
    sig: &Significance,
    key: &str,
) -> Option<(Vec<String>, PairMatrix)> {
    let rows = pair_rows(engine, sig, key)?;
    let names: Vec<String> = lb.rows.iter().map(|r| r.id.clone()).collect();
    let pos = |id: &str| names.iter().position(|n| n == id);
    let mut m = vec![vec![None; names.len()]; names.len()];
    for PairRow { a, b, result: r } in rows {
        let (Some(i), Some(j)) = (pos(&a), pos(&b)) else {
            continue;
        };
        let p = r.p_value();
        m[i][j] = Some(PairCell { delta: r.delta, p });
        m[j][i] = Some(PairCell { delta: -r.delta, p });
    }
    Some((names, m))
}
