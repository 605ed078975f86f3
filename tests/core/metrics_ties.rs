//! Property tests of the tie policies against brute force: every order of every tie group is
//! enumerated, metrics are computed from explicit positions, and `expected` must equal their
//! average, `pessimistic`/`optimistic` the worst/best case of exec@k, execp@k and RR, and `row`
//! the order with ties broken by corpus row.

use execscope::metrics::layout::{self, discount, TiePolicy};
use execscope::metrics::{eval_query, EvalConfig};
use proptest::prelude::*;

/// All rankings consistent with the scores (each tie group in every order).
fn all_rankings(row: &[f32]) -> Vec<Vec<u32>> {
    let mut values: Vec<f32> = row.to_vec();
    values.sort_unstable_by(|a, b| b.total_cmp(a));
    values.dedup();
    let groups: Vec<Vec<u32>> = values
        .iter()
        .map(|v| {
            (0..row.len() as u32)
                .filter(|&i| row[i as usize] == *v)
                .collect()
        })
        .collect();
    let mut out: Vec<Vec<u32>> = vec![Vec::new()];
    for g in groups {
        let perms = permutations(&g);
        let mut next = Vec::new();
        for prefix in &out {
            for p in &perms {
                let mut r = prefix.clone();
                r.extend(p);
                next.push(r);
            }
        }
        out = next;
    }
    out
}

fn permutations(items: &[u32]) -> Vec<Vec<u32>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

struct Explicit {
    exec: f64,
    execp: f64,
    ndcg: f64,
    rr: f64,
}

fn explicit(order: &[u32], pass: &[u32], rel: &[u32], k: usize) -> Explicit {
    let top = &order[..k.min(order.len())];
    let hits = top.iter().filter(|c| pass.contains(c)).count();
    let rel_pos: Vec<usize> = (0..top.len()).filter(|&i| rel.contains(&top[i])).collect();
    let ndcg = if rel_pos.is_empty() {
        0.0
    } else {
        let dcg: f64 = rel_pos.iter().map(|&p| discount(p)).sum();
        let idcg: f64 = (0..rel_pos.len()).map(discount).sum();
        dcg / idcg
    };
    let rr = order
        .iter()
        .position(|c| pass.contains(c))
        .map_or(0.0, |p| 1.0 / (p + 1) as f64);
    Explicit {
        exec: f64::from(u8::from(hits > 0)),
        execp: hits as f64 / k as f64,
        ndcg,
        rr,
    }
}

fn case() -> impl Strategy<Value = (Vec<f32>, Vec<u32>, Vec<u32>, usize)> {
    (3usize..8).prop_flat_map(|n| {
        (
            prop::collection::vec(0u8..3, n),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
            1usize..=n,
        )
            .prop_map(|(scores, p, r, k)| {
                let row: Vec<f32> = scores.iter().map(|&s| f32::from(s) * 0.25).collect();
                let pass: Vec<u32> = (0..p.len() as u32).filter(|&i| p[i as usize]).collect();
                let rel: Vec<u32> = (0..r.len() as u32).filter(|&i| r[i as usize]).collect();
                (row, pass, rel, k)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn expected_is_the_average_over_tie_orders((row, pass, rel, k) in case()) {
        let rankings = all_rankings(&row);
        let n = rankings.len() as f64;
        let (mut e, mut ep, mut nd, mut rr) = (0.0, 0.0, 0.0, 0.0);
        for r in &rankings {
            let x = explicit(r, &pass, &rel, k);
            e += x.exec / n;
            ep += x.execp / n;
            nd += x.ndcg / n;
            rr += x.rr / n;
        }
        let cfg = EvalConfig { policy: TiePolicy::Expected, ..EvalConfig::default() }.with_ks(&[k]);
        let q = eval_query(&row, &pass, &rel, &cfg);
        prop_assert!((q.exec[0] - e).abs() < 1e-9, "exec {} vs {}", q.exec[0], e);
        prop_assert!((q.execp[0] - ep).abs() < 1e-9, "execp {} vs {}", q.execp[0], ep);
        prop_assert!((q.ndcg[0] - nd).abs() < 1e-9, "ndcg {} vs {}", q.ndcg[0], nd);
        prop_assert!((q.mrr - rr).abs() < 1e-9, "rr {} vs {}", q.mrr, rr);
    }

    #[test]
    fn bounds_and_row_order((row, pass, rel, k) in case()) {
        let rankings = all_rankings(&row);
        let xs: Vec<Explicit> = rankings.iter().map(|r| explicit(r, &pass, &rel, k)).collect();
        let min = |f: fn(&Explicit) -> f64| xs.iter().map(f).fold(f64::INFINITY, f64::min);
        let max = |f: fn(&Explicit) -> f64| xs.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        let at = |policy| {
            let cfg = EvalConfig { policy, ..EvalConfig::default() }.with_ks(&[k]);
            eval_query(&row, &pass, &rel, &cfg)
        };
        let pes = at(TiePolicy::Pessimistic);
        let opt = at(TiePolicy::Optimistic);
        prop_assert_eq!(pes.exec[0], min(|x| x.exec));
        prop_assert_eq!(opt.exec[0], max(|x| x.exec));
        prop_assert!((pes.execp[0] - min(|x| x.execp)).abs() < 1e-12);
        prop_assert!((opt.execp[0] - max(|x| x.execp)).abs() < 1e-12);
        prop_assert!((pes.mrr - min(|x| x.rr)).abs() < 1e-12);
        prop_assert!((opt.mrr - max(|x| x.rr)).abs() < 1e-12);
        // Row policy: the sort with ties broken by corpus row.
        let order = execscope::rank::full_order(&row);
        let x = explicit(&order, &pass, &rel, k);
        let r = at(TiePolicy::Row);
        prop_assert_eq!(r.exec[0], x.exec);
        prop_assert!((r.execp[0] - x.execp).abs() < 1e-12);
        prop_assert!((r.ndcg[0] - x.ndcg).abs() < 1e-12);
        prop_assert!((r.mrr - x.rr).abs() < 1e-12);
        // The straddle flag is exactly "pessimistic and optimistic disagree".
        prop_assert_eq!(r.tie_at_cutoff[0], pes.exec[0] != opt.exec[0]);
    }
}

#[test]
fn target_layout_of_a_row_without_targets_is_empty() {
    assert!(layout::layout(&[0.1, 0.2], &[]).is_empty());
}
