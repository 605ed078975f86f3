//! write → load gives back the same bundle; the synthetic generator is deterministic and
//! internally consistent (its bundle passes `check`).

use crate::common;

use execscope::bundle::{
    check, load, synthetic, write, Bundle, CheckStatus, LoadOptions, SynthSpec,
};
use std::path::Path;

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny");

/// Field-by-field equality of everything a bundle carries (not root, digests or notes).
fn assert_same(a: &Bundle, b: &Bundle) {
    assert_eq!(a.queries, b.queries);
    assert_eq!(a.corpus, b.corpus);
    assert_eq!(a.distractors, b.distractors);
    assert_eq!(a.cache, b.cache);
    assert_eq!(a.tests_key_encoding, b.tests_key_encoding);
    assert_eq!(a.systems.len(), b.systems.len());
    for (x, y) in a.systems.iter().zip(&b.systems) {
        assert_eq!(x.id, y.id);
        assert_eq!(x.similarity, y.similarity);
        assert_eq!(x.queries, y.queries);
        assert_eq!(x.corpus, y.corpus);
        assert_eq!(x.invocation, y.invocation);
    }
}

#[test]
fn written_tiny_bundle_loads_back_equal() {
    let a = load(Path::new(TINY), &LoadOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(&a, dir.path()).unwrap();
    let b = load(dir.path(), &LoadOptions::default()).unwrap();
    let mut a2 = a.clone();
    // The writer states what it wrote: float32 `queries`/`corpus` arrays.
    for s in &mut a2.systems {
        if let Some(inv) = &mut s.invocation {
            inv.dims = Some(s.queries.ncols());
            inv.dtype = "float32".into();
        }
    }
    assert_same(&a2, &b);
    // Domain and function name are now explicit in the file.
    let text = std::fs::read_to_string(dir.path().join("data/queries.jsonl")).unwrap();
    let line2: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(line2["domain"], "string_processing");
    assert_eq!(line2["function_name"], "is_palindrome");
    // Written npz use the spec's names: no shape picking on reload.
    assert!(
        !b.notes.iter().any(|n| n.contains("picked by shape")),
        "{:?}",
        b.notes
    );
    let r = check(dir.path());
    assert!(r.is_ok(), "{r}");
    assert_eq!(
        r.get("sha256 sums").unwrap().status,
        CheckStatus::Pass,
        "{r}"
    );
    // Writing twice gives identical bytes (deterministic files, no timestamps).
    let dir2 = tempfile::tempdir().unwrap();
    write(&b, dir2.path()).unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("SHA256SUMS")).unwrap(),
        std::fs::read(dir2.path().join("SHA256SUMS")).unwrap()
    );
}

