//! End-to-end runs of the `execscope` binary on the hand-made fixture.

use crate::common;

use serde_json::Value;

use common::run_execscope as execscope;

#[test]
fn report_json_follows_the_documented_schema() {
    let (code, out, err) = execscope(&[
        "report",
        "tests/fixtures/tiny",
        "--format",
        "json",
        "--ties",
        "row",
        "--no-bm25",
        "--bootstrap",
        "200",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["bundle"]["n_queries"], 3);
    assert_eq!(v["bundle"]["n_corpus"], 12);
    assert!(v["bundle"]["sha256"]["data/queries.jsonl"].is_string());
    let systems = v["systems"].as_array().unwrap();
    // Sorted by exec@1: toy-dot (2/3) before toy-cos (1/3).
    assert_eq!(systems[0]["id"], "toy-dot");
    assert_eq!(systems[1]["id"], "toy-cos");
    let m = &systems[1]["metrics"];
    for key in [
        "exec@1", "execp@1", "ndcg@1", "exec@3", "execp@3", "ndcg@3", "exec@10", "mrr",
    ] {
        assert!(m[key].is_number(), "missing {key}");
    }
    assert!((m["exec@1"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert!((m["ndcg@10"].as_f64().unwrap() - (1.5 + 1.0 / 3f64.log2()) / 3.0).abs() < 1e-12);
    assert_eq!(systems[1]["similarity"], "cos");
    assert_eq!(systems[0]["similarity"], "dot");
    let dom = &systems[0]["per_domain"];
    assert!((dom["string_processing"]["exec@1"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert_eq!(dom["math_numerical"]["exec@1"].as_f64().unwrap(), 0.0);
}

#[test]
fn every_format_renders_and_bad_input_is_named() {
    for f in ["table", "csv", "markdown", "latex"] {
        let (code, out, err) = execscope(&[
            "report",
            "tests/fixtures/tiny",
            "--format",
            f,
            "--bootstrap",
            "100",
        ]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(
            out.contains("toy-cos") && out.contains("BM25"),
            "{f}: {out}"
        );
    }
    let (code, _, err) = execscope(&["report", "/nonexistent/bundle"]);
    assert_ne!(code, 0);
    assert!(err.contains("/nonexistent/bundle"), "{err}");
    let (code, _, err) = execscope(&["report", "tests/fixtures/tiny", "--ties", "coin"]);
    assert_ne!(code, 0);
    assert!(err.contains("coin"), "{err}");
    let (code, _, err) = execscope(&["report", "tests/fixtures/tiny", "--table", "nope"]);
    assert_ne!(code, 0);
    assert!(err.contains("nope") && err.contains("density"), "{err}");
}

#[test]
fn check_passes_on_the_fixture() {
    let (code, out, _) = execscope(&["check", "tests/fixtures/tiny"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("PASS"));
}

#[test]
fn all_writes_release_schema_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let (code, _, err) = execscope(&[
        "report",
        "tests/fixtures/tiny",
        "--all",
        "--out",
        d,
        "--bootstrap",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    for f in [
        "leaderboard.tex",
        "density.csv",
        "pairs.md",
        "bugtypes.json",
        "difficulty.txt",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let pairs: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("tests/pairwise_tests.json")).unwrap(),
    )
    .unwrap();
    // 3 systems → 3 pairs, keys "A vs B" with A < B in byte order.
    let keys: Vec<&String> = pairs.as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 3);
    assert!(keys.iter().any(|k| *k == "BM25 vs toy-cos"));
    let p = &pairs["toy-cos vs toy-dot"]["exec@1"];
    // Row policy: toy-cos solves q_0001; toy-dot solves q_0001 and q_0002.
    assert_eq!(p["a_only"], 0);
    assert_eq!(p["b_only"], 1);
    assert_eq!(p["both"], 1);
    assert_eq!(p["neither"], 1);
    assert!((p["mcnemar_exact_p"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    let results: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("results/toy-cos.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        results["per_query"][1]["top_results"][0]["corpus_id"],
        "c_0003"
    );
    assert_eq!(
        results["per_query"][1]["top_results"][2]["passes_all_tests"],
        true
    );
    assert!((results["metrics"]["exec@1"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    // Issue 30 item 10: one folder, two policies, each file saying which (the report ran under
    // the default, expected ties; the release's schema under row ties).
    assert_eq!(results["tie_policy"], "row");
    assert_eq!(results["tie_eps"], 0.0);
    assert!(results["settings"]
        .as_str()
        .unwrap()
        .contains("leaderboard.json"));
    let lb: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("leaderboard.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(lb["tie_policy"], "expected");
    assert!(
        err.contains("use expected ties; results/*.json and tests/*.json use row ties"),
        "{err}"
    );
}

#[test]
fn execute_fills_missing_pairs_and_saves_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tiny");
    copy_dir(std::path::Path::new("tests/fixtures/tiny"), &root);
    let cache = root.join("data/execution_cache.jsonl");
    let before = std::fs::read_to_string(&cache).unwrap().lines().count();
    let r = root.to_str().unwrap();
    let (code, out, err) = execscope(&[
        "report",
        r,
        "--execute",
        "--save-cache",
        "--ties",
        "row",
        "--format",
        "json",
        "--bootstrap",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("isolation"), "{err}");
    let after = std::fs::read_to_string(&cache).unwrap().lines().count();
    assert!(after > before, "{before} → {after}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Every top-10 pair is now answered by the cache.
    for s in v["systems"].as_array().unwrap() {
        assert_eq!(s["label_fallbacks_top10"], 0, "{}", s["id"]);
    }
    // The foreign snippets really fail their suites, so the numbers do not change.
    let toy_cos = v["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "toy-cos")
        .unwrap();
    assert!((toy_cos["metrics"]["exec@1"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    // SHA256SUMS was refreshed, so the bundle still verifies.
    let (code, out, _) = execscope(&["check", r]);
    assert_eq!(code, 0, "{out}");
    // A second run finds nothing missing.
    let (code, _, err) = execscope(&["report", r, "--execute", "--bootstrap", "50"]);
    assert_eq!(code, 0);
    assert!(err.contains("executed 0 missing pairs"), "{err}");
}

use common::copy_dir;

/// Issue 30 item 9: a bundle whose corpus is cut mid-line fails to load with the cause
/// `execscope check` finds (the line that is cut) and the next step, not only the checksum
/// mismatch the load meets first.
#[test]
fn a_truncated_corpus_is_named_with_its_line_and_the_next_step() {
    let (_dir, root) = common::tiny::copy_tiny(true);
    common::tiny::edit(&root, "data/corpus.jsonl", |s| {
        let cut = s.trim_end().rfind('\n').unwrap() + 30;
        s[..cut].to_string()
    });
    let (code, _, err) = execscope(&["report", root.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(
        err.contains("corpus.jsonl:12: file is truncated"),
        "no cause: {err}"
    );
    assert!(
        err.contains("checksum"),
        "the load's own error is kept: {err}"
    );
    assert!(
        err.contains(&format!("run `execscope check {}`", root.display())),
        "no next step: {err}"
    );
}

#[test]
fn tables_slice_by_language_and_a_python_report_says_nothing_of_languages() {
    let args = |bundle: &str, extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = [
            "report",
            bundle,
            "--ties",
            "row",
            "--no-bm25",
            "--bootstrap",
            "50",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let run = |a: Vec<String>| {
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, out, err) = execscope(&a);
        assert_eq!(code, 0, "{err}");
        out
    };
    // Python only: no languages anywhere in the leaderboard, text or JSON.
    let py = run(args("tests/fixtures/tiny", &["--format", "json"]));
    assert!(
        !py.contains("languages") && !py.contains("per_language"),
        "{py}"
    );
    let text = run(args("tests/fixtures/tiny", &[]));
    assert!(text.contains("Means over 3 queries;"), "{text}");

    let (_two, two) = common::tiny::two_languages();
    let b = two.to_str().unwrap();
    let v: Value = serde_json::from_str(&run(args(b, &["--format", "json"]))).unwrap();
    assert_eq!(
        v["bundle"]["languages"],
        serde_json::json!({"python": 2, "cpp": 1})
    );
    let text = run(args(b, &[]));
    assert!(
        text.contains("Means over 3 queries (Python 2, C++ 1);"),
        "{text}"
    );
    // Each system's per-language exec@1 averages back to its exec@1 (query-weighted), and the
    // per-language table prints the same values.
    let table: Value =
        serde_json::from_str(&run(args(b, &["--table", "languages", "--format", "json"]))).unwrap();
    let table_rows = table["rows"]
        .as_array()
        .unwrap_or_else(|| panic!("{table}"));
    for (i, s) in v["systems"].as_array().unwrap().iter().enumerate() {
        let py = s["per_language"]["python"]["exec@1"].as_f64().unwrap();
        let cpp = s["per_language"]["cpp"]["exec@1"].as_f64().unwrap();
        let all = s["metrics"]["exec@1"].as_f64().unwrap();
        assert!((2.0 * py + cpp - 3.0 * all).abs() < 1e-12, "{s}");
        assert_eq!(table_rows[i]["system"], s["id"]);
        assert_eq!(table_rows[i]["python"].as_f64(), Some(py), "{table}");
        assert_eq!(table_rows[i]["cpp"].as_f64(), Some(cpp), "{table}");
    }
    let dec = run(args(b, &["--table", "deception-languages"]));
    assert!(dec.contains("Python") && dec.contains("C++"), "{dec}");
    let bt = run(args(
        b,
        &["--table", "bugtypes-languages", "--format", "csv"],
    ));
    assert!(
        bt.lines().next().unwrap().contains("python") && bt.contains("overall"),
        "{bt}"
    );

    // `--all` writes the language tables for the two-language bundle only.
    for (bundle, expect) in [("tests/fixtures/tiny", false), (b, true)] {
        let out = tempfile::tempdir().unwrap();
        run(args(
            bundle,
            &["--all", "--out", out.path().to_str().unwrap()],
        ));
        for f in [
            "languages.csv",
            "deception-languages.md",
            "bugtypes-languages.json",
        ] {
            assert_eq!(out.path().join(f).exists(), expect, "{bundle} {f}");
        }
    }
}
