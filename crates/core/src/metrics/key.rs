//! Metric cells as a type: a metric family at a cutoff (`exec@1`, `execp@3`, `ndcg@10`, `mrr`),
//! printed as the report's key and parsed from the command line. Every table, figure and pane
//! looks a cell up by this type, so a misspelt cell does not compile and a missing one is a
//! `None`, never a NaN.

use super::{Metric, REGISTRY};
use std::fmt;
use std::str::FromStr;

/// A metric cell: a family and its cutoff (1 for MRR, which has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MetricKey {
    pub metric: Metric,
    /// The cutoff (always 1 for MRR).
    pub k: usize,
}

impl MetricKey {
    /// MRR (no cutoff).
    pub const MRR: MetricKey = MetricKey {
        metric: Metric::Mrr,
        k: 1,
    };

    /// `metric` at cutoff `k` (a metric without cutoff, MRR, ignores `k`).
    pub fn new(metric: Metric, k: usize) -> MetricKey {
        let k = if metric.def().at_k { k } else { 1 };
        MetricKey { metric, k }
    }

    /// exec@k.
    pub fn exec(k: usize) -> MetricKey {
        MetricKey::new(Metric::Exec, k)
    }
}

impl fmt::Display for MetricKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.metric.def();
        if d.at_k {
            write!(f, "{}@{}", d.family, self.k)
        } else {
            f.write_str(d.family)
        }
    }
}

impl FromStr for MetricKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || format!("unknown metric {s:?} (exec@K, execp@K, ndcg@K or mrr)");
        if let Some(d) = REGISTRY.iter().find(|d| !d.at_k && d.family == s) {
            return Ok(MetricKey::new(d.metric, 1));
        }
        let (family, k) = s.split_once('@').ok_or_else(bad)?;
        let k: usize = k.parse().ok().filter(|&k| k > 0).ok_or_else(bad)?;
        let d = REGISTRY
            .iter()
            .find(|d| d.at_k && d.family == family)
            .ok_or_else(bad)?;
        Ok(MetricKey::new(d.metric, k))
    }
}

/// Every metric cell in display order for the cutoffs `ks`, with the index of its cutoff in `ks`
/// (0 for MRR): exec@k for every k, then execp@k, then ndcg@k, then MRR.
pub fn metric_keys(ks: &[usize]) -> Vec<(MetricKey, usize)> {
    let mut out = Vec::new();
    for d in &REGISTRY {
        if d.at_k {
            out.extend(
                ks.iter()
                    .enumerate()
                    .map(|(ki, &k)| (MetricKey::new(d.metric, k), ki)),
            );
        } else {
            out.push((MetricKey::new(d.metric, 1), 0));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for bad in [
            "exec", "exec@0", "exec@x", "recall@1", "@1", "", "exec@01x", "mrr@1",
        ] {
            assert!(bad.parse::<MetricKey>().is_err(), "{bad}");
        }
        assert_eq!(MetricKey::new(Metric::Mrr, 7), MetricKey::MRR);
    }

    #[test]
    fn metric_keys_in_display_order() {
        let keys: Vec<String> = metric_keys(&[1, 5])
            .iter()
            .map(|(k, _)| k.to_string())
            .collect();
        assert_eq!(
            keys,
            ["exec@1", "exec@5", "execp@1", "execp@5", "ndcg@1", "ndcg@5", "mrr"]
        );
        assert_eq!(metric_keys(&[1, 5])[3].1, 1);
    }
}
