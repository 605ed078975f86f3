//! Ranking and scoring at the paper's scale: 939 queries × 4,695 snippets, 23 dense systems
//! (d 384–4,096, 658 MB of float32) + BM25 = 24 systems, generated here and written to a
//! temporary bundle directory (nothing of it lives in the repository).
//!
//! - `floor`: what nothing can rank without: read every system's two matrices from its `.npz`
//!   (ndarray-npy, the plainest reader) and one f32 GEMM per system (`q · cᵀ` through
//!   ndarray's sgemm, systems in parallel so both cores work). No normalisation, no BM25, no
//!   metric.
//! - `leaderboard_cold`: `execscope report`'s work from disk with an empty rank cache: load and
//!   verify the bundle, score every system (and write the cache), every metric of every system
//!   under `expected` ties, the leaderboard table.
//! - `leaderboard_uncached`: the same without any rank cache (`--no-cache`).
//! - `leaderboard_warm`: the same with the cache filled by an earlier run (no GEMM, no BM25).
//! - `gemm_768`: one 939 × 768 by 768 × 4,695 product (6.8 GFLOP), the GEMM throughput.
//!
//! Run: `cargo bench --bench rank`. Figures are read as ratios against `floor`.

use execscope::bundle::{synthetic, write, SynthSpec};
use execscope::engine::{Engine, EngineOptions};
use execscope::rank::{self, RankCache};
use execscope::report::leaderboard;
use ndarray::Array2;
use ndarray_npy::NpzReader;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::LazyLock;

fn main() {
    divan::main();
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    warm: RankCache,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let mut spec = SynthSpec::paper_scale(7);
    spec.dims.truncate(23);
    let bundle = synthetic(&spec);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("paper-scale");
    write(&bundle, &root).expect("write the synthetic bundle");
    let warm = RankCache::new(dir.path().join("warm-cache"));
    let e = Engine::open_with(&root, &EngineOptions::default(), Some(&warm), &|_| {})
        .expect("load the synthetic bundle");
    assert!(e.rank_lookups().iter().all(Option::is_some));
    Fixture {
        _dir: dir,
        root,
        warm,
    }
});

fn leaderboard_rows(e: &Engine) -> usize {
    let lb = leaderboard::build(e);
    leaderboard::table(&lb, None).rows.len()
}

#[divan::bench(sample_count = 3)]
fn floor(bencher: divan::Bencher) {
    let fx = &*FIXTURE;
    let mut files: Vec<PathBuf> = std::fs::read_dir(fx.root.join("embeddings"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    bencher.bench(|| {
        let n: usize = files
            .par_iter()
            .map(|p| {
                let mut npz = NpzReader::new(std::fs::File::open(p).unwrap()).unwrap();
                let q: Array2<f32> = npz.by_name("queries.npy").unwrap();
                let c: Array2<f32> = npz.by_name("corpus.npy").unwrap();
                q.dot(&c.t()).len()
            })
            .sum();
        divan::black_box(n)
    });
}

#[divan::bench(sample_count = 3)]
fn leaderboard_cold(bencher: divan::Bencher) {
    let fx = &*FIXTURE;
    bencher
        .with_inputs(|| tempfile::tempdir().unwrap())
        .bench_values(|cache_dir| {
            let cache = RankCache::new(cache_dir.path());
            let e = Engine::open_with(&fx.root, &EngineOptions::default(), Some(&cache), &|_| {})
                .unwrap();
            divan::black_box(leaderboard_rows(&e));
            cache_dir
        });
}

#[divan::bench(sample_count = 3)]
fn leaderboard_uncached(bencher: divan::Bencher) {
    let fx = &*FIXTURE;
    bencher.bench(|| {
        let e = Engine::open(&fx.root, &EngineOptions::default()).unwrap();
        divan::black_box(leaderboard_rows(&e))
    });
}

#[divan::bench(sample_count = 5)]
fn leaderboard_warm(bencher: divan::Bencher) {
    let fx = &*FIXTURE;
    bencher.bench(|| {
        let e = Engine::open_with(&fx.root, &EngineOptions::default(), Some(&fx.warm), &|_| {})
            .unwrap();
        divan::black_box(leaderboard_rows(&e))
    });
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
