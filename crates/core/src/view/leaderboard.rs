//! The leaderboard's rows: one per system, sorted by exec@1 (then MRR, then id), equal exec@1
//! sharing a rank; the per-domain rows; and the "tied with the leader" (†) rule, defined here
//! once for the report's table, the forest figure and the dashboard.

use crate::analysis::significance::Significance;
use crate::bundle::Language;
use crate::engine::Engine;
use crate::metrics::{metric_keys, Metric, MetricKey, TieCounts, TiePolicy};
use crate::rank::Scoring;
use std::collections::BTreeMap;

/// One leaderboard row.
#[derive(Clone, Debug)]
pub struct LeaderRow {
    /// Index into `Engine::scores` / `Engine::evals`.
    pub system: usize,
    pub id: String,
    pub similarity: Scoring,
    /// 1-based rank by exec@1; systems with equal exec@1 share a rank.
    pub rank: usize,
    /// Shares its rank with another system.
    pub shared_rank: bool,
    /// Every metric cell (`exec@1`, …, `mrr`, in [`metric_keys`] order) and its mean.
    pub metrics: Vec<(MetricKey, f64)>,
    /// Domain → exec@1.
    pub per_domain: BTreeMap<String, f64>,
    /// exec@1 over each language's queries, in report order (one entry for a one-language
    /// bundle).
    pub per_language: Vec<(Language, f64)>,
    pub ties: TieCounts,
    /// exec@1 under pessimistic / expected / optimistic tie orders.
    pub exec1_bounds: [f64; 3],
    /// Pairs in the top 10 whose PASS came from the label fallback.
    pub label_fallbacks: usize,
}

impl LeaderRow {
    /// The mean of metric cell `key`; `None` for a cell the evaluation does not have.
    pub fn metric(&self, key: MetricKey) -> Option<f64> {
        self.metrics
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
    }
}

/// The leaderboard of an engine's current evaluation.
#[derive(Clone, Debug)]
pub struct Leaderboard {
    pub n_queries: usize,
    /// The language mix: queries per language, in report order.
    pub languages: Vec<(Language, usize)>,
    pub ks: Vec<usize>,
    pub policy: TiePolicy,
    pub rows: Vec<LeaderRow>,
}

impl Leaderboard {
    /// The rows of the engine's current evaluation, in leaderboard order.
    pub fn build(engine: &Engine) -> Leaderboard {
        let cfg = engine.config();
        let keys = metric_keys(&cfg.ks);
        let bounds = engine.exec1_bounds();
        let fallbacks = engine.label_fallbacks_in_top(10);
        let k1 = cfg.k_index(1);
        let mut rows: Vec<LeaderRow> = engine
            .evals()
            .iter()
            .enumerate()
            .map(|(i, e)| LeaderRow {
                system: i,
                id: e.id.clone(),
                similarity: e.similarity,
                rank: 0,
                shared_rank: false,
                metrics: keys
                    .iter()
                    .map(|&(key, ki)| (key, e.mean(key.metric, ki)))
                    .collect(),
                per_domain: k1.map_or_else(BTreeMap::new, |ki| {
                    e.per_domain(engine.bundle(), Metric::Exec, ki)
                }),
                per_language: k1.map_or_else(Vec::new, |ki| {
                    e.per_language(engine.bundle(), Metric::Exec, ki)
                }),
                ties: e.ties.clone(),
                exec1_bounds: bounds[i],
                label_fallbacks: fallbacks[i],
            })
            .collect();
        // Ranked by exec@1 (the first cell when 1 is not a cutoff), then MRR: cells every row
        // has, as `metric_keys` lists them for every system.
        let primary_key = match k1 {
            Some(_) => MetricKey::exec(1),
            None => keys.first().map_or(MetricKey::MRR, |k| k.0),
        };
        let primary = |r: &LeaderRow| r.metric(primary_key).unwrap_or(0.0);
        let mrr = |r: &LeaderRow| r.metric(MetricKey::MRR).unwrap_or(0.0);
        rows.sort_by(|a, b| {
            primary(b)
                .total_cmp(&primary(a))
                .then_with(|| mrr(b).total_cmp(&mrr(a)))
                .then_with(|| a.id.cmp(&b.id))
        });
        for i in 0..rows.len() {
            let rank = if i > 0 && primary(&rows[i]) == primary(&rows[i - 1]) {
                rows[i - 1].rank
            } else {
                i + 1
            };
            rows[i].rank = rank;
        }
        for i in 0..rows.len() {
            let r = rows[i].rank;
            rows[i].shared_rank = rows.iter().filter(|x| x.rank == r).count() > 1;
        }
        Leaderboard {
            n_queries: engine.bundle().queries.len(),
            languages: super::languages::mix(engine.bundle()),
            ks: cfg.ks.clone(),
            policy: cfg.policy,
            rows,
        }
    }

