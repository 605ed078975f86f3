//! Ranking: a score for every (query, snippet) pair of every system, and orderings with the tie rule.
//!
//! A system's result is its full score matrix (n_queries × n_corpus). The ranking of a query is the
//! corpus sorted by score descending with ties broken by corpus row ascending (the release's rule);
//! metrics read the score row directly (see `metrics`), so a full sort is only done where a list is
//! shown.

pub mod bm25;
pub mod gemm;
pub mod lexicon;
pub mod product;
pub mod ties;

pub use product::{block_product, dense_scores, normalized};

use crate::bundle::{Bundle, DenseSystem, Similarity};
use crate::store::{Lookup, Store};
use ndarray::{ArcArray2, Array2};
use rayon::prelude::*;
use std::cmp::Ordering;

/// The store's key of the BM25 baseline's scores over `bundle` (its parameters included).
pub fn bm25_cache_key(bundle: &Bundle) -> String {
    crate::store::bm25_key(bundle, &format!("k1={} b={}", bm25::K1, bm25::B))
}

/// The id of the lexical baseline.
pub const BM25_ID: &str = "BM25";

/// How a system's scores are made: by one of the bundle's systems under its similarity (an
/// embedding compared by cosine or dot, or a stored score matrix), or by the BM25 baseline over
/// the corpus. Printed as `cos`, `dot`, `score` or `bm25` (the report's `similarity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    Bundle(Similarity),
    Bm25,
}

impl Scoring {
    pub fn as_str(self) -> &'static str {
        match self {
            Scoring::Bundle(s) => s.as_str(),
            Scoring::Bm25 => "bm25",
        }
    }
}

impl std::fmt::Display for Scoring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Scores of one system over the whole bundle.
#[derive(Clone, Debug)]
pub struct SystemScores {
    /// npz file stem, or [`BM25_ID`].
    pub id: String,
    pub similarity: Scoring,
    /// n_queries × n_corpus, shared (cloning a `SystemScores` does not copy the matrix, so
    /// snapshots of a partly scored bundle are cheap). It may be held on disk until first read
    /// (see [`Scores`]).
    pub scores: Scores,
}

/// How a [`Scores`] held on disk is read back (on first use, at most once): the matrix and,
/// when something went wrong on the way (a damaged cache file that had to be scored again), a
/// notice for the front end to show; or why the matrix can be neither read nor computed.
pub type LoadScores = Box<dyn Fn() -> Result<(Array2<f32>, Option<String>), String> + Send + Sync>;

/// Why a score matrix could not be brought into memory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ScoresError(pub String);

/// A score matrix, in memory or in the rank cache until something reads it.
///
/// Reading it is an explicit call ([`Scores::load`]: I/O with a typed error, never a print):
/// an engine opened warm (or one that released its matrices once evaluated) reads a system's
/// scores only when a pane or table asks for a score row; everything the leaderboard needs
/// comes from the evaluation cache ([`Engine::evals`](crate::engine::Engine::evals)). Front
/// ends bring every matrix in up front with
/// [`Engine::load_rows`](crate::engine::Engine::load_rows). Clones share the matrix.
#[derive(Clone)]
pub struct Scores(std::sync::Arc<ScoresInner>);

struct ScoresInner {
    cell: std::sync::OnceLock<ArcArray2<f32>>,
    load: Option<LoadScores>,
    /// Held while loading, so concurrent readers wait for one read instead of each reading.
    loading: std::sync::Mutex<()>,
    /// What the load had to say (see [`LoadScores`]), until taken.
    notice: std::sync::Mutex<Option<String>>,
}

impl Scores {
    fn with(cell: std::sync::OnceLock<ArcArray2<f32>>, load: Option<LoadScores>) -> Scores {
        Scores(std::sync::Arc::new(ScoresInner {
            cell,
            load,
            loading: std::sync::Mutex::new(()),
            notice: std::sync::Mutex::new(None),
        }))
    }

