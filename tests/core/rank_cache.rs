//! The persistent rank cache: hits give the very scores a fresh computation gives, any change to
//! a matrix, the corpus or a setting misses, and corrupt or truncated files are detected, ignored
//! and rewritten.

use crate::common;

use execscope::bundle::{synthetic, write, Bundle, Similarity, SynthSpec};
use execscope::engine::{Engine, EngineOptions};
use execscope::store::{Lookup, Store};
use std::path::Path;

fn small() -> Bundle {
    synthetic(&SynthSpec {
        n_queries: 30,
        n_corpus_extra: 20,
        distractors_per_query: 4,
        dims: vec![8, 16, 5],
        seed: 11,
        tie_rate: 0.3,
    })
}

fn open(b: &Bundle, cache: &Store) -> Engine {
    Engine::from_bundle_with(b.clone(), &EngineOptions::default(), Some(cache), &|_| {})
}

fn lookups(e: &Engine) -> Vec<Lookup> {
    e.rank_lookups()
        .iter()
        .map(|l| l.expect("cached"))
        .collect()
}

fn same_scores(a: &Engine, b: &Engine) {
    assert_eq!(a.scores().len(), b.scores().len());
    for (x, y) in a.scores().iter().zip(b.scores()) {
        assert_eq!(x.id, y.id);
        assert!(x
            .scores
            .matrix()
            .iter()
            .zip(y.scores.matrix().iter())
            .all(|(p, q)| p.to_bits() == q.to_bits()));
    }
    for (x, y) in a.evals().iter().zip(b.evals()) {
        assert_eq!(x.per_query, y.per_query);
    }
}

#[test]
fn second_open_hits_and_matches_a_fresh_computation() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Store::new(dir.path());
    let b = small();
    let fresh = Engine::from_bundle(b.clone(), &EngineOptions::default());
    assert!(fresh.rank_lookups().iter().all(Option::is_none));
    let first = open(&b, &cache);
    assert_eq!(lookups(&first), vec![Lookup::Miss; 4]);
    let second = open(&b, &cache);
    assert_eq!(lookups(&second), vec![Lookup::Hit; 4]);
    same_scores(&fresh, &first);
    same_scores(&fresh, &second);
}

#[test]
fn changes_to_a_matrix_the_corpus_or_a_setting_miss() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Store::new(dir.path());
    let b = small();
    open(&b, &cache);

    // One value of one matrix: only that system misses.
    let mut m = b.clone();
    m.systems[1].corpus[[3, 2]] += 0.25;
    let e = open(&m, &cache);
    assert_eq!(
        lookups(&e),
        vec![Lookup::Hit, Lookup::Miss, Lookup::Hit, Lookup::Hit]
    );
    same_scores(&e, &Engine::from_bundle(m, &EngineOptions::default()));

    // The similarity: that system misses.
    let mut s = b.clone();
    s.systems[0].similarity = match s.systems[0].similarity {
        Similarity::Cos => Similarity::Dot,
        Similarity::Dot | Similarity::Score => Similarity::Cos,
    };
    assert_eq!(lookups(&open(&s, &cache))[0], Lookup::Miss);

    // A snippet's code: BM25 misses, the dense systems (same vectors) hit.
    let mut c = b.clone();
    c.corpus[0].code.push_str("\n# changed\n");
    assert_eq!(
        lookups(&open(&c, &cache)),
        vec![Lookup::Hit, Lookup::Hit, Lookup::Hit, Lookup::Miss]
    );

    // A query's text: BM25 misses.
    let mut q = b.clone();
    q.queries[0].text.push_str(" quickly");
    assert_eq!(lookups(&open(&q, &cache))[3], Lookup::Miss);

    // The corpus order (ids): everything misses.
    let mut o = b.clone();
    o.corpus.swap(0, 1);
    assert!(lookups(&open(&o, &cache))
        .iter()
        .all(|&l| l == Lookup::Miss));
}

