//! The one execution-cache index (`bundle::CacheIndex`) and the PASS truth built from it
//! (`metrics::Truth::from_index`), checked pair by pair against a brute-force join written here:
//! for every (query, snippet), look up the last cache row whose (`code_sha256`, `tests_sha256`)
//! is the snippet's and the suite's; that row decides, and with none the label does.

use execscope::bundle::{
    self, code_sha256, tests_key_fn, Bundle, CacheIndex, ExecRecord, LoadOptions,
};
use execscope::metrics::{PassSource, Truth};
use std::collections::HashMap;
use std::path::Path;

/// The brute force: (code hash, tests hash) → the last cache row with that key, and each pair's
/// row looked up by recomputing both hashes.
struct Brute {
    last: HashMap<(String, String), usize>,
    code: Vec<String>,
    tests: Vec<String>,
}

impl Brute {
    fn new(b: &Bundle) -> Brute {
        let key = tests_key_fn(b.tests_key_encoding);
        let mut last = HashMap::new();
        for (i, r) in b.cache.iter().enumerate() {
            last.insert((r.code_sha256.clone(), r.tests_sha256.clone()), i);
        }
        Brute {
            last,
            code: b.corpus.iter().map(|s| code_sha256(&s.code)).collect(),
            tests: b.queries.iter().map(|q| key(&q.tests)).collect(),
        }
    }
}

/// (cache row, verdict) of the last row holding the pair.
fn brute_row(b: &Bundle, brute: &Brute, q: usize, c: usize) -> Option<(usize, bool)> {
    brute
        .last
        .get(&(brute.code[c].clone(), brute.tests[q].clone()))
        .map(|&i| (i, b.cache[i].passes_all_tests))
}

/// Every pair of `b`: the index's row, the truth's verdict and source equal the brute force.
fn agree(b: &Bundle) -> (usize, usize) {
    let index = CacheIndex::build(b);
    let truth = Truth::from_index(b, &index);
    assert_eq!(index.n_queries(), b.queries.len());
    let brute = Brute::new(b);
    let (mut cached, mut passing) = (0, 0);
    for q in 0..b.queries.len() {
        let mut held: Vec<(usize, usize)> = index.held(q).collect();
        held.sort_unstable();
        let mut expect_held = Vec::new();
        for c in 0..b.corpus.len() {
            let brute = brute_row(b, &brute, q, c);
            assert_eq!(index.row(q, c), brute.map(|(i, _)| i), "row of q{q} c{c}");
            let expect_pass = match brute {
                Some((i, ok)) => {
                    expect_held.push((c, i));
                    ok
                }
                None => b.queries[q].correct.contains(&c),
            };
            assert_eq!(truth.passes(q, c), expect_pass, "PASS of q{q} c{c}");
            let source = if brute.is_some() {
                PassSource::Cache
            } else {
                PassSource::Label
            };
            assert_eq!(truth.source(q, c), source, "source of q{q} c{c}");
            assert_eq!(
                index.outcomes(b, q, c),
                brute.map(|(i, _)| b.cache[i].outcomes.as_slice())
            );
            cached += usize::from(brute.is_some());
            passing += usize::from(expect_pass);
        }
        assert_eq!(held, expect_held, "held pairs of q{q}");
        let list: Vec<usize> = truth.passing(q).iter().map(|&c| c as usize).collect();
        let expect: Vec<usize> = (0..b.corpus.len())
            .filter(|&c| truth.passes(q, c))
            .collect();
        assert_eq!(list, expect);
    }
    assert_eq!(truth.n_cached(), cached);
    assert_eq!(
        Truth::from_bundle(b).n_cached(),
        cached,
        "from_bundle builds the same"
    );
    (cached, passing)
}

fn load(root: &str) -> Bundle {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(root);
    bundle::load(
        &root,
        &LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
}

#[test]
fn embedded_bundle_truth_equals_the_brute_force_join() {
    let b = load("data/bundle");
    let (cached, passing) = agree(&b);
    // Every query's canonical and paired distractors are in the embedded cache.
    let paired: usize = b.queries.iter().map(|q| 1 + q.paired.len()).sum();
    assert!(cached >= paired, "{cached} cached < {paired}");
    assert!(passing >= b.queries.len());
}

#[test]
fn tiny_fixture_truth_equals_the_brute_force_join() {
    agree(&load("tests/fixtures/tiny"));
}

#[test]
fn shared_code_later_rows_and_the_label_fallback() {
    let mut b = load("tests/fixtures/tiny");
    // A second snippet with the canonical's code shares its cache rows.
    let mut twin = b.corpus[b.queries[0].correct[0]].clone();
    twin.id = "c_twin".into();
    b.corpus.push(twin);
    // A later row for an existing key with the opposite verdict wins (check refuses the bundle;
    // the index must still be well defined).
    let first = b.cache[0].clone();
    b.cache.push(ExecRecord {
        passes_all_tests: !first.passes_all_tests,
        ..first.clone()
    });
    // A row no query or snippet matches is never held.
    b.cache.push(ExecRecord {
        code_sha256: "0".repeat(64),
        ..first
    });
    agree(&b);
    // Without any cache row, every verdict is the label.
    b.cache.clear();
    let index = CacheIndex::build(&b);
    let truth = Truth::from_index(&b, &index);
    assert_eq!(truth.n_cached(), 0);
    for (q, query) in b.queries.iter().enumerate() {
        let mut correct = query.correct.clone();
        correct.sort_unstable();
        let passing: Vec<usize> = truth.passing(q).iter().map(|&c| c as usize).collect();
        assert_eq!(passing, correct);
        assert_eq!(index.held(q).count(), 0);
    }
    assert_eq!(index.row(0, usize::MAX), None);
    assert_eq!(index.row(usize::MAX, 0), None);
}