    /// A matrix in memory.
    pub fn ready(m: ArcArray2<f32>) -> Scores {
        let cell = std::sync::OnceLock::new();
        let _ = cell.set(m);
        Scores::with(cell, None)
    }

    /// A matrix read by `load` when first used.
    pub fn deferred(load: LoadScores) -> Scores {
        Scores::with(std::sync::OnceLock::new(), Some(load))
    }

    /// The matrix if it is in memory (read or computed); never reads anything.
    pub fn get(&self) -> Option<&ArcArray2<f32>> {
        self.0.cell.get()
    }

    /// The matrix, read (or computed again) now if it is not in memory yet: the one place a
    /// score matrix is read from the rank cache.
    pub fn load(&self) -> Result<&ArcArray2<f32>, ScoresError> {
        if let Some(m) = self.0.cell.get() {
            return Ok(m);
        }
        let _guard = self.0.loading.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = self.0.cell.get() {
            return Ok(m);
        }
        let m = match &self.0.load {
            Some(load) => {
                let (m, notice) = load().map_err(ScoresError)?;
                if notice.is_some() {
                    *self.0.notice.lock().unwrap_or_else(|e| e.into_inner()) = notice;
                }
                m.into_shared()
            }
            None => ArcArray2::zeros((0, 0)),
        };
        Ok(self.0.cell.get_or_init(|| m))
    }

    /// The matrix for reading rows: [`Scores::load`], whose only failure (the bundle changed on
    /// disk while the engine was open, so its scores can be neither read nor computed again) is
    /// a broken invariant of the engine.
    pub fn matrix(&self) -> &ArcArray2<f32> {
        self.load()
            .unwrap_or_else(|e| panic!("a score matrix of an open engine: {e}"))
    }

    /// The load's notice, once (see [`LoadScores`]).
    pub fn take_notice(&self) -> Option<String> {
        self.0
            .notice
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// The matrix, owned (not copied when this is its only holder and it is in memory).
    pub fn into_array(self) -> Array2<f32> {
        match std::sync::Arc::try_unwrap(self.0) {
            Ok(inner) => match inner.cell.into_inner() {
                Some(m) => m.into_owned(),
                None => Scores::with(std::sync::OnceLock::new(), inner.load)
                    .matrix()
                    .to_owned(),
            },
            Err(shared) => Scores(shared).matrix().to_owned(),
        }
    }

    /// Whether the matrix is in memory (read or computed).
    pub fn is_loaded(&self) -> bool {
        self.0.cell.get().is_some()
    }
}

impl From<Array2<f32>> for Scores {
    fn from(m: Array2<f32>) -> Scores {
        Scores::ready(m.into_shared())
    }
}

impl From<ArcArray2<f32>> for Scores {
    fn from(m: ArcArray2<f32>) -> Scores {
        Scores::ready(m)
    }
}

/// Equal matrices (both read first, see [`Scores::matrix`]; tests compare engines with it).
impl PartialEq for Scores {
    fn eq(&self, other: &Scores) -> bool {
        self.matrix() == other.matrix()
    }
}

impl std::fmt::Debug for Scores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.cell.get() {
            Some(m) => write!(f, "Scores({:?})", m.dim()),
            None => write!(f, "Scores(on disk)"),
        }
    }
}

impl SystemScores {
    /// Query `q`'s scores ([`Scores::matrix`]).
    pub fn row(&self, q: usize) -> &[f32] {
        self.scores
            .matrix()
            .row(q)
            .to_slice()
            .expect("score matrices are standard layout")
    }

    /// One of the bundle's systems (every one but the lexical baseline).
    pub fn is_dense(&self) -> bool {
        match self.similarity {
            Scoring::Bundle(_) => true,
            Scoring::Bm25 => false,
        }
    }
}

