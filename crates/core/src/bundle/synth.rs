//! `synthetic`: a seeded random bundle of any size with consistent relations, for benchmarks
//! and property tests.
//!
//! Each query i has a canonical `f_i(x) = 0 if x < 0 else x * a + b` and its distractors are
//! single edits of it (the six mechanical bug types), with distractor metadata whose splice
//! reproduces the code, and execution-cache rows whose outcomes are *computed* from the mutated
//! function (not assumed). Embeddings: per query a topic vector; the query and canonical are the
//! topic plus noise, each distractor is an exact copy of its canonical with probability
//! `tie_rate` (an exact score tie) and otherwise the canonical plus small noise (a near miss);
//! extra snippets are unrelated noise. The corpus order is shuffled so ties break both ways.

use execscope_record::keys::TestsEncoding;
use ndarray::Array2;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::json;

use super::model::{
    code_sha256, tests_sha256, Bundle, DenseSystem, DistractorMeta, Edit, ExecRecord, Invocation,
    Label, Query, Similarity, Snippet, DOMAINS,
};

/// Size and shape of a synthetic bundle.
#[derive(Clone, Debug)]
pub struct SynthSpec {
    pub n_queries: usize,
    /// Unrelated snippets beyond each query's canonical and distractors.
    pub n_corpus_extra: usize,
    pub distractors_per_query: usize,
    /// One dense system per entry, of that width (odd-indexed systems use `dot`, others `cos`).
    pub dims: Vec<usize>,
    pub seed: u64,
    /// Share of distractors whose vector equals their canonical's exactly.
    pub tie_rate: f64,
}

impl SynthSpec {
    /// The release's shape: 939 queries, 4 distractors each (4,695 snippets; the release has
    /// 4,694), 23 dense systems of widths 384–4,096 (Σd = 29,184: 658 MB of f32 matrices).
    pub fn paper_scale(seed: u64) -> Self {
        let mut dims = vec![384; 6];
        dims.extend([768; 7]);
        dims.extend([1024; 4]);
        dims.extend([1536, 1536, 3072, 3072, 4096, 4096]);
        SynthSpec {
            n_queries: 939,
            n_corpus_extra: 0,
            distractors_per_query: 4,
            dims,
            seed,
            tie_rate: 0.05,
        }
    }
}

/// The mutation applied for distractor j of a query: (bug type, operator, before, after,
/// description) and the mutated function's semantics.
fn mutation(j: usize, a: i64, b: i64) -> (&'static str, &'static str, String, String, String) {
    match j {
        0 => (
            "wrong_operator",
            "Mult->Add",
            " * ".into(),
            " + ".into(),
            "Changed `*` to `+`.".into(),
        ),
        1 => (
            "wrong_comparison",
            "Lt->Gt",
            "x < 0".into(),
            "x > 0".into(),
            "Changed `<` to `>`.".into(),
        ),
        2 => (
            "off_by_one",
            "const+1",
            format!("+ {b}\n"),
            format!("+ {}\n", b + 1),
            format!("Changed `{b}` to `{}`.", b + 1),
        ),
        3 => (
            "remove_edge_case_check",
            "drop_if",
            "    if x < 0:\n        return 0\n".into(),
            String::new(),
            "Removed the negative-input check.".into(),
        ),
        4 => (
            "wrong_operator",
            "Add->Sub",
            format!(" + {b}"),
            format!(" - {b}"),
            "Changed `+` to `-`.".into(),
        ),
        k => {
            let c = a + k as i64;
            (
                "off_by_one",
                "const",
                format!("x * {a}"),
                format!("x * {c}"),
                format!("Changed `{a}` to `{c}`."),
            )
        }
    }
}