fn cache_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("scores"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn corrupt_and_truncated_files_are_ignored_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Store::new(dir.path());
    let b = small();
    let fresh = open(&b, &cache);
    let files = cache_files(dir.path());
    assert_eq!(files.len(), 4);

    // One flipped bit in a payload, one file cut short, one header claiming another shape.
    let mut bytes = std::fs::read(&files[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&files[0], &bytes).unwrap();
    let bytes = std::fs::read(&files[1]).unwrap();
    std::fs::write(&files[1], &bytes[..bytes.len() - 7]).unwrap();
    let mut bytes = std::fs::read(&files[2]).unwrap();
    bytes[8] ^= 0x02;
    std::fs::write(&files[2], &bytes).unwrap();

    let e = open(&b, &cache);
    let corrupt = lookups(&e)
        .iter()
        .filter(|&&l| l == Lookup::Corrupt)
        .count();
    assert_eq!(corrupt, 3);
    same_scores(&fresh, &e);
    // Rewritten: the next open hits everywhere.
    assert_eq!(lookups(&open(&b, &cache)), vec![Lookup::Hit; 4]);
}

/// The binary: a second `report` reads the cache and prints the same bytes; `--no-cache` neither
/// reads nor writes it.
#[test]
fn report_twice_prints_the_same_and_no_cache_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write(&small(), &root).unwrap();
    let run = |cache: &Path, extra: &[&str]| {
        let out = common::execscope()
            .arg("report")
            .arg(&root)
            .args(["--format", "json"])
            .args(extra)
            .env("EXECSCOPE_CACHE_DIR", cache)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let cache = dir.path().join("cache");
    let cold = run(&cache, &[]);
    // A table reads evaluations only: they are stored, no score matrix is.
    assert!(
        !cache.join("scores").exists(),
        "a report stores no score matrix"
    );
    assert_eq!(std::fs::read_dir(cache.join("evals")).unwrap().count(), 4);
    let warm = run(&cache, &[]);
    assert_eq!(cold, warm);
    // The results files read every row: that run stores the matrices, and prints the same.
    let out = dir.path().join("out");
    let with_rows = run(&cache, &["--write-results", "--out", out.to_str().unwrap()]);
    assert_eq!(cold, with_rows);
    assert_eq!(cache_files(&cache).len(), 4);
    let other = dir.path().join("other");
    let none = run(&other, &["--no-cache"]);
    assert_eq!(cold, none);
    assert!(!other.exists());
}

/// Write `b` to `root` and wait until its files are old enough for the stat memo to trust them.
fn write_settled(b: &Bundle, root: &Path) {
    write(b, root).unwrap();
    std::thread::sleep(execscope::store::memo::SETTLED * 2);
}

fn open_dir(root: &Path, cache: &Store) -> Result<Engine, execscope::bundle::BundleError> {
    Engine::open_with(root, &EngineOptions::default(), Some(cache), &|_| {})
}

/// A warm open has no matrices in memory (0 × 0); a full open keeps each system's width.
fn warm(e: &Engine) -> bool {
    e.bundle().systems.iter().all(|s| s.corpus.ncols() == 0)
}

fn leaderboard_json(e: &Engine) -> String {
    let lb = execscope::view::Leaderboard::build(e);
    format!("{:?}", execscope::report::leaderboard::table(&lb, None))
}

/// Once the memo knows the files, a reopen reads no matrix and gives the same numbers, notes and
/// checksums as the full load.
#[test]
fn warm_open_skips_the_matrices_and_gives_the_same_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cache = Store::new(dir.path().join("cache"));
    let cold = open_dir(&root, &cache).unwrap();
    assert!(!warm(&cold));
    let w = open_dir(&root, &cache).unwrap();
    assert!(warm(&w), "the second open is warm");
    assert_eq!(lookups(&w), vec![Lookup::Hit; 4]);
    same_scores(&cold, &w);
    assert_eq!(cold.bundle().notes, w.bundle().notes);
    assert_eq!(cold.bundle().sha256, w.bundle().sha256);
    assert_eq!(leaderboard_json(&cold), leaderboard_json(&w));
    let uncached = Engine::open(&root, &EngineOptions::default()).unwrap();
    same_scores(&uncached, &w);
}

