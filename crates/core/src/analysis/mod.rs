//! Failure anatomy: rank-1 misses, deception, edit size, gaps, density ablation, difficulty.
//! Pure functions over the engine's scores and truth; no terminal code.

pub mod deception;
pub mod density;
pub mod misses;
pub mod significance;
pub mod stacked;
pub mod stated;
pub mod suites;

use crate::bundle::Language;
use crate::engine::Engine;
use crate::metrics::TiePolicy;
use deception::{edit_bucket, edit_size, GapSummary, PairOutcome, Rate};
use misses::MissComposition;
use rayon::prelude::*;
use std::collections::BTreeMap;

/// Failure anatomy of one system.
#[derive(Clone, Debug)]
pub struct SystemAnatomy {
    pub id: String,
    pub dense: bool,
    pub misses: MissComposition,
    pub deception: Rate,
    pub by_bug_type: BTreeMap<String, Rate>,
    pub by_domain: BTreeMap<String, Rate>,
    /// Deception per query language, and per (language, bug type).
    pub by_language: BTreeMap<Language, Rate>,
    pub by_language_bug_type: BTreeMap<(Language, String), Rate>,
    pub by_edit_bucket: [Rate; 4],
    pub gaps: Vec<Option<f64>>,
    pub gap_summary: GapSummary,
    /// Expected exec@1 at densities 0..=max distractors per query (last = full pool).
    pub density: Vec<f64>,
    /// Per (query, paired distractor) outcome, in bundle order.
    pub pairs: Vec<PairOutcome>,
}

/// Failure anatomy of every system plus the cross-system views.
#[derive(Clone, Debug)]
pub struct Anatomy {
    pub policy: TiePolicy,
    pub systems: Vec<SystemAnatomy>,
    /// Edit size per (query, paired distractor) pair, in `SystemAnatomy::pairs` order.
    pub edit_sizes: Vec<usize>,
    /// Per query: systems solving it at rank 1 (sum of exec@1).
    pub difficulty: Vec<f64>,
}

impl Anatomy {
    pub fn compute(engine: &Engine) -> Anatomy {
        let policy = engine.config().policy;
        let b = engine.bundle();
        let pairs0 = engine
            .scores()
            .first()
            .map(|s| deception::pair_outcomes(b, s))
            .unwrap_or_default();
        let edit_sizes: Vec<usize> = pairs0
            .par_iter()
            .map(|p| {
                let canon = b.queries[p.query].correct[0];
                edit_size(&b.corpus[canon].code, &b.corpus[p.distractor].code)
            })
            .collect();
        let systems = engine
            .scores()
            .iter()
            .map(|s| {
                let pairs = deception::pair_outcomes(b, s);
                let mut overall = Rate::default();
                let mut by_bug_type: BTreeMap<String, Rate> = BTreeMap::new();
                let mut by_domain: BTreeMap<String, Rate> = BTreeMap::new();
                let mut by_edit_bucket = [Rate::default(); 4];
                let mut by_language: BTreeMap<Language, Rate> = BTreeMap::new();
                let mut by_language_bug_type: BTreeMap<(Language, String), Rate> = BTreeMap::new();
                for (i, p) in pairs.iter().enumerate() {
                    overall.add(p);
                    let bug_type = deception::bug_type_of(b, p.distractor);
                    let language = b.queries[p.query].language;
                    by_language.entry(language).or_default().add(p);
                    by_language_bug_type
                        .entry((language, bug_type.clone()))
                        .or_default()
                        .add(p);
                    by_bug_type.entry(bug_type).or_default().add(p);
                    let dom = &b.queries[p.query].domain;
                    if !dom.is_empty() {
                        by_domain.entry(dom.clone()).or_default().add(p);
                    }
                    by_edit_bucket[edit_bucket(edit_sizes[i])].add(p);
                }
                let gaps = deception::gaps(b, s);
                let per_query_density: Vec<Vec<f64>> = (0..b.queries.len())
                    .into_par_iter()
                    .map(|q| {
                        density::query_density(
                            s.row(q),
                            engine.truth().passing(q),
                            &b.queries[q].paired,
                            policy,
                        )
                    })
                    .collect();
                SystemAnatomy {
                    id: s.id.clone(),
                    dense: s.is_dense(),
                    misses: misses::miss_composition(b, engine.truth(), s, policy),
                    deception: overall,
                    by_bug_type,
                    by_domain,
                    by_language,
                    by_language_bug_type,
                    by_edit_bucket,
                    gap_summary: deception::summarize_gaps(&gaps, 20),
                    gaps,
                    density: density::mean_columns(&per_query_density),
                    pairs,
                }
            })
            .collect();
        Anatomy {
            policy,
            systems,
            edit_sizes,
            difficulty: misses::difficulty(engine.evals()),
        }
    }

    /// Per pair: deception averaged over the dense systems (the Spearman input of the edit-size table).
    pub fn dense_pair_deception(&self) -> Vec<f64> {
        let dense: Vec<&SystemAnatomy> = self.systems.iter().filter(|s| s.dense).collect();
        if dense.is_empty() {
            return Vec::new();
        }
        (0..self.edit_sizes.len())
            .map(|i| {
                dense
                    .iter()
                    .map(|s| f64::from(u8::from(s.pairs[i].deceived)))
                    .sum::<f64>()
                    / dense.len() as f64
            })
            .collect()
    }

    /// The edit-size table's Spearman ρ: tie-aware rank correlation between each (query, paired
    /// distractor) pair's edit size and its deception averaged over the dense systems; `None`
    /// when undefined (no dense system, fewer than two pairs, or a constant side). Computed here,
    /// once, so the report and the dashboard's export cannot print different values.
    pub fn edit_size_spearman(&self) -> Option<f64> {
        let sizes: Vec<f64> = self.edit_sizes.iter().map(|&s| s as f64).collect();
        crate::stats::spearman(&sizes, &self.dense_pair_deception())
    }

    /// Every bug type some system's pairs carry, in report order: the paper's six first, then
    /// the catalogue's families, then other names, `unknown` last
    /// ([`bug_type_key`](crate::bundle::model::bug_type_key)). Every table and figure that
    /// groups by bug type lists them so, whatever families a bundle holds.
    pub fn bug_types(&self) -> Vec<String> {
        crate::bundle::model::order_bug_types(
            self.systems
                .iter()
                .flat_map(|s| s.by_bug_type.keys().cloned()),
        )
    }

    /// Deception pooled over the dense systems, per (language, bug type).
    pub fn dense_by_language_bug_type(&self) -> BTreeMap<(Language, String), Rate> {
        let mut out: BTreeMap<(Language, String), Rate> = BTreeMap::new();
        for s in self.systems.iter().filter(|s| s.dense) {
            for (k, r) in &s.by_language_bug_type {
                let e = out.entry(k.clone()).or_default();
                e.deceived += r.deceived;
                e.tied += r.tied;
                e.total += r.total;
            }
        }
        out
    }

    /// Deception pooled over the dense systems, per bug type.
    pub fn dense_by_bug_type(&self) -> BTreeMap<String, Rate> {
        let mut out: BTreeMap<String, Rate> = BTreeMap::new();
        for s in self.systems.iter().filter(|s| s.dense) {
            for (k, r) in &s.by_bug_type {
                let e = out.entry(k.clone()).or_default();
                e.deceived += r.deceived;
                e.tied += r.tied;
                e.total += r.total;
            }
        }
        out
    }
}
