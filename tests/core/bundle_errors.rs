//! One test per error class: a copy of the tiny fixture is damaged in a temp dir and the error
//! message must name the file and the line / row / id.

use execscope::bundle::npy::{write_npz, NpzItem};
use execscope::bundle::{load, BundleError, LoadOptions};
use ndarray::Array2;
use std::path::Path;

use crate::common;
use common::tiny::{copy_tiny, edit};

/// Change the label of corpus row `id` from `from` to `to`.
fn relabel(root: &Path, id: &str, from: &str, to: &str) {
    edit(root, "data/corpus.jsonl", |s| {
        let lines: Vec<String> = s
            .lines()
            .map(|l| {
                if l.contains(&format!("\"{id}\"")) {
                    l.replace(&format!("\"{from}\""), &format!("\"{to}\""))
                } else {
                    l.to_string()
                }
            })
            .collect();
        lines.join("\n") + "\n"
    });
}

fn err(root: &Path) -> BundleError {
    match load(root, &LoadOptions::default()) {
        Ok(_) => panic!("load accepted a damaged bundle"),
        Err(e) => e,
    }
}

fn assert_names(e: &BundleError, parts: &[&str]) {
    let msg = e.to_string();
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} should contain {p:?}");
    }
}

/// A toy-cos npz with the given matrices (and the fixture's ids when `ids`).
fn write_cos(root: &Path, q: &Array2<f32>, c: &Array2<f32>, extra: &[(&str, NpzItem<'_>)]) {
    let f = std::fs::File::create(root.join("embeddings/toy-cos.npz")).unwrap();
    let mut items = vec![("queries", NpzItem::F32(q)), ("corpus", NpzItem::F32(c))];
    for (n, i) in extra {
        items.push((
            n,
            match i {
                NpzItem::F32(a) => NpzItem::F32(a),
                NpzItem::Strings(s) => NpzItem::Strings(s),
            },
        ));
    }
    write_npz(f, &items).unwrap();
}

fn ones(r: usize, c: usize) -> Array2<f32> {
    Array2::from_elem((r, c), 1.0)
}

#[test]
fn duplicate_query_id() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/queries.jsonl", |s| {
        s.replace("\"q_0002\"", "\"q_0001\"")
    });
    let e = err(&root);
    assert!(matches!(e, BundleError::DuplicateId { .. }), "{e}");
    assert_names(&e, &["data/queries.jsonl:2", "`q_0001`", "line 1"]);
}

#[test]
fn duplicate_corpus_id() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/corpus.jsonl", |s| {
        s.replace("\"corpus_id\": \"c_0013\"", "\"corpus_id\": \"c_0002\"")
    });
    let e = err(&root);
    assert_names(&e, &["data/corpus.jsonl:12", "`c_0002`", "line 2"]);
}

#[test]
fn dangling_id() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/queries.jsonl", |s| {
        s.replace("\"c_0011\"", "\"c_9999\"")
    });
    let e = err(&root);
    assert!(matches!(e, BundleError::DanglingId { .. }), "{e}");
    assert_names(
        &e,
        &[
            "data/queries.jsonl:1",
            "q_0001",
            "c_9999",
            "paired_distractor_corpus_ids",
        ],
    );
}

#[test]
fn correct_id_labelled_incorrect() {
    let (_d, root) = copy_tiny(false);
    relabel(&root, "c_0008", "correct", "incorrect");
    let e = err(&root);
    assert!(matches!(e, BundleError::LabelMismatch { .. }), "{e}");
    assert_names(
        &e,
        &[
            "data/queries.jsonl:3",
            "q_0003",
            "c_0008",
            "correct_corpus_ids",
            "corpus.jsonl:7",
        ],
    );
}

#[test]
fn paired_distractor_labelled_correct() {
    let (_d, root) = copy_tiny(false);
    relabel(&root, "c_0012", "incorrect", "correct");
    let e = err(&root);
    assert_names(
        &e,
        &[
            "data/queries.jsonl:2",
            "q_0002",
            "c_0012",
            "paired distractor labelled \"correct\"",
        ],
    );
}

#[test]
fn a_matrix_with_the_wrong_row_count_is_refused_naming_file_array_and_counts() {
    let (_d, root) = copy_tiny(false);
    write_cos(&root, &ones(3, 3), &ones(11, 3), &[]);
    let e = err(&root);
    assert!(matches!(e, BundleError::RowCount { .. }), "{e}");
    assert_names(
        &e,
        &[
            "toy-cos.npz",
            "`corpus`",
            "11 rows",
            "data/corpus.jsonl has 12",
        ],
    );
}

