//! The faults of a bundle that used to pass unchecked (stacked rows, cache rows, npz ids, BOMs,
//! compression methods) and of task files and pools: each is refused, by `check` and by `load`,
//! with a message naming file, line and entry.

use execscope::audit::generated;
use execscope::bundle::npy::{unicode_npy, Npz};
use execscope::bundle::{check, load, CheckStatus, LoadOptions};
use std::io::{Read, Write};
use std::path::Path;

use crate::common;
use common::tiny::{copy_tiny, edit};

/// Both `check` (the failing item) and `load` refuse, each message holding every part.
fn refused(root: &Path, item: &str, parts: &[&str]) {
    let r = check(root);
    let it = r
        .items
        .iter()
        .find(|i| i.name == item && i.status == CheckStatus::Fail)
        .unwrap_or_else(|| panic!("no failing `{item}` in\n{r}"));
    let e = load(root, &LoadOptions::default())
        .err()
        .unwrap_or_else(|| panic!("load accepted it; check said {}", it.detail))
        .to_string();
    for msg in [&it.detail, &e] {
        for p in parts {
            assert!(msg.contains(p), "{msg:?} should contain {p:?}");
        }
    }
}

fn passes(root: &Path) {
    let r = check(root);
    assert!(r.is_ok(), "{r}");
    load(root, &LoadOptions::default()).unwrap();
}

// ---------------------------------------------------------------- stacked variants

const GOOD_STACKED: &str = r#"{"stacked_id": "s_1", "query_id": "q_0001", "canonical_id": "c_0001", "parts": ["c_0002", "c_0005"], "n_edits": 2, "bug_types": ["wrong_operator", "off_by_one"], "code": "def count_vowels(s):\n    return 0\n", "outcomes": ["FAIL", "pass", "FAIL"], "passes_all_tests": false}"#;

fn stacked(root: &Path, second: &str) {
    std::fs::write(
        root.join("data/stacked_distractors.jsonl"),
        format!("{GOOD_STACKED}\n{second}\n"),
    )
    .unwrap();
}

fn second(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(GOOD_STACKED).unwrap();
    v["stacked_id"] = "s_2".into();
    f(&mut v);
    v.to_string()
}

#[test]
fn a_good_stacked_file_passes() {
    let (_d, root) = copy_tiny(false);
    stacked(&root, &second(|_| {}));
    passes(&root);
    let b = load(&root, &LoadOptions::default()).unwrap();
    assert_eq!(b.stacked.len(), 2);
    assert_eq!(b.stacked[1].n_edits, 2);
}

#[test]
fn stacked_rows_are_checked_like_the_report_reads_them() {
    let cases: Vec<(String, &str)> = vec![
        (
            second(|v| v["passes_all_tests"] = true.into()),
            "passes_all_tests is true, but the outcomes say false",
        ),
        (
            second(|v| v["outcomes"] = serde_json::json!(["banana", "pass", "FAIL"])),
            "outcome 1: unknown test outcome \"banana\"",
        ),
        (
            second(|v| v["n_edits"] = 99.into()),
            "n_edits is 99, outside 2..=4",
        ),
        (
            second(|v| v["n_edits"] = 3.into()),
            "n_edits is 3, but it lists 2 parts",
        ),
        (
            second(|v| v["canonical_id"] = "c_9999".into()),
            "unknown canonical_id `c_9999`",
        ),
        (
            second(|v| v["canonical_id"] = "c_0002".into()),
            "is not the canonical of query `q_0001`",
        ),
        (
            second(|v| v["outcomes"] = serde_json::json!(["FAIL"])),
            "1 outcomes, but query `q_0001` has 3 tests",
        ),
        (
            second(|v| {
                v["outcomes"] = serde_json::json!(["pass", "pass", "pass"]);
                v["passes_all_tests"] = true.into();
            }),
            "a stacked variant must still fail the suite",
        ),
        (
            second(|v| v["parts"] = serde_json::json!(["c_0002", "c_0001"])),
            "part `c_0001` is not a paired distractor",
        ),
        ("null".into(), "expected a JSON object, found null"),
        (
            GOOD_STACKED.into(),
            "duplicate id `s_1` (first seen on line 1)",
        ),
    ];
    for (row, why) in cases {
        let (_d, root) = copy_tiny(false);
        stacked(&root, &row);
        // A line that is not an object stops the file's parse; the others are row checks.
        let item = if row == "null" {
            "parse data/stacked_distractors.jsonl"
        } else {
            "stacked variants"
        };
        refused(&root, item, &["data/stacked_distractors.jsonl:2", why]);
    }
}

