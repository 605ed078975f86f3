//! The tie policies: how snippets with equal scores are ordered when a metric needs an order
//! (`docs/metrics.md`, "Ties"). Every rule that depends on the policy matches on it exhaustively,
//! so a new policy does not compile until each rule says what it does.

use std::fmt;
use std::str::FromStr;

/// How ties in score are ordered when a metric needs an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TiePolicy {
    /// Corpus row ascending: the release's behaviour (bit-compatible results files).
    Row,
    /// Exact expectation over all orders within each tie group.
    #[default]
    Expected,
    /// Targets last within their tie group.
    Pessimistic,
    /// Targets first within their tie group.
    Optimistic,
}

impl TiePolicy {
    pub const ALL: [TiePolicy; 4] = [
        TiePolicy::Row,
        TiePolicy::Expected,
        TiePolicy::Pessimistic,
        TiePolicy::Optimistic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            TiePolicy::Row => "row",
            TiePolicy::Expected => "expected",
            TiePolicy::Pessimistic => "pessimistic",
            TiePolicy::Optimistic => "optimistic",
        }
    }

    /// Whether per-query values are 0/1 for binary metrics (McNemar applies).
    pub fn is_deterministic(self) -> bool {
        self != TiePolicy::Expected
    }
}

impl fmt::Display for TiePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TiePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        TiePolicy::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown tie policy {s:?} (row, expected, pessimistic, optimistic)")
            })
    }
}
