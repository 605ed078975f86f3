//! Admission counts, the two selectors, order sensitivity and the interval hold rule on hand-made
//! pools (no execution): hand-computed expectations and an independent brute-force enumeration.

use execscope::audit::account::{self, admission, selection, AuditConfig};
use execscope::audit::orders::{analyse, MAX_EXHAUSTIVE};
use execscope::audit::{Candidate, Cohort, Mode, PoolSet, TaskPool};
use execscope::stats::{percentile_type7, Resamples};
use rand::{Rng, SeedableRng};

/// A candidate at `position` with admissions per predicate and its P+.
fn cand(position: usize, admitted: &[bool], pass: bool) -> Candidate {
    Candidate {
        position,
        label: format!("sample {position}"),
        line: None,
        code: String::new(),
        self_tests: String::new(),
        evidence: Vec::new(),
        admitted: admitted.to_vec(),
        pass,
        tests: Vec::new(),
    }
}

fn cohort(tasks: Vec<Vec<Candidate>>, m: usize) -> Cohort {
    Cohort {
        name: "c".into(),
        positions: (0..m as i64).collect(),
        tasks: tasks
            .into_iter()
            .enumerate()
            .map(|(i, candidates)| TaskPool {
                task_id: format!("t{i:02}"),
                function_name: "f".into(),
                language: Default::default(),
                candidates,
            })
            .collect(),
    }
}

/// The hand pool of one predicate (A = admitted, P = passes):
/// t0 [A·fail, A·pass, A·pass]; t1 [¬A·pass, A·fail]; t2 [¬A·fail, ¬A·pass]; t3 [A·pass]; t4 [].
fn hand() -> Cohort {
    let c = |p, a, s| cand(p, &[a], s);
    cohort(
        vec![
            vec![c(0, true, false), c(1, true, true), c(2, true, true)],
            vec![c(0, false, true), c(1, true, false)],
            vec![c(0, false, false), c(1, false, true)],
            vec![c(0, true, true)],
            vec![],
        ],
        3,
    )
}

#[test]
fn admission_counts_on_the_hand_pool() {
    let co = hand();
    let plan = Resamples::new(co.tasks.len(), 2_000, 1);
    let a = admission(&co, "A", 0, &plan);
    assert_eq!(a.candidates, 8);
    assert_eq!(a.tasks, 5);
    assert_eq!(a.passes, 5);
    assert_eq!(a.admitted, 5);
    assert_eq!(a.admitted_nonpass, 2);
    assert_eq!(a.excluded_pass, 2);
    assert_eq!(a.tasks_with_admitted_pass, 2);
    assert_eq!(a.conditional.estimate, Some(2.0 / 5.0));
    assert_eq!(a.unconditional.estimate, Some(2.0 / 8.0));
}

#[test]
fn first_admitted_and_uniform_selectors_on_the_hand_pool() {
    let s = selection(&hand(), "A", 0);
    assert_eq!(s.first_choice, vec![Some(0), Some(1), None, Some(0), None]);
    assert_eq!((s.first_pass, s.first_nonpass, s.first_abstain), (1, 2, 2));
    // Uniform: t0 2/3, t1 0, t3 1 → 5/3 passes; nonpasses 1/3 + 1 = 4/3; t2 and t4 abstain.
    assert_eq!(s.uniform_pass.fraction, Some((5, 3)));
    assert_eq!(s.uniform_nonpass.fraction, Some((4, 3)));
    assert!((s.uniform_pass.value - 5.0 / 3.0).abs() < 1e-15);
    assert_eq!(s.uniform_abstain, 2);
    assert_eq!(s.uniform_pass.fraction_text(), "5/3");
}

#[test]
fn selection_never_reads_the_oracle_verdict() {
    // Flipping P+ of every candidate changes scores but not which candidate is chosen.
    let mut co = hand();
    let before = selection(&co, "A", 0).first_choice;
    for t in &mut co.tasks {
        for c in &mut t.candidates {
            c.pass = !c.pass;
        }
    }
    assert_eq!(selection(&co, "A", 0).first_choice, before);
}

/// Independent brute force: every permutation by recursion, candidates sorted by permuted
/// position, first admitted taken.
fn brute(
    co: &Cohort,
    preds: usize,
    contrasts: &[(usize, usize)],
) -> (Vec<Vec<f64>>, Vec<[[f64; 3]; 3]>) {
    fn perms(rest: &mut Vec<usize>, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(cur.clone());
            return;
        }
        for i in 0..rest.len() {
            let x = rest.remove(i);
            cur.push(x);
            perms(rest, cur, out);
            cur.pop();
            rest.insert(i, x);
        }
    }
    let mut all = Vec::new();
    perms(
        &mut (0..co.positions.len()).collect(),
        &mut Vec::new(),
        &mut all,
    );
    let mut passes = vec![Vec::new(); preds];
    let mut trans = vec![[[0.0; 3]; 3]; contrasts.len()];
    for order in &all {
        // outcome per task per predicate: 0 pass, 1 nonpass, 2 abstain
        let outcome = |t: &TaskPool, p: usize| -> usize {
            let mut cs: Vec<&Candidate> = t.candidates.iter().collect();
            cs.sort_by_key(|c| order.iter().position(|&x| x == c.position).unwrap());
            match cs.into_iter().find(|c| c.admitted[p]) {
                None => 2,
                Some(c) if c.pass => 0,
                Some(_) => 1,
            }
        };
        for (p, v) in passes.iter_mut().enumerate() {
            v.push(co.tasks.iter().filter(|t| outcome(t, p) == 0).count() as f64);
        }
        for (k, &(a, b)) in contrasts.iter().enumerate() {
            for t in &co.tasks {
                trans[k][outcome(t, a)][outcome(t, b)] += 1.0 / all.len() as f64;
            }
        }
    }
    (passes, trans)
}

