//! Deception, edit size and the canonical-vs-best-distractor gap, as `docs/analysis.md` defines
//! them (source: the ExecRetrieval paper §5.4–§5.5 and Appendix G.1).
//!
//! A (query, paired distractor, system) triple is deceived when s(q, d) ≥ s(q, canonical): a tie
//! deceives (the paper's definition). Ties are also counted separately so a reader can see how
//! much of a rate is exact ties. The canonical is the query's first `correct_corpus_ids` entry.

use crate::bundle::Bundle;
use crate::rank::SystemScores;
use similar::{ChangeTag, TextDiff};

/// One (query, paired distractor) pair under one system.
#[derive(Clone, Debug, PartialEq)]
pub struct PairOutcome {
    pub query: usize,
    pub distractor: usize,
    pub deceived: bool,
    pub tied: bool,
}

/// Deceived / tied / total counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rate {
    pub deceived: usize,
    pub tied: usize,
    pub total: usize,
}

impl Rate {
    pub fn add(&mut self, p: &PairOutcome) {
        self.deceived += usize::from(p.deceived);
        self.tied += usize::from(p.tied);
        self.total += 1;
    }

    pub fn rate(&self) -> f64 {
        if self.total == 0 {
            f64::NAN
        } else {
            self.deceived as f64 / self.total as f64
        }
    }

    pub fn tie_share(&self) -> f64 {
        if self.total == 0 {
            f64::NAN
        } else {
            self.tied as f64 / self.total as f64
        }
    }
}

/// Every evaluable (query, paired distractor) triple of one system.
pub fn pair_outcomes(bundle: &Bundle, scores: &SystemScores) -> Vec<PairOutcome> {
    let mut out = Vec::new();
    for (qi, q) in bundle.queries.iter().enumerate() {
        let Some(&canon) = q.correct.first() else {
            continue;
        };
        let row = scores.row(qi);
        for &d in &q.paired {
            out.push(PairOutcome {
                query: qi,
                distractor: d,
                deceived: row[d] >= row[canon],
                tied: row[d] == row[canon],
            });
        }
    }
    out
}

/// The bug type of a distractor as the corpus states it ("unknown" when absent).
pub fn bug_type_of(bundle: &Bundle, d: usize) -> String {
    bundle.corpus[d]
        .bug_type
        .clone()
        .unwrap_or_else(|| "unknown".to_string())
}

/// Edit size of a (canonical, distractor) pair: over a character-level diff, each maximal run of
/// non-equal operations counts max(deleted chars, inserted chars); the pair's size is the sum.
/// So `<` → `<=` is 1, `+` → `-` is 1, `n` → `n - 1` is 4, a deleted 2-line guard its length.
pub fn edit_size(canonical: &str, distractor: &str) -> usize {
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_secs(1))
        .diff_chars(canonical, distractor);
    let (mut total, mut del, mut ins) = (0usize, 0usize, 0usize);
    for change in diff.iter_all_changes() {
        let n = change.value().chars().count();
        match change.tag() {
            ChangeTag::Equal => {
                total += del.max(ins);
                del = 0;
                ins = 0;
            }
            ChangeTag::Delete => del += n,
            ChangeTag::Insert => ins += n,
        }
    }
    total + del.max(ins)
}

/// The edit-size buckets (`docs/analysis.md`).
pub const EDIT_BUCKETS: [&str; 4] = ["1", "2–5", "6–20", "21+"];

pub fn edit_bucket(size: usize) -> usize {
    match size {
        0..=1 => 0,
        2..=5 => 1,
        6..=20 => 2,
        _ => 3,
    }
}

/// Per query: s(canonical) − max over paired distractors s(d); `None` without a canonical or
/// distractors.
pub fn gaps(bundle: &Bundle, scores: &SystemScores) -> Vec<Option<f64>> {
    bundle
        .queries
        .iter()
        .enumerate()
        .map(|(qi, q)| {
            let canon = *q.correct.first()?;
            let row = scores.row(qi);
            let best = q
                .paired
                .iter()
                .map(|&d| row[d])
                .fold(f32::NEG_INFINITY, f32::max);
            if q.paired.is_empty() {
                None
            } else {
                Some(f64::from(row[canon]) - f64::from(best))
            }
        })
        .collect()
}

/// Summary of a gap distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct GapSummary {
    pub n: usize,
    /// Share of queries whose canonical scores below its best paired distractor.
    pub below_zero: f64,
    /// Share of queries with gap exactly 0 (a tie with the best distractor).
    pub zero: f64,
    pub median: f64,
    pub mean: f64,
    /// Histogram: (bin lower edge, bin upper edge, count): about `bins` equal bins `[lo, hi)` of a
    /// round width (1, 2, 2.5 or 5 × 10^k) whose edges are multiples of the width, over a range that
    /// always includes 0, so 0 is an edge (no bin straddles it) and a zero line can be drawn.
    pub histogram: Vec<(f64, f64, usize)>,
}

