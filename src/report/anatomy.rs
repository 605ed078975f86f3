//! Tables of the failure anatomy (definitions: `docs/analysis.md`): misses, density, bug types,
//! edit size, gaps and difficulty.

use super::table::{Align, Cell, Table};
use crate::analysis::deception::{GapSummary, Rate, EDIT_BUCKETS};
use crate::analysis::misses::MissComposition;
use crate::analysis::{misses, Anatomy};
use crate::bundle::Bundle;

/// A fraction shown as a percentage with one decimal (`12.5%`; `—` when undefined): the one
/// formatter of rates shared by the report and the dashboard.
pub fn pct_text(v: f64) -> String {
    if v.is_finite() {
        format!("{:.1}%", v * 100.0)
    } else {
        "—".to_string()
    }
}

fn pct(v: f64) -> Cell {
    Cell::pct(v, 1)
}

fn rate_cell(r: &Rate) -> Cell {
    let mut c = pct(r.rate());
    c.text = format!("{} ({}/{})", c.text, r.deceived, r.total);
    c
}

/// One row of the misses table: a system and its rank-1 miss composition (counts in queries;
/// fractional under the `expected` tie policy).
#[derive(Clone, Debug, PartialEq)]
pub struct MissRow {
    pub system: String,
    pub misses: MissComposition,
}

/// The misses table's rows, in anatomy (system) order.
pub fn miss_rows(a: &Anatomy) -> Vec<MissRow> {
    a.systems
        .iter()
        .map(|s| MissRow {
            system: s.id.clone(),
            misses: s.misses.clone(),
        })
        .collect()
}

/// Rank-1 miss composition per system.
pub fn misses_table(a: &Anatomy) -> Table {
    let mut t = Table::new("misses", "Rank-1 miss composition")
        .column("system", "system", Align::Left)
        .column("queries", "queries", Align::Right)
        .column("rank-1 misses", "misses", Align::Right)
        .column("paired distractor", "paired_distractor", Align::Right)
        .column("other snippet", "other", Align::Right)
        .column("paired share", "paired_share", Align::Right);
    for MissRow { system, misses: m } in miss_rows(a) {
        t.push(vec![
            Cell::text(&system),
            Cell::int(m.queries),
            Cell::num(m.misses(), 1),
            Cell::num(m.paired_distractor, 1),
            Cell::num(m.other, 1),
            pct(m.paired_share()),
        ]);
    }
    t.caption(format!(
        "Among queries whose top-1 fails: is it one of the query's own paired distractors? Counts may be fractional under the `{}` tie policy.",
        a.policy
    ))
}

/// One row of the density table: a system's expected exec@1 at 0, 1, … retained paired
/// distractors per query (the last is the full pool).
#[derive(Clone, Debug, PartialEq)]
pub struct DensityRow {
    pub system: String,
    pub density: Vec<f64>,
}

impl DensityRow {
    /// Relative exec@1 lost by keeping one distractor instead of none (NaN when undefined).
    pub fn one_clone_drop(&self) -> f64 {
        match (self.density.first(), self.density.get(1)) {
            (Some(&d0), Some(&d1)) if d0 > 0.0 => (d0 - d1) / d0,
            _ => f64::NAN,
        }
    }
}

/// The density table's rows, in anatomy (system) order.
pub fn density_rows(a: &Anatomy) -> Vec<DensityRow> {
    a.systems
        .iter()
        .map(|s| DensityRow {
            system: s.id.clone(),
            density: s.density.clone(),
        })
        .collect()
}