fn random_cohort(
    rng: &mut rand_chacha::ChaCha8Rng,
    m: usize,
    tasks: usize,
    preds: usize,
) -> Cohort {
    let mut out = Vec::new();
    for _ in 0..tasks {
        let mut cands = Vec::new();
        for pos in 0..m {
            if rng.random_bool(0.85) {
                let adm: Vec<bool> = (0..preds).map(|_| rng.random_bool(0.5)).collect();
                cands.push(cand(pos, &adm, rng.random_bool(0.5)));
            }
        }
        out.push(cands);
    }
    cohort(out, m)
}

#[test]
fn order_enumeration_agrees_with_brute_force() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let names: Vec<String> = ["p0", "p1", "p2"].iter().map(|s| s.to_string()).collect();
    let contrasts = [(0, 1), (1, 2), (2, 0)];
    for m in 1..=5 {
        for _ in 0..4 {
            let co = random_cohort(&mut rng, m, 7, 3);
            let rep = analyse(&co, &names, &contrasts, 100, 0);
            let (passes, trans) = brute(&co, 3, &contrasts);
            assert!(rep.exhaustive);
            assert_eq!(rep.orders, passes[0].len());
            for (p, r) in rep.per_predicate.iter().enumerate() {
                let mut v = passes[p].clone();
                v.sort_by(f64::total_cmp);
                assert_eq!(r.min as f64, v[0]);
                assert_eq!(r.max as f64, *v.last().unwrap());
                assert_eq!(r.median, percentile_type7(&v, 0.5));
                let mean = v.iter().sum::<f64>() / v.len() as f64;
                assert!((r.mean - mean).abs() < 1e-9);
                // The mean over all orders is the uniform expectation.
                let u = selection(&co, &names[p], p).uniform_pass.value;
                assert!((r.mean - u).abs() < 1e-9, "m={m} p={p}: {} vs {u}", r.mean);
                // The default order is the identity permutation (the first one enumerated).
                assert_eq!(r.default_order as f64, passes[p][0]);
                assert_eq!(r.default_order, selection(&co, &names[p], p).first_pass);
            }
            for (k, tr) in rep.transitions.iter().enumerate() {
                for (got, want) in tr.expected.iter().zip(&trans[k]) {
                    for (g, w) in got.iter().zip(want) {
                        assert!((g - w).abs() < 1e-9);
                    }
                }
            }
        }
    }
}

#[test]
fn transitions_on_a_hand_pool() {
    // One task, positions 0..3: old admits {0 (fail), 2 (pass)}, new admits {1 (pass), 2 (pass)}.
    // Over the 6 orders: old passes iff 2 precedes 0 (3 orders); new always passes.
    // Old N → new P whenever 0 precedes 2: 3 of 6 orders → E[N→P] = 1/2; never P→N.
    let co = cohort(
        vec![vec![
            cand(0, &[true, false], false),
            cand(1, &[false, true], true),
            cand(2, &[true, true], true),
        ]],
        3,
    );
    let names = vec!["old".to_string(), "new".to_string()];
    let rep = analyse(&co, &names, &[(0, 1)], 10, 0);
    assert_eq!(rep.orders, 6);
    let tr = &rep.transitions[0];
    assert!((tr.n_to_p() - 0.5).abs() < 1e-12);
    assert_eq!(tr.p_to_n(), 0.0);
    assert!((tr.expected[0][0] - 0.5).abs() < 1e-12);
    assert_eq!((tr.orders_with_gain, tr.orders_with_loss), (3, 0));
    assert_eq!((tr.delta_min, tr.delta_max), (0, 1));
    assert_eq!((rep.per_predicate[0].min, rep.per_predicate[0].max), (0, 1));
    assert_eq!(rep.per_predicate[0].median, 0.5);
}

