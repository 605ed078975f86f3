//! Loading the hand-made tiny fixture and the real third-party mbpp bundle (read-only; external
//! data, skipped by name when absent).

use crate::common;

use execscope::bundle::{check, load, CheckStatus, Label, LoadOptions, Similarity};
use std::path::Path;

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny");

#[test]
fn tiny_loads_with_every_field() {
    let b = load(Path::new(TINY), &LoadOptions::default()).unwrap();
    assert_eq!(b.queries.len(), 3);
    assert_eq!(b.corpus.len(), 12);
    let ids: Vec<&str> = b.corpus.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids[5..8], ["c_0006", "c_0008", "c_0009"]); // no c_0007: ids are not contiguous
                                                           // Relations are rows, resolved from the id lists.
    let q1 = &b.queries[0];
    assert_eq!(q1.correct, vec![0]);
    assert_eq!(q1.paired, vec![1, 4, 9]);
    assert_eq!(b.queries[1].correct, vec![3]);
    assert_eq!(b.queries[1].paired, vec![2, 7, 10]);
    assert_eq!(b.queries[2].paired, vec![8, 11]);
    // Explicit, absent and "" domain / function name.
    let domains: Vec<&str> = b.queries.iter().map(|q| q.domain.as_str()).collect();
    assert_eq!(
        domains,
        ["string_processing", "string_processing", "math_numerical"]
    );
    let names: Vec<&str> = b.queries.iter().map(|q| q.function_name.as_str()).collect();
    assert_eq!(names, ["count_vowels", "is_palindrome", "gcd"]);
    // Unknown keys kept; metadata verbatim.
    assert_eq!(
        q1.extra.get("difficulty").and_then(|v| v.as_str()),
        Some("easy")
    );
    assert_eq!(q1.metadata["batch_usage"]["input_tokens"], 0);
    assert_eq!(
        b.corpus[5].extra.get("license").and_then(|v| v.as_str()),
        Some("MIT")
    );
    // Absent and "" bug_type both read as None.
    assert_eq!(b.corpus[0].bug_type, None);
    assert_eq!(b.corpus[3].bug_type, None);
    assert_eq!(
        b.corpus[7].bug_type.as_deref(),
        Some("remove_edge_case_check")
    );
    assert_eq!(b.corpus[0].label, Label::Correct);
    assert_eq!(b.distractors.len(), 8);
    assert_eq!(b.cache.len(), 12);
    assert_eq!(
        b.tests_key_encoding.map(|e| e.name()),
        Some("python-json-compact")
    );
    // Systems sorted by id; toy-dot is float16, compressed, with other array names.
    assert_eq!(b.systems.len(), 2);
    let (cos, dot) = (&b.systems[0], &b.systems[1]);
    assert_eq!(
        (cos.id.as_str(), cos.similarity),
        ("toy-cos", Similarity::Cos)
    );
    assert_eq!(
        (dot.id.as_str(), dot.similarity),
        ("toy-dot", Similarity::Dot)
    );
    assert_eq!(cos.queries.dim(), (3, 3));
    assert_eq!(dot.corpus.dim(), (12, 4));
    assert_eq!(cos.corpus.row(3).to_vec(), vec![0.0, 4.0, 3.0]);
    assert_eq!(dot.corpus.row(5).to_vec(), vec![0.0, 0.0, 3.0, 1.0]);
    assert_eq!(dot.queries.row(2).to_vec(), vec![0.0, 0.0, 1.0, 1.0]);
    assert!(
        b.notes
            .iter()
            .any(|n| n.contains("`query_embeddings` as queries")),
        "{:?}",
        b.notes
    );
    assert!(
        b.notes.iter().any(|n| n.contains("float16")),
        "{:?}",
        b.notes
    );
    assert_eq!(b.sha256.len(), 7);
    assert_eq!(b.domains(), vec!["math_numerical", "string_processing"]);
}

#[test]
fn tiny_check_passes_with_two_warnings() {
    let r = check(Path::new(TINY));
    let text = r.to_string();
    assert!(r.is_ok(), "{text}");
    let mut warns: Vec<&str> = r
        .items
        .iter()
        .filter(|i| i.status != CheckStatus::Pass)
        .map(|i| i.name.as_str())
        .collect();
    warns.sort_unstable();
    // q_0003 has only two paired distractors (on purpose); the foreign cross pair is not a problem.
    // toy-dot's archive has no row ids (on purpose): its rows load in jsonl order, unverified.
    assert_eq!(warns, ["query relations", "system toy-dot"], "{text}");
    assert!(r
        .get("system toy-dot")
        .unwrap()
        .detail
        .contains("no array `corpus_ids`"));
    assert!(r
        .get("query relations")
        .unwrap()
        .detail
        .contains("`q_0003`: 1 correct, 2 paired"));
    for name in [
        "sha256 sums",
        "distractor metadata",
        "cache coverage",
        "system toy-cos",
        "invocation table",
    ] {
        assert_eq!(
            r.get(name).map(|i| i.status),
            Some(CheckStatus::Pass),
            "{name}\n{text}"
        );
    }
}

