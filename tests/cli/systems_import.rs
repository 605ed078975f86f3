//! `execscope import` and `execscope fuse` through the binary: a run written from a system's
//! scores imports to identical numbers, a top-100 run keeps exec@k / execp@k for k ≤ 10, every
//! bad input gets a message naming file and line and leaves the bundle unchanged, provenance is
//! recorded, and `check` verifies the new systems like any other.

use crate::common;

use common::tiny::copy_tiny;
use execscope::bundle::{self, Provenance, Similarity};
use execscope::engine::Engine;
use execscope::metrics::TiePolicy;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;

fn run(args: &[&str], cache: &Path) -> Output {
    common::execscope()
        .args(args)
        .env("EXECSCOPE_CACHE_DIR", cache)
        .output()
        .expect("the binary runs")
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Every file of a directory tree with its bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    bundle::files::list_files(root)
        .unwrap()
        .into_iter()
        .map(|rel| {
            let b = std::fs::read(root.join(&rel)).unwrap();
            (rel, b)
        })
        .collect()
}

use common::open_engine as engine;

/// A run of every (query, snippet) score of one system, in the bundle's order, `depth` lines per
/// query (best first).
fn run_text(e: &Engine, id: &str, depth: usize) -> String {
    let s = &e.scores()[e.system_index(id).unwrap()];
    let mut out = String::new();
    for (q, query) in e.bundle().queries.iter().enumerate() {
        for (i, c) in execscope::rank::top_k(s.row(q), depth)
            .into_iter()
            .enumerate()
        {
            let _ = writeln!(
                out,
                "{} Q0 {} {} {} mine",
                query.id,
                e.bundle().corpus[c as usize].id,
                i + 1,
                s.row(q)[c as usize]
            );
        }
    }
    out
}

fn same_evals(e: &Engine, a: &str, b: &str, ks_upto: usize) {
    let ea = &e.evals()[e.system_index(a).unwrap()];
    let eb = &e.evals()[e.system_index(b).unwrap()];
    for (q, (x, y)) in ea.per_query.iter().zip(&eb.per_query).enumerate() {
        for (ki, &k) in e.config().ks.iter().enumerate() {
            if k > ks_upto {
                continue;
            }
            assert_eq!(x.exec[ki], y.exec[ki], "query {q} exec@{k}: {a} vs {b}");
            assert_eq!(x.execp[ki], y.execp[ki], "query {q} execp@{k}: {a} vs {b}");
        }
    }
}

#[test]
fn a_run_written_from_scores_imports_to_identical_numbers() {
    let (dir, root) = copy_tiny(true);
    let cache = dir.path().join("cache");
    let e = engine(&root, TiePolicy::Row);
    let path = dir.path().join("cos.run");
    std::fs::write(&path, run_text(&e, "toy-cos", usize::MAX)).unwrap();
    let r = root.to_str().unwrap();
    ok(&run(
        &[
            "import",
            r,
            "--name",
            "cos-run",
            "--run",
            path.to_str().unwrap(),
        ],
        &cache,
    ));
    let e2 = engine(&root, TiePolicy::Row);
    let (a, b) = (
        &e2.scores()[e2.system_index("toy-cos").unwrap()],
        &e2.scores()[e2.system_index("cos-run").unwrap()],
    );
    assert_eq!(a.scores, b.scores, "the scores round-trip bit for bit");
    let (ea, eb) = (
        &e2.evals()[e2.system_index("toy-cos").unwrap()],
        &e2.evals()[e2.system_index("cos-run").unwrap()],
    );
    assert_eq!(ea.per_query, eb.per_query);
    assert_eq!(b.similarity.as_str(), "score");
    // Provenance recorded in the table, and `check` passes with the new system verified.
    let table = std::fs::read_to_string(root.join("results/invocation_table.json")).unwrap();
    assert!(table.contains("\"kind\": \"imported-run\""), "{table}");
    let sys = e2
        .bundle()
        .systems
        .iter()
        .find(|s| s.id == "cos-run")
        .unwrap();
    match sys.provenance() {
        Provenance::ImportedRun { file, lines, .. } => {
            assert_eq!(file, "cos.run");
            assert_eq!(lines, 36);
        }
        other => panic!("{other:?}"),
    }
    let out = run(&["check", r], &cache);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("system cos-run") && text.contains("imported run cos.run"),
        "{text}"
    );

    // The same scores as a matrix (float64 here): identical again.
    use ndarray_npy::WriteNpyExt;
    let npy = dir.path().join("cos.npy");
    a.scores
        .matrix()
        .mapv(f64::from)
        .write_npy(std::fs::File::create(&npy).unwrap())
        .unwrap();
    ok(&run(
        &[
            "import",
            r,
            "--name",
            "cos-mat",
            "--scores",
            npy.to_str().unwrap(),
        ],
        &cache,
    ));
    let e3 = engine(&root, TiePolicy::Expected);
    let m = &e3.scores()[e3.system_index("cos-mat").unwrap()];
    assert_eq!(m.scores, a.scores);
    assert_eq!(
        e3.evals()[e3.system_index("cos-mat").unwrap()].per_query,
        e3.evals()[e3.system_index("toy-cos").unwrap()].per_query
    );
    let sys = e3
        .bundle()
        .systems
        .iter()
        .find(|s| s.id == "cos-mat")
        .unwrap();
    assert!(matches!(
        sys.provenance(),
        Provenance::ImportedScores { ref file, .. } if file == "cos.npy"
    ));
}

