//! The series each figure draws, built from the report's own rows (one source of numbers); tests
//! compare them with the matching report tables.

use crate::analysis::significance::Significance;
use crate::analysis::Anatomy;
use crate::engine::Engine;
use crate::report::anatomy::bugtype_rows;
use crate::report::leaderboard::Leaderboard;

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

/// Density curves: per system (anatomy order), expected exec@1 at d = 0, 1, … retained
/// distractors per query.
pub fn density_data(a: &Anatomy) -> Vec<(String, Vec<f64>)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.density.clone()))
        .collect()
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

/// Rank-1 miss composition: per system, (paired-distractor misses, other misses) in queries.
pub fn misses_data(a: &Anatomy) -> Vec<(String, f64, f64)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.misses.paired_distractor, s.misses.other))
        .collect()
}

/// Per-domain exec@1: the domains and, per system (leaderboard order), its value per domain.
pub fn domain_data(lb: &Leaderboard) -> (Vec<String>, Vec<(String, Vec<f64>)>) {
    let domains: Vec<String> = lb
        .rows
        .first()
        .map(|r| r.per_domain.keys().cloned().collect())
        .unwrap_or_default();
    let series = lb
        .rows
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                domains
                    .iter()
                    .map(|d| r.per_domain.get(d).copied().unwrap_or(f64::NAN))
                    .collect(),
            )
        })
        .collect();
    (domains, series)
}

/// Score-gap histograms: per system (anatomy order), its gap summary (the gaps table's row) whose
/// `histogram` bins are drawn.
pub fn gap_data(a: &Anatomy) -> Vec<(String, crate::analysis::deception::GapSummary)> {
    a.systems
        .iter()
        .map(|s| (s.id.clone(), s.gap_summary.clone()))
        .collect()
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
/// `None`. Built from `report::pairs::named_pairs`, the rows of the pairs table.
pub fn pairs_data(
    engine: &Engine,
    lb: &Leaderboard,
    sig: &Significance,
    key: &str,
) -> Option<(Vec<String>, PairMatrix)> {
    let ci = sig.cell_index(key)?;
    let names: Vec<String> = lb.rows.iter().map(|r| r.id.clone()).collect();
    let pos = |id: &str| names.iter().position(|n| n == id);
    let mut m = vec![vec![None; names.len()]; names.len()];
    for (a, b, r) in crate::report::pairs::named_pairs(engine, sig, ci) {
        let (Some(i), Some(j)) = (pos(a), pos(b)) else {
            continue;
        };
        let p = r.p_value();
        m[i][j] = Some(PairCell { delta: r.delta, p });
        m[j][i] = Some(PairCell { delta: -r.delta, p });
    }
    Some((names, m))
}
