//! `check` runs every check and records each failure without stopping at the first.

use execscope::bundle::npy::{write_npz, NpzItem};
use execscope::bundle::{check, CheckStatus};
use ndarray::Array2;

use crate::common;
use common::tiny::{copy_tiny_into, edit};

#[test]
fn check_records_every_failure_without_stopping() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_tiny_into(root, true);
    // 1. a dangling id and 2. a duplicate corpus id (c_0013 renamed to c_0002).
    edit(root, "data/queries.jsonl", |s| {
        s.replace("\"c_0011\"", "\"c_9999\"")
    });
    edit(root, "data/corpus.jsonl", |s| {
        s.replace("\"corpus_id\": \"c_0013\"", "\"corpus_id\": \"c_0002\"")
    });
    // 3. a distractor whose metadata edit no longer reproduces its code.
    edit(root, "data/corpus.jsonl", |s| s.replace("n -= 1", "n -= 2"));
    // 4. a NaN in toy-cos.
    let mut c = Array2::<f32>::ones((12, 3));
    c[(4, 1)] = f32::NAN;
    let q = Array2::<f32>::ones((3, 3));
    let f = std::fs::File::create(root.join("embeddings/toy-cos.npz")).unwrap();
    write_npz(
        f,
        &[("queries", NpzItem::F32(&q)), ("corpus", NpzItem::F32(&c))],
    )
    .unwrap();
    // 5. a canonical's cache row says it fails.
    edit(root, "data/execution_cache.jsonl", |s| {
        s.replacen(
            "\"passes_all_tests\": true",
            "\"passes_all_tests\": false",
            1,
        )
    });

    let r = check(root);
    let text = r.to_string();
    assert!(!r.is_ok());
    let status = |n: &str| r.get(n).map(|i| i.status);
    let detail = |n: &str| r.get(n).map(|i| i.detail.clone()).unwrap_or_default();
    assert_eq!(status("sha256 sums"), Some(CheckStatus::Fail), "{text}");
    for f in [
        "data/corpus.jsonl",
        "data/queries.jsonl",
        "embeddings/toy-cos.npz",
        "data/execution_cache.jsonl",
    ] {
        assert!(detail("sha256 sums").contains(f), "{f}\n{text}");
    }
    assert_eq!(
        status("unique corpus ids"),
        Some(CheckStatus::Fail),
        "{text}"
    );
    assert!(
        detail("unique corpus ids").contains("data/corpus.jsonl:12"),
        "{text}"
    );
    assert_eq!(status("dangling ids"), Some(CheckStatus::Fail), "{text}");
    assert!(detail("dangling ids").contains("c_9999"), "{text}");
    assert_eq!(
        status("distractor metadata"),
        Some(CheckStatus::Fail),
        "{text}"
    );
    assert!(
        detail("distractor metadata").contains("`c_0002`: applying the edit"),
        "{text}"
    );
    assert_eq!(status("system toy-cos"), Some(CheckStatus::Fail), "{text}");
    assert!(
        detail("system toy-cos").contains("row 4 column 1"),
        "{text}"
    );
    // toy-dot's archive has no row ids: it loads in jsonl order, as a warning (the rule in
    // docs/bundle-format.md).
    assert_eq!(status("system toy-dot"), Some(CheckStatus::Warn), "{text}");
    assert!(
        detail("system toy-dot").contains("no array `query_ids`"),
        "{text}"
    );
    assert_eq!(status("cache rows"), Some(CheckStatus::Fail), "{text}");
    assert!(
        detail("cache rows").contains("data/execution_cache.jsonl:1"),
        "{text}"
    );
    assert_eq!(status("cache coverage"), Some(CheckStatus::Fail), "{text}");
    assert!(
        detail("cache coverage").contains("`q_0001` × `c_0001`: canonical fails"),
        "{text}"
    );
    // The table names every check with its status.
    assert!(
        text.lines().any(|l| l.starts_with("FAIL  dangling ids")),
        "{text}"
    );
    assert!(text.ends_with("fail"), "{text}");
}

#[test]
fn missing_files_fail_or_warn() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_tiny_into(root, true);
    std::fs::remove_file(root.join("SHA256SUMS")).unwrap();
    std::fs::remove_file(root.join("data/execution_cache.jsonl")).unwrap();
    let r = check(root);
    assert!(r.is_ok(), "{r}");
    assert_eq!(r.get("files present").unwrap().status, CheckStatus::Warn);
    assert!(r
        .get("files present")
        .unwrap()
        .detail
        .contains("data/execution_cache.jsonl"));
    assert_eq!(r.get("sha256 sums").unwrap().status, CheckStatus::Warn);
    std::fs::remove_file(root.join("data/corpus.jsonl")).unwrap();
    let r = check(root);
    assert!(!r.is_ok());
    assert_eq!(r.get("files present").unwrap().status, CheckStatus::Fail);
    assert!(r
        .get("parse data/corpus.jsonl")
        .unwrap()
        .detail
        .contains("data/corpus.jsonl"));
}
