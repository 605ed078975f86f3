//! The metric registry: every metric family and what the rest of the program knows of it (its
//! key, whether it has a cutoff, whether it is 0/1 per query, its code in the cache files, its
//! name in the release's statistics files), in display order. Keys, tables, significance cells
//! and both binary codecs (the evaluation cache, the significance tables) are driven by this
//! list, so a new metric is its entry here, its formula (`layout.rs`) and its per-query value
//! (`QueryEval`, whose exhaustive matches the compiler then points to), plus their test.

use super::Metric;

/// One metric family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricDef {
    pub metric: Metric,
    /// The report key's family (`exec` in `exec@k`), or the whole key of a metric without a
    /// cutoff (`mrr`).
    pub family: &'static str,
    /// Computed at every cutoff k (otherwise once per query).
    pub at_k: bool,
    /// 0/1 per query under a deterministic tie policy: McNemar applies, Wilson intervals too.
    pub binary: bool,
    /// Its number in the cache files (stable: never reused for another metric).
    pub code: u8,
    /// The release's name in `tests/*.json` (`execution_precision@k`), if the release has one.
    pub release: Option<&'static str>,
}

/// Every metric, in display order (the order of the tables' columns, of the significance cells
/// and of the values in the evaluation cache).
pub const REGISTRY: [MetricDef; 4] = [
    MetricDef {
        metric: Metric::Exec,
        family: "exec",
        at_k: true,
        binary: true,
        code: 0,
        release: Some("exec"),
    },
    MetricDef {
        metric: Metric::ExecP,
        family: "execp",
        at_k: true,
        binary: false,
        code: 1,
        release: Some("execution_precision"),
    },
    MetricDef {
        metric: Metric::Ndcg,
        family: "ndcg",
        at_k: true,
        binary: false,
        code: 2,
        release: Some("ndcg"),
    },
    MetricDef {
        metric: Metric::Mrr,
        family: "mrr",
        at_k: false,
        binary: false,
        code: 3,
        release: None,
    },
];

impl Metric {
    /// This metric's registry entry.
    pub fn def(self) -> &'static MetricDef {
        let i = match self {
            Metric::Exec => 0,
            Metric::ExecP => 1,
            Metric::Ndcg => 2,
            Metric::Mrr => 3,
        };
        &REGISTRY[i]
    }

    /// The metric with cache code `code`.
    pub fn from_code(code: u64) -> Option<Metric> {
        REGISTRY
            .iter()
            .find(|d| u64::from(d.code) == code)
            .map(|d| d.metric)
    }

    /// Binary per query (under a deterministic tie policy).
    pub fn is_binary(self) -> bool {
        self.def().binary
    }

    /// Every metric, in display order.
    pub fn all() -> impl Iterator<Item = Metric> {
        REGISTRY.iter().map(|d| d.metric)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_has_its_own_entry_code_and_family() {
        for (i, d) in REGISTRY.iter().enumerate() {
            assert_eq!(d.metric.def(), d, "entry {i}");
            assert_eq!(Metric::from_code(u64::from(d.code)), Some(d.metric));
            for e in &REGISTRY[i + 1..] {
                assert_ne!(d.code, e.code);
                assert_ne!(d.family, e.family);
            }
        }
        assert_eq!(Metric::from_code(99), None);
        // The cache files' layout: exec, execp, ndcg at every cutoff, then MRR.
        let order: Vec<Metric> = Metric::all().collect();
        assert_eq!(
            order,
            [Metric::Exec, Metric::ExecP, Metric::Ndcg, Metric::Mrr]
        );
    }
}