/// A bundle's `language` field: absent is Python and is written absent (the files' bytes are
/// what they were), another language round-trips, an unknown name and a query whose snippets are
/// in another language are refused with file, line and the next step.
#[test]
fn languages_round_trip_and_python_stays_absent() {
    use execscope::bundle::Language;
    let a = load(Path::new(TINY), &LoadOptions::default()).unwrap();
    assert!(a.queries.iter().all(|q| q.language == Language::Python));
    assert!(a.corpus.iter().all(|s| s.language == Language::Python));
    assert_eq!(a.languages(), [Language::Python]);
    let dir = tempfile::tempdir().unwrap();
    write(&a, dir.path()).unwrap();
    for f in ["data/queries.jsonl", "data/corpus.jsonl"] {
        let text = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert!(!text.contains("\"language\""), "{f}");
    }

    // The first query and its snippets in C++.
    let mut b = a.clone();
    b.queries[0].language = Language::Cpp;
    let rows: Vec<usize> = b.queries[0]
        .correct
        .iter()
        .chain(&b.queries[0].paired)
        .copied()
        .collect();
    for r in &rows {
        b.corpus[*r].language = Language::Cpp;
    }
    let dir = tempfile::tempdir().unwrap();
    write(&b, dir.path()).unwrap();
    let text = std::fs::read_to_string(dir.path().join("data/queries.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["language"], "cpp");
    let back = load(dir.path(), &LoadOptions::default()).unwrap();
    assert_eq!(back.queries, b.queries);
    assert_eq!(back.corpus, b.corpus);
    assert_eq!(back.languages(), [Language::Python, Language::Cpp]);

    // A name no language has (the manifest goes: it would name the edit first).
    std::fs::remove_file(dir.path().join("SHA256SUMS")).unwrap();
    let path = dir.path().join("data/queries.jsonl");
    std::fs::write(
        &path,
        text.replacen("\"language\":\"cpp\"", "\"language\":\"cobol\"", 1),
    )
    .unwrap();
    let e = load(dir.path(), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("queries.jsonl:1") && e.contains("\"cobol\"") && e.contains("javascript"),
        "{e}"
    );
    // A Python query whose snippets are C++.
    std::fs::write(&path, text.replacen(",\"language\":\"cpp\"", "", 1)).unwrap();
    let e = load(dir.path(), &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("queries.jsonl:1") && e.contains("a cpp snippet of a python query"),
        "{e}"
    );
}

fn small() -> SynthSpec {
    SynthSpec {
        n_queries: 40,
        n_corpus_extra: 25,
        distractors_per_query: 4,
        dims: vec![8, 16, 5],
        seed: 7,
        tie_rate: 0.3,
    }
}

#[test]
fn synthetic_is_deterministic_and_seed_dependent() {
    let a = synthetic(&small());
    let b = synthetic(&small());
    assert_same(&a, &b);
    let c = synthetic(&SynthSpec { seed: 8, ..small() });
    assert_ne!(a.systems[0].corpus, c.systems[0].corpus);
    assert_eq!(a.corpus.len(), 40 * 5 + 25);
    assert_eq!(a.systems.len(), 3);
    assert_eq!(a.systems[1].corpus.dim(), (225, 16));
}

#[test]
fn synthetic_ties_follow_tie_rate() {
    let spec = SynthSpec {
        n_queries: 300,
        tie_rate: 0.25,
        dims: vec![4],
        ..small()
    };
    let b = synthetic(&spec);
    let sys = &b.systems[0];
    let (mut ties, mut total) = (0, 0);
    for q in &b.queries {
        for &p in &q.paired {
            total += 1;
            ties += usize::from(sys.corpus.row(p) == sys.corpus.row(q.correct[0]));
        }
    }
    let rate = ties as f64 / total as f64;
    assert!((0.2..0.3).contains(&rate), "tie share {rate}");
    let none = synthetic(&SynthSpec {
        tie_rate: 0.0,
        ..spec
    });
    let s = &none.systems[0];
    assert!(none.queries.iter().all(|q| q
        .paired
        .iter()
        .all(|&p| s.corpus.row(p) != s.corpus.row(q.correct[0]))));
}

#[test]
fn synthetic_bundle_is_consistent() {
    let b = synthetic(&small());
    let dir = tempfile::tempdir().unwrap();
    write(&b, dir.path()).unwrap();
    let r = check(dir.path());
    assert!(r.is_ok(), "{r}");
    let bad: Vec<_> = r
        .items
        .iter()
        .filter(|i| i.status != CheckStatus::Pass)
        .collect();
    assert!(bad.is_empty(), "{r}");
    let back = load(dir.path(), &LoadOptions::default()).unwrap();
    assert_same(&b, &back);
}

/// With EXECSCOPE_WRITE_TO set, write the tiny bundle there (for checking with numpy by hand).
#[test]
fn write_tiny_for_inspection() {
    let Ok(out) = std::env::var("EXECSCOPE_WRITE_TO") else {
        return;
    };
    let a = load(Path::new(TINY), &LoadOptions::default()).unwrap();
    write(&a, Path::new(&out)).unwrap();
}

/// Paper scale (939 × 4,695 × 23 systems, d 384–4096). Run by hand, in release:
/// `cargo test --release --test core bundle_roundtrip:: paper_scale -- --ignored --nocapture`.
#[test]
#[ignore]
fn paper_scale() {
    let t = std::time::Instant::now();
    let b = synthetic(&SynthSpec::paper_scale(1));
    let gen = t.elapsed();
    assert_eq!(b.queries.len(), 939);
    assert_eq!(b.corpus.len(), 4695);
    assert_eq!(b.systems.len(), 23);
    assert_eq!(b.systems[22].corpus.ncols(), 4096);
    eprintln!("paper-scale synthetic: {gen:?}");
    let dir = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    write(&b, dir.path()).unwrap();
    eprintln!("paper-scale write: {:?}", t.elapsed());
    drop(b);
    for verify in [true, false] {
        let t = std::time::Instant::now();
        let back = load(
            dir.path(),
            &LoadOptions {
                verify_checksums: verify,
                ..LoadOptions::default()
            },
        )
        .unwrap();
        eprintln!(
            "paper-scale load (verify checksums {verify}): {:?}",
            t.elapsed()
        );
        assert_eq!(back.systems.len(), 23);
    }
    let Some(root) = common::require_data("paper_scale (mbpp load timings)", "mbpp-bundle") else {
        return;
    };
    for (name, opts) in [
        ("full", LoadOptions::default()),
        (
            "no checksums",
            LoadOptions {
                verify_checksums: false,
                ..LoadOptions::default()
            },
        ),
        (
            "no embeddings",
            LoadOptions {
                verify_checksums: false,
                skip_embeddings: true,
                ..LoadOptions::default()
            },
        ),
    ] {
        let t = std::time::Instant::now();
        let ok = load(&root, &opts).is_ok();
        eprintln!("mbpp load, {name}: {:?} ({ok})", t.elapsed());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    /// Any small synthetic bundle is internally consistent and survives write → load.
    #[test]
    fn synthetic_bundles_check_clean(
        n_queries in 1usize..12,
        extra in 0usize..6,
        per in 3usize..5,
        d in 1usize..6,
        seed in 0u64..1000,
        tie in 0.0f64..1.0,
    ) {
        let spec = SynthSpec { n_queries, n_corpus_extra: extra, distractors_per_query: per, dims: vec![d, d + 1], seed, tie_rate: tie };
        let b = synthetic(&spec);
        let dir = tempfile::tempdir().unwrap();
        write(&b, dir.path()).unwrap();
        let r = check(dir.path());
        proptest::prop_assert!(r.items.iter().all(|i| i.status == CheckStatus::Pass), "{}", r);
        let back = load(dir.path(), &LoadOptions::default()).unwrap();
        assert_same(&b, &back);
    }
}