/// Expected exec@1 by number of retained paired distractors.
pub fn density_table(a: &Anatomy) -> Table {
    let rows = density_rows(a);
    let width = rows.iter().map(|s| s.density.len()).max().unwrap_or(0);
    let mut t = Table::new(
        "density",
        "Pool-density ablation: expected exec@1 by retained distractors",
    )
    .column("system", "system", Align::Left);
    for d in 0..width {
        t = t.column(&format!("d={d}"), &format!("d{d}"), Align::Right);
    }
    t = t.column("1-clone drop", "one_clone_drop", Align::Right);
    for s in &rows {
        let mut row = vec![Cell::text(&s.system)];
        for d in 0..width {
            row.push(Cell::num(s.density.get(d).copied().unwrap_or(f64::NAN), 3));
        }
        row.push(pct(s.one_clone_drop()));
        t.push(row);
    }
    let cols: Vec<usize> = (1..=width).collect();
    t.mark_best(&cols);
    t.caption(format!(
        "Exact expectation over all retained subsets of each query's own paired distractors; the rest of the corpus unchanged. The last density column is the full pool (= exec@1). Ties: `{}`.",
        a.policy
    ))
}

/// One row of the bug-type deception table: a bug type (or the overall total) with the dense
/// systems pooled and each system's own rate. The report's table and the dashboard's bars are both
/// drawn from these rows.
#[derive(Clone, Debug, PartialEq)]
pub struct BugTypeRow {
    /// The bug type; `None` for the overall row.
    pub bug_type: Option<String>,
    /// Dense systems pooled.
    pub pooled: Rate,
    /// Per system (in `Anatomy::systems` order): its rate on this bug type.
    pub per_system: Vec<Rate>,
}

impl BugTypeRow {
    /// The label shown (`overall` for the total row).
    pub fn label(&self) -> &str {
        self.bug_type.as_deref().unwrap_or("overall")
    }
}

/// Bug types in report order (the core's: the paper's six first), then the overall row.
pub fn bugtype_rows(a: &Anatomy) -> Vec<BugTypeRow> {
    let pooled = a.dense_by_bug_type();
    let mut rows: Vec<BugTypeRow> = a
        .bug_types()
        .into_iter()
        .map(|ty| BugTypeRow {
            pooled: pooled.get(&ty).copied().unwrap_or_default(),
            per_system: a
                .systems
                .iter()
                .map(|s| s.by_bug_type.get(&ty).copied().unwrap_or_default())
                .collect(),
            bug_type: Some(ty),
        })
        .collect();
    let mut total = Rate::default();
    for x in pooled.values() {
        total.deceived += x.deceived;
        total.tied += x.tied;
        total.total += x.total;
    }
    rows.push(BugTypeRow {
        bug_type: None,
        pooled: total,
        per_system: a.systems.iter().map(|s| s.deception).collect(),
    });
    rows
}

/// Figure 5 as a table: deception by bug type (columns: systems pooled, then each system).
pub fn bugtypes_table(a: &Anatomy) -> Table {
    let mut t = Table::new("bugtypes", "Deception by bug type")
        .column("bug type", "bug_type", Align::Left)
        .column("dense pooled", "dense_pooled", Align::Right)
        .column("tie share", "dense_pooled_tie_share", Align::Right);
    for s in &a.systems {
        t = t.column(&s.id, &s.id, Align::Right);
    }
    for r in bugtype_rows(a) {
        let mut row = vec![
            Cell::text(r.label()),
            rate_cell(&r.pooled),
            pct(r.pooled.tie_share()),
        ];
        row.extend(r.per_system.iter().map(|x| pct(x.rate())));
        t.push(row);
    }
    t.caption(
        "A (query, paired distractor, system) triple is deceived when s(q, d) ≥ s(q, canonical); an exact tie deceives (tie share shown). Pooled over the dense systems.",
    )
}

/// One row of the deception-by-domain table: a system's deception per domain (bundle domain
/// order; a domain without pairs has an empty rate).
#[derive(Clone, Debug, PartialEq)]
pub struct DomainDeceptionRow {
    pub system: String,
    pub by_domain: Vec<(String, Rate)>,
}

