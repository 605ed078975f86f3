//! The tie-averaged McNemar test (docs/significance-under-ties.md) against an independent
//! enumeration in Python (tests/significance_ties.py, standard library only), and the report's
//! p-values under the default `expected` tie policy on the embedded bundle.

use crate::common;

use std::path::Path;
use std::process::Command;

use execscope::stats::{mcnemar_exact, mcnemar_tie_averaged};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

fn python(input: &Value) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let inp = dir.path().join("in.json");
    let outp = dir.path().join("out.json");
    std::fs::write(&inp, serde_json::to_vec(input).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/significance_ties.py");
    let res = Command::new("python3")
        .arg(&script)
        .arg(&inp)
        .arg(&outp)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 ({e}): install Python 3"));
    assert!(
        res.status.success(),
        "significance_ties.py failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    serde_json::from_slice(&std::fs::read(&outp).unwrap()).unwrap()
}

#[test]
fn tie_averaged_mcnemar_matches_python_enumeration() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let fractions = [0.5, 1.0 / 3.0, 0.25, 2.0 / 3.0, 0.1, 0.75, 0.9];
    let mut cases = Vec::new();
    for i in 0..40 {
        let n = 6 + i % 15;
        let mut uncertain = 0;
        let draw = |rng: &mut ChaCha8Rng, uncertain: &mut usize| -> f64 {
            let u: f64 = rng.random();
            if u < 0.35 {
                0.0
            } else if u < 0.75 || *uncertain >= 8 {
                1.0
            } else {
                *uncertain += 1;
                fractions[rng.random_range(0..fractions.len())]
            }
        };
        let a: Vec<f64> = (0..n).map(|_| draw(&mut rng, &mut uncertain)).collect();
        let b: Vec<f64> = (0..n).map(|_| draw(&mut rng, &mut uncertain)).collect();
        let alpha = [0.05, 0.01, 0.2][i % 3];
        cases.push(json!({"a": a, "b": b, "alpha": alpha}));
    }
    let theirs = python(&Value::Array(cases.clone()));
    for (c, t) in cases.iter().zip(theirs.as_array().unwrap()) {
        let v = |k: &str| -> Vec<f64> {
            c[k].as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let (a, b) = (v("a"), v("b"));
        let ours = mcnemar_tie_averaged(&a, &b, c["alpha"].as_f64().unwrap());
        let (p, r) = (
            t["mean_p"].as_f64().unwrap(),
            t["rejecting"].as_f64().unwrap(),
        );
        assert!(
            (ours.mean_p - p).abs() < 1e-12,
            "{a:?} vs {b:?}: mean p ours {} python {p}",
            ours.mean_p
        );
        assert!(
            (ours.rejecting - r).abs() < 1e-12,
            "{a:?} vs {b:?}: rejecting ours {} python {r}",
            ours.rejecting
        );
    }
}

#[test]
fn zero_one_vectors_reduce_to_the_exact_test() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for _ in 0..50 {
        let n = rng.random_range(1..200);
        let a: Vec<f64> = (0..n).map(|_| rng.random_range(0..2) as f64).collect();
        let b: Vec<f64> = (0..n).map(|_| rng.random_range(0..2) as f64).collect();
        let ao = a.iter().zip(&b).filter(|(x, y)| **x > **y).count() as u64;
        let bo = a.iter().zip(&b).filter(|(x, y)| **x < **y).count() as u64;
        let t = mcnemar_tie_averaged(&a, &b, 0.05);
        assert_eq!(t.mean_p, mcnemar_exact(ao, bo));
        assert_eq!(t.rejecting, if t.mean_p <= 0.05 { 1.0 } else { 0.0 });
    }
}

#[test]
fn report_shows_p_values_under_expected_ties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::execscope()
        .args([
            "report",
            "data/bundle",
            "--table",
            "pairs",
            "--format",
            "json",
        ])
        .current_dir(root)
        .output()
        .expect("run execscope");
    common::assert_ok(&out);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let rows = v["rows"].as_array().expect("rows");
    assert!(!rows.is_empty());
    for r in rows {
        let p = r["mcnemar_tie_averaged_p"]
            .as_f64()
            .expect("p under expected");
        let rej = r["tie_orders_rejecting"].as_f64().expect("share of orders");
        assert!(
            (0.0..=1.0).contains(&p) && (0.0..=1.0).contains(&rej),
            "{r}"
        );
        // If no order rejects, every order's p (hence their mean) exceeds α; if all do, the
        // mean is at most α.
        if rej == 0.0 {
            assert!(p > 0.05, "{r}");
        }
        if rej == 1.0 {
            assert!(p <= 0.05, "{r}");
        }
    }
}
