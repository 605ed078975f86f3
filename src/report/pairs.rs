//! System pairs (`docs/statistics.md`) and the release-schema statistics files
//! `tests/pairwise_tests.json` and `tests/confidence_intervals.json`.

use super::table::{Align, Table, TableCell};
use crate::analysis::significance::{PairTest, Significance};
use crate::engine::Engine;
use crate::metrics::{Metric, MetricKey};
use crate::view::pairs::{named_pairs, NamedPair};
use serde_json::{json, Map, Value};

/// How the pairs table shows a Δ interval: `[+l, +h]`.
pub fn ci_text(ci: [f64; 2]) -> String {
    format!("[{:+.3}, {:+.3}]", ci[0], ci[1])
}

/// All pairs on one metric cell.
pub fn pairs_table(engine: &Engine, sig: &Significance, key: MetricKey) -> Option<Table> {
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
    for NamedPair { a, b, result: r } in named_pairs(engine, sig, ci) {
        let mut row = vec![
            TableCell::text(a),
            TableCell::text(b),
            TableCell::int(r.a_only as usize),
            TableCell::int(r.b_only as usize),
            TableCell::int(r.both as usize),
            TableCell::int(r.neither as usize),
            TableCell::num(r.a_rate, 3),
            TableCell::num(r.b_rate, 3),
            TableCell::num(r.delta, 3),
            TableCell::text(ci_text(r.bootstrap_ci_95)),
            match r.p_value() {
                // `<0.0001`, never `0.0000` (the CSV and JSON keep the value).
                Some(p) => TableCell::p_value(p, 4),
                None => TableCell::text("n/a"),
            },
        ];
        if averaged {
            row.push(match r.tie_orders_rejecting {
                Some(x) => TableCell::num(x, 3),
                None => TableCell::text("n/a"),
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

/// The release's metric names for a cell key (the registry's `release` names).
fn release_metric_name(metric: Metric, k: usize) -> Option<String> {
    metric.def().release.map(|name| format!("{name}@{k}"))
}

/// `tests/pairwise_tests.json`: keys "A vs B" (A < B in byte order), per metric and k.
pub fn pairwise_json(engine: &Engine, sig: &Significance) -> Value {
    let ks = engine.config().ks;
    let mut out: Map<String, Value> = Map::new();
    for (ci, c) in sig.cells.iter().enumerate() {
        let Some(name) = release_metric_name(c.key.metric, ks[c.ki]) else {
            continue;
        };
        for NamedPair { a, b, result: r } in named_pairs(engine, sig, ci) {
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
            let name =
                release_metric_name(c.key.metric, ks[c.ki]).unwrap_or_else(|| c.key.to_string());
            m.insert(name, json!(sig.intervals[ci][s]));
        }
        out.insert(scores.id.clone(), Value::Object(m));
    }
    Value::Object(out)
}
