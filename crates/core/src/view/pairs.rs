//! System pairs on one metric cell: the pairs table's named rows (A < B in byte order), and
//! the same results as a matrix by system index for the figure and the dashboard, with the
//! paired test the core chose for the cell.

use crate::analysis::significance::{PairTest, Significance};
use crate::engine::Engine;
use crate::metrics::MetricKey;
use crate::stats::PairResult;

/// A pair result seen from the other side (B vs A).
pub fn flipped(p: &PairResult) -> PairResult {
    PairResult {
        a_only: p.b_only,
        b_only: p.a_only,
        both: p.both,
        neither: p.neither,
        a_rate: p.b_rate,
        b_rate: p.a_rate,
        delta: -p.delta,
        mcnemar_exact_p: p.mcnemar_exact_p,
        mcnemar_tie_averaged_p: p.mcnemar_tie_averaged_p,
        tie_orders_rejecting: p.tie_orders_rejecting,
        bootstrap_ci_95: [-p.bootstrap_ci_95[1], -p.bootstrap_ci_95[0]],
    }
}

/// One row of the pairs table: systems A and B (A < B in byte order) and their paired result
/// on one metric cell, A − B.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedPair {
    pub a: String,
    pub b: String,
    pub result: PairResult,
}

impl NamedPair {
    /// The result seen as `row − column` for the ordered pair (`row`, `column`), if this row is
    /// that pair in either order.
    pub fn oriented(&self, row: &str, column: &str) -> Option<PairResult> {
        if self.a == row && self.b == column {
            Some(self.result)
        } else if self.a == column && self.b == row {
            Some(flipped(&self.result))
        } else {
            None
        }
    }
}

/// Every pair on one cell (index into `sig.cells`), sorted by (A, B) in byte order; none when
/// `sig` was computed without its pairs ([`Significance::compute`] has them).
pub fn named_pairs(engine: &Engine, sig: &Significance, cell: usize) -> Vec<NamedPair> {
    let mut out: Vec<NamedPair> = sig
        .pairs
        .iter()
        .flatten()
        .map(|row| {
            let (a, b) = (&engine.scores()[row.a].id, &engine.scores()[row.b].id);
            let r = row.cells[cell];
            if a.as_bytes() <= b.as_bytes() {
                NamedPair {
                    a: a.clone(),
                    b: b.clone(),
                    result: r,
                }
            } else {
                NamedPair {
                    a: b.clone(),
                    b: a.clone(),
                    result: flipped(&r),
                }
            }
        })
        .collect();
    out.sort_by(|x, y| (x.a.as_bytes(), x.b.as_bytes()).cmp(&(y.a.as_bytes(), y.b.as_bytes())));
    out
}

/// The pairs table's rows on a metric cell; `None` for a cell `sig` does not have.
pub fn pair_rows(engine: &Engine, sig: &Significance, key: MetricKey) -> Option<Vec<NamedPair>> {
    Some(named_pairs(engine, sig, sig.cell_index(key)?))
}

/// The result of ordered pair (`a`, `b`) on cell `ci` as `a − b` (system indices); `None` for
/// `a == b`, a significance without pairs or an unknown cell.
pub fn oriented(sig: &Significance, ci: usize, a: usize, b: usize) -> Option<PairResult> {
    let (lo, hi) = (a.min(b), a.max(b));
    let row = sig
        .pairs
        .as_ref()?
        .iter()
        .find(|r| r.a == lo && r.b == hi)?;
    let r = row.cells.get(ci)?;
    Some(if a < b { *r } else { flipped(r) })
}

/// Every ordered system pair on one metric cell, by system index (`Engine::scores` order).
#[derive(Clone, Debug, PartialEq)]
pub struct PairMatrix {
    /// `cells[a][b]`: system a (row) − system b (column); `None` on the diagonal.
    pub cells: Vec<Vec<Option<PairResult>>>,
    /// The paired test behind the p-values (the one the core chose for the cell).
    pub test: PairTest,
}

impl PairMatrix {
    /// The significance's pairs on cell `ci` as a matrix; `None` when it has no pairs.
    pub fn of(sig: &Significance, ci: usize) -> Option<PairMatrix> {
        let pairs = sig.pairs.as_ref()?;
        let n = sig.intervals.get(ci).map_or(0, Vec::len);
        let mut cells = vec![vec![None; n]; n];
        for row in pairs {
            let Some(r) = row.cells.get(ci) else { continue };
            if row.a < n && row.b < n {
                cells[row.a][row.b] = Some(*r);
                cells[row.b][row.a] = Some(flipped(r));
            }
        }
        Some(PairMatrix {
            cells,
            test: sig.cells[ci].test,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flipping_swaps_sides() {
        let p = PairResult {
            a_only: 3,
            b_only: 1,
            both: 2,
            neither: 4,
            a_rate: 0.5,
            b_rate: 0.3,
            delta: 0.2,
            mcnemar_exact_p: Some(0.625),
            mcnemar_tie_averaged_p: None,
            tie_orders_rejecting: None,
            bootstrap_ci_95: [0.1, 0.4],
        };
        let f = flipped(&p);
        assert_eq!((f.a_only, f.b_only, f.a_rate, f.b_rate), (1, 3, 0.3, 0.5));
        assert_eq!(f.delta, -0.2);
        assert_eq!(f.bootstrap_ci_95, [-0.4, -0.1]);
        assert_eq!(flipped(&f), p);
    }
}