/// A matrix file rewritten with other content misses even when its mtime is set back (the
/// ctime moves): with `SHA256SUMS` the load fails its checksum, without it the system is
/// rescored from the new file.
#[test]
fn a_rewritten_matrix_misses_even_with_its_old_mtime() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    let other = dir.path().join("other");
    let b = small();
    let mut changed = b.clone();
    changed.systems[1].corpus[[3, 2]] += 0.25;
    write(&changed, &other).unwrap();
    write_settled(&b, &root);
    let cache = Store::new(dir.path().join("cache"));
    open_dir(&root, &cache).unwrap();
    assert!(warm(&open_dir(&root, &cache).unwrap()));

    let id = &b.systems[1].id;
    let target = root.join("embeddings").join(format!("{id}.npz"));
    let replace = || {
        let old = std::fs::metadata(&target).unwrap().modified().unwrap();
        std::fs::copy(other.join("embeddings").join(format!("{id}.npz")), &target).unwrap();
        let f = std::fs::File::options().write(true).open(&target).unwrap();
        f.set_modified(old).unwrap();
    };
    replace();
    let err = open_dir(&root, &cache).err().expect("checksum failure");
    assert!(format!("{err:#}").contains("sha256"), "{err:#}");

    // Without SHA256SUMS: establish the warm state again, then change the file once more.
    std::fs::remove_file(root.join("SHA256SUMS")).unwrap();
    let fresh_changed = Engine::open(&root, &EngineOptions::default()).unwrap();
    std::thread::sleep(execscope::store::memo::SETTLED * 2);
    open_dir(&root, &cache).unwrap();
    let w = open_dir(&root, &cache).unwrap();
    assert!(warm(&w));
    same_scores(&fresh_changed, &w);
    // Back to the original matrix (its scores are still cached under its content's key).
    write(&b, &other).unwrap();
    replace();
    let e = open_dir(&root, &cache).unwrap();
    assert!(!warm(&e), "the stat memo misses");
    same_scores(&Engine::open(&root, &EngineOptions::default()).unwrap(), &e);
    assert_ne!(
        e.scores()[1].scores,
        fresh_changed.scores()[1].scores,
        "the old file's scores are not served for the new one"
    );
}

/// A truncated score file whose system has no stored evaluation, or a corrupt notes entry,
/// sends a warm open down the full path, which rewrites it. A damaged score file beside a
/// stored evaluation (the leaderboard needs no row) is found when its rows are first read: the
/// system is scored again from the bundle (same numbers) and the file rewritten.
#[test]
fn a_corrupt_entry_is_not_trusted_on_a_warm_open() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cdir = dir.path().join("cache");
    let cache = Store::new(&cdir);
    let cold = open_dir(&root, &cache).unwrap();
    let files = cache_files(&cdir);
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() - 1]).unwrap();
    let evals = cdir.join("evals");
    let e = open_dir(&root, &cache).unwrap();
    assert!(
        warm(&e),
        "the evaluations are stored: no row is needed to open"
    );
    same_scores(&cold, &e);
    assert_eq!(
        std::fs::read(&files[0]).unwrap().len(),
        bytes.len(),
        "rewritten whole"
    );
    std::fs::write(&files[0], &bytes[..bytes.len() - 1]).unwrap();
    std::fs::remove_dir_all(&evals).unwrap();
    let e = open_dir(&root, &cache).unwrap();
    assert!(!warm(&e));
    assert!(lookups(&e).contains(&Lookup::Corrupt));
    same_scores(&cold, &e);
    assert!(warm(&open_dir(&root, &cache).unwrap()));

    let mut bytes = std::fs::read(&files[1]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x10;
    std::fs::write(&files[1], &bytes).unwrap();
    let e = open_dir(&root, &cache).unwrap();
    assert!(
        warm(&e),
        "the length is right: the damage shows only when read"
    );
    assert!(e.scores().iter().all(|s| s.scores.get().is_none()));
    // Reading the rows is an explicit call; the damage it found is a notice, not a print.
    e.load_rows().unwrap();
    let notices = e.take_notices();
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("are damaged; scored it again from"),
        "{notices:?}"
    );
    same_scores(&cold, &e);
    assert_ne!(std::fs::read(&files[1]).unwrap(), bytes, "rewritten");
    assert_eq!(
        Store::new(&cdir)
            .get(
                files[1].file_stem().unwrap().to_str().unwrap(),
                cold.scores()[0].scores.matrix().dim()
            )
            .0,
        Lookup::Hit
    );

    for n in std::fs::read_dir(cdir.join("notes")).unwrap() {
        std::fs::write(n.unwrap().path(), "{not json").unwrap();
    }
    let e = open_dir(&root, &cache).unwrap();
    assert!(!warm(&e));
    assert_eq!(cold.bundle().notes, e.bundle().notes);
    assert!(warm(&open_dir(&root, &cache).unwrap()));
}