fn eval(j: Option<usize>, a: i64, b: i64, x: i64) -> i64 {
    match j {
        None => {
            if x < 0 {
                0
            } else {
                x * a + b
            }
        }
        Some(0) => {
            if x < 0 {
                0
            } else {
                x + a + b
            }
        }
        Some(1) => {
            if x > 0 {
                0
            } else {
                x * a + b
            }
        }
        Some(2) => {
            if x < 0 {
                0
            } else {
                x * a + b + 1
            }
        }
        Some(3) => x * a + b,
        Some(4) => {
            if x < 0 {
                0
            } else {
                x * a - b
            }
        }
        Some(k) => {
            if x < 0 {
                0
            } else {
                x * (a + k as i64) + b
            }
        }
    }
}

const XS: [i64; 3] = [1, 2, -1];

/// Generate a bundle; identical for identical specs.
pub fn synthetic(spec: &SynthSpec) -> Bundle {
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed);
    let per = 1 + spec.distractors_per_query;
    let n_corpus = spec.n_queries * per + spec.n_corpus_extra;
    // Logical slot → corpus row, shuffled.
    let mut rows: Vec<usize> = (0..n_corpus).collect();
    rows.shuffle(&mut rng);
    let mut corpus: Vec<Option<Snippet>> = vec![None; n_corpus];
    let mut queries = Vec::with_capacity(spec.n_queries);
    let mut distractors = Vec::new();
    let mut cache = Vec::new();
    let runner = "execscope-synthetic/1 (outcomes computed, not executed)".to_string();
    for i in 0..spec.n_queries {
        // b > a keeps every mutant failing (dropping the x < 0 check changes f(-1) = b - a).
        let (a, b) = (rng.random_range(2..10i64), rng.random_range(11..20i64));
        let name = format!("f_{i}");
        let code =
            format!("def {name}(x):\n    if x < 0:\n        return 0\n    return x * {a} + {b}\n");
        let tests: Vec<String> = XS
            .iter()
            .map(|&x| format!("assert {name}({x}) == {}", eval(None, a, b, x)))
            .collect();
        let domain = DOMAINS[i % DOMAINS.len()];
        let entry_id = format!("exec_{domain}_{}", i / DOMAINS.len());
        let tkey = tests_sha256(&tests);
        let canon_row = rows[i * per];
        let canon_id = format!("c_{:05}", canon_row + 1);
        let mut paired = Vec::new();
        for j in 0..spec.distractors_per_query {
            let row = rows[i * per + 1 + j];
            let (bug, op, before, after, desc) = mutation(j, a, b);
            let start = code.find(&before).unwrap_or(0);
            let end = start + before.len();
            let dcode = format!("{}{}{}", &code[..start], after, &code[end..]);
            let outcomes: Vec<String> = XS
                .iter()
                .map(|&x| {
                    if eval(Some(j), a, b, x) == eval(None, a, b, x) {
                        "pass"
                    } else {
                        "FAIL"
                    }
                    .to_string()
                })
                .collect();
            let id = format!("c_{:05}", row + 1);
            cache.push(ExecRecord {
                code_sha256: code_sha256(&dcode),
                tests_sha256: tkey.clone(),
                passes_all_tests: outcomes.iter().all(|o| o == "pass"),
                outcomes,
                runner: runner.clone(),
            });
            distractors.push(DistractorMeta {
                corpus_id: id.clone(),
                query_id: format!("q_{:04}", i + 1),
                canonical_id: canon_id.clone(),
                bug_type: bug.into(),
                bug_description: desc,
                edit: Edit {
                    start,
                    end,
                    before,
                    after,
                },
                operator: op.into(),
            });
            corpus[row] = Some(Snippet {
                id,
                code: dcode,
                label: Label::Incorrect,
                bug_type: Some(bug.into()),
                source_entry_id: entry_id.clone(),
                language: Default::default(),
                extra: Default::default(),
            });
            paired.push(row);
        }
        cache.push(ExecRecord {
            code_sha256: code_sha256(&code),
            tests_sha256: tkey,
            outcomes: vec!["pass".into(); XS.len()],
            passes_all_tests: true,
            runner: runner.clone(),
        });
        corpus[canon_row] = Some(Snippet {
            id: canon_id,
            code,
            label: Label::Correct,
            bug_type: None,
            source_entry_id: entry_id.clone(),
            language: Default::default(),
            extra: Default::default(),
        });
        queries.push(Query {
            id: format!("q_{:04}", i + 1),
            text: format!("Return x * {a} + {b} for non-negative x and 0 for negative x."),
            tests,
            correct: vec![canon_row],
            paired,
            entry_id,
            domain: domain.into(),
            function_name: name,
            language: Default::default(),
            metadata: json!({"model": "synthetic", "seed": spec.seed}),
            extra: Default::default(),
        });
    }
    for e in 0..spec.n_corpus_extra {
        let row = rows[spec.n_queries * per + e];
        corpus[row] = Some(Snippet {
            id: format!("c_{:05}", row + 1),
            code: format!("def unrelated_{e}(s):\n    return s[::-1]\n"),
            label: Label::Incorrect,
            bug_type: None,
            source_entry_id: format!("extra_{e}"),
            language: Default::default(),
            extra: Default::default(),
        });
    }
    let corpus: Vec<Snippet> = corpus.into_iter().flatten().collect();
    let systems = spec
        .dims
        .par_iter()
        .enumerate()
        .map(|(s, &d)| system(spec, s, d, &queries, &rows, n_corpus))
        .collect();
    Bundle {
        root: Default::default(),
        queries,
        corpus,
        distractors,
        cache,
        systems,
        sha256: Default::default(),
        tests_key_encoding: Some(TestsEncoding::PythonJsonCompact),
        notes: vec![format!("synthetic bundle, seed {}", spec.seed)],
        ..Bundle::default()
    }
}

