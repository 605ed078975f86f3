//! System pairs (`docs/statistics.md`) and the release-schema statistics files
//! `tests/pairwise_tests.json` and `tests/confidence_intervals.json`.

use super::table::{Align, Cell, Table};
use crate::analysis::significance::{PairTest, Significance};
use crate::engine::Engine;
use crate::metrics::Metric;
use crate::stats::PairResult;
use serde_json::{json, Map, Value};

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
pub struct PairRow {
    pub a: String,
    pub b: String,
    pub result: PairResult,
}

impl PairRow {
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
pub fn named_pairs(engine: &Engine, sig: &Significance, cell: usize) -> Vec<PairRow> {
    let mut out: Vec<PairRow> = sig
        .pairs
        .iter()
        .flatten()
        .map(|row| {
            let (a, b) = (&engine.scores()[row.a].id, &engine.scores()[row.b].id);
            let r = row.cells[cell];
            if a.as_bytes() <= b.as_bytes() {
                PairRow {
                    a: a.clone(),
                    b: b.clone(),
                    result: r,
                }
            } else {
                PairRow {
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

/// The pairs table's rows on a metric cell key (`exec@1`, …); `None` for an unknown key.
pub fn pair_rows(engine: &Engine, sig: &Significance, key: &str) -> Option<Vec<PairRow>> {
    Some(named_pairs(engine, sig, sig.cell_index(key)?))
}

/// How the pairs table shows a Δ interval: `[+l, +h]`.
pub fn ci_text(ci: [f64; 2]) -> String {
    format!("[{:+.3}, {:+.3}]", ci[0], ci[1])
}

/// All pairs on one metric cell.
pub fn pairs_table(engine: &Engine, sig: &Significance, key: &str) -> Option<Table> {
    let ci = sig.cell_index(key)?;
    let cell = &sig.cells[ci];
    let mut t = Table::new("pairs", &format!("System pairs on {key}"))
        .column("A", "a", Align::Left)
        .column("B", "b", Align::Left)
        .column("A only", "a_only", Align::Right)
        .column("B only", "b_only", Align::Right)
        .column("both", "both", Align::Right)
        .column("neither", "neither", Align::Right)
        .column("A", "a_rate", Align::Right)
        .column("B", "b_rate", Align::Right)
        .column("Δ (A − B)", "delta", Align::Right)
        .column("Δ 95% CI", "ci95", Align::Left);
    let averaged = cell.test == PairTest::TieAveragedMcNemar;
    t = if averaged {
        t.column(
            "McNemar p (tie-avg)",
            "mcnemar_tie_averaged_p",
            Align::Right,
        )
        .column("orders p≤.05", "tie_orders_rejecting", Align::Right)
    } else {
        t.column("McNemar p", "mcnemar_exact_p", Align::Right)
    };
    for PairRow { a, b, result: r } in named_pairs(engine, sig, ci) {
        let mut row = vec![
            Cell::text(a),
            Cell::text(b),
            Cell::int(r.a_only as usize),
            Cell::int(r.b_only as usize),
            Cell::int(r.both as usize),
            Cell::int(r.neither as usize),
            Cell::num(r.a_rate, 3),
            Cell::num(r.b_rate, 3),
            Cell::num(r.delta, 3),
            Cell::text(ci_text(r.bootstrap_ci_95)),
            match r.p_value() {
                Some(p) => Cell::num(p, 4),
                None => Cell::text("n/a"),
            },
        ];
        if averaged {
            row.push(match r.tie_orders_rejecting {
                Some(x) => Cell::num(x, 3),
                None => Cell::text("n/a"),
            });
        }
        t.push(row);
    }
    let mut test = cell.test.describe().to_string();
    if averaged {
        test.push_str(&format!(
            " under the `{}` tie policy; \"orders p≤.05\": probability over tie orders that the exact test rejects at α = 0.05",
            sig.policy
        ));
    }
    Some(t.caption(format!(
        "Δ interval: paired query-level bootstrap ({} replicates, seed {}). Test: {test}. Counts for continuous metrics treat a value > 0 as a success.",
        sig.config.replicates, sig.config.seed
    )))
}

/// The release's metric names for a cell key.
fn release_metric_name(metric: Metric, k: usize) -> Option<String> {
    match metric {
        Metric::Exec => Some(format!("exec@{k}")),
        Metric::ExecP => Some(format!("execution_precision@{k}")),
        Metric::Ndcg => Some(format!("ndcg@{k}")),
        Metric::Mrr => None,
    }
}

/// `tests/pairwise_tests.json`: keys "A vs B" (A < B in byte order), per metric and k.
pub fn pairwise_json(engine: &Engine, sig: &Significance) -> Value {
    let ks = engine.config().ks;
    let mut out: Map<String, Value> = Map::new();
    for (ci, c) in sig.cells.iter().enumerate() {
        let Some(name) = release_metric_name(c.metric, ks[c.ki]) else {
            continue;
        };
        for PairRow { a, b, result: r } in named_pairs(engine, sig, ci) {
            let entry = out
                .entry(format!("{a} vs {b}"))
                .or_insert_with(|| Value::Object(Map::new()));
            entry[&name] = json!(r);
        }
    }
    Value::Object(out)
}

/// `tests/confidence_intervals.json`: per system and metric.
pub fn intervals_json(engine: &Engine, sig: &Significance) -> Value {
    let ks = engine.config().ks;
    let mut out: Map<String, Value> = Map::new();
    for (s, scores) in engine.scores().iter().enumerate() {
        let mut m = Map::new();
        for (ci, c) in sig.cells.iter().enumerate() {
            let name = release_metric_name(c.metric, ks[c.ki]).unwrap_or_else(|| c.key.clone());
            m.insert(name, json!(sig.intervals[ci][s]));
        }
        out.insert(scores.id.clone(), Value::Object(m));
    }
    Value::Object(out)
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