fn eval_lookups(e: &Engine) -> Vec<Lookup> {
    e.eval_lookups()
        .iter()
        .map(|l| l.expect("cached"))
        .collect()
}

fn eval_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir.join("evals"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Everything the leaderboard shows, as text: every metric, tie count, exec@1 bound and fallback.
fn everything(e: &Engine) -> String {
    let lb = execscope::view::Leaderboard::build(e);
    format!(
        "{:?}\n{:?}\n{:?}",
        lb.rows,
        e.evals().iter().map(|x| &x.per_query).collect::<Vec<_>>(),
        e.evals().iter().map(|x| &x.ties).collect::<Vec<_>>()
    )
}

/// A warm open under the same settings reads the stored evaluations: no score matrix is read
/// even after the whole leaderboard is built, and every number equals a fresh computation's.
#[test]
fn a_warm_leaderboard_reads_no_scores_and_equals_a_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cache = Store::new(dir.path().join("cache"));
    let cold = open_dir(&root, &cache).unwrap();
    assert_eq!(eval_lookups(&cold), vec![Lookup::Miss; 4]);
    let w = open_dir(&root, &cache).unwrap();
    assert!(warm(&w));
    assert_eq!(eval_lookups(&w), vec![Lookup::Hit; 4]);
    let text = everything(&w);
    assert!(
        w.scores().iter().all(|s| !s.scores.is_loaded()),
        "the leaderboard read no score matrix"
    );
    let uncached = Engine::open(&root, &EngineOptions::default()).unwrap();
    assert!(uncached.eval_lookups().iter().all(Option::is_none));
    assert_eq!(text, everything(&uncached));
    assert_eq!(text, everything(&cold));
    // Rows are still there when a pane asks: read from the cache, equal to a fresh computation.
    same_scores(&uncached, &w);
}

/// Any setting, verdict or label that the evaluation reads names another entry; the scores
/// still hit.
#[test]
fn an_evaluation_misses_when_a_setting_a_verdict_or_a_label_changes() {
    use execscope::metrics::{EvalConfig, TiePolicy};
    let dir = tempfile::tempdir().unwrap();
    let cache = Store::new(dir.path());
    let b = small();
    let opts = |eval: EvalConfig| EngineOptions {
        eval,
        ..EngineOptions::default()
    };
    let with = |b: &Bundle, eval: EvalConfig| {
        Engine::from_bundle_with(b.clone(), &opts(eval), Some(&cache), &|_| {})
    };
    let base = EvalConfig::default();
    assert_eq!(eval_lookups(&with(&b, base.clone())), vec![Lookup::Miss; 4]);
    assert_eq!(eval_lookups(&with(&b, base.clone())), vec![Lookup::Hit; 4]);
    let settings = [
        base.clone().with_ks(&[1, 2]),
        EvalConfig {
            policy: TiePolicy::Pessimistic,
            ..base.clone()
        },
        EvalConfig {
            tie_eps: 1e-3,
            ..base.clone()
        },
    ];
    for cfg in settings {
        let e = with(&b, cfg.clone());
        assert_eq!(eval_lookups(&e), vec![Lookup::Miss; 4], "{cfg:?}");
        assert_eq!(lookups(&e), vec![Lookup::Hit; 4]);
        let fresh = Engine::from_bundle(b.clone(), &opts(cfg.clone()));
        assert_eq!(everything(&e), everything(&fresh));
        assert_eq!(
            everything(&with(&b, cfg)),
            everything(&fresh),
            "and the hit"
        );
    }
    // A verdict: the execution cache's first row flips.
    let mut v = b.clone();
    assert!(!v.cache.is_empty());
    v.cache[0].passes_all_tests = !v.cache[0].passes_all_tests;
    let e = with(&v, base.clone());
    assert_eq!(eval_lookups(&e), vec![Lookup::Miss; 4]);
    assert_eq!(
        everything(&e),
        everything(&Engine::from_bundle(v, &opts(base.clone())))
    );
    // A label: a query's paired distractors (the tie counts read them).
    let mut p = b.clone();
    let q = p.queries.iter().position(|q| q.paired.len() > 1).unwrap();
    p.queries[q].paired.pop();
    assert_eq!(eval_lookups(&with(&p, base.clone())), vec![Lookup::Miss; 4]);
    // A matrix: only that system's evaluation misses.
    let mut m = b.clone();
    m.systems[2].corpus[[0, 0]] += 0.5;
    assert_eq!(
        eval_lookups(&with(&m, base)),
        vec![Lookup::Hit, Lookup::Hit, Lookup::Miss, Lookup::Hit]
    );
}