/// The smallest round width (1, 2, 2.5 or 5 × 10^k) at least `raw`.
pub fn nice_width(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let m = raw / p;
    let c = [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .find(|&c| c >= m * (1.0 - 1e-12))
        .unwrap_or(10.0);
    c * p
}

/// Bins of sorted `v` for [`GapSummary::histogram`]: (index of the first edge in widths, width,
/// counts). The range spans [min(v, 0), max(v, 0)]; a value on an edge belongs to the bin above.
fn gap_bins(v: &[f64], bins: usize) -> (i64, f64, Vec<usize>) {
    let lo = v[0].min(0.0);
    let hi = v[v.len() - 1].max(0.0);
    let width = if hi > lo {
        nice_width((hi - lo) / bins.max(1) as f64)
    } else {
        1.0
    };
    // Edge index of a value (a hair of tolerance so 0.3 / 0.1 lands on edge 3, not 2.999…).
    let at = |x: f64| (x / width + 1e-9).floor() as i64;
    let first = at(lo);
    let n = (at(hi) - first + 1).max(1) as usize;
    let mut counts = vec![0usize; n];
    for &x in v {
        counts[((at(x) - first).max(0) as usize).min(n - 1)] += 1;
    }
    (first, width, counts)
}

pub fn summarize_gaps(gaps: &[Option<f64>], bins: usize) -> GapSummary {
    let mut v: Vec<f64> = gaps.iter().flatten().copied().collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        return GapSummary {
            n,
            below_zero: f64::NAN,
            zero: f64::NAN,
            median: f64::NAN,
            mean: f64::NAN,
            histogram: Vec::new(),
        };
    }
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let (edges0, width, counts) = gap_bins(&v, bins);
    GapSummary {
        n,
        below_zero: v.iter().filter(|&&x| x < 0.0).count() as f64 / n as f64,
        zero: v.iter().filter(|&&x| x == 0.0).count() as f64 / n as f64,
        median,
        mean: v.iter().sum::<f64>() / n as f64,
        histogram: counts
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let edge = |j: i64| (edges0 + j) as f64 * width;
                (edge(i as i64), edge(i as i64 + 1), c)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_sizes_by_hand() {
        assert_eq!(edit_size("if a < b:", "if a <= b:"), 1);
        assert_eq!(edit_size("x = a + b", "x = a - b"), 1);
        assert_eq!(edit_size("range(n)", "range(n - 1)"), 4);
        assert_eq!(edit_size("f(a, b)", "f(a, b)"), 0);
        assert_eq!(
            edit_size(
                "def f(x):\n    if x < 0:\n        return 0\n    return x\n",
                "def f(x):\n    return x\n"
            ),
            "    if x < 0:\n        return 0\n".len()
        );
        assert_eq!(edit_bucket(1), 0);
        assert_eq!(edit_bucket(5), 1);
        assert_eq!(edit_bucket(20), 2);
        assert_eq!(edit_bucket(21), 3);
    }

    #[test]
    fn gap_summary_by_hand() {
        let s = summarize_gaps(&[Some(-0.25), Some(0.0), None, Some(0.5), Some(0.125)], 3);
        assert_eq!(s.n, 4);
        assert_eq!(s.below_zero, 0.25);
        assert_eq!(s.zero, 0.25);
        assert_eq!(s.median, 0.0625);
        assert_eq!(s.mean, 0.09375);
        // Range [-0.25, 0.5] over 3 bins: raw width 0.25 (round already); bins [-0.25, 0),
        // [0, 0.25), [0.25, 0.5), [0.5, 0.75): 0 is an edge and 0.5 opens the last bin.
        assert_eq!(
            s.histogram,
            vec![
                (-0.25, 0.0, 1),
                (0.0, 0.25, 2),
                (0.25, 0.5, 0),
                (0.5, 0.75, 1)
            ]
        );
    }

    #[test]
    fn gap_bins_are_round_and_zero_is_an_edge() {
        assert_eq!(nice_width(0.013), 0.02);
        assert_eq!(nice_width(0.021), 0.025);
        assert_eq!(nice_width(0.3), 0.5);
        assert_eq!(nice_width(0.7), 1.0);
        assert_eq!(nice_width(3.0), 5.0);
        assert_eq!(nice_width(1.0), 1.0);
        // Gaps all above 0: the range still starts at 0.
        let s = summarize_gaps(&[Some(0.31), Some(0.42), Some(0.9)], 10);
        assert_eq!(s.histogram.first().unwrap().0, 0.0);
        assert_eq!(s.histogram.iter().map(|h| h.2).sum::<usize>(), 3);
        // An uneven range, [-0.0737, 0.1452] in 20 bins: raw width 0.0109, rounded up to 0.02;
        // every edge a multiple of the width, one edge exactly 0.
        let gaps: Vec<Option<f64>> = (0..200)
            .map(|i| Some(-0.0737 + i as f64 * 0.0011))
            .collect();
        let s = summarize_gaps(&gaps, 20);
        let w = s.histogram[0].1 - s.histogram[0].0;
        assert!((w - 0.02).abs() < 1e-12, "{w}");
        assert!(s.histogram.iter().any(|h| h.0 == 0.0));
        assert!(!s.histogram.iter().any(|h| h.0 < 0.0 && h.1 > 0.0));
        assert_eq!(s.histogram.iter().map(|h| h.2).sum::<usize>(), 200);
        for &(a, b, _) in &s.histogram {
            assert!(((a / w).round() * w - a).abs() < 1e-12);
            assert!((b - a - w).abs() < 1e-9);
        }
        // Every value lies in its bin.
        for g in gaps.iter().flatten() {
            let hit = s
                .histogram
                .iter()
                .filter(|h| h.0 <= *g + 1e-12 && *g < h.1 + 1e-12);
            assert!(hit.count() >= 1, "{g}");
        }
        // All equal (zero range): one bin of width 1 from 0.
        let s = summarize_gaps(&[Some(0.0), Some(0.0)], 20);
        assert_eq!(s.histogram, vec![(0.0, 1.0, 2)]);
    }
}