#[test]
fn non_finite_value() {
    let (_d, root) = copy_tiny(false);
    let mut c = ones(12, 3);
    c[(5, 2)] = f32::NAN;
    write_cos(&root, &ones(3, 3), &c, &[]);
    let e = err(&root);
    assert!(matches!(e, BundleError::NonFinite { .. }), "{e}");
    assert_names(&e, &["toy-cos.npz", "`corpus` row 5 column 2"]);
    let mut q = ones(3, 3);
    q[(1, 0)] = f32::INFINITY;
    write_cos(&root, &q, &ones(12, 3), &[]);
    assert_names(
        &err(&root),
        &["toy-cos.npz", "`queries` row 1 column 0", "inf"],
    );
}

#[test]
fn zero_norm_row_under_cosine_only() {
    let (_d, root) = copy_tiny(false);
    let mut c = ones(12, 3);
    c.row_mut(7).fill(0.0);
    write_cos(&root, &ones(3, 3), &c, &[]);
    let e = err(&root);
    assert!(matches!(e, BundleError::ZeroNorm { .. }), "{e}");
    assert_names(&e, &["toy-cos.npz", "`corpus` row 7", "zero norm"]);
    // The same matrix is fine for a dot-product system.
    edit(&root, "results/invocation_table.json", |s| {
        s.replace("\"cos\"", "\"dot\"")
    });
    let b = load(&root, &LoadOptions::default()).unwrap();
    assert_eq!(b.systems[0].similarity, execscope::bundle::Similarity::Dot);
}

#[test]
fn git_lfs_pointer() {
    let (_d, root) = copy_tiny(false);
    let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12345\n";
    std::fs::write(root.join("embeddings/toy-dot.npz"), pointer).unwrap();
    let e = err(&root);
    assert!(matches!(e, BundleError::GitLfsPointer { .. }), "{e}");
    assert_names(&e, &["toy-dot.npz", "Git LFS pointer"]);
    let (_d2, root2) = copy_tiny(false);
    std::fs::write(root2.join("data/corpus.jsonl"), pointer).unwrap();
    assert_names(&err(&root2), &["data/corpus.jsonl", "Git LFS pointer"]);
}

#[test]
fn truncated_jsonl() {
    let (_d, root) = copy_tiny(false);
    let p = root.join("data/corpus.jsonl");
    let s = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, &s[..s.len() - 40]).unwrap();
    let e = err(&root);
    assert!(matches!(e, BundleError::Truncated { .. }), "{e}");
    assert_names(&e, &["data/corpus.jsonl:12", "truncated"]);
}

#[test]
fn truncated_npz() {
    let (_d, root) = copy_tiny(false);
    for name in ["toy-cos", "toy-dot"] {
        let p = root.join(format!("embeddings/{name}.npz"));
        let b = std::fs::read(&p).unwrap();
        std::fs::write(&p, &b[..b.len() / 2]).unwrap();
    }
    let e = err(&root);
    assert!(matches!(e, BundleError::BadArchive { .. }), "{e}");
    assert_names(&e, &["toy-cos.npz", "truncated"]);
}

#[test]
fn invalid_json_line_and_column() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/queries.jsonl", |s| {
        let mut lines: Vec<String> = s.lines().map(String::from).collect();
        lines[1] = lines[1].replacen("\"query\": ", "\"query\" ", 1);
        lines.join("\n") + "\n"
    });
    let e = err(&root);
    let BundleError::InvalidJson { line, column, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(*line, 2);
    // 1-based column of the `"` that follows `"query" ` where a `:` was expected.
    let line2 = std::fs::read_to_string(root.join("data/queries.jsonl"))
        .unwrap()
        .lines()
        .nth(1)
        .unwrap()
        .to_string();
    let col = line2.find("\"query\" ").unwrap() + "\"query\" ".len() + 1;
    assert_eq!(&line2[col - 1..col], "\"");
    assert_eq!(*column, col);
    assert_names(
        &e,
        &[&format!("data/queries.jsonl:2:{col}"), "invalid JSON"],
    );
}

#[test]
fn missing_field_names_line_and_key() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/corpus.jsonl", |s| {
        s.replacen("\"label\": \"correct\", ", "", 1)
    });
    assert_names(
        &err(&root),
        &["data/corpus.jsonl:1", "missing field `label`"],
    );
}