/// Damaged evaluation files are reported, recomputed (same numbers) and rewritten.
#[test]
fn damaged_evaluation_files_are_recomputed_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Store::new(dir.path());
    let b = small();
    let fresh = open(&b, &cache);
    let files = eval_files(dir.path());
    assert_eq!(files.len(), 4);
    let bytes = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(&files[1], b"garbage").unwrap();
    let mut flipped = std::fs::read(&files[2]).unwrap();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x04;
    std::fs::write(&files[2], &flipped).unwrap();
    let e = open(&b, &cache);
    let mut found = eval_lookups(&e);
    found.sort_by_key(|l| format!("{l:?}"));
    assert_eq!(
        found,
        vec![
            Lookup::Corrupt,
            Lookup::Corrupt,
            Lookup::Corrupt,
            Lookup::Hit
        ]
    );
    assert_eq!(everything(&fresh), everything(&e));
    assert_eq!(eval_lookups(&open(&b, &cache)), vec![Lookup::Hit; 4]);
}

/// The binary: garbage in every cache file still prints the very bytes of a cold run, with a
/// warning on stderr, and rewrites the files.
#[test]
fn report_over_a_garbage_cache_warns_and_prints_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cache = dir.path().join("cache");
    let run = || {
        let out = common::execscope()
            .arg("report")
            .arg(&root)
            .args(["--format", "json"])
            .env("EXECSCOPE_CACHE_DIR", &cache)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (cold, _) = run();
    let (warm, quiet) = run();
    assert_eq!(cold, warm);
    assert!(!quiet.contains("warning"), "{quiet}");
    for f in eval_files(&cache) {
        std::fs::write(f, b"\0\0garbage").unwrap();
    }
    // A report stores the leaderboard's significance (no system pairs: it prints none).
    assert!(!cache.join("pairwise").exists());
    let sig: Vec<_> = std::fs::read_dir(cache.join("significance-core"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(sig.len(), 1);
    let bytes = std::fs::read(&sig[0]).unwrap();
    std::fs::write(&sig[0], &bytes[..bytes.len() - 8]).unwrap();
    let (again, warned) = run();
    assert_eq!(cold, again);
    assert!(
        warned.contains("warning: 4 damaged rank-cache file"),
        "{warned}"
    );
    assert!(
        warned.contains("damaged significance-core cache entry"),
        "{warned}"
    );
    let (last, quiet) = run();
    assert_eq!(cold, last);
    assert!(!quiet.contains("warning"), "{quiet}");
}

/// The significance tables read back from the cache are those computed, bit for bit, and a
/// changed bootstrap setting computes (and stores) others.
#[test]
fn significance_is_cached_exactly_and_keyed_by_its_settings() {
    use execscope::analysis::significance::{SigConfig, Significance};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cache = Store::new(dir.path().join("cache"));
    let cfg = SigConfig {
        replicates: 200,
        seed: 3,
    };
    let cold = open_dir(&root, &cache).unwrap();
    let fresh = format!(
        "{:?}",
        Significance::from_evals(cold.evals(), &cold.config(), cfg)
    );
    assert_eq!(format!("{:?}", Significance::compute(&cold, cfg)), fresh);
    let w = open_dir(&root, &cache).unwrap();
    assert!(warm(&w));
    assert_eq!(format!("{:?}", Significance::compute(&w, cfg)), fresh);
    let other = SigConfig { seed: 4, ..cfg };
    assert_eq!(
        format!("{:?}", Significance::compute(&w, other)),
        format!(
            "{:?}",
            Significance::from_evals(cold.evals(), &cold.config(), other)
        )
    );
    for kind in ["significance-core", "pairwise"] {
        let n = std::fs::read_dir(dir.path().join("cache").join(kind))
            .unwrap()
            .count();
        assert_eq!(n, 2, "one {kind} entry per setting");
    }
    // The leaderboard's part alone is the same tables without the pairs, and is what a warm
    // open reads back; the pairs are added to it from their own entry.
    let lb = Significance::compute_leaderboard(&w, cfg);
    assert!(lb.pairs.is_none());
    let mut full = Significance::from_evals(cold.evals(), &cold.config(), cfg);
    let pairs = full.pairs.take();
    assert_eq!(format!("{lb:?}"), format!("{full:?}"));
    let mut lb = lb;
    lb.add_pairs(&w);
    assert_eq!(lb.pairs, pairs);
    // A damaged pairs entry is recomputed, never trusted.
    for e in std::fs::read_dir(dir.path().join("cache/pairwise")).unwrap() {
        let p = e.unwrap().path();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() / 2]).unwrap();
    }
    assert!(w.take_notices().is_empty(), "nothing damaged yet");
    assert_eq!(format!("{:?}", Significance::compute(&w, cfg)), fresh);
    // The core never prints: the repair is a notice the front end shows, said once.
    assert_eq!(
        w.take_notices(),
        ["a damaged pairwise cache entry was ignored, recomputed and rewritten"]
    );
    assert!(w.take_notices().is_empty());
    let s = Significance::from_evals(cold.evals(), &cold.config(), cfg);
    let bytes = s.encode();
    assert_eq!(
        format!("{:?}", Significance::decode(&bytes, 4).unwrap()),
        fresh
    );
    assert!(Significance::decode(&bytes, 5).is_none(), "another shape");
    assert!(Significance::decode(&bytes[..bytes.len() - 1], 4).is_none());
}

