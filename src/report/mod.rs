//! Reports: tables built from core results and rendered as text, JSON, CSV, markdown or LaTeX.

pub mod anatomy;
pub mod audit;
pub mod fusion;
pub mod leaderboard;
pub mod pairs;
pub mod results;
pub mod suites;
pub mod table;

pub use table::{Align, Cell, Format, Table};

/// Every table `execscope report --table` prints, in the order `--all` writes them. Each is built
/// once as typed rows (`leaderboard::LeaderRow`, `anatomy::MissRow`, …) and formatted as a
/// [`Table`]; the dashboard and the figures read the same rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum)]
pub enum TableKind {
    Leaderboard,
    Domains,
    Misses,
    Density,
    Pairs,
    Bugtypes,
    DeceptionDomains,
    Editsize,
    Gaps,
    Difficulty,
    Stacked,
    /// Each fused system beside its parts (`execscope fuse`).
    Fusion,
    /// Test-suite strength by bug type (a built bundle's `build_report.json`).
    Suites,
    /// Test-suite strength by task, weakest first.
    SuiteTasks,
    /// Every mutant the tests let through, with its diff and suite gap.
    Survivors,
}

impl TableKind {
    pub const ALL: [TableKind; 15] = [
        TableKind::Leaderboard,
        TableKind::Domains,
        TableKind::Misses,
        TableKind::Density,
        TableKind::Pairs,
        TableKind::Bugtypes,
        TableKind::DeceptionDomains,
        TableKind::Editsize,
        TableKind::Gaps,
        TableKind::Difficulty,
        TableKind::Stacked,
        TableKind::Fusion,
        TableKind::Suites,
        TableKind::SuiteTasks,
        TableKind::Survivors,
    ];

    /// The name on the command line and in file names (`deception-domains`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            TableKind::Leaderboard => "leaderboard",
            TableKind::Domains => "domains",
            TableKind::Misses => "misses",
            TableKind::Density => "density",
            TableKind::Pairs => "pairs",
            TableKind::Bugtypes => "bugtypes",
            TableKind::DeceptionDomains => "deception-domains",
            TableKind::Editsize => "editsize",
            TableKind::Gaps => "gaps",
            TableKind::Difficulty => "difficulty",
            TableKind::Stacked => "stacked",
            TableKind::Fusion => "fusion",
            TableKind::Suites => "suites",
            TableKind::SuiteTasks => "suite-tasks",
            TableKind::Survivors => "survivors",
        }
    }
}

impl std::fmt::Display for TableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A metric cell named on the command line (`exec@1`, `execp@3`, `ndcg@10`, `mrr`): the metric
/// family as the [`crate::metrics::Metric`] enum and its cutoff, printed back as the report key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricKey {
    pub metric: crate::metrics::Metric,
    /// The cutoff (unused for MRR).
    pub k: usize,
}

impl std::fmt::Display for MetricKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.metric.key(self.k))
    }
}

impl std::str::FromStr for MetricKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use crate::metrics::Metric;
        let bad = || format!("unknown metric {s:?} (exec@K, execp@K, ndcg@K or mrr)");
        if s == "mrr" {
            return Ok(MetricKey {
                metric: Metric::Mrr,
                k: 1,
            });
        }
        let (family, k) = s.split_once('@').ok_or_else(bad)?;
        let metric = Metric::AT_K
            .into_iter()
            .find(|m| m.key(1).split('@').next() == Some(family))
            .ok_or_else(bad)?;
        let k: usize = k.parse().ok().filter(|&k| k > 0).ok_or_else(bad)?;
        Ok(MetricKey { metric, k })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metric;

    #[test]
    fn metric_cells_parse_and_print_back() {
        for key in ["exec@1", "execp@3", "ndcg@10", "mrr"] {
            let m: MetricKey = key.parse().unwrap();
            assert_eq!(m.to_string(), key);
        }
        assert_eq!(
            "ndcg@5".parse::<MetricKey>(),
            Ok(MetricKey {
                metric: Metric::Ndcg,
                k: 5
            })
        );
        for bad in ["exec", "exec@0", "exec@x", "recall@1", "@1", ""] {
            assert!(bad.parse::<MetricKey>().is_err(), "{bad}");
        }
    }

    #[test]
    fn table_kinds_round_trip_through_clap() {
        use clap::ValueEnum;
        for k in TableKind::ALL {
            let v = k.to_possible_value().unwrap();
            assert_eq!(v.get_name(), k.as_str());
            assert_eq!(TableKind::from_str(k.as_str(), false), Ok(k));
        }
        assert_eq!(TableKind::value_variants().len(), TableKind::ALL.len());
    }
}
