//! Cross-check of `execscope::stats` against SciPy / numpy (tests/scipy_check.py).
//!
//! The test draws seeded random inputs, exports them — including the exact bootstrap resample
//! plan as index lists — to JSON, lets Python compute the reference values with scipy.stats and
//! numpy.percentile, and requires agreement to 1e-9. The interpreter is `$EXECSCOPE_PYTHON` (which
//! must then have scipy and numpy: CI never skips this check; `.ci/run` builds such a virtualenv),
//! else `python3`; without scipy there the test reports itself skipped by name.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use execscope::stats::{
    average_ranks, binom_test_two_sided, cluster_bootstrap_with_plan, holm, mcnemar_exact,
    percentile_type7, spearman, wilson, Resamples, Z95,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

const TOL: f64 = 1e-9;

fn run_python(python: &PathBuf, input: &Value) -> Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let inp = dir.path().join("in.json");
    let outp = dir.path().join("out.json");
    std::fs::write(&inp, serde_json::to_vec(input).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scipy_check.py");
    let res = Command::new(python)
        .arg(&script)
        .arg(&inp)
        .arg(&outp)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} ({e})", python.display()));
    let stderr = String::from_utf8_lossy(&res.stderr);
    match res.status.code() {
        Some(0) => {}
        Some(3) => panic!("SciPy cross-check cannot run: {stderr}\n→ bash .ci/run makes a virtualenv with scipy and numpy"),
        _ => panic!("scipy_check.py failed ({}): {stderr}", res.status),
    }
    serde_json::from_slice(&std::fs::read(&outp).unwrap()).unwrap()
}

fn close(what: &str, ours: f64, theirs: f64) {
    assert!(
        (ours - theirs).abs() <= TOL || (ours.is_nan() && theirs.is_nan()),
        "{what}: ours {ours:e} vs scipy {theirs:e} (diff {:e})",
        (ours - theirs).abs()
    );
}