#[test]
fn large_pools_are_sampled_and_say_so() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    let co = random_cohort(&mut rng, 9, 30, 2);
    let names = vec!["a".to_string(), "b".to_string()];
    let rep = analyse(&co, &names, &[(0, 1)], 4_000, 77);
    assert!(!rep.exhaustive);
    const { assert!(362_880 > MAX_EXHAUSTIVE) };
    assert_eq!((rep.orders, rep.seed), (4_000, Some(77)));
    // Sampled orders still average close to the exact uniform expectation.
    for (p, r) in rep.per_predicate.iter().enumerate() {
        let u = selection(&co, &names[p], p).uniform_pass.value;
        assert!((r.mean - u).abs() < 0.25, "{} vs {u}", r.mean);
    }
    // Same seed, same report.
    assert_eq!(rep, analyse(&co, &names, &[(0, 1)], 4_000, 77));
}

/// One predicate, `tasks` tasks of 2 candidates; the first `with` tasks admit one failing
/// candidate, the others admit nothing.
fn sparse(tasks: usize, with: usize) -> Cohort {
    cohort(
        (0..tasks)
            .map(|i| vec![cand(0, &[i < with], false), cand(1, &[false], true)])
            .collect(),
        2,
    )
}

#[test]
fn hold_rule_zero_denominator_and_undefined_share() {
    let draws = 20_000;
    // Nothing admitted: the original denominator is 0 → held.
    let co = sparse(10, 0);
    let plan = Resamples::new(10, draws, 3);
    let a = admission(&co, "A", 0, &plan);
    assert!(a.conditional.held && a.conditional.estimate.is_none());
    assert_eq!(a.conditional.undefined_draws, draws);
    // The unconditional fraction over all candidates is defined (0 / 20).
    assert!(!a.unconditional.held);
    assert_eq!(a.unconditional.estimate, Some(0.0));
    // 20 tasks, 3 admitting: a draw misses them all with probability 0.85^20 ≈ 3.9% ≤ 5% → shown.
    let plan = Resamples::new(20, draws, 3);
    let a = admission(&sparse(20, 3), "A", 0, &plan);
    let share = a.conditional.undefined_draws as f64 / draws as f64;
    assert!((share - 0.85f64.powi(20)).abs() < 0.006, "{share}");
    assert!(!a.conditional.held);
    assert_eq!(
        (a.conditional.low, a.conditional.high),
        (Some(1.0), Some(1.0))
    );
    // 2 admitting: 0.9^20 ≈ 12.2% > 5% → held although the estimate exists.
    let a = admission(&sparse(20, 2), "A", 0, &plan);
    let share = a.conditional.undefined_draws as f64 / draws as f64;
    assert!((share - 0.9f64.powi(20)).abs() < 0.01, "{share}");
    assert!(a.conditional.held);
    assert_eq!(a.conditional.estimate, Some(1.0));
    assert_eq!((a.conditional.low, a.conditional.high), (None, None));
}

#[test]
fn conditional_interval_matches_an_independent_recomputation() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
    let co = random_cohort(&mut rng, 4, 25, 1);
    let plan = Resamples::new(25, 5_000, 123);
    let a = admission(&co, "A", 0, &plan);
    let x: Vec<f64> = co
        .tasks
        .iter()
        .map(|t| {
            t.candidates
                .iter()
                .filter(|c| c.admitted[0] && !c.pass)
                .count() as f64
        })
        .collect();
    let n: Vec<f64> = co
        .tasks
        .iter()
        .map(|t| t.candidates.iter().filter(|c| c.admitted[0]).count() as f64)
        .collect();
    let mut ratios = Vec::new();
    let mut undefined = 0;
    for r in 0..plan.b() {
        let counts = plan.replicate_counts(r);
        let (sx, sn) = counts
            .iter()
            .enumerate()
            .fold((0.0, 0.0), |(a, b), (i, &c)| {
                (a + x[i] * c as f64, b + n[i] * c as f64)
            });
        if sn == 0.0 {
            undefined += 1;
        } else {
            ratios.push(sx / sn);
        }
    }
    ratios.sort_by(f64::total_cmp);
    assert_eq!(a.conditional.undefined_draws, undefined);
    assert_eq!(a.conditional.low, Some(percentile_type7(&ratios, 0.025)));
    assert_eq!(a.conditional.high, Some(percentile_type7(&ratios, 0.975)));
}

#[test]
fn audit_runs_every_predicate_of_every_cohort_with_stable_seeds() {
    let pools = PoolSet {
        mode: Mode::Generated {
            pool: "p".into(),
            tasks: "t".into(),
        },
        evidence_names: vec![],
        predicates: vec!["A".into()],
        contrasts: vec![],
        cohorts: vec![hand()],
        provenance: vec![],
        rejected: vec![],
        missing_tasks: vec![],
        task_count: 0,
        plus_tasks: 0,
        sanitized: vec![],
        task_format: String::new(),
        time_convention: Default::default(),
    };
    let cfg = AuditConfig {
        draws: 500,
        ..AuditConfig::default()
    };
    let a = account::audit(&pools, &cfg);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].admission[0].admitted, 5);
    assert_eq!(a[0].orders.orders, 6);
    assert_eq!(a, account::audit(&pools, &cfg));
}