/// The deception-by-domain rows, in anatomy (system) order.
pub fn domain_deception_rows(a: &Anatomy, bundle: &Bundle) -> Vec<DomainDeceptionRow> {
    let domains = bundle.domains();
    a.systems
        .iter()
        .map(|s| DomainDeceptionRow {
            system: s.id.clone(),
            by_domain: domains
                .iter()
                .map(|d| (d.clone(), s.by_domain.get(d).copied().unwrap_or_default()))
                .collect(),
        })
        .collect()
}

/// Deception per domain per system.
pub fn domain_deception_table(a: &Anatomy, bundle: &Bundle) -> Table {
    let domains = bundle.domains();
    let mut t = Table::new("deception_domains", "Deception by domain").column(
        "system",
        "system",
        Align::Left,
    );
    for d in &domains {
        t = t.column(d, d, Align::Right);
    }
    for s in domain_deception_rows(a, bundle) {
        let mut row = vec![Cell::text(&s.system)];
        row.extend(s.by_domain.iter().map(|(_, r)| pct(r.rate())));
        t.push(row);
    }
    t.caption("Share of (query, paired distractor) pairs scored at least as high as the canonical.")
}

/// One edit-size bucket: its label, the number of (query, distractor) pairs and the dense
/// systems' pooled deception.
#[derive(Clone, Debug, PartialEq)]
pub struct EditSizeRow {
    pub bucket: String,
    pub pairs: usize,
    pub deception: Rate,
}

/// The edit-size buckets in order.
pub fn editsize_rows(a: &Anatomy) -> Vec<EditSizeRow> {
    let mut pairs = [0usize; 4];
    for &s in &a.edit_sizes {
        pairs[crate::analysis::deception::edit_bucket(s)] += 1;
    }
    EDIT_BUCKETS
        .iter()
        .enumerate()
        .map(|(b, name)| {
            let mut r = Rate::default();
            for s in a.systems.iter().filter(|s| s.dense) {
                r.deceived += s.by_edit_bucket[b].deceived;
                r.tied += s.by_edit_bucket[b].tied;
                r.total += s.by_edit_bucket[b].total;
            }
            EditSizeRow {
                bucket: format!("{name} char"),
                pairs: pairs[b],
                deception: r,
            }
        })
        .collect()
}

/// Deception by edit-size bucket, pooled over dense systems, with the Spearman ρ.
pub fn editsize_table(a: &Anatomy, spearman: Option<f64>) -> Table {
    let mut t = Table::new("editsize", "Deception by edit size")
        .column("edit size", "bucket", Align::Left)
        .column("pairs", "pairs", Align::Right)
        .column("deception (dense pooled)", "deception", Align::Right);
    for r in editsize_rows(a) {
        t.push(vec![
            Cell::text(r.bucket),
            Cell::int(r.pairs),
            rate_cell(&r.deception),
        ]);
    }
    let rho = spearman.map_or("undefined".to_string(), |r| format!("{r:+.3}"));
    t.caption(format!(
        "Edit size: characters spanned by the non-equal regions of a character-level diff (each run counts max(deleted, inserted)). Tie-aware Spearman ρ between edit size and per-pair deception averaged over the dense systems: {rho}."
    ))
}

/// One row of the gaps table: a system and its canonical-vs-best-distractor gap summary (whose
/// histogram the figure and the dashboard draw).
#[derive(Clone, Debug, PartialEq)]
pub struct GapRow {
    pub system: String,
    pub summary: GapSummary,
}

/// The gaps table's rows, in anatomy (system) order.
pub fn gap_rows(a: &Anatomy) -> Vec<GapRow> {
    a.systems
        .iter()
        .map(|s| GapRow {
            system: s.id.clone(),
            summary: s.gap_summary.clone(),
        })
        .collect()
}

