//! Retrieval pools: hand-computed expectations on the tiny fixture (see its EXPECTED.md for the
//! rankings and cached outcomes), and agreement with the engine's exec@1 on the MBPP bundle.

use crate::common;

use common::oracle::run;
use execscope::audit::account::{audit, AuditConfig};
use execscope::audit::{retrieval, view::AuditView, PoolSet};
use execscope::engine::{Engine, EngineOptions};
use execscope::metrics::{EvalConfig, Metric, TiePolicy};
use execscope::report::audit as tables;
use execscope::report::Format;
use std::path::Path;

fn tiny() -> Engine {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny");
    Engine::open(&root, &EngineOptions::default()).unwrap()
}

fn labels(p: &PoolSet, task: usize) -> Vec<String> {
    p.cohorts[0].tasks[task]
        .candidates
        .iter()
        .map(|c| c.label.clone())
        .collect()
}

#[test]
fn tiny_toy_cos_top3_one_visible_test() {
    let p = retrieval::build(&tiny(), "toy-cos", 3, 1, &run).unwrap();
    // Row ties: c_0001 before c_0002 (q_0001); c_0011 enters q_0003's top 3 (foreign, uncached).
    assert_eq!(
        labels(&p, 0),
        ["rank 1 c_0001", "rank 2 c_0002", "rank 3 c_0005"]
    );
    assert_eq!(
        labels(&p, 1),
        ["rank 1 c_0003", "rank 2 c_0009", "rank 3 c_0004"]
    );
    assert_eq!(
        labels(&p, 2),
        ["rank 1 c_0010", "rank 2 c_0008", "rank 3 c_0011"]
    );
    assert_eq!(
        p.provenance[0],
        "9 pool pairs: 8 from the execution cache, 1 run by the oracle"
    );
    let c = &p.cohorts[0].tasks[1].candidates[1];
    assert_eq!(c.evidence[0].reason, "FAIL:IndexError on visible test 1");
    let foreign = &p.cohorts[0].tasks[2].candidates[2];
    assert_eq!(foreign.evidence[1].reason, "FAIL:NameError on suite test 1");
    let suites: Vec<&str> = foreign.tests.iter().map(|t| t.suite).collect();
    assert_eq!(suites, ["visible", "hidden", "hidden"]);

    let a = audit(&p, &AuditConfig::default());
    let (all, v) = (&a[0].admission[0], &a[0].admission[1]);
    // top-k admits all 9, 6 of which fail; V admits c_0001, c_0004, c_0010 (fails test 3), c_0008.
    assert_eq!(
        (all.admitted, all.admitted_nonpass, all.excluded_pass),
        (9, 6, 0)
    );
    assert_eq!((v.admitted, v.admitted_nonpass, v.excluded_pass), (4, 1, 0));
    assert_eq!(v.tasks_with_admitted_pass, 3);
    let (sa, sv) = (&a[0].selection[0], &a[0].selection[1]);
    // exec@1 (row ties) = 1/3; exec-verified@1: q_0001 c_0001, q_0002 c_0004, q_0003 c_0010 (N).
    assert_eq!(
        (sa.first_pass, sa.first_nonpass, sa.first_abstain),
        (1, 2, 0)
    );
    assert_eq!(
        (sv.first_pass, sv.first_nonpass, sv.first_abstain),
        (2, 1, 0)
    );
    assert_eq!(sa.uniform_pass.fraction, Some((1, 1)));
    assert_eq!(sv.uniform_pass.fraction, Some((5, 2)));
    // 3! orders; V passes q_0003 iff rank 2 is scanned before rank 1.
    let o = &a[0].orders;
    assert!(o.exhaustive && o.orders == 6);
    assert_eq!((o.per_predicate[1].min, o.per_predicate[1].max), (2, 3));
    assert_eq!((o.per_predicate[0].min, o.per_predicate[0].max), (1, 1));
    assert!((o.transitions[0].n_to_p() - 1.5).abs() < 1e-12);
    assert_eq!(o.transitions[0].p_to_n(), 0.0);

    let tables = tables::all_tables(&p, &a);
    let r = &tables[0];
    assert_eq!(r.name, "audit-retrieval");
    // gap closed = (2 − 1) / (3 − 1)
    assert_eq!(r.rows[0][7].value, Some(0.5));
    for t in &tables {
        for f in Format::ALL {
            assert!(!t.render(f).is_empty());
        }
    }
    let view = AuditView::build(&p, &a);
    assert_eq!(view.tasks.len(), 3);
    assert_eq!(view.tasks_of("toy-cos").count(), 3);
    assert_eq!(view.tasks_of("other").count(), 0);
    assert_eq!(view.tasks[2].candidates[0].badge, "V ··");
    assert_eq!(view.tasks[2].first_admitted[1].1, Some(0));
}

#[test]
fn tiny_toy_dot_top3_two_visible_tests() {
    let p = retrieval::build(&tiny(), "toy-dot", 3, 2, &run).unwrap();
    assert_eq!(
        labels(&p, 2),
        ["rank 1 c_0006", "rank 2 c_0005", "rank 3 c_0008"]
    );
    let a = audit(&p, &AuditConfig::default());
    let (sa, sv) = (&a[0].selection[0], &a[0].selection[1]);
    assert_eq!(
        (sa.first_pass, sa.first_nonpass, sa.first_abstain),
        (2, 1, 0)
    );
    // Two visible tests reject every failing candidate here: verified@1 = 3/3.
    assert_eq!(
        (sv.first_pass, sv.first_nonpass, sv.first_abstain),
        (3, 0, 0)
    );
    assert_eq!(a[0].admission[1].admitted, 3);
    assert_eq!(a[0].admission[1].admitted_nonpass, 0);
    assert!(retrieval::build(&tiny(), "nope", 3, 2, &run).is_err());
}

#[test]
fn mbpp_top1_matches_the_engine_exec_at_1() {
    let Some(root) = common::require_data("mbpp_top1_matches_the_engine_exec_at_1", "mbpp-bundle")
    else {
        return;
    };
    let engine = Engine::open(&root, &EngineOptions::default()).unwrap();
    let p = retrieval::build(&engine, "all-mpnet-base-v2", 1, 3, &run).unwrap();
    let a = audit(
        &p,
        &AuditConfig {
            draws: 1_000,
            ..AuditConfig::default()
        },
    );
    let s = engine.system_index("all-mpnet-base-v2").unwrap();
    let cfg = EvalConfig {
        policy: TiePolicy::Row,
        ..EvalConfig::default()
    }
    .with_ks(&[1]);
    let ev =
        execscope::metrics::evaluate(engine.bundle(), engine.truth(), &engine.scores()[s], &cfg);
    let exec1 = ev.mean(Metric::Exec, 0);
    let n = engine.bundle().queries.len() as f64;
    assert_eq!(a[0].selection[0].first_pass as f64 / n, exec1);
    // With one candidate, V can only keep or reject the rank-1 snippet.
    let v = &a[0].selection[1];
    assert_eq!(v.first_pass, a[0].selection[0].first_pass);
    assert_eq!(
        v.first_pass + v.first_nonpass + v.first_abstain,
        engine.bundle().queries.len()
    );
}