/// A copy of the embedded bundle with one dense system (no SHA256SUMS, which lists the others).
fn embedded_copy(dir: &Path, system: &str) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle");
    let root = dir.join("bundle");
    for rel in bundle::files::list_files(&src).unwrap() {
        let keep = rel.starts_with("data/")
            || rel == format!("embeddings/{system}.npz")
            || rel == "results/invocation_table.json";
        if keep {
            let to = root.join(&rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(src.join(&rel), to).unwrap();
        }
    }
    root
}

#[test]
fn a_top_100_run_keeps_exec_and_execp_up_to_10() {
    let dir = tempfile::tempdir().unwrap();
    let root = embedded_copy(dir.path(), "paraphrase-MiniLM-L3-v2");
    let cache = dir.path().join("cache");
    let e = engine(&root, TiePolicy::Row);
    let r = root.to_str().unwrap();
    for (name, id) in [
        ("l3-top100", "paraphrase-MiniLM-L3-v2"),
        ("bm25-top100", "BM25"),
    ] {
        let path = dir.path().join(format!("{name}.run"));
        std::fs::write(&path, run_text(&e, id, 100)).unwrap();
        ok(&run(
            &["import", r, "--name", name, "--run", path.to_str().unwrap()],
            &cache,
        ));
    }
    let e2 = engine(&root, TiePolicy::Row);
    same_evals(&e2, "paraphrase-MiniLM-L3-v2", "l3-top100", 10);
    same_evals(&e2, "BM25", "bm25-top100", 10);
    // Unlisted snippets form one group below every listed one.
    let s = &e2.scores()[e2.system_index("l3-top100").unwrap()];
    for q in 0..e2.bundle().queries.len() {
        let row = s.row(q);
        let order = execscope::rank::full_order(row);
        let floor = row[order[100] as usize];
        assert!(row[order[99] as usize] > floor);
        assert!(order[100..].iter().all(|&c| row[c as usize] == floor));
    }
}

