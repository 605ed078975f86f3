//! The rows of `report --table fusion`: each hybrid beside its parts, with exec@k and the
//! canonical-vs-mutant gap (`docs/systems.md`).

use crate::analysis::deception::{gaps, pair_outcomes, Rate};
use crate::bundle::Provenance;
use crate::engine::Engine;
use crate::metrics::Metric;

/// A system's role in a fusion group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Hybrid,
    Part,
}

/// One row: a hybrid or one of its parts.
#[derive(Clone, Debug, PartialEq)]
pub struct FusionRow {
    /// The hybrid this row belongs to.
    pub hybrid: String,
    pub system: String,
    pub role: Role,
    /// The fusion (method and settings), on hybrid rows; "" on parts.
    pub how: String,
    /// exec@k at each of the engine's cutoffs (None where the part is not in the engine).
    pub exec: Vec<Option<f64>>,
    /// (query, paired distractor) pairs with s(distractor) ≥ s(canonical).
    pub deception: Option<Rate>,
    /// Share of queries whose canonical scores strictly below its best paired distractor.
    pub canonical_loses: Option<f64>,
}

fn row(engine: &Engine, hybrid: &str, id: &str, role: Role, how: String) -> FusionRow {
    let nk = engine.config().ks.len();
    let Some(i) = engine.system_index(id) else {
        return FusionRow {
            hybrid: hybrid.to_string(),
            system: id.to_string(),
            role,
            how,
            exec: vec![None; nk],
            deception: None,
            canonical_loses: None,
        };
    };
    let scores = &engine.scores()[i];
    let mut rate = Rate::default();
    for p in pair_outcomes(engine.bundle(), scores) {
        rate.add(&p);
    }
    let g: Vec<f64> = gaps(engine.bundle(), scores)
        .into_iter()
        .flatten()
        .collect();
    let loses = if g.is_empty() {
        None
    } else {
        Some(g.iter().filter(|&&x| x < 0.0).count() as f64 / g.len() as f64)
    };
    FusionRow {
        hybrid: hybrid.to_string(),
        system: id.to_string(),
        role,
        how,
        exec: (0..nk)
            .map(|ki| Some(engine.evals()[i].mean(Metric::Exec, ki)))
            .collect(),
        deception: Some(rate),
        canonical_loses: loses,
    }
}

/// Every fused system of the engine's bundle followed by its parts, in bundle order.
pub fn fusion_rows(engine: &Engine) -> Vec<FusionRow> {
    let mut out = Vec::new();
    for sys in &engine.bundle().systems {
        let p = sys.provenance();
        let Provenance::Fused { parts, .. } = &p else {
            continue;
        };
        out.push(row(engine, &sys.id, &sys.id, Role::Hybrid, p.describe()));
        for part in parts {
            out.push(row(engine, &sys.id, part, Role::Part, String::new()));
        }
    }
    out
}