/// §5.4: canonical-vs-best-distractor gap per system.
pub fn gaps_table(a: &Anatomy) -> Table {
    let mut t = Table::new("gaps", "Canonical vs best paired distractor")
        .column("system", "system", Align::Left)
        .column("queries", "queries", Align::Right)
        .column("gap < 0", "below_zero", Align::Right)
        .column("gap = 0", "zero", Align::Right)
        .column("median gap", "median", Align::Right)
        .column("mean gap", "mean", Align::Right);
    for r in gap_rows(a) {
        let g = &r.summary;
        t.push(vec![
            Cell::text(&r.system),
            Cell::int(g.n),
            pct(g.below_zero),
            pct(g.zero),
            Cell::num(g.median, 4),
            Cell::num(g.mean, 4),
        ]);
    }
    t.caption("gap = s(q, canonical) − max over paired distractors s(q, d); below zero, the canonical loses.")
}

/// One row of the difficulty table: how many queries exactly `systems` systems solve at rank 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DifficultyRow {
    pub systems: usize,
    pub queries: usize,
}

/// The difficulty histogram, 0 to all systems.
pub fn difficulty_rows(a: &Anatomy) -> Vec<DifficultyRow> {
    misses::difficulty_histogram(&a.difficulty, a.systems.len())
        .into_iter()
        .enumerate()
        .map(|(systems, queries)| DifficultyRow { systems, queries })
        .collect()
}

/// Appendix C: how many systems solve each query at rank 1.
pub fn difficulty_table(a: &Anatomy, bundle: &Bundle) -> Table {
    let mut t = Table::new("difficulty", "Per-query difficulty")
        .column("systems solving at rank 1", "systems", Align::Right)
        .column("queries", "queries", Align::Right);
    for r in difficulty_rows(a) {
        t.push(vec![Cell::int(r.systems), Cell::int(r.queries)]);
    }
    let unsolved = misses::unsolved(&a.difficulty);
    let names: Vec<String> = unsolved
        .iter()
        .take(12)
        .map(|&q| bundle.queries[q].id.clone())
        .collect();
    let mut sorted = a.difficulty.clone();
    sorted.sort_by(f64::total_cmp);
    let median = if sorted.is_empty() {
        f64::NAN
    } else if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2]
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) / 2.0
    };
    t.caption(format!(
        "{} of {} queries solved by no system{}{}; median {:.1} systems per query (fractional under `{}` ties: counts rounded down).",
        unsolved.len(),
        a.difficulty.len(),
        if names.is_empty() { "" } else { ": " },
        names.join(", ") + if unsolved.len() > 12 { ", …" } else { "" },
        median,
        a.policy
    ))
}

/// Deception by number of stacked mutations on the matched queries.
pub fn stacked_table(s: &crate::analysis::stacked::StackedDeception, replicates: usize) -> Table {
    let mut t = Table::new("stacked", "Deception vs number of stacked mutations")
        .column("mutations", "n_edits", Align::Right)
        .column("variants", "variants", Align::Right)
        .column("deception", "deception", Align::Right)
        .column("Δ vs 1 (pp)", "delta", Align::Right)
        .column("95% CI (pp)", "delta_ci95_pp", Align::Left);
    for r in &s.rows {
        let (d, ci) = match r.delta {
            Some((d, lo, hi)) => (
                Cell {
                    percent: true,
                    ..Cell::num(d * 100.0, 1)
                },
                Cell::text(format!("[{:+.1}, {:+.1}]", lo * 100.0, hi * 100.0)),
            ),
            None => (Cell::text("—"), Cell::text("—")),
        };
        t.push(vec![
            Cell::int(r.n_edits),
            Cell::int(r.variants),
            pct(r.deception),
            d,
            ci,
        ]);
    }
    t.caption(format!(
        "Matched subset: {} queries with variants at every count; per-query means averaged over {} dense system(s) ({}); n = 1 is the single-edit paired distractors. Δ: paired query-level bootstrap, {} replicates.",
        s.matched_queries,
        s.systems.len(),
        s.systems.join(", "),
        replicates
    ))
}
