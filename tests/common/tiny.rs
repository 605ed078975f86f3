//! The tiny fixture bundle (`tests/fixtures/tiny`), copied into a temp dir so a test may damage it.

use std::path::{Path, PathBuf};

pub const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny");

/// Every file of the fixture; `SHA256SUMS` last.
pub const FILES: [&str; 8] = [
    "data/queries.jsonl",
    "data/corpus.jsonl",
    "data/distractor_metadata.jsonl",
    "data/execution_cache.jsonl",
    "embeddings/toy-cos.npz",
    "embeddings/toy-dot.npz",
    "results/invocation_table.json",
    "SHA256SUMS",
];

/// Copy the fixture (without `SHA256SUMS` unless asked) into `root`.
pub fn copy_tiny_into(root: &Path, keep_sums: bool) {
    for rel in FILES {
        if rel == "SHA256SUMS" && !keep_sums {
            continue;
        }
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(TINY).join(rel), to).unwrap();
    }
}

/// Copy the fixture into `bundle/` of a fresh temp dir (kept alive by the returned guard).
pub fn copy_tiny(keep_sums: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tiny_into(&root, keep_sums);
    (dir, root)
}

/// Rewrite one text file of a bundle.
pub fn edit(root: &Path, rel: &str, f: impl FnOnce(String) -> String) {
    let p = root.join(rel);
    let s = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, f(s)).unwrap();
}

/// The fixture with its distractors relabelled to bug types beyond the paper's six (in the
/// corpus and the distractor metadata alike, so the bundle still checks): the catalogue's
/// `wrong_string_method`, `negate_condition`, `wrong_constant` and `value_to_none`, and a name
/// no catalogue knows (`zz_custom`), beside the paper's `off_by_one`, `swap_arguments` and
/// `wrong_comparison`.
pub fn with_new_families() -> (tempfile::TempDir, PathBuf) {
    let (dir, root) = copy_tiny(false);
    let relabel = [
        ("c_0002", "wrong_operator", "wrong_string_method"),
        ("c_0003", "off_by_one", "zz_custom"),
        ("c_0009", "remove_edge_case_check", "negate_condition"),
        ("c_0011", "wrong_comparison", "wrong_constant"),
        ("c_0013", "wrong_operator", "value_to_none"),
    ];
    for rel in ["data/corpus.jsonl", "data/distractor_metadata.jsonl"] {
        edit(&root, rel, |text| {
            text.lines()
                .map(|l| {
                    let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                    for (id, from, to) in relabel {
                        if v["corpus_id"] == id {
                            assert_eq!(v["bug_type"], from, "{rel}: {id}");
                            v["bug_type"] = to.into();
                        }
                    }
                    v.to_string() + "\n"
                })
                .collect()
        });
    }
    (dir, root)
}

/// The fixture with its first query (and the snippets it lists) marked C++: a bundle in two
/// languages (the code stays the fixture's; what is tested is the slicing, not the judging).
pub fn two_languages() -> (tempfile::TempDir, PathBuf) {
    use serde_json::Value;
    let (dir, root) = copy_tiny(false);
    let mut ids: Vec<Value> = Vec::new();
    edit(&root, "data/queries.jsonl", |s| {
        let mut rows: Vec<Value> = s
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        rows[0]["language"] = "cpp".into();
        ids = ["correct_corpus_ids", "paired_distractor_corpus_ids"]
            .iter()
            .flat_map(|k| rows[0][*k].as_array().unwrap().clone())
            .collect();
        rows.iter().map(|r| format!("{r}\n")).collect()
    });
    edit(&root, "data/corpus.jsonl", |s| {
        s.lines()
            .map(|l| {
                let mut r: Value = serde_json::from_str(l).unwrap();
                if ids.contains(&r["corpus_id"]) {
                    r["language"] = "cpp".into();
                }
                format!("{r}\n")
            })
            .collect()
    });
    (dir, root)
}
