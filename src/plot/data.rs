//! The series each figure draws, taken from the core's view rows (one source of numbers); tests
//! compare them with the matching report tables.

use crate::analysis::significance::Significance;
use crate::metrics::MetricKey;
use crate::view::anatomy::{AnatomyView, DensityRow, GapRow, MissRow};
use crate::view::{ForestPoint, Leaderboard, PairMatrix};

/// Forest-plot series for `exec@k`, in leaderboard order ([`Leaderboard::forest`]). `None`
/// when k is not evaluated.
pub fn forest_data(
    lb: &Leaderboard,
    sig: &Significance,
    key: MetricKey,
) -> Option<Vec<ForestPoint>> {
    lb.forest(sig, key)
}

/// Density curves: the density table's rows (per system, expected exec@1 at d = 0, 1, …
/// retained distractors per query).
pub fn density_data(a: &AnatomyView) -> &[DensityRow] {
    &a.density
}

/// Deception by bug type: the bug types (the overall row excluded) and, per system (anatomy
/// order), its deception rate (fraction) on each type.
pub fn bugtype_data(a: &AnatomyView) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let rows: Vec<_> = a.bugtypes.iter().filter(|r| r.bug_type.is_some()).collect();
    let types = rows.iter().map(|r| r.label().to_string()).collect();
    let series = a
        .anatomy
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
pub fn misses_data(a: &AnatomyView) -> &[MissRow] {
    &a.misses
}

/// Per-domain exec@1: the domains and, per system (leaderboard order), its value per domain
/// (the domains table's rows).
pub fn domain_data(lb: &Leaderboard) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let rows = lb.domain_rows();
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
pub fn gap_data(a: &AnatomyView) -> &[GapRow] {
    &a.gaps
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
pub type PairGrid = Vec<Vec<Option<PairCell>>>;

/// Pairwise matrix on one cell (e.g. `exec@1`), systems in leaderboard order; the diagonal is
/// `None`. The core's [`PairMatrix`] (the pairs table's results) in leaderboard order.
pub fn pairs_data(
    lb: &Leaderboard,
    sig: &Significance,
    key: MetricKey,
) -> Option<(Vec<String>, PairGrid)> {
    let m = PairMatrix::of(sig, sig.cell_index(key)?)?;
    let names: Vec<String> = lb.rows.iter().map(|r| r.id.clone()).collect();
    let grid = lb
        .rows
        .iter()
        .map(|a| {
            lb.rows
                .iter()
                .map(|b| {
                    m.cells[a.system][b.system].map(|r| PairCell {
                        delta: r.delta,
                        p: r.p_value(),
                    })
                })
                .collect()
        })
        .collect();
    Some((names, grid))
}
