//! `execscope embed` end to end: restoring a deleted matrix of the embedded bundle reproduces its
//! vectors and its leaderboard; bad arguments get clear errors and leave the bundle unchanged.
//! Tests that need the embedding environment skip by name when it is absent (CI has none).

use crate::common;

use execscope::bundle::npy::Npz;
use std::path::Path;

use common::embedded_bundle as bundle;

fn exe() -> std::process::Command {
    let mut c = common::execscope();
    c.env(
        "EXECSCOPE_CACHE_DIR",
        std::env::temp_dir().join("execscope-embed-cli-cache"),
    );
    c
}

use common::embed_env_or_skip as env_or_skip;

use common::copy_dir;

fn matrix(path: &Path, name: &str) -> ndarray::Array2<f32> {
    let bytes = std::fs::read(path).unwrap();
    Npz::open(path, &bytes).unwrap().matrix(name).unwrap()
}

fn min_row_cosine(a: &ndarray::Array2<f32>, b: &ndarray::Array2<f32>) -> f64 {
    assert_eq!(a.dim(), b.dim());
    a.rows()
        .into_iter()
        .zip(b.rows())
        .map(|(x, y)| {
            let dot: f64 = x
                .iter()
                .zip(y)
                .map(|(p, q)| f64::from(*p) * f64::from(*q))
                .sum();
            let nx: f64 = x.iter().map(|p| f64::from(*p).powi(2)).sum::<f64>().sqrt();
            let ny: f64 = y.iter().map(|p| f64::from(*p).powi(2)).sum::<f64>().sqrt();
            dot / (nx * ny)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The `systems` part of `report --format json` (the rest names the bundle's path and digests).
fn report(root: &Path) -> serde_json::Value {
    let out = exe()
        .args(["report"])
        .arg(root)
        .args(["--format", "json", "--no-cache"])
        .output()
        .unwrap();
    common::assert_ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["systems"].clone()
}

/// Delete paraphrase-MiniLM-L3-v2's matrix from a copy of the embedded bundle; `embed` puts it
/// back: every row within cosine 0.9999 of the stored one, the bundle checks clean and the
/// leaderboard is identical.
#[test]
fn embed_restores_a_deleted_matrix() {
    let Some(env) = env_or_skip("embed_restores_a_deleted_matrix") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("b");
    copy_dir(&bundle(), &root);
    let name = "paraphrase-MiniLM-L3-v2";
    let rel = format!("embeddings/{name}.npz");
    std::fs::remove_file(root.join(&rel)).unwrap();
    let out = exe()
        .env("EXECSCOPE_EMBED_ENV", &env.dir)
        .arg("embed")
        .arg(&root)
        .args(["--model", name])
        .output()
        .unwrap();
    common::assert_ok(&out);
    for part in ["queries", "corpus"] {
        let cos = min_row_cosine(
            &matrix(&bundle().join(&rel), part),
            &matrix(&root.join(&rel), part),
        );
        assert!(cos >= 0.9999, "{part}: worst row cosine {cos}");
    }
    let check = exe().arg("check").arg(&root).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    assert!(!root.join(format!("embeddings/.{name}.partial")).exists());
    let table = std::fs::read_to_string(root.join("results/invocation_table.json")).unwrap();
    assert!(table.contains("execscope embed --model paraphrase-MiniLM-L3-v2"));
    assert_eq!(report(&bundle()), report(&root));
}

fn sums(root: &Path) -> String {
    std::fs::read_to_string(root.join("SHA256SUMS")).unwrap()
}

/// Bad arguments fail before anything is written, with a message naming the problem.
#[test]
fn embed_rejects_bad_arguments_and_leaves_the_bundle() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("b");
    copy_dir(&bundle(), &root);
    let before = sums(&root);
    let cases: &[(&[&str], &str)] = &[
        (&["--model", "no-such-model"], "not a known model"),
        (
            &["--model", "all-MiniLM-L6-v2", "--name", "../x"],
            "system name",
        ),
        (
            &["--model", "all-MiniLM-L6-v2", "--name", "bm25"],
            "reserved",
        ),
        (&["--model", "all-MiniLM-L6-v2", "--device", "tpu"], "tpu"),
    ];
    for (args, want) in cases {
        let out = exe()
            .env("EXECSCOPE_EMBED_ENV", tmp.path().join("no-env"))
            .arg("embed")
            .arg(&root)
            .args(*args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let out = exe()
        .arg("embed")
        .arg(tmp.path().join("nothing"))
        .args(["--model", "all-MiniLM-L6-v2"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a bundle"));
    assert_eq!(before, sums(&root));
    assert!(!tmp.path().join("no-env").exists());
}

/// Issue 45 item 6: without the embedding environment, `embed` never starts its 7 GB install
/// unasked (stdin not a terminal or not): it stops at once, creates nothing, and says how big
/// the download is and that `--setup` makes it.
#[test]
fn embed_without_the_environment_asks_for_setup_and_installs_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("b");
    copy_dir(&bundle(), &root);
    let before = sums(&root);
    let env = tmp.path().join("no-env");
    let out = exe()
        .env("EXECSCOPE_EMBED_ENV", &env)
        // Should the install start anyway (the bug), pip finds no index and it stops at once
        // instead of downloading 7 GB.
        .env("PIP_NO_INDEX", "1")
        .env("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
        .arg("embed")
        .arg(&root)
        .args(["--model", "all-MiniLM-L6-v2"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("--setup") && err.contains("7 GB"), "{err}");
    assert!(!err.contains("creating the embedding environment"), "{err}");
    assert!(!env.exists(), "nothing is created unasked");
    assert_eq!(before, sums(&root));
}

/// Killed part-way (rows committed one batch at a time), a rerun resumes after the committed rows
/// and the finished matrix equals a direct encoding of the same texts (cosine ≥ 0.9999 per row).
#[test]
fn embed_resumes_after_being_killed() {
    let Some(env) = env_or_skip("embed_resumes_after_being_killed") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("b");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny"),
        &root,
    );
    let run = || {
        let mut c = exe();
        c.env("EXECSCOPE_EMBED_ENV", &env.dir)
            .arg("embed")
            .arg(&root)
            .args(["--model", "MiniLM-L3", "--name", "l3", "--batch-size", "1"]);
        c
    };
    let partial = root.join("embeddings/.l3.partial/vectors.f32");
    let mut child = run()
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let row = 384 * 4;
    loop {
        let n = std::fs::metadata(&partial).map_or(0, |m| m.len());
        if n >= 2 * row {
            child.kill().unwrap();
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("embed finished ({status}) before it could be interrupted");
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.wait().unwrap();
    assert!(
        !root.join("embeddings/l3.npz").exists(),
        "nothing written before the end"
    );
    let out = run().output().unwrap();
    common::assert_ok(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("resuming: "), "{err}");
    let b = execscope::bundle::load(&root, &Default::default()).unwrap();
    let sys = b.systems.iter().find(|s| s.id == "l3").unwrap();
    let mut w = execscope::embed::Worker::spawn(&env).unwrap();
    let spec = execscope::embed::ModelSpec::new("paraphrase-MiniLM-L3-v2");
    let q: Vec<String> = b.queries.iter().map(|q| q.text.clone()).collect();
    let c: Vec<String> = b.corpus.iter().map(|c| c.code.clone()).collect();
    let want_q = w.encode(&spec, execscope::embed::Role::Query, &q).unwrap();
    let want_c = w
        .encode(&spec, execscope::embed::Role::Passage, &c)
        .unwrap();
    assert!(min_row_cosine(&want_q, &sys.queries) >= 0.9999);
    assert!(min_row_cosine(&want_c, &sys.corpus) >= 0.9999);
}