#[test]
fn mbpp_bundle_loads() {
    let Some(root) = common::require_data("mbpp_bundle_loads", "mbpp-bundle") else {
        return;
    };
    let b = load(&root, &LoadOptions::default()).unwrap();
    assert_eq!(b.queries.len(), 584);
    assert_eq!(b.corpus.len(), 2872);
    assert_eq!(b.systems.len(), 3);
    let ids: Vec<&str> = b.systems.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "all-MiniLM-L6-v2",
            "all-mpnet-base-v2",
            "paraphrase-MiniLM-L3-v2"
        ]
    );
    let dims: Vec<usize> = b.systems.iter().map(|s| s.queries.ncols()).collect();
    assert_eq!(dims, [384, 768, 384]);
    assert!(b
        .systems
        .iter()
        .all(|s| s.corpus.nrows() == 2872 && s.similarity == Similarity::Cos));
    assert_eq!(
        b.tests_key_encoding.map(|e| e.name()),
        Some("python-json-compact")
    );
    // The two MiniLM files use query_embeddings/corpus_embeddings and are picked by shape.
    let picked = b
        .notes
        .iter()
        .filter(|n| n.contains("picked by shape"))
        .count();
    assert_eq!(picked, 2, "{:?}", b.notes);
    // mbpp has no domains; function names are explicit.
    assert!(b
        .queries
        .iter()
        .all(|q| q.domain.is_empty() && !q.function_name.is_empty()));
    assert_eq!(b.queries[0].function_name, "min_cost");
    assert_eq!(b.queries[0].paired.len(), 4);
    // normalize_embeddings=True: unit rows.
    let n: f32 = b.systems[1].corpus.row(0).iter().map(|v| v * v).sum();
    assert!((n - 1.0).abs() < 1e-4);
    for note in &b.notes {
        eprintln!("note: {note}");
    }
}

#[test]
fn mbpp_bundle_checks() {
    let Some(root) = common::require_data("mbpp_bundle_checks", "mbpp-bundle") else {
        return;
    };
    let r = check(&root);
    eprintln!("{r}");
    assert!(r.is_ok(), "{r}");
    assert_eq!(r.get("sha256 sums").unwrap().status, CheckStatus::Pass);
}

/// The cache's `tests_sha256` encoding is detected, not assumed. The digests below were computed
/// with Python (`hashlib.sha256(json.dumps(tests[, separators=(",", ":")]).encode())` and
/// `"\n".join(tests)`) for the three tiny queries, in order.
#[test]
fn tests_key_encoding_is_detected() {
    const COMPACT: [&str; 3] = [
        "9340070726448b0cf5067363449ad9579762e170a6fe8138cbc2a1bb76a472d2",
        "8f1382e369da6891aceb66730a82857dae6c673d9459ac328edd11f63dafe518",
        "a1781f1d7d96f58425f19232413ed466ab66c40946203bbc95323a9691f0d059",
    ];
    const DEFAULT: [&str; 3] = [
        "81470f05ad6077bc8ccb990a1a8b097f1b834f42fd3f38f8f072edc2ad1ecb37",
        "be0fcfd3df0a41363e38c38da47cb16304ff8a6c483ceab8116fea36759471fe",
        "3c6d30301f395f4f5706fb5e91077cc9545940a5b9ee637e3406425190a83148",
    ];
    const NEWLINE: [&str; 3] = [
        "d433d114a51c114356cd9e62a5cfe12082c81643e8dc5f294b1d9cc30f03c299",
        "8d2f57ecb55d326831e48c3c7734a2ac1c5412bc109dce8a000f410a98d2b266",
        "4c7e76739e46b6f628b02fbb1d6806e0c039874d60ea5cdf28d424236ef0c9eb",
    ];
    let cache =
        std::fs::read_to_string(Path::new(TINY).join("data/execution_cache.jsonl")).unwrap();
    for (keys, name) in [
        (DEFAULT, "python-json-default"),
        (NEWLINE, "newline-joined"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            "data/queries.jsonl",
            "data/corpus.jsonl",
            "data/distractor_metadata.jsonl",
        ] {
            std::fs::create_dir_all(root.join("data")).unwrap();
            std::fs::copy(Path::new(TINY).join(rel), root.join(rel)).unwrap();
        }
        let mut rekeyed = cache.clone();
        for (from, to) in COMPACT.iter().zip(keys) {
            assert!(rekeyed.contains(from), "fixture keys changed");
            rekeyed = rekeyed.replace(from, to);
        }
        std::fs::write(root.join("data/execution_cache.jsonl"), rekeyed).unwrap();
        let b = load(root, &LoadOptions::default()).unwrap();
        assert_eq!(b.tests_key_encoding.map(|e| e.name()), Some(name));
        assert!(
            b.notes
                .iter()
                .any(|n| n.contains(name) && n.contains("3 of 3")),
            "{:?}",
            b.notes
        );
        let r = check(root);
        assert_eq!(
            r.get("cache coverage").unwrap().status,
            CheckStatus::Pass,
            "{r}"
        );
    }
    // No encoding matches: no key encoding, a note, and check fails the cache.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("data")).unwrap();
    for rel in ["data/queries.jsonl", "data/corpus.jsonl"] {
        std::fs::copy(Path::new(TINY).join(rel), root.join(rel)).unwrap();
    }
    std::fs::write(
        root.join("data/execution_cache.jsonl"),
        cache
            .replace(COMPACT[0], &"0".repeat(64))
            .replace(COMPACT[1], &"1".repeat(64))
            .replace(COMPACT[2], &"2".repeat(64)),
    )
    .unwrap();
    let b = load(root, &LoadOptions::default()).unwrap();
    assert_eq!(b.tests_key_encoding, None);
    assert!(
        b.notes.iter().any(|n| n.contains("no query suite matched")),
        "{:?}",
        b.notes
    );
    assert_eq!(
        check(root).get("cache encoding").unwrap().status,
        CheckStatus::Fail
    );
}