/// Each bad input: the command fails with a message naming the file (and line), and no file of
/// the bundle changes.
#[test]
fn bad_runs_and_matrices_are_refused_with_the_line() {
    let (dir, root) = copy_tiny(true);
    let cache = dir.path().join("cache");
    let r = root.to_str().unwrap();
    let before = snapshot(&root);
    let good = "q_0001 Q0 c_0001 1 0.9 t\n";
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "columns",
            "q_0001 Q0 c_0001 1 0.9\n".into(),
            ":1: expected 6 columns",
        ),
        (
            "unknown-query",
            format!("{good}q_9 Q0 c_0001 1 0.5 t\n"),
            ":2: unknown query id `q_9`",
        ),
        (
            "unknown-doc",
            format!("{good}q_0001 Q0 nope 2 0.5 t\n"),
            ":2: unknown snippet id `nope`",
        ),
        (
            "duplicate",
            format!("{good}\nq_0001 Q0 c_0001 2 0.5 t\n"),
            ":3: duplicate: query `q_0001` snippet `c_0001` is already listed at line 1",
        ),
        (
            "nan",
            format!("{good}q_0001 Q0 c_0002 2 NaN t\n"),
            ":2: score `NaN` is not finite",
        ),
        (
            "inf",
            format!("{good}q_0001 Q0 c_0002 2 -inf t\n"),
            ":2: score `-inf` is not finite",
        ),
        (
            "overflow",
            format!("{good}q_0001 Q0 c_0002 2 1e39 t\n"),
            ":2: score `1e39` is outside the float32 range",
        ),
        (
            "not-a-number",
            format!("{good}q_0001 Q0 c_0002 2 high t\n"),
            ":2: score `high` is not a number",
        ),
        (
            "rank",
            format!("{good}q_0001 Q0 c_0002 0 0.5 t\n"),
            ":2: rank `0` is not a positive integer",
        ),
        ("empty", "\n\n".into(), "no run lines"),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(format!("{name}.run"));
        std::fs::write(&path, text).unwrap();
        let out = run(
            &["import", r, "--name", "x", "--run", path.to_str().unwrap()],
            &cache,
        );
        assert!(!out.status.success(), "{name} was accepted");
        let err = stderr(&out);
        let file = format!("{name}.run");
        assert!(err.contains(&file) && err.contains(want), "{name}: {err}");
        assert_eq!(snapshot(&root), before, "{name} changed the bundle");
    }

    // Score matrices: shape, dtype, non-finite values.
    use ndarray::Array2;
    use ndarray_npy::WriteNpyExt;
    let npy = |name: &str, write: &dyn Fn(&mut std::fs::File)| {
        let p = dir.path().join(name);
        write(&mut std::fs::File::create(&p).unwrap());
        p
    };
    let wrong_shape = npy("shape.npy", &|f| {
        Array2::<f32>::zeros((3, 11)).write_npy(f).unwrap()
    });
    let mut nan = Array2::<f64>::zeros((3, 12));
    nan[[1, 4]] = f64::NAN;
    let nan = npy("nan.npy", &|f| nan.write_npy(f).unwrap());
    let ints = npy("ints.npy", &|f| {
        Array2::<i32>::zeros((3, 12)).write_npy(f).unwrap()
    });
    for (p, want) in [
        (wrong_shape, "shape.npy: shape [3, 11], expected [3, 12]"),
        (nan, "nan.npy: row 1 (query `q_0002`), column 4 (snippet `c_0005`): NaN is not a finite float32"),
        (ints, "ints.npy: dtype <i4, expected float32 or float64"),
    ] {
        let out = run(
            &["import", r, "--name", "x", "--scores", p.to_str().unwrap()],
            &cache,
        );
        assert!(!out.status.success());
        assert!(stderr(&out).contains(want), "{}", stderr(&out));
        assert_eq!(snapshot(&root), before);
    }

    // Names: taken, the baseline's, not a file stem.
    let fine = dir.path().join("fine.run");
    std::fs::write(&fine, good).unwrap();
    for (name, want) in [
        ("toy-cos", "already has a system \"toy-cos\""),
        ("bm25", "the built-in BM25 baseline's"),
        ("../up", "plain file stem"),
    ] {
        let out = run(
            &["import", r, "--name", name, "--run", fine.to_str().unwrap()],
            &cache,
        );
        assert!(!out.status.success());
        assert!(stderr(&out).contains(want), "{name}: {}", stderr(&out));
        assert_eq!(snapshot(&root), before);
    }
    // A good one-line run imports; every other snippet of every query ties below.
    ok(&run(
        &[
            "import",
            r,
            "--name",
            "one",
            "--run",
            fine.to_str().unwrap(),
        ],
        &cache,
    ));
    let b = bundle::load(&root, &bundle::LoadOptions::default()).unwrap();
    let s = b.systems.iter().find(|s| s.id == "one").unwrap();
    assert_eq!(s.similarity, Similarity::Score);
    let scores = s.corpus.t();
    assert_eq!(scores[[0, 0]], 0.9);
    assert!(scores
        .row(0)
        .iter()
        .skip(1)
        .all(|&v| v == scores[[0, 1]] && v < 0.9));
    assert!(scores.row(1).iter().all(|&v| v == scores[[1, 0]]));
}

