//! Reports: tables built from core results and rendered as text, JSON, CSV, markdown or LaTeX.

pub mod anatomy;
pub mod audit;
pub mod diagnose;
pub mod fusion;
pub mod latex;
pub mod leaderboard;
pub mod pairs;
pub mod pool_results;
pub mod results;
pub mod suites;
pub mod table;

pub use table::{p_text, Align, Format, Table, TableCell};

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
    /// Per-language exec@1 (systems × the queries' languages).
    Languages,
    /// Deception per language per system.
    DeceptionLanguages,
    /// Deception by bug type in each language, dense systems pooled.
    BugtypesLanguages,
}

impl TableKind {
    pub const ALL: [TableKind; 18] = [
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
        TableKind::Languages,
        TableKind::DeceptionLanguages,
        TableKind::BugtypesLanguages,
    ];

    /// Tables sliced by the queries' language: `--all` writes them only for a bundle that is
    /// not all Python (a Python bundle's output is what it was before languages existed).
    pub fn by_language(self) -> bool {
        matches!(
            self,
            TableKind::Languages | TableKind::DeceptionLanguages | TableKind::BugtypesLanguages
        )
    }

    /// Whether the table is built from score rows (the failure anatomy, the stacked variants,
    /// the fusion table), not from the evaluations alone.
    pub fn reads_rows(self) -> bool {
        match self {
            TableKind::Leaderboard
            | TableKind::Domains
            | TableKind::Languages
            | TableKind::Pairs
            | TableKind::Suites
            | TableKind::SuiteTasks
            | TableKind::Survivors => false,
            TableKind::Misses
            | TableKind::Density
            | TableKind::Bugtypes
            | TableKind::DeceptionDomains
            | TableKind::DeceptionLanguages
            | TableKind::BugtypesLanguages
            | TableKind::Editsize
            | TableKind::Gaps
            | TableKind::Difficulty
            | TableKind::Stacked
            | TableKind::Fusion => true,
        }
    }

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
            TableKind::Languages => "languages",
            TableKind::DeceptionLanguages => "deception-languages",
            TableKind::BugtypesLanguages => "bugtypes-languages",
        }
    }
}

impl std::fmt::Display for TableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
