//! Ranking and scoring at the paper's scale: 939 queries × 4,695 snippets, 23 dense systems
//! (d 384–4,096) + BM25 = 24 systems. `full_leaderboard` is what `execscope report` computes
//! before printing: every similarity matrix, BM25, and every metric of every system under the
//! default (`expected`) tie policy. `naive_leaderboard` is a straightforward baseline measured in
//! the same run: one single-threaded GEMM per system and a full sort of every query's ranking.
//!
//! Run: `cargo bench --bench rank`.

use execscope::bundle::{synthetic, Bundle, SynthSpec};
use execscope::engine::{Engine, EngineOptions};
use execscope::metrics::{EvalConfig, Truth};
use execscope::rank::{self, RankOptions};
use std::sync::LazyLock;

fn main() {
    divan::main();
}

static BUNDLE: LazyLock<Bundle> = LazyLock::new(|| {
    let mut spec = SynthSpec::paper_scale(7);
    spec.dims.truncate(23);
    synthetic(&spec)
});

#[divan::bench(sample_count = 5)]
fn full_leaderboard(bencher: divan::Bencher) {
    let bundle = &*BUNDLE;
    bencher.bench(|| {
        let engine = Engine::from_bundle(bundle.clone(), &EngineOptions::default());
        divan::black_box(engine.evals.len())
    });
}

/// The same bundle clone cost, measured alone, so the figure above can be read net of it.
#[divan::bench(sample_count = 5)]
fn clone_only(bencher: divan::Bencher) {
    let bundle = &*BUNDLE;
    bencher.bench(|| divan::black_box(bundle.clone().queries.len()));
}

#[divan::bench(sample_count = 3)]
fn naive_leaderboard(bencher: divan::Bencher) {
    let bundle = &*BUNDLE;
    bencher.bench(|| {
        let key = execscope::bundle::tests_key_fn(bundle.tests_key_encoding.as_deref());
        let truth = Truth::from_bundle(bundle, &key);
        let mut total = 0.0;
        for sys in &bundle.systems {
            let q = rank::normalized(sys.queries.view());
            let c = rank::normalized(sys.corpus.view());
            let scores = q.dot(&c.t());
            for (qi, row) in scores.outer_iter().enumerate() {
                let row = row.to_slice().unwrap();
                let order = rank::full_order(row);
                let pass = truth.passing(qi);
                for k in [1usize, 3, 5, 10] {
                    total += f64::from(u8::from(
                        order[..k].iter().any(|c| pass.binary_search(c).is_ok()),
                    ));
                }
            }
        }
        let bm = rank::bm25_system(bundle);
        divan::black_box((total, bm.scores.len()))
    });
}

#[divan::bench(sample_count = 5)]
fn evaluate_only(bencher: divan::Bencher) {
    let bundle = &*BUNDLE;
    let engine = Engine::from_bundle(
        bundle.clone(),
        &EngineOptions {
            rank: RankOptions { bm25: true },
            eval: EvalConfig::default(),
        },
    );
    bencher.bench(|| divan::black_box(engine.evaluate_all(&EvalConfig::default()).len()));
}

/// One 939 × 768 by 768 × 4,695 product (6.8 GFLOP): the GEMM throughput behind the figures above.
#[divan::bench(sample_count = 5)]
fn gemm_768(bencher: divan::Bencher) {
    let q = ndarray::Array2::<f32>::from_shape_fn((939, 768), |(i, j)| {
        ((i * 31 + j * 7) % 97) as f32 / 97.0
    });
    let c = ndarray::Array2::<f32>::from_shape_fn((4695, 768), |(i, j)| {
        ((i * 13 + j * 5) % 89) as f32 / 89.0
    });
    bencher.bench(|| divan::black_box(rank::block_product(q.view(), c.view()).len()));
}