/// Options for [`score_all`].
#[derive(Clone, Debug)]
pub struct RankOptions {
    /// Include the BM25 baseline.
    pub bm25: bool,
    /// Store each system's score matrix in the rank cache as soon as it is evaluated, for the
    /// panes that show score rows (the dashboard). When false (a headless report), an opening
    /// through a cache writes no score matrix: each is dropped once evaluated and computed
    /// again from the bundle (then stored) only if something asks for its rows. The numbers are
    /// the same either way.
    pub keep_rows: bool,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions {
            bm25: true,
            keep_rows: true,
        }
    }
}

/// Score every system of the bundle (dense systems in bundle order, then BM25).
pub fn score_all(bundle: &Bundle, opts: &RankOptions) -> Vec<SystemScores> {
    score_all_with(bundle, opts, None, &|_, _, _| {}).0
}

/// Score every system, reading and filling the rank cache when one is given. Systems are scored
/// concurrently (each GEMM is itself parallel, so a small system does not wait for a large one);
/// `done(index, scores, lookup)` is called as each one finishes, from whichever thread finished
/// it. Returns the scores in [`score_all`]'s order and, per system, what the cache lookup found
/// (None without a cache).
pub fn score_all_with(
    bundle: &Bundle,
    opts: &RankOptions,
    cache: Option<&Store>,
    done: &(dyn Fn(usize, &SystemScores, Option<Lookup>) + Sync),
) -> (Vec<SystemScores>, Vec<Option<Lookup>>) {
    let corpora = bundle.systems.iter().map(Corpus::Borrowed).collect();
    score_core(bundle, corpora, opts, cache, done)
}

/// [`score_all_with`], taking every dense system's matrices out of the bundle and dropping each
/// system's as soon as it is scored (or found in the cache), so the matrices and the score
/// matrices are never all in memory at once. Each system's corpus matrix is left empty (0 × d);
/// so are its query vectors (0 × d), unless the bundle has stacked variants (whose analysis
/// reads them).
pub fn score_all_releasing(
    bundle: &mut Bundle,
    opts: &RankOptions,
    cache: Option<&Store>,
    done: &(dyn Fn(usize, &SystemScores, Option<Lookup>) + Sync),
) -> (Vec<SystemScores>, Vec<Option<Lookup>>) {
    let released = release(bundle, cache);
    score_released(bundle, released, opts, cache, done)
}