#[test]
fn a_truncated_or_non_utf8_stacked_file_fails_check() {
    let (_d, root) = copy_tiny(false);
    let cut = &GOOD_STACKED[..GOOD_STACKED.len() / 2];
    std::fs::write(
        root.join("data/stacked_distractors.jsonl"),
        format!("{GOOD_STACKED}\n{cut}"),
    )
    .unwrap();
    refused(
        &root,
        "parse data/stacked_distractors.jsonl",
        &["data/stacked_distractors.jsonl:2", "truncated"],
    );
    let mut bytes = format!("{GOOD_STACKED}\n").into_bytes();
    bytes.extend_from_slice(b"{\"stacked_id\": \"\xff\"}\n");
    std::fs::write(root.join("data/stacked_distractors.jsonl"), bytes).unwrap();
    refused(
        &root,
        "parse data/stacked_distractors.jsonl",
        &["data/stacked_distractors.jsonl:2", "not valid UTF-8"],
    );
}

// ---------------------------------------------------------------- npz arrays

/// A `.npy` member with the given descr and shape text, and payload.
fn npy(descr: &str, shape: &str, payload: &[u8]) -> Vec<u8> {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out.extend_from_slice(payload);
    out
}

/// Rewrite `embeddings/toy-cos.npz`: keep its members except `drop`, add `extra`.
fn rewrite_cos(root: &Path, drop: &[&str], extra: &[(&str, Vec<u8>)]) {
    let path = root.join("embeddings/toy-cos.npz");
    let bytes = std::fs::read(&path).unwrap();
    let mut src = zip::ZipArchive::new(std::io::Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for i in 0..src.len() {
        let mut f = src.by_index(i).unwrap();
        let name = f.name().to_string();
        if drop.iter().any(|d| name == format!("{d}.npy")) {
            continue;
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).unwrap();
        out.start_file(name, opts).unwrap();
        out.write_all(&data).unwrap();
    }
    for (name, data) in extra {
        out.start_file(format!("{name}.npy"), opts).unwrap();
        out.write_all(data).unwrap();
    }
    std::fs::write(&path, out.finish().unwrap().into_inner()).unwrap();
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn n_queries(root: &Path) -> usize {
    std::fs::read_to_string(root.join("data/queries.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

#[test]
fn npz_row_ids_must_be_one_dimensional_strings() {
    let (_d, root) = copy_tiny(false);
    let n = n_queries(&root);
    let ints: Vec<u8> = (0..n as i64).flat_map(|i| i.to_le_bytes()).collect();
    rewrite_cos(
        &root,
        &["query_ids"],
        &[("query_ids", npy("<i8", &format!("({n},)"), &ints))],
    );
    refused(
        &root,
        "system toy-cos",
        &[
            "toy-cos.npz",
            "array `query_ids` is <i8",
            "1-D array of strings",
        ],
    );

    let (_d, root) = copy_tiny(false);
    let ids: Vec<String> = (1..=n).map(|i| format!("q_{i:04}")).collect();
    let flat = unicode_npy(&ids);
    // The same payload declared (n, 1): a 2-D array.
    let payload = &flat[flat.len() - n * 4 * 6..];
    rewrite_cos(
        &root,
        &["query_ids"],
        &[("query_ids", npy("<U6", &format!("({n}, 1)"), payload))],
    );
    refused(
        &root,
        "system toy-cos",
        &[
            "array `query_ids`",
            &format!("({n}, 1)").replace("(", "[").replace(")", "]"),
        ],
    );

    // Absent ids: the documented rule (docs/bundle-format.md). The rows are taken in jsonl
    // order, the loader notes it, and `check` reports the system as a warning naming the file
    // and the array; the bundle is still usable.
    let (_d, root) = copy_tiny(false);
    let before = load(&root, &LoadOptions::default()).unwrap();
    rewrite_cos(&root, &["query_ids", "corpus_ids"], &[]);
    let b = load(&root, &LoadOptions::default()).unwrap();
    for array in ["query_ids", "corpus_ids"] {
        let note = format!("embeddings/toy-cos.npz: no array `{array}`");
        assert!(b.notes.iter().any(|n| n.contains(&note)), "{:?}", b.notes);
    }
    let sys = |b: &execscope::bundle::Bundle| {
        b.systems
            .iter()
            .find(|s| s.id == "toy-cos")
            .cloned()
            .unwrap()
    };
    assert_eq!(sys(&b).queries, sys(&before).queries, "rows in jsonl order");
    assert_eq!(sys(&b).corpus, sys(&before).corpus, "rows in jsonl order");
    let r = check(&root);
    assert!(r.is_ok(), "{r}");
    let item = r.get("system toy-cos").unwrap();
    assert_eq!(item.status, CheckStatus::Warn, "{r}");
    assert!(
        item.detail.contains("no array `query_ids`")
            && item.detail.contains("no array `corpus_ids`"),
        "{}",
        item.detail
    );
    // With its ids the same system passes.
    let (_d, root) = copy_tiny(false);
    assert_eq!(
        check(&root).get("system toy-cos").unwrap().status,
        CheckStatus::Pass
    );
}

#[test]
fn stacked_arrays_that_report_would_reject_fail_check() {
    // A 1-D `stacked`.
    let (_d, root) = copy_tiny(false);
    stacked(&root, &second(|_| {}));
    rewrite_cos(
        &root,
        &[],
        &[("stacked", npy("<f4", "(2,)", &f32s(&[1.0, 2.0])))],
    );
    refused(
        &root,
        "stacked vectors toy-cos",
        &["toy-cos.npz", "array `stacked`", "expected 2-D"],
    );
    // A short `stacked_ids`.
    let (_d, root) = copy_tiny(false);
    stacked(&root, &second(|_| {}));
    rewrite_cos(
        &root,
        &[],
        &[
            ("stacked", npy("<f4", "(2, 3)", &f32s(&[1.0; 6]))),
            ("stacked_ids", unicode_npy(&["s_1".to_string()])),
        ],
    );
    refused(
        &root,
        "stacked vectors toy-cos",
        &["toy-cos.npz", "array `stacked_ids` has 1 rows", "has 2"],
    );
}

#[test]
fn unsupported_compression_is_named_as_such() {
    let (_d, root) = copy_tiny(false);
    let path = root.join("embeddings/toy-cos.npz");
    let mut bytes = std::fs::read(&path).unwrap();
    // Set every local (offset 8) and central (offset 10) compression method to 12, bzip2.
    let mut i = 0;
    while i + 4 <= bytes.len() {
        match &bytes[i..i + 4] {
            b"PK\x03\x04" => bytes[i + 8..i + 10].copy_from_slice(&12u16.to_le_bytes()),
            b"PK\x01\x02" => bytes[i + 10..i + 12].copy_from_slice(&12u16.to_le_bytes()),
            _ => {}
        }
        i += 1;
    }
    std::fs::write(&path, &bytes).unwrap();
    let e = match Npz::open(&path, &bytes) {
        Err(e) => e.to_string(),
        Ok(mut z) => z.headers().unwrap_err().to_string(),
    };
    for p in [
        "toy-cos.npz",
        "zip method 12 (bzip2)",
        "stored (0) and deflate (8)",
    ] {
        assert!(e.contains(p), "{e:?} should contain {p:?}");
    }
    assert!(!e.contains("EOCD"), "{e}");
    refused(&root, "system toy-cos", &["zip method 12 (bzip2)"]);
}

// ---------------------------------------------------------------- execution cache

const CACHE: &str = "data/execution_cache.jsonl";

#[test]
fn cache_digests_must_be_64_lowercase_hex() {
    for bad in ["abc", &"z".repeat(64), &"A".repeat(64)] {
        let (_d, root) = copy_tiny(false);
        edit(&root, CACHE, |s| {
            let first = s.lines().next().unwrap();
            let v: serde_json::Value = serde_json::from_str(first).unwrap();
            let code = v["code_sha256"].as_str().unwrap().to_string();
            s.replacen(&code, bad, 1)
        });
        let quoted = format!("{bad:?}");
        refused(
            &root,
            "cache rows",
            &[
                "data/execution_cache.jsonl:1",
                "`code_sha256`",
                &quoted,
                "not a SHA-256 digest",
            ],
        );
    }
}

#[test]
fn conflicting_cache_verdicts_name_both_lines() {
    let (_d, root) = copy_tiny(false);
    let n = std::fs::read_to_string(root.join(CACHE))
        .unwrap()
        .lines()
        .count();
    edit(&root, CACHE, |s| {
        let first = s.lines().next().unwrap().to_string();
        let flipped = first
            .replace(
                "[\"pass\", \"pass\", \"pass\"]",
                "[\"FAIL\", \"pass\", \"pass\"]",
            )
            .replace("\"passes_all_tests\": true", "\"passes_all_tests\": false");
        assert_ne!(first, flipped);
        format!("{s}{flipped}\n")
    });
    let at = format!("data/execution_cache.jsonl:{}", n + 1);
    refused(
        &root,
        "cache rows",
        &[&at, "conflicting verdict", "of line 1"],
    );
    // An identical repeat is harmless.
    let (_d, root) = copy_tiny(false);
    edit(&root, CACHE, |s| {
        let first = s.lines().next().unwrap().to_string();
        format!("{s}{first}\n")
    });
    passes(&root);
}

#[test]
fn cache_outcomes_must_be_as_long_as_the_suite() {
    let (_d, root) = copy_tiny(false);
    edit(&root, CACHE, |s| {
        s.replacen("[\"pass\", \"pass\", \"pass\"]", "[\"pass\", \"pass\"]", 1)
    });
    refused(&root, "cache coverage", &["2 outcomes for", "q_0001"]);
}

#[test]
fn an_empty_test_suite_is_an_error() {
    let (_d, root) = copy_tiny(false);
    edit(&root, "data/queries.jsonl", |s| {
        let first = s.lines().next().unwrap();
        let mut v: serde_json::Value = serde_json::from_str(first).unwrap();
        v["test_suite"] = serde_json::json!([]);
        s.replacen(first, &v.to_string(), 1)
    });
    refused(
        &root,
        "parse data/queries.jsonl",
        &["data/queries.jsonl:1", "`test_suite` is empty"],
    );
}

// ---------------------------------------------------------------- text files

#[test]
fn a_bom_is_accepted_in_every_json_file() {
    let (_d, root) = copy_tiny(false);
    for rel in ["results/invocation_table.json", "data/queries.jsonl", CACHE] {
        let p = root.join(rel);
        let mut b = b"\xef\xbb\xbf".to_vec();
        b.extend(std::fs::read(&p).unwrap());
        std::fs::write(&p, b).unwrap();
    }
    passes(&root);
}

#[test]
fn invalid_utf8_in_the_invocation_table_names_its_line() {
    let (_d, root) = copy_tiny(false);
    let p = root.join("results/invocation_table.json");
    let text = std::fs::read_to_string(&p).unwrap();
    let bytes = text.replacen("hand-made", "hand-\u{e9}", 1).into_bytes();
    let at = bytes.iter().position(|&b| b == 0xc3).unwrap();
    let mut bytes = bytes;
    bytes[at + 1] = b'(';
    let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    std::fs::write(&p, bytes).unwrap();
    refused(
        &root,
        "parse results/invocation_table.json",
        &[&format!("invocation_table.json:{line}"), "not valid UTF-8"],
    );
}

#[test]
fn task_files_and_pools_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, b"\n{\"task_id\": \"a\"}\n{\"task_id\": \"\xff\"}\n").unwrap();
    let e = execscope::build::task::read_task_file(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.jsonl:3") && e.contains("not valid UTF-8"),
        "{e}"
    );
    let e = format!("{:#}", generated::read_pool(&bad).unwrap_err());
    assert!(
        e.contains("bad.jsonl:3") && e.contains("not valid UTF-8"),
        "{e}"
    );
    let e = format!("{:#}", generated::read_tasks(&bad).unwrap_err());
    assert!(
        e.contains("bad.jsonl:3") && e.contains("not valid UTF-8"),
        "{e}"
    );

    // A BOM is ignored in task files as in bundles.
    let bom = dir.path().join("bom.jsonl");
    let task = r#"{"task_id": "t", "function_name": "f", "query": "q", "domain": "", "canonical": "def f(x):\n    return x\n", "tests": ["assert f(1) == 1", "assert f(2) == 2", "assert f(3) == 3"]}"#;
    std::fs::write(&bom, format!("\u{feff}{task}\n")).unwrap();
    let (tasks, refusals) = execscope::build::task::read_task_file(&bom).unwrap();
    assert_eq!((tasks.len(), refusals.len()), (1, 0), "{refusals:?}");

    // Empty files say what was empty.
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "\n\n").unwrap();
    let e = format!("{:#}", generated::read_tasks(&empty).unwrap_err());
    assert!(
        e.contains("empty.jsonl") && e.contains("holds no tasks"),
        "{e}"
    );
    let e = format!("{:#}", generated::read_pool(&empty).unwrap_err());
    assert!(
        e.contains("empty.jsonl") && e.contains("holds no candidate rows"),
        "{e}"
    );
}

#[test]
fn a_pool_row_for_an_unknown_task_names_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let pool = dir.path().join("pool.jsonl");
    std::fs::write(
        &tasks,
        "{\"task_id\": \"T/0\", \"function_name\": \"f\", \"base_tests\": [\"assert f() == 1\"]}\n",
    )
    .unwrap();
    std::fs::write(
        &pool,
        "{\"task_id\": \"T/1\", \"sample_index\": 0, \"code\": \"def f(): return 1\", \"self_tests\": \"\"}\n",
    )
    .unwrap();
    let specs = generated::read_tasks(&tasks).unwrap();
    let rows = generated::read_pool(&pool).unwrap();
    let never = |_: &[execscope::oracle::Job]| -> Result<
        Vec<execscope::oracle::SuiteResult>,
        execscope::oracle::lazy::BatchError,
    > { panic!("nothing may run before the pool is checked") };
    let e = generated::build(
        &specs,
        &rows,
        &never,
        execscope::audit::Mode::Generated {
            pool: pool.display().to_string(),
            tasks: tasks.display().to_string(),
        },
    )
    .err()
    .unwrap()
    .to_string();
    for p in [
        "pool.jsonl:1",
        "task T/1 is not in the task file",
        "tasks.jsonl",
        "(1 tasks: T/0)",
    ] {
        assert!(e.contains(p), "{e:?} should contain {p:?}");
    }
}