/// p-values can be tiny, where an absolute tolerance says nothing: also require relative agreement.
fn close_rel(what: &str, ours: f64, theirs: f64) {
    close(what, ours, theirs);
    if theirs > 1e-300 {
        let rel = (ours - theirs).abs() / theirs;
        assert!(
            rel <= 1e-9,
            "{what}: ours {ours:e} vs scipy {theirs:e} (relative {rel:e})"
        );
    }
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn vectors_for_plan(rng: &mut ChaCha8Rng, n: usize) -> Vec<Vec<f64>> {
    let mut vs = Vec::new();
    for rate in [0.05, 0.33, 0.9] {
        vs.push(
            (0..n)
                .map(|_| f64::from(u8::from(rng.random_bool(rate))))
                .collect(),
        );
    }
    // execp@3-like: multiples of 1/3
    vs.push(
        (0..n)
            .map(|_| rng.random_range(0..=3) as f64 / 3.0)
            .collect(),
    );
    // nDCG-like: 1/log2(rank+1) or 0
    vs.push(
        (0..n)
            .map(|_| {
                let r = rng.random_range(1..=12u32);
                if r > 10 {
                    0.0
                } else {
                    1.0 / f64::from(r + 1).log2()
                }
            })
            .collect(),
    );
    vs.push(vec![1.0; n]); // the ceiling: degenerate interval
    vs.push((0..n).map(|_| rng.random::<f64>()).collect());
    vs
}

#[test]
fn agrees_with_scipy_and_numpy() {
    let Some(python) = common::require_python("agrees_with_scipy_and_numpy", &["scipy", "numpy"])
    else {
        return;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(0x5C19E);

    // --- binomial test, McNemar, Wilson
    let mut binom: Vec<(u64, u64, f64)> = vec![
        (1, 7, 0.5),
        (0, 10, 0.5),
        (10, 10, 0.5),
        (3, 4, 0.25),
        (0, 4, 0.25),
        (2, 4, 0.5),
        (0, 5, 0.0),
        (5, 5, 1.0),
        (3, 5, 0.0),
        (311, 939, 0.331),
        (20, 939, 0.5),
        (450, 900, 0.5),
    ];
    for _ in 0..300 {
        let n = rng.random_range(1..=400u64);
        let k = rng.random_range(0..=n);
        let p = match rng.random_range(0..3) {
            0 => 0.5,
            1 => rng.random_range(0.01..0.99),
            _ => rng.random_range(1..n.max(2)) as f64 / n as f64,
        };
        binom.push((k, n, p));
    }
    let mut mcnemar: Vec<(u64, u64)> = vec![(1, 6), (0, 0), (5, 5), (0, 10), (0, 1), (120, 180)];
    for _ in 0..200 {
        mcnemar.push((rng.random_range(0..300), rng.random_range(0..300)));
    }
    let mut wil: Vec<(u64, u64)> = vec![(3, 10), (0, 10), (10, 10), (939, 939), (1, 1), (311, 939)];
    for _ in 0..200 {
        let n = rng.random_range(1..=2000u64);
        wil.push((rng.random_range(0..=n), n));
    }

    // --- Spearman with heavy ties, continuous, and constant sides
    let mut spear: Vec<(Vec<f64>, Vec<f64>)> = vec![
        (vec![1.0, 2.0, 2.0, 3.0], vec![1.0, 3.0, 2.0, 4.0]),
        (vec![1.0, 1.0, 1.0], vec![1.0, 2.0, 3.0]),
    ];
    for i in 0..100 {
        let n = rng.random_range(2..80);
        let levels = if i % 2 == 0 { 4 } else { 1_000_000 };
        let x: Vec<f64> = (0..n).map(|_| rng.random_range(0..levels) as f64).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|v| v * 0.3 + rng.random_range(0..levels) as f64)
            .collect();
        spear.push((x, y));
    }

    // --- type-7 percentiles
    let mut pct: Vec<(Vec<f64>, Vec<f64>)> = vec![(vec![1.0, 2.0, 3.0, 4.0], vec![0.025, 0.975])];
    for _ in 0..100 {
        let n = rng.random_range(1..500);
        let mut x: Vec<f64> = (0..n).map(|_| rng.random_range(-5.0..5.0)).collect();
        x.sort_by(f64::total_cmp);
        let q: Vec<f64> = vec![0.0, 0.025, 0.5, 0.975, 1.0, rng.random()];
        pct.push((x, q));
    }

    // --- Holm
    let holm_in: Vec<Vec<f64>> = (0..50)
        .map(|_| {
            let m = rng.random_range(1..30);
            (0..m).map(|_| rng.random::<f64>().powi(3)).collect()
        })
        .collect();

    // --- query bootstrap on a fixed plan
    let n = 231;
    let plan = Resamples::new(n, 2_000, 20260510);
    let vectors = vectors_for_plan(&mut rng, n);
    let pairs: Vec<(usize, usize)> = vec![(0, 1), (1, 2), (3, 4), (4, 6), (5, 5), (2, 5)];
    let indices: Vec<Vec<u32>> = (0..plan.b()).map(|r| plan.replicate_indices(r)).collect();

    // --- task-cluster bootstrap on fixed plans
    let mut cluster_cases = Vec::new();
    for case in 0..4 {
        let t = 32;
        let den: Vec<f64> = (0..t)
            .map(|i| match case {
                // one task carries the whole denominator: (31/32)^32 ≈ 36% of draws undefined → held
                2 => f64::from(u8::from(i == 0)) * 2.0,
                _ => rng.random_range(0..=4) as f64,
            })
            .collect();
        let numr: Vec<f64> = den
            .iter()
            .map(|&d| rng.random_range(0..=d as u32) as f64)
            .collect();
        let den = if case == 3 { vec![1.0; t] } else { den };
        let cplan = Resamples::new(t, 20_000, 1000 + case as u64);
        cluster_cases.push((numr, den, cplan));
    }

    let input = json!({
        "binom": binom,
        "mcnemar": mcnemar,
        "wilson": wil,
        "spearman": spear.iter().map(|(x, y)| json!({"x": x, "y": y})).collect::<Vec<_>>(),
        "percentile": pct.iter().map(|(x, q)| json!({"x": x, "q": q})).collect::<Vec<_>>(),
        "holm": holm_in,
        "plan": {"n": n, "b": plan.b(), "indices": indices, "vectors": vectors, "pairs": pairs},
        "cluster": cluster_cases.iter().map(|(nu, de, p)| json!({
            "num": nu, "den": de,
            "indices": (0..p.b()).map(|r| p.replicate_indices(r)).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    let out = run_python(&python, &input);

    for (i, &(k, nn, p)) in binom.iter().enumerate() {
        close_rel(
            &format!("binomtest({k}, {nn}, {p})"),
            binom_test_two_sided(k, nn, p),
            f(&out["binom"][i]),
        );
    }
    for (i, &(b, c)) in mcnemar.iter().enumerate() {
        close_rel(
            &format!("mcnemar({b}, {c})"),
            mcnemar_exact(b, c),
            f(&out["mcnemar"][i]),
        );
    }
    for (i, &(k, nn)) in wil.iter().enumerate() {
        let (lo, hi) = wilson(k, nn, Z95);
        close(&format!("wilson low {k}/{nn}"), lo, f(&out["wilson"][i][0]));
        close(
            &format!("wilson high {k}/{nn}"),
            hi,
            f(&out["wilson"][i][1]),
        );
    }
    for (i, (x, y)) in spear.iter().enumerate() {
        let theirs = &out["spearman"][i];
        match spearman(x, y) {
            Some(r) => close(&format!("spearman case {i}"), r, f(theirs)),
            None => assert!(
                theirs.is_null(),
                "spearman case {i}: ours None, scipy {theirs}"
            ),
        }
        assert_eq!(average_ranks(x).len(), x.len());
    }
    for (i, (x, qs)) in pct.iter().enumerate() {
        for (j, &q) in qs.iter().enumerate() {
            close(
                &format!("percentile case {i} q={q}"),
                percentile_type7(x, q),
                f(&out["percentile"][i][j]),
            );
        }
    }
    for (i, p) in holm_in.iter().enumerate() {
        for (j, a) in holm(p).iter().enumerate() {
            close(&format!("holm case {i}[{j}]"), *a, f(&out["holm"][i][j]));
        }
    }
    for (i, v) in vectors.iter().enumerate() {
        let ci = plan.mean_ci(v);
        let want = &out["mean_ci"][i];
        close(&format!("mean vec {i}"), ci.mean, f(&want[0]));
        close(&format!("ci low vec {i}"), ci.low, f(&want[1]));
        close(&format!("ci high vec {i}"), ci.high, f(&want[2]));
    }
    for (i, &(a, b)) in pairs.iter().enumerate() {
        let (d, lo, hi) = plan.paired_diff_ci(&vectors[a], &vectors[b]);
        let want = &out["paired"][i];
        close(&format!("delta {a}-{b}"), d, f(&want[0]));
        close(&format!("paired low {a}-{b}"), lo, f(&want[1]));
        close(&format!("paired high {a}-{b}"), hi, f(&want[2]));
    }
    for (i, (nu, de, p)) in cluster_cases.iter().enumerate() {
        let ci = cluster_bootstrap_with_plan(nu, de, p);
        let want = &out["cluster"][i];
        assert_eq!(ci.held, want["held"].as_bool().unwrap(), "cluster {i} held");
        assert_eq!(
            ci.undefined_draws as u64,
            want["undefined"].as_u64().unwrap(),
            "cluster {i} undefined draws"
        );
        let opt = |v: &Value| v.as_f64();
        assert_eq!(ci.estimate.is_some(), opt(&want["estimate"]).is_some());
        if let (Some(a), Some(b)) = (ci.estimate, opt(&want["estimate"])) {
            close(&format!("cluster {i} estimate"), a, b);
        }
        for (ours, key) in [(ci.low, "low"), (ci.high, "high")] {
            match (ours, opt(&want[key])) {
                (Some(a), Some(b)) => close(&format!("cluster {i} {key}"), a, b),
                (None, None) => {}
                (a, b) => panic!("cluster {i} {key}: ours {a:?}, numpy {b:?}"),
            }
        }
    }
    // The fixtures must exercise both outcomes of the hold rule.
    let held: Vec<bool> = out["cluster"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["held"].as_bool().unwrap())
        .collect();
    assert!(held.contains(&true) && held.contains(&false), "{held:?}");
}