    /// The per-domain table's rows, in leaderboard order.
    pub fn domain_rows(&self) -> Vec<DomainRow> {
        let domains: Vec<String> = self
            .rows
            .first()
            .map(|r| r.per_domain.keys().cloned().collect())
            .unwrap_or_default();
        self.rows
            .iter()
            .map(|r| DomainRow {
                system: r.system,
                id: r.id.clone(),
                exec1: domains
                    .iter()
                    .map(|d| (d.clone(), r.per_domain.get(d).copied().unwrap_or(f64::NAN)))
                    .collect(),
            })
            .collect()
    }

    /// The per-language table's rows, in leaderboard order.
    pub fn language_rows(&self) -> Vec<super::languages::LanguageRow> {
        self.rows
            .iter()
            .map(|r| super::languages::LanguageRow {
                system: r.system,
                id: r.id.clone(),
                exec1: r.per_language.clone(),
            })
            .collect()
    }

    /// True when the bundle's queries are in more than one language or in one other than
    /// Python: only then do the tables say which (a Python bundle's report is what it was).
    pub fn multilingual(&self) -> bool {
        super::languages::multilingual(&self.languages)
    }

    /// Where every row stands against the leader on metric cell `key` (leaderboard order);
    /// `None` when `key` has no tier (only exec@k cells have one). The one definition of the
    /// "tied with the leader" rule: the report's †, the forest figure's and the dashboard's marks
    /// and its "level with / tied with / below the leader" line all read it.
    pub fn standings(&self, sig: &Significance, key: MetricKey) -> Option<Vec<Standing>> {
        let tier = sig.tier(key)?;
        let best = self
            .rows
            .iter()
            .filter_map(|x| x.metric(key))
            .fold(f64::NEG_INFINITY, f64::max);
        Some(
            self.rows
                .iter()
                .map(|r| {
                    let below_best = r.metric(key).is_some_and(|m| m < best);
                    if r.system == tier.leader {
                        Standing::Leader
                    } else if !below_best {
                        Standing::Level
                    } else if tier.tied[r.system] {
                        Standing::Tied {
                            adjusted_p: tier.adjusted_p.get(r.system).copied().flatten(),
                        }
                    } else {
                        Standing::Below {
                            adjusted_p: tier.adjusted_p.get(r.system).copied().flatten(),
                        }
                    }
                })
                .collect(),
        )
    }

    /// The † of every row on `key` (leaderboard order): [`Standing::dagger`] of
    /// [`Leaderboard::standings`].
    pub fn daggers(&self, sig: &Significance, key: MetricKey) -> Option<Vec<bool>> {
        Some(
            self.standings(sig, key)?
                .iter()
                .map(|s| s.dagger())
                .collect(),
        )
    }

    /// The forest series of `key` (an exec@k cell), in leaderboard order: each system's mean
    /// with its bootstrap interval and its †. `None` when the cell has no interval.
    pub fn forest(&self, sig: &Significance, key: MetricKey) -> Option<Vec<ForestPoint>> {
        let ci = sig.cell_index(key)?;
        let marks = self.daggers(sig, key);
        Some(
            self.rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let iv = &sig.intervals[ci][r.system];
                    ForestPoint {
                        system: r.id.clone(),
                        index: r.system,
                        mean: iv.mean,
                        low: iv.low,
                        high: iv.high,
                        tied_with_leader: marks.as_ref().is_some_and(|m| m[i]),
                    }
                })
                .collect(),
        )
    }
}

/// A system against the leader on one exec@k cell (by the tier test of
/// [`crate::analysis::significance::Tier`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Standing {
    /// The tier's leader.
    Leader,
    /// Not the leader, but level with the best value: a co-leader, not "tied with" one.
    Level,
    /// Below the best value but not distinguishable from the leader: the report's †.
    Tied { adjusted_p: Option<f64> },
    /// Distinguishably below the leader.
    Below { adjusted_p: Option<f64> },
}

impl Standing {
    /// Marked † ("tied with the leader") in every table, figure and pane.
    pub fn dagger(self) -> bool {
        matches!(self, Standing::Tied { .. })
    }
}