/// An opening that keeps no rows (a headless report) stores evaluations and no score matrix; a
/// second such opening is warm; a row read later computes that system again from the bundle
/// (the same bits as a full open's) and stores it, and nothing is ever wrong in between.
#[test]
fn an_opening_without_rows_stores_no_matrix_and_recomputes_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    write_settled(&small(), &root);
    let cdir = dir.path().join("cache");
    let cache = Store::new(&cdir);
    let mut opts = EngineOptions::default();
    opts.rank.keep_rows = false;
    let open_lean = || Engine::open_with(&root, &opts, Some(&cache), &|_| {}).unwrap();
    let lean = open_lean();
    assert!(!cdir.join("scores").exists());
    let full = Engine::open(&root, &EngineOptions::default()).unwrap();
    for (x, y) in lean.evals().iter().zip(full.evals()) {
        assert_eq!(x.per_query, y.per_query);
    }
    let again = open_lean();
    assert!(warm(&again));
    assert!(!cdir.join("scores").exists(), "the leaderboard read no row");
    // Reading rows (system 1 only) computes it and stores its matrix.
    let row: Vec<u32> = again.scores()[1]
        .row(0)
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let want: Vec<u32> = full.scores()[1]
        .row(0)
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(row, want);
    assert_eq!(cache_files(&cdir).len(), 1);
    same_scores(&full, &again);
    assert_eq!(cache_files(&cdir).len(), 4);
}