/// Every dense system's matrices, taken out of a bundle by [`release`] (with their cache keys),
/// to be scored by [`score_released`] while the bundle itself is shared.
pub struct Released(Vec<Corpus<'static>>);

impl Released {
    /// Each system's rank-cache key (None where no cache was given to [`release`]).
    pub fn keys(&self) -> Vec<Option<String>> {
        self.0
            .iter()
            .map(|c| match c {
                Corpus::Owned(_, _, k) => k.clone(),
                Corpus::Borrowed(_) => None,
            })
            .collect()
    }
}

/// A score matrix left in the rank cache under `key` until first read. When no file is stored
/// under the key (an opening that kept no rows, see [`RankOptions::keep_rows`]) or the file was
/// damaged by then (said in the load's notice), the system is scored again from the bundle at
/// `root` (system `id`, or BM25 for None) and the file written.
pub fn deferred_scores(
    cache: Store,
    key: String,
    shape: (usize, usize),
    root: std::path::PathBuf,
    id: Option<String>,
) -> Scores {
    Scores::deferred(Box::new(move || {
        let (found, m) = cache.get(&key, shape);
        if let Some(m) = m {
            return Ok((m, None));
        }
        let name = id.as_deref().unwrap_or(BM25_ID);
        let notice = (found == Lookup::Corrupt).then(|| {
            format!(
                "the rank cache's scores of {name} ({}) are damaged; scored it again from {}",
                cache.path(&key).display(),
                root.display()
            )
        });
        let m = rescore(&root, id.as_deref())
            .map_err(|e| format!("scoring {name} again from {}: {e}", root.display()))?;
        if m.dim() != shape {
            return Err(format!(
                "{} changed while it was open: {name} has another shape",
                root.display()
            ));
        }
        let _ = cache.put(&key, m.view());
        Ok((m, notice))
    }))
}

/// The scores of system `id` (BM25 for None) of the bundle at `root`, read afresh.
fn rescore(root: &std::path::Path, id: Option<&str>) -> Result<Array2<f32>, String> {
    let opts = crate::bundle::LoadOptions {
        verify_checksums: false,
        systems: Some(id.map(|i| vec![i.to_string()]).unwrap_or_default()),
        skip_embeddings: id.is_none(),
    };
    let b = crate::bundle::load(root, &opts).map_err(|e| e.to_string())?;
    match id {
        None => Ok(bm25_system(&b).scores.into_array()),
        Some(i) => b
            .systems
            .iter()
            .find(|s| s.id == i)
            .map(dense_scores)
            .ok_or_else(|| format!("no system {i}")),
    }
}

/// The first half of [`score_all_releasing`]: take the matrices out of the bundle.
pub fn release(bundle: &mut Bundle, cache: Option<&Store>) -> Released {
    // Keys hash in-memory matrices (a bundle without files), so they are taken first.
    let keys: Vec<Option<String>> = bundle
        .systems
        .par_iter()
        .map(|s| cache.map(|_| crate::store::dense_key(bundle, s)))
        .collect();
    let keep_queries = !bundle.stacked.is_empty();
    let corpora: Vec<Corpus<'static>> = bundle
        .systems
        .iter_mut()
        .zip(keys)
        .map(|(s, key)| {
            let d = s.corpus.ncols();
            let m = std::mem::replace(&mut s.corpus, Array2::zeros((0, d)));
            let q = match keep_queries {
                true => None,
                false => Some(std::mem::replace(&mut s.queries, Array2::zeros((0, d)))),
            };
            Corpus::Owned(q, m, key)
        })
        .collect();
    Released(corpora)
}

/// The second half of [`score_all_releasing`]: score the released matrices against `bundle`
/// (the one they were taken from), dropping each system's as soon as it is scored.
pub fn score_released(
    bundle: &Bundle,
    released: Released,
    opts: &RankOptions,
    cache: Option<&Store>,
    done: &(dyn Fn(usize, &SystemScores, Option<Lookup>) + Sync),
) -> (Vec<SystemScores>, Vec<Option<Lookup>>) {
    score_core(bundle, released.0, opts, cache, done)
}

/// A dense system's matrices for scoring: the bundle's own, or taken out of it (the query
/// vectors unless they stay, the corpus matrix, and the cache key, computed before they were
/// taken) to be dropped once scored.
pub(crate) enum Corpus<'a> {
    Borrowed(&'a DenseSystem),
    Owned(Option<Array2<f32>>, Array2<f32>, Option<String>),
}

fn score_core(
    bundle: &Bundle,
    corpora: Vec<Corpus<'_>>,
    opts: &RankOptions,
    cache: Option<&Store>,
    done: &(dyn Fn(usize, &SystemScores, Option<Lookup>) + Sync),
) -> (Vec<SystemScores>, Vec<Option<Lookup>>) {
    let shape = (bundle.queries.len(), bundle.corpus.len());
    let mut tasks: Vec<(usize, Option<Corpus<'_>>)> = corpora
        .into_iter()
        .map(Some)
        .chain(opts.bm25.then_some(None))
        .enumerate()
        .collect();
    // Largest first, so the widest GEMM starts at once and the small ones fill in around it.
    let width = |i: usize| bundle.systems.get(i).map_or(0, |s| s.corpus.ncols());
    tasks.sort_by_key(|t| std::cmp::Reverse(width(t.0)));
    let mut out: Vec<(usize, SystemScores, Option<Lookup>)> = tasks
        .into_par_iter()
        .map(|(i, corpus)| {
            let (id, similarity) = match bundle.systems.get(i) {
                Some(s) => (s.id.clone(), Scoring::Bundle(s.similarity)),
                None => (BM25_ID.to_string(), Scoring::Bm25),
            };
            let key = || match (&corpus, bundle.systems.get(i)) {
                (Some(Corpus::Owned(_, _, Some(k))), _) => k.clone(),
                (_, Some(s)) => crate::store::dense_key(bundle, s),
                (_, None) => bm25_cache_key(bundle),
            };
            let compute = || match (&corpus, bundle.systems.get(i)) {
                (Some(Corpus::Borrowed(s)), _) => dense_scores(s),
                (Some(Corpus::Owned(q, c, _)), Some(s)) => {
                    let q = q.as_ref().unwrap_or(&s.queries);
                    product::product_of(s.similarity, q.view(), c.view())
                }
                _ => bm25_system(bundle).scores.into_array(),
            };
            let (lookup, scores) = match cache {
                None => (None, compute()),
                Some(c) => {
                    let (l, m) = crate::store::get_or_compute(c, &key(), shape, compute);
                    (Some(l), m)
                }
            };
            drop(corpus);
            let s = SystemScores {
                id,
                similarity,
                scores: scores.into(),
            };
            done(i, &s, lookup);
            (i, s, lookup)
        })
        .collect();
    out.sort_by_key(|x| x.0);
    out.into_iter().map(|(_, s, l)| (s, l)).unzip()
}

/// BM25 scores of the bundle's queries against its corpus code (each snippet read in its
/// language).
pub fn bm25_system(bundle: &Bundle) -> SystemScores {
    let queries: Vec<&str> = bundle.queries.iter().map(|q| q.text.as_str()).collect();
    let index = bm25::Bm25Index::of_corpus(&bundle.corpus);
    SystemScores {
        id: BM25_ID.to_string(),
        similarity: Scoring::Bm25,
        scores: index.score_all(&queries).into(),
    }
}

/// The ranking comparator: score descending, then corpus row ascending.
#[inline]
pub fn rank_cmp(row: &[f32], a: u32, b: u32) -> Ordering {
    row[b as usize]
        .total_cmp(&row[a as usize])
        .then_with(|| a.cmp(&b))
}

/// The first `k` corpus rows of a query's ranking (all of them when k ≥ n), in rank order.
///
/// A small k (the usual 1–100) is a single pass keeping the best k seen so far, sorted: a row
/// enters only when it beats the current k-th (it cannot tie it, rows being scanned in ascending
/// order), so almost every row costs one comparison and nothing is allocated but the answer.
/// Larger k selects with `select_nth_unstable` and sorts the prefix.
pub fn top_k(row: &[f32], k: usize) -> Vec<u32> {
    let n = row.len();
    if k == 0 {
        return Vec::new();
    }
    if k <= SCAN_TOP_K && k < n {
        let mut best: Vec<u32> = Vec::with_capacity(k + 1);
        let offer = |best: &mut Vec<u32>, i: usize| {
            let v = row[i];
            if best.len() == k {
                let worst = row[best[k - 1] as usize];
                if v.total_cmp(&worst) != Ordering::Greater {
                    return;
                }
                best.pop();
            }
            let at = best.partition_point(|&b| rank_cmp(row, b, i as u32) == Ordering::Less);
            best.insert(at, i as u32);
        };
        let mut i = 0;
        while i < n {
            // Once k rows are held, skip whole chunks in which every score is below the k-th
            // (`v < worst` implies `total_cmp` Less; a NaN, a tie or ±0 falls through to `offer`):
            // one vector compare per chunk instead of a `total_cmp` per row.
            if best.len() == k && i + SKIP_CHUNK <= n {
                let worst = row[best[k - 1] as usize];
                let chunk: &[f32; SKIP_CHUNK] = row[i..i + SKIP_CHUNK].try_into().unwrap();
                let mut any = false;
                for &v in chunk {
                    any |= v >= worst || v.is_nan();
                }
                if !any {
                    i += SKIP_CHUNK;
                    continue;
                }
                for j in i..i + SKIP_CHUNK {
                    // `worst` only rises within the chunk, so a row below it needs no offer.
                    let v = row[j];
                    if v >= row[best[k - 1] as usize] || v.is_nan() {
                        offer(&mut best, j);
                    }
                }
                i += SKIP_CHUNK;
                continue;
            }
            offer(&mut best, i);
            i += 1;
        }
        return best;
    }
    let mut idx: Vec<u32> = (0..n as u32).collect();
    if k < n {
        idx.select_nth_unstable_by(k - 1, |&a, &b| rank_cmp(row, a, b));
        idx.truncate(k);
    }
    idx.sort_unstable_by(|&a, &b| rank_cmp(row, a, b));
    idx
}

/// Rows [`top_k`] checks at once against its current k-th score.
const SKIP_CHUNK: usize = 16;

/// Up to this k, [`top_k`] scans instead of selecting.
const SCAN_TOP_K: usize = 64;

/// The whole ranking of a query.
pub fn full_order(row: &[f32]) -> Vec<u32> {
    top_k(row, row.len())
}

/// 1-based rank of corpus row `c` under the row tie rule, by counting (O(n), no sort).
pub fn rank_of(row: &[f32], c: usize) -> usize {
    let v = row[c];
    let mut above = 0usize;
    for (i, &s) in row.iter().enumerate() {
        if s > v || (s == v && i < c) {
            above += 1;
        }
    }
    above + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_break_by_row() {
        let row = [0.5f32, 0.9, 0.5, 0.9, 0.1];
        assert_eq!(full_order(&row), vec![1, 3, 0, 2, 4]);
        assert_eq!(top_k(&row, 3), vec![1, 3, 0]);
        assert_eq!(rank_of(&row, 2), 4);
        assert_eq!(rank_of(&row, 1), 1);
        assert!(top_k(&row, 0).is_empty());
        assert_eq!(top_k(&row, 9).len(), 5);
    }

    /// The scanning top-k and the selecting one agree with a full sort, ties and NaN included.
    #[test]
    fn top_k_paths_agree_with_full_sort() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for n in [1usize, 2, 7, 100, 700] {
            for _ in 0..20 {
                // Few distinct values, so ties are everywhere; sometimes a NaN or an infinity.
                let mut row: Vec<f32> = (0..n).map(|_| rng.random_range(0..6) as f32).collect();
                if n > 3 {
                    row[rng.random_range(0..n)] = f32::NAN;
                    row[rng.random_range(0..n)] = f32::NEG_INFINITY;
                }
                let mut all: Vec<u32> = (0..n as u32).collect();
                all.sort_by(|&a, &b| rank_cmp(&row, a, b));
                for k in [1usize, 3, 10, 64, 65, 200, n, n + 5] {
                    assert_eq!(top_k(&row, k), all[..k.min(n)].to_vec(), "n={n} k={k}");
                }
            }
        }
    }

    /// The chunked scan orders +0 above −0 (total order) and finds a late NaN and a late
    /// maximum, as the full sort does.
    #[test]
    fn top_k_chunk_skip_keeps_the_total_order() {
        let mut row = vec![-0.0f32; 70];
        row[37] = 0.0;
        assert_eq!(top_k(&row, 1), vec![37]);
        assert_eq!(top_k(&row, 2), vec![37, 0]);
        let mut row: Vec<f32> = (0..100).map(|i| -(i as f32)).collect();
        row[95] = f32::NAN;
        row[64] = 5.0;
        let mut all: Vec<u32> = (0..100).collect();
        all.sort_by(|&a, &b| rank_cmp(&row, a, b));
        assert_eq!(top_k(&row, 3), all[..3].to_vec());
        assert_eq!(top_k(&row, 3), vec![95, 64, 0]);
    }
}