/// One system's point in a forest plot (the figure and the dashboard's leaderboard draw these).
#[derive(Clone, Debug, PartialEq)]
pub struct ForestPoint {
    pub system: String,
    /// Index into `Engine::scores`.
    pub index: usize,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
    /// The report's † ([`Leaderboard::daggers`]).
    pub tied_with_leader: bool,
}

/// One row of the per-domain table: a system (leaderboard order) and its mean exec@1 over each
/// domain's queries (the domains of the first row, in name order).
#[derive(Clone, Debug, PartialEq)]
pub struct DomainRow {
    /// Index into `Engine::scores`.
    pub system: usize,
    pub id: String,
    pub exec1: Vec<(String, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::significance::{CellKey, PairTest, SigConfig, Tier};
    use crate::stats::Interval;

    fn row(system: usize, id: &str, exec1: f64) -> LeaderRow {
        LeaderRow {
            system,
            id: id.to_string(),
            similarity: Scoring::Bundle(crate::bundle::Similarity::Cos),
            rank: 0,
            shared_rank: false,
            metrics: vec![(MetricKey::exec(1), exec1), (MetricKey::MRR, exec1)],
            per_domain: BTreeMap::new(),
            per_language: Vec::new(),
            ties: TieCounts::default(),
            exec1_bounds: [exec1; 3],
            label_fallbacks: 0,
        }
    }

    /// Systems 0..4 with exec@1 0.5, 0.5, 0.3, 0.2 (leaderboard order 1, 0, 2, 3): the tier
    /// test ties 0, 1 and 2 with the leader 1.
    fn board() -> (Leaderboard, Significance) {
        let means = [0.5, 0.5, 0.3, 0.2];
        let lb = Leaderboard {
            n_queries: 10,
            languages: vec![(Language::Python, 10)],
            ks: vec![1],
            policy: TiePolicy::Row,
            rows: [1, 0, 2, 3]
                .into_iter()
                .map(|s| row(s, &format!("s{s}"), means[s]))
                .collect(),
        };
        let iv = |m: f64| Interval {
            mean: m,
            low: m - 0.1,
            high: m + 0.1,
            n: 10,
            b: 100,
            seed: 1,
            degenerate: false,
        };
        let sig = Significance {
            config: SigConfig::default(),
            policy: TiePolicy::Row,
            cells: vec![CellKey {
                key: MetricKey::exec(1),
                ki: 0,
                binary: true,
                test: PairTest::ExactMcNemar,
            }],
            intervals: vec![means.iter().map(|&m| iv(m)).collect()],
            wilson: vec![vec![None; 4]],
            pairs: None,
            tiers: vec![(
                0,
                Tier {
                    leader: 1,
                    tied: vec![true, true, true, false],
                    adjusted_p: vec![Some(1.0), None, Some(0.2), Some(0.01)],
                    method: "test".to_string(),
                },
            )],
        };
        (lb, sig)
    }

    #[test]
    fn standings_leader_level_tied_below_by_hand() {
        let (lb, sig) = board();
        assert_eq!(
            lb.standings(&sig, MetricKey::exec(1)).unwrap(),
            vec![
                Standing::Leader,
                Standing::Level,
                Standing::Tied {
                    adjusted_p: Some(0.2)
                },
                Standing::Below {
                    adjusted_p: Some(0.01)
                },
            ]
        );
        // Only a system below the best that the test cannot tell from the leader gets the †.
        assert_eq!(
            lb.daggers(&sig, MetricKey::exec(1)).unwrap(),
            vec![false, false, true, false]
        );
        assert_eq!(lb.standings(&sig, MetricKey::MRR), None, "no tier on mrr");
    }

    #[test]
    fn forest_points_carry_the_daggers_in_leaderboard_order() {
        let (lb, sig) = board();
        let pts = lb.forest(&sig, MetricKey::exec(1)).unwrap();
        let got: Vec<(&str, usize, f64, bool)> = pts
            .iter()
            .map(|p| (p.system.as_str(), p.index, p.mean, p.tied_with_leader))
            .collect();
        assert_eq!(
            got,
            vec![
                ("s1", 1, 0.5, false),
                ("s0", 0, 0.5, false),
                ("s2", 2, 0.3, true),
                ("s3", 3, 0.2, false)
            ]
        );
        assert_eq!((pts[2].low, pts[2].high), (0.3 - 0.1, 0.3 + 0.1));
        assert!(lb.forest(&sig, MetricKey::exec(3)).is_none());
    }
}
