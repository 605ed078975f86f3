//! Property tests of the pool-density ablation on random synthetic bundles: at full density it
//! equals exec@1, and at d = 0 it equals exec@1 computed on the pool without the query's own
//! paired distractors — under every tie policy.

use execscope::analysis::density::query_density;
use execscope::bundle::{synthetic, SynthSpec};
use execscope::engine::{Engine, EngineOptions};
use execscope::metrics::{eval_query, EvalConfig, Metric, TiePolicy};
use execscope::rank::RankOptions;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn density_endpoints(seed in 0u64..10_000, extra in 0usize..12, tie_rate in 0.0f64..0.8,
                         policy_i in 0usize..4) {
        let policy = TiePolicy::ALL[policy_i];
        let bundle = synthetic(&SynthSpec {
            n_queries: 6,
            n_corpus_extra: extra,
            distractors_per_query: 4,
            dims: vec![3, 2],
            seed,
            tie_rate,
        });
        let cfg = EvalConfig { policy, ..EvalConfig::default() }.with_ks(&[1]);
        let engine = Engine::from_bundle(bundle, &EngineOptions {
            rank: RankOptions { bm25: true, ..RankOptions::default() },
            eval: cfg.clone(),
        });
        for (s, scores) in engine.scores().iter().enumerate() {
            for q in 0..engine.bundle().queries.len() {
                let query = &engine.bundle().queries[q];
                let row = scores.row(q);
                let pass = engine.truth().passing(q);
                let dens = query_density(row, pass, &query.paired, policy);
                let exec1 = engine.evals()[s].per_query[q].get(Metric::Exec, 0);
                prop_assert!((dens[dens.len() - 1] - exec1).abs() < 1e-12,
                    "full density {} vs exec@1 {} ({}, q{q}, {policy})", dens[dens.len() - 1], exec1, scores.id);
                // d = 0: drop the query's own distractors from the pool, keep row order.
                let keep: Vec<usize> = (0..row.len()).filter(|c| !query.paired.contains(c)).collect();
                let reduced: Vec<f32> = keep.iter().map(|&c| row[c]).collect();
                let remap = |rows: &[u32]| -> Vec<u32> {
                    rows.iter()
                        .filter_map(|&r| keep.iter().position(|&k| k == r as usize).map(|p| p as u32))
                        .collect()
                };
                let e0 = eval_query(&reduced, &remap(pass), &remap(engine.truth().relevant(q)), &cfg);
                prop_assert!((dens[0] - e0.exec[0]).abs() < 1e-12,
                    "d=0 {} vs reduced exec@1 {} ({}, q{q}, {policy})", dens[0], e0.exec[0], scores.id);
            }
        }
    }
}