#[test]
fn checksum_mismatch_and_missing_file_named() {
    let (_d, root) = copy_tiny(true);
    // A change that keeps the rows valid (a runner string), so only the digest tells.
    edit(&root, "data/execution_cache.jsonl", |s| {
        s.replacen("make_tiny.py", "make_tiny.PY", 1)
    });
    std::fs::remove_file(root.join("embeddings/toy-dot.npz")).unwrap();
    let e = err(&root);
    let BundleError::Checksum { problems, .. } = &e else {
        panic!("{e}")
    };
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_names(
        &e,
        &[
            "SHA256SUMS",
            "SHA256SUMS:3: data/execution_cache.jsonl",
            "SHA256SUMS:6: embeddings/toy-dot.npz: listed but missing",
        ],
    );
    // Verification can be turned off; then the missing npz is simply not loaded.
    let b = load(
        &root,
        &LoadOptions {
            verify_checksums: false,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(b.systems.len(), 1);
}

#[test]
fn two_arrays_of_one_shape_without_names_are_refused_as_ambiguous() {
    let (_d, root) = copy_tiny(false);
    let f = std::fs::File::create(root.join("embeddings/toy-cos.npz")).unwrap();
    let (q, c) = (ones(3, 3), ones(12, 3));
    write_npz(
        f,
        &[
            ("a", NpzItem::F32(&q)),
            ("b", NpzItem::F32(&q)),
            ("c", NpzItem::F32(&c)),
        ],
    )
    .unwrap();
    let e = err(&root);
    assert_names(&e, &["toy-cos.npz", "ambiguous", "`a`", "`b`"]);
}

#[test]
fn id_arrays_out_of_order() {
    let (_d, root) = copy_tiny(false);
    let qids: Vec<String> = ["q_0001", "q_0003", "q_0002"].map(String::from).to_vec();
    write_cos(
        &root,
        &ones(3, 3),
        &ones(12, 3),
        &[("query_ids", NpzItem::Strings(&qids))],
    );
    let e = err(&root);
    assert!(matches!(e, BundleError::IdOrder { .. }), "{e}");
    assert_names(
        &e,
        &["toy-cos.npz", "`query_ids` row 1", "`q_0003`", "`q_0002`"],
    );
}

#[test]
fn bad_invocation_table() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "results/invocation_table.json", |s| {
        s.replace("\"dot\"", "\"manhattan\"")
    });
    // Read as a typed similarity: the error is at the value's own line.
    let text = std::fs::read_to_string(root.join("results/invocation_table.json")).unwrap();
    let line = text.lines().position(|l| l.contains("manhattan")).unwrap() + 1;
    assert_names(
        &err(&root),
        &[
            &format!("invocation_table.json:{line}:"),
            "unknown similarity \"manhattan\"",
        ],
    );
    edit(&root, "results/invocation_table.json", |s| {
        s.replacen('{', "{{", 1)
    });
    assert_names(&err(&root), &["invocation_table.json:1:", "invalid JSON"]);
}

#[test]
fn missing_required_file() {
    let (_d, root) = copy_tiny(false);
    std::fs::remove_file(root.join("data/queries.jsonl")).unwrap();
    let e = err(&root);
    assert!(matches!(e, BundleError::Missing { .. }), "{e}");
    assert_names(&e, &["data/queries.jsonl", "missing"]);
}

#[test]
fn checksum_failure_explains_a_parse_error() {
    // With SHA256SUMS present, a cut-off file is reported as a checksum failure (the cause),
    // not only as the parse error it leads to.
    let (_d, root) = copy_tiny(true);
    let p = root.join("data/corpus.jsonl");
    let s = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, &s[..s.len() / 2]).unwrap();
    let e = err(&root);
    assert!(matches!(e, BundleError::Checksum { .. }), "{e}");
    assert_names(&e, &["SHA256SUMS:1: data/corpus.jsonl"]);
    // Without verification the parse error itself names the file and line.
    let e = load(
        &root,
        &LoadOptions {
            verify_checksums: false,
            ..LoadOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            BundleError::Truncated { .. } | BundleError::InvalidJson { .. }
        ),
        "{e}"
    );
    assert_names(&e, &["data/corpus.jsonl:"]);
}

#[test]
fn similarity_is_typed_when_the_table_is_read() {
    // Release spellings are accepted (case and space ignored); an unknown name is an error at
    // the value's line in the invocation table.
    let (_d, root) = copy_tiny(false);
    edit(&root, "results/invocation_table.json", |s| {
        s.replacen("\"cos\"", "\" Cosine \"", 1)
    });
    let b = load(&root, &LoadOptions::default()).unwrap();
    let cos = b.systems.iter().find(|s| s.id == "toy-cos").unwrap();
    assert_eq!(cos.similarity, execscope::bundle::Similarity::Cos);
    assert_eq!(
        cos.invocation.as_ref().unwrap().similarity,
        execscope::bundle::Similarity::Cos
    );
    edit(&root, "results/invocation_table.json", |s| {
        s.replacen("\" Cosine \"", "\"euclid\"", 1)
    });
    let text = std::fs::read_to_string(root.join("results/invocation_table.json")).unwrap();
    let line = text.lines().position(|l| l.contains("euclid")).unwrap() + 1;
    let e = err(&root);
    assert_names(
        &e,
        &[
            &format!("results/invocation_table.json:{line}"),
            "unknown similarity \"euclid\"",
        ],
    );
}
