//! The failure anatomy's rows (definitions: `docs/analysis.md`): misses, density, bug types,
//! deception by domain, edit size (with its Spearman ρ), gaps and difficulty, each built once in
//! [`AnatomyView::build`] and read as they are by the report's tables, the figures and the
//! dashboard's panes.

use crate::analysis::deception::{edit_bucket, GapSummary, Rate, EDIT_BUCKETS};
use crate::analysis::misses::{self, MissComposition};
use crate::analysis::Anatomy;
use crate::bundle::Bundle;
use crate::engine::Engine;

/// Every row of the failure anatomy of one evaluation.
#[derive(Clone, Debug)]
pub struct AnatomyView {
    /// The per-system results the rows come from (the dashboard draws a system's gap
    /// histogram from `anatomy.systems[s].gap_summary`).
    pub anatomy: Anatomy,
    pub misses: Vec<MissRow>,
    pub density: Vec<DensityRow>,
    /// Bug types in report order (the paper's six first), then the overall row.
    pub bugtypes: Vec<BugTypeRow>,
    pub deception_domains: DomainDeception,
    /// Deception per language per system ([`super::languages`]).
    pub deception_languages: super::languages::LanguageDeception,
    /// Bug types by language, dense systems pooled, then the overall row.
    pub bugtypes_languages: Vec<super::languages::BugTypeLanguageRow>,
    pub editsize: EditSizes,
    pub gaps: Vec<GapRow>,
    pub difficulty: Difficulty,
}

impl AnatomyView {
    /// The anatomy of the engine's current evaluation and every row built from it.
    pub fn build(engine: &Engine) -> AnatomyView {
        AnatomyView::from_anatomy(Anatomy::compute(engine), engine.bundle())
    }

    /// The rows of an anatomy computed over `bundle`.
    pub fn from_anatomy(a: Anatomy, bundle: &Bundle) -> AnatomyView {
        AnatomyView {
            misses: miss_rows(&a),
            density: density_rows(&a),
            bugtypes: bugtype_rows(&a),
            deception_domains: domain_deception(&a, bundle),
            deception_languages: super::languages::deception(&a, bundle),
            bugtypes_languages: super::languages::bugtypes(&a, bundle),
            editsize: EditSizes {
                rows: editsize_rows(&a),
                spearman: a.edit_size_spearman(),
            },
            gaps: gap_rows(&a),
            difficulty: difficulty(&a, bundle),
            anatomy: a,
        }
    }

    /// The tie policy the anatomy was computed under.
    pub fn policy(&self) -> crate::metrics::TiePolicy {
        self.anatomy.policy
    }
}

/// One row of the misses table: a system and its rank-1 miss composition (counts in queries;
/// fractional under the `expected` tie policy).
#[derive(Clone, Debug, PartialEq)]
pub struct MissRow {
    pub system: String,
    pub misses: MissComposition,
}

/// The misses table's rows, in anatomy (system) order.
fn miss_rows(a: &Anatomy) -> Vec<MissRow> {
    a.systems
        .iter()
        .map(|s| MissRow {
            system: s.id.clone(),
            misses: s.misses.clone(),
        })
        .collect()
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
fn density_rows(a: &Anatomy) -> Vec<DensityRow> {
    a.systems
        .iter()
        .map(|s| DensityRow {
            system: s.id.clone(),
            density: s.density.clone(),
        })
        .collect()
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
fn bugtype_rows(a: &Anatomy) -> Vec<BugTypeRow> {
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

/// Deception per domain per system: the bundle's domains (in bundle order) and one row per
/// system.
#[derive(Clone, Debug, PartialEq)]
pub struct DomainDeception {
    pub domains: Vec<String>,
    pub rows: Vec<DomainDeceptionRow>,
}

/// One row of the deception-by-domain table: a system's deception per domain (bundle domain
/// order; a domain without pairs has an empty rate).
#[derive(Clone, Debug, PartialEq)]
pub struct DomainDeceptionRow {
    pub system: String,
    pub by_domain: Vec<(String, Rate)>,
}

/// The deception-by-domain rows, in anatomy (system) order.
fn domain_deception(a: &Anatomy, bundle: &Bundle) -> DomainDeception {
    let domains = bundle.domains();
    let rows = a
        .systems
        .iter()
        .map(|s| DomainDeceptionRow {
            system: s.id.clone(),
            by_domain: domains
                .iter()
                .map(|d| (d.clone(), s.by_domain.get(d).copied().unwrap_or_default()))
                .collect(),
        })
        .collect();
    DomainDeception { domains, rows }
}

/// Deception by edit-size bucket with the Spearman ρ between edit size and deception.
#[derive(Clone, Debug, PartialEq)]
pub struct EditSizes {
    /// The buckets in order.
    pub rows: Vec<EditSizeRow>,
    /// [`Anatomy::edit_size_spearman`]: `None` when undefined.
    pub spearman: Option<f64>,
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
fn editsize_rows(a: &Anatomy) -> Vec<EditSizeRow> {
    let mut pairs = [0usize; 4];
    for &s in &a.edit_sizes {
        pairs[edit_bucket(s)] += 1;
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

/// One row of the gaps table: a system and its canonical-vs-best-distractor gap summary (whose
/// histogram the figure and the dashboard draw).
#[derive(Clone, Debug, PartialEq)]
pub struct GapRow {
    pub system: String,
    pub summary: GapSummary,
}

/// The gaps table's rows, in anatomy (system) order.
fn gap_rows(a: &Anatomy) -> Vec<GapRow> {
    a.systems
        .iter()
        .map(|s| GapRow {
            system: s.id.clone(),
            summary: s.gap_summary.clone(),
        })
        .collect()
}

/// Per-query difficulty: the histogram of how many systems solve each query at rank 1, the
/// queries no system solves and the median.
#[derive(Clone, Debug, PartialEq)]
pub struct Difficulty {
    /// 0 to all systems.
    pub rows: Vec<DifficultyRow>,
    /// The queries no system solves at rank 1, in bundle order.
    pub unsolved: Vec<Unsolved>,
    pub queries: usize,
    /// Median number of systems solving a query at rank 1 (NaN without queries).
    pub median: f64,
}

/// A query no system solves at rank 1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsolved {
    /// Bundle row.
    pub query: usize,
    pub id: String,
}

/// One row of the difficulty table: how many queries exactly `systems` systems solve at rank 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DifficultyRow {
    pub systems: usize,
    pub queries: usize,
}

fn difficulty(a: &Anatomy, bundle: &Bundle) -> Difficulty {
    let rows = misses::difficulty_histogram(&a.difficulty, a.systems.len())
        .into_iter()
        .enumerate()
        .map(|(systems, queries)| DifficultyRow { systems, queries })
        .collect();
    let unsolved = misses::unsolved(&a.difficulty)
        .into_iter()
        .map(|q| Unsolved {
            query: q,
            id: bundle.queries[q].id.clone(),
        })
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
    Difficulty {
        rows,
        unsolved,
        queries: a.difficulty.len(),
        median,
    }
}
