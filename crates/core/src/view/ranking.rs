//! One query's ranking as a front end shows it, under the evaluation's settings: the order the
//! tie policy counts (`row`: corpus row inside a score tie; `optimistic` / `pessimistic`: the
//! snippets passing the whole suite first / last inside it, as the metrics place them) and,
//! per shown row, whether the policy counts it inside the cutoff k. `expected` averages over
//! every order of a tie group: its rows are shown in row order and a row of a group straddling
//! the cutoff is inside it with the share of the group's positions that fall inside. So a
//! ranking never contradicts the query's exec@k beside it (`tests/core/ranking_view.rs`).

use crate::engine::Engine;
use crate::metrics::TiePolicy;
use crate::rank::{self, ties};

/// Whether a tie policy counts a ranked row inside the cutoff k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Counted {
    /// Inside the cutoff in every order the policy counts.
    In,
    /// Outside it in every order.
    Out,
    /// Under `expected` ties, a row of a tie group straddling the cutoff: the share of the
    /// group's orders that put it inside (strictly between 0 and 1).
    Share(f64),
}

impl Counted {
    /// The share of the policy's orders that put the row inside the cutoff.
    pub fn share(self) -> f64 {
        match self {
            Counted::In => 1.0,
            Counted::Out => 0.0,
            Counted::Share(s) => s,
        }
    }
}

/// The order a ranking is shown (or a pool taken) in under `policy`, in words: what a panel's
/// title names.
pub fn order_note(policy: TiePolicy) -> &'static str {
    match policy {
        TiePolicy::Row => "row ties: corpus order",
        TiePolicy::Optimistic => "optimistic ties: passing first",
        TiePolicy::Pessimistic => "pessimistic ties: passing last",
        TiePolicy::Expected => "expected ties: averaged over orders",
    }
}

/// One shown row of a ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct RankedRow {
    /// Corpus row.
    pub corpus: usize,
    /// The system's score (unsnapped, as stored).
    pub score: f32,
    /// Size of its tie group over the whole corpus (1 = untied), after near-tie snapping.
    pub tie: usize,
    /// Whether it passes the query's whole suite (the execution cache, else the labels).
    pub pass: bool,
    pub counted: Counted,
}

/// Positions of a ranked list, given in row order, in the order `policy` shows a tie group:
/// passing rows first (`optimistic`) or last (`pessimistic`) inside each run of equal scores;
/// `row` and `expected` keep the list as it is. `passes[i]` is `None` where there is no verdict
/// (a typed query): such rows keep their place.
pub fn arrange(scores: &[f64], passes: &[Option<bool>], policy: TiePolicy) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    let pass_first = match policy {
        TiePolicy::Optimistic => true,
        TiePolicy::Pessimistic => false,
        TiePolicy::Row | TiePolicy::Expected => return order,
    };
    let mut start = 0;
    while start < order.len() {
        let end = (start..order.len())
            .find(|&i| scores[i] != scores[start])
            .unwrap_or(order.len());
        // Stable: inside a run, rows with the same verdict keep their row order.
        order[start..end].sort_by_key(|&i| match passes[i] {
            Some(p) => u8::from(p != pass_first),
            None => 1,
        });
        start = end;
    }
    order
}

/// Per position of a ranked list (already in the order `policy` shows it): whether the policy
/// counts it inside the cutoff `k`. `scores` are the list's (snapped) scores, `ties[i]` the size
/// of position i's tie group over the whole corpus; the list starts at rank 1 and holds every
/// member of a group before any lower score (a top-n prefix).
pub fn counted(scores: &[f64], ties: &[usize], k: usize, policy: TiePolicy) -> Vec<Counted> {
    (0..scores.len())
        .map(|i| {
            if policy != TiePolicy::Expected {
                return if i < k { Counted::In } else { Counted::Out };
            }
            // The group's first position in the ranking, and how many of its positions the
            // cutoff takes.
            let start = scores[..i]
                .iter()
                .rposition(|&s| s != scores[i])
                .map_or(0, |p| p + 1);
            let size = ties[i].max(1);
            let inside = k.saturating_sub(start).min(size);
            match inside {
                0 => Counted::Out,
                n if n == size => Counted::In,
                n => Counted::Share(n as f64 / size as f64),
            }
        })
        .collect()
}