#[test]
fn fuse_records_its_parts_and_refuses_bad_requests() {
    let (dir, root) = copy_tiny(true);
    let cache = dir.path().join("cache");
    let r = root.to_str().unwrap();
    let before = snapshot(&root);
    for (args, want) in [
        (
            vec!["--method", "rrf", "BM25", "nope"],
            "no system \"nope\"",
        ),
        (vec!["--method", "rrf", "BM25", "BM25"], "named twice"),
        (
            vec!["--method", "rrf", "--norm", "zscore", "BM25", "toy-cos"],
            "--norm applies to combsum",
        ),
        (
            vec!["--method", "combsum", "--k", "10", "BM25", "toy-cos"],
            "--k applies to rrf only",
        ),
        (
            vec!["--method", "rrf", "--depth", "5", "BM25", "toy-cos"],
            "--depth applies to combmnz only",
        ),
        (
            vec!["--method", "borda", "BM25", "toy-cos"],
            "[possible values: rrf, combsum, combmnz]",
        ),
        (vec!["--method", "rrf", "BM25"], "2 values"),
    ] {
        let mut a = vec!["fuse", r, "--name", "hyb"];
        a.extend(args.iter().copied());
        let out = run(&a, &cache);
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(stderr(&out).contains(want), "{args:?}: {}", stderr(&out));
        assert_eq!(snapshot(&root), before);
    }
    ok(&run(
        &[
            "fuse", r, "--name", "mnz", "--method", "combmnz", "--norm", "zscore", "--depth", "3",
            "BM25", "toy-dot",
        ],
        &cache,
    ));
    let b = bundle::load(&root, &bundle::LoadOptions::default()).unwrap();
    let s = b.systems.iter().find(|s| s.id == "mnz").unwrap();
    assert_eq!(
        s.provenance(),
        Provenance::Fused {
            method: "combmnz".into(),
            parts: vec!["BM25".into(), "toy-dot".into()],
            norm: Some("zscore".into()),
            k: None,
            depth: Some(3),
        }
    );
    // A hybrid of a hybrid is a system like any other.
    ok(&run(
        &[
            "fuse", r, "--name", "mnz2", "--method", "rrf", "mnz", "toy-cos",
        ],
        &cache,
    ));
    ok(&run(&["check", r], &cache));

    // The fusion table: each hybrid, then its parts, with exec@k and the deception rate
    // recomputed here from the scores.
    let out = run(
        &[
            "report", r, "--table", "fusion", "--format", "json", "--ties", "row",
        ],
        &cache,
    );
    ok(&out);
    let t: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = t["rows"].as_array().unwrap();
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["hybrid"].as_str().unwrap(),
                r["system"].as_str().unwrap(),
                r["role"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("mnz", "mnz", "hybrid"),
            ("mnz", "BM25", "part"),
            ("mnz", "toy-dot", "part"),
            ("mnz2", "mnz2", "hybrid"),
            ("mnz2", "mnz", "part"),
            ("mnz2", "toy-cos", "part"),
        ]
    );
    let e = engine(&root, TiePolicy::Row);
    for row in rows {
        let id = row["system"].as_str().unwrap();
        let i = e.system_index(id).unwrap();
        let exec1 = e.evals()[i].mean(execscope::metrics::Metric::Exec, 0);
        assert_eq!(row["exec@1"].as_f64().unwrap(), exec1, "{id}");
        let (mut deceived, mut total) = (0, 0);
        for (q, query) in e.bundle().queries.iter().enumerate() {
            let s = e.scores()[i].row(q);
            let canon = query.correct[0];
            for &d in &query.paired {
                total += 1;
                deceived += usize::from(s[d] >= s[canon]);
            }
        }
        let rate = row["deceived"].as_f64().unwrap();
        assert!(
            (rate - deceived as f64 / total as f64).abs() < 1e-12,
            "{id}"
        );
    }

    // check fails on a damaged imported matrix, naming it.
    let npz = root.join("embeddings/mnz.npz");
    let mut bytes = std::fs::read(&npz).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xff;
    std::fs::write(&npz, bytes).unwrap();
    let out = run(&["check", r], &cache);
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("embeddings/mnz.npz"), "{text}");
    // A hybrid whose part is gone is pointed out.
    std::fs::remove_file(root.join("embeddings/toy-dot.npz")).unwrap();
    let out = run(&["check", r], &cache);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("`mnz` was fused from toy-dot, no longer in the bundle"),
        "{text}"
    );
}