/// Uniform noise in [-scale, scale).
fn noise(rng: &mut ChaCha8Rng, scale: f32) -> f32 {
    scale * (rng.random::<f32>() * 2.0 - 1.0)
}

fn system(
    spec: &SynthSpec,
    s: usize,
    d: usize,
    queries: &[Query],
    rows: &[usize],
    n_corpus: usize,
) -> DenseSystem {
    let mut rng = ChaCha8Rng::seed_from_u64(
        spec.seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(s as u64 + 1)),
    );
    let mut q = Array2::<f32>::zeros((queries.len(), d));
    let mut c = Array2::<f32>::zeros((n_corpus, d));
    let mut topic = vec![0f32; d];
    for (i, query) in queries.iter().enumerate() {
        topic.iter_mut().for_each(|t| *t = noise(&mut rng, 1.0));
        for (k, v) in q.row_mut(i).iter_mut().enumerate() {
            *v = topic[k] + noise(&mut rng, 0.6);
        }
        let canon = query.correct[0];
        for (k, v) in c.row_mut(canon).iter_mut().enumerate() {
            *v = topic[k] + noise(&mut rng, 0.6);
        }
        for &p in &query.paired {
            let tie = rng.random_bool(spec.tie_rate.clamp(0.0, 1.0));
            for k in 0..d {
                let base = c[(canon, k)];
                c[(p, k)] = if tie {
                    base
                } else {
                    base + noise(&mut rng, 0.25)
                };
            }
        }
    }
    let per = 1 + spec.distractors_per_query;
    for &row in &rows[queries.len() * per..] {
        c.row_mut(row)
            .iter_mut()
            .for_each(|v| *v = noise(&mut rng, 1.0));
    }
    let similarity = if s % 2 == 1 {
        Similarity::Dot
    } else {
        Similarity::Cos
    };
    let id = format!("synth-{s:02}-d{d}");
    DenseSystem {
        invocation: Some(Invocation {
            id: id.clone(),
            file: format!("embeddings/{id}.npz"),
            dims: Some(d),
            similarity,
            dtype: "float32".into(),
            source: "synthetic".into(),
            ..Invocation::default()
        }),
        id,
        similarity,
        queries: q,
        corpus: c,
    }
}