/// The first `depth` rows of system `s`'s ranking of stored query `q`, under `engine`'s tie
/// policy and near-tie tolerance, each counted at cutoff `k`.
pub fn query_ranking(
    engine: &Engine,
    s: usize,
    q: usize,
    depth: usize,
    k: usize,
) -> Vec<RankedRow> {
    let cfg = engine.config();
    let stored = engine.scores()[s].row(q);
    let snapped_row;
    let row = if cfg.tie_eps > 0.0 {
        let mut v = stored.to_vec();
        ties::snap_row(&mut v, cfg.tie_eps);
        snapped_row = v;
        &snapped_row[..]
    } else {
        stored
    };
    let passing = engine.truth().passing(q);
    let order = match cfg.policy {
        TiePolicy::Optimistic | TiePolicy::Pessimistic => {
            ties::top_k_by_verdict(row, depth, passing, cfg.policy == TiePolicy::Optimistic)
        }
        TiePolicy::Row | TiePolicy::Expected => rank::top_k(row, depth),
    };
    let sizes = ties::group_sizes(row, &order);
    let scores: Vec<f64> = order.iter().map(|&c| f64::from(row[c as usize])).collect();
    let marks = counted(&scores, &sizes, k, cfg.policy);
    order
        .iter()
        .zip(sizes)
        .zip(marks)
        .map(|((&c, tie), counted)| RankedRow {
            corpus: c as usize,
            score: stored[c as usize],
            tie,
            pass: engine.truth().passes(q, c as usize),
            counted,
        })
        .collect()
}

/// Rank of corpus row `c` (1 = best) in system `s`'s ranking of query `q` under `engine`'s
/// settings: its place in the policy's order (`expected`: the mean over its tie group's
/// positions, e.g. 2.5), and the size of its tie group.
pub fn rank_in(engine: &Engine, s: usize, q: usize, c: usize) -> (f64, usize) {
    let cfg = engine.config();
    let stored = engine.scores()[s].row(q);
    let snapped_row;
    let row = if cfg.tie_eps > 0.0 {
        let mut v = stored.to_vec();
        ties::snap_row(&mut v, cfg.tie_eps);
        snapped_row = v;
        &snapped_row[..]
    } else {
        stored
    };
    let v = row[c];
    let above = row.iter().filter(|&&x| x > v).count();
    let group: Vec<usize> = (0..row.len()).filter(|&i| row[i] == v).collect();
    let passes = |i: usize| engine.truth().passes(q, i);
    let before = match cfg.policy {
        TiePolicy::Row => group.iter().filter(|&&i| i < c).count() as f64,
        TiePolicy::Expected => (group.len() - 1) as f64 / 2.0,
        TiePolicy::Optimistic | TiePolicy::Pessimistic => {
            let first = (cfg.policy == TiePolicy::Optimistic) == passes(c);
            // The other verdict's members come first unless c's verdict leads.
            let other = group.iter().filter(|&&i| passes(i) != passes(c)).count();
            let same_before = group
                .iter()
                .filter(|&&i| i < c && passes(i) == passes(c))
                .count();
            (if first { 0 } else { other } + same_before) as f64
        }
    };
    (above as f64 + before + 1.0, group.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrange_moves_passing_rows_inside_runs_only() {
        let scores = [0.9, 0.5, 0.5, 0.5, 0.2];
        let passes = [Some(false), Some(true), Some(false), Some(true), Some(true)];
        assert_eq!(arrange(&scores, &passes, TiePolicy::Row), [0, 1, 2, 3, 4]);
        assert_eq!(
            arrange(&scores, &passes, TiePolicy::Pessimistic),
            [0, 2, 1, 3, 4]
        );
        assert_eq!(
            arrange(&scores, &passes, TiePolicy::Optimistic),
            [0, 1, 3, 2, 4]
        );
    }

    #[test]
    fn counted_by_hand() {
        // Ranks 1-2 untied, then a group of 4 over ranks 3-6 (one beyond the list).
        let scores = [0.9, 0.8, 0.5, 0.5, 0.5];
        let ties = [1, 1, 4, 4, 4];
        let at = |k, p| counted(&scores, &ties, k, p);
        assert_eq!(
            at(3, TiePolicy::Row),
            [
                Counted::In,
                Counted::In,
                Counted::In,
                Counted::Out,
                Counted::Out
            ]
        );
        // Expected: the cutoff at 3 takes one of the group's four positions.
        assert_eq!(
            at(3, TiePolicy::Expected),
            [
                Counted::In,
                Counted::In,
                Counted::Share(0.25),
                Counted::Share(0.25),
                Counted::Share(0.25)
            ]
        );
        assert_eq!(at(6, TiePolicy::Expected)[4], Counted::In);
        assert_eq!(at(2, TiePolicy::Expected)[2], Counted::Out);
    }
}
