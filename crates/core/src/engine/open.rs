//! Opening a bundle: the cold path (each system scored as its file is read), the warm path
//! (everything from the rank and evaluation caches, no matrix read) and the choice between them.

use crate::bundle::{self, Bundle};
use crate::bundle::{DenseSystem, Similarity};
use crate::metrics::cache as eval_cache;
use crate::metrics::{evaluate_full, Truth};
use crate::rank::{self, SystemScores};
use crate::store::memo::{self, StatKey};
use crate::store::{Lookup, Store};
use ndarray::Array2;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{npz_rel, Engine, EngineOptions, EvalCache, Finished, Scored, Stage};

impl Engine {
    /// Load a bundle from disk and compute every ranking and metric.
    pub fn open(root: &Path, opts: &EngineOptions) -> Result<Engine, bundle::BundleError> {
        Engine::open_with(root, opts, None, &|_| {})
    }

    /// [`Engine::open`] through a rank cache, reporting each system as its scores are ready.
    ///
    /// With a cache, a bundle whose every npz file is unchanged since an earlier open (same stat
    /// key, see [`crate::store::memo`]) and whose every system's scores are cached opens *warm*: the
    /// matrices are neither read nor hashed (their remembered SHA-256 stands in for them, also
    /// against `SHA256SUMS`), and `bundle().systems` then hold no matrices (0 × 0). Anything
    /// else (a changed file, a missing or corrupt cache entry, stacked variants, whose analysis
    /// needs the query vectors) takes the full path, which also refreshes the memo.
    pub fn open_with(
        root: &Path,
        opts: &EngineOptions,
        cache: Option<&Store>,
        progress: &(dyn Fn(Scored<'_>) + Sync),
    ) -> Result<Engine, bundle::BundleError> {
        if let Some(c) = cache {
            if let Some(e) = Engine::open_warm(root, opts, c, progress) {
                return Ok(e);
            }
        }
        let before: Vec<(String, PathBuf, Option<StatKey>)> = match cache {
            Some(_) => bundle::load::npz_files(root)
                .unwrap_or_default()
                .into_iter()
                .map(|(id, path)| {
                    let k = StatKey::of(&path);
                    (id, path, k)
                })
                .collect(),
            None => Vec::new(),
        };
        let streamed = match root.join(bundle::stacked::STACKED).exists() {
            true => None,
            false => Some(Engine::load_scoring(root, opts, cache, progress)?),
        };
        let bundle = match &streamed {
            Some(s) => s.bundle.clone(),
            None => Arc::new(bundle::load(root, &bundle::LoadOptions::default())?),
        };
        if let Some(c) = cache {
            // Remember each matrix file's hash under its stat key, if the file did not change
            // while it was read.
            for (id, path, key) in &before {
                let (Some(key), Some(sha)) = (key, bundle.sha256.get(&npz_rel(id))) else {
                    continue;
                };
                if StatKey::of(path).as_ref() == Some(key) {
                    let _ = memo::remember(c, path, key, sha);
                }
            }
            let _ = c.put_notes(&crate::store::notes_key(&bundle.sha256), &bundle.notes);
        }
        if let Some(s) = streamed {
            return Ok(s);
        }
        let bundle = Arc::try_unwrap(bundle).unwrap_or_else(|b| (*b).clone());
        Ok(Engine::from_bundle_with(bundle, opts, cache, progress))
    }

    /// The full open of a bundle without stacked variants: each system is scored as soon as its
    /// file is read (reading and scoring of different systems overlap), and its matrices are
    /// dropped at once, so only the systems being read or scored have matrices in memory. With a
    /// cache, each system is also evaluated under `opts` right after it is scored and its score
    /// matrix left in the rank cache (read back only if a pane asks for its rows), so the score
    /// matrices are never all in memory either. The numbers are those of
    /// [`Engine::from_bundle_with`] over the whole loaded bundle.
    fn load_scoring(
        root: &Path,
        opts: &EngineOptions,
        cache: Option<&Store>,
        progress: &(dyn Fn(Scored<'_>) + Sync),
    ) -> Result<Engine, bundle::BundleError> {
        struct Ctx {
            bundle: Arc<Bundle>,
            truth: Arc<Truth>,
            index: Arc<bundle::CacheIndex>,
            context: [u8; 32],
            total: usize,
            done: std::sync::Mutex<Vec<Option<Finished>>>,
        }
        // Scores, rank-cache lookup, rank-cache key, evaluation-cache lookup.
        type PerSystem = (SystemScores, Option<Lookup>, Option<String>, Option<Lookup>);
        let shape_of = |b: &Bundle| (b.queries.len(), b.corpus.len());
        let prepare = |b: &Bundle| {
            let index = bundle::CacheIndex::build(b);
            let truth = Truth::from_index(b, &index);
            let total =
                bundle::load::npz_files(root).map_or(0, |f| f.len()) + usize::from(opts.rank.bm25);
            Ctx {
                context: eval_cache::context_digest(b, &truth),
                bundle: Arc::new(b.clone()),
                truth: Arc::new(truth),
                index: Arc::new(index),
                total,
                done: std::sync::Mutex::new(vec![None; total]),
            }
        };
        let each = |ctx: &Ctx, i: usize, sys: DenseSystem, sha: &str| -> (DenseSystem, PerSystem) {
            let shape = shape_of(&ctx.bundle);
            let key = cache.map(|_| crate::store::dense_file_key(&ctx.bundle, sys.similarity, sha));
            let compute = || rank::dense_scores(&sys);
            // A stored matrix spares the GEMM; a computed one is stored (if rows are kept)
            // only once the system is evaluated and reported, so its row shows first.
            let (lookup, m) = match (cache, &key) {
                (Some(c), Some(k)) => match c.get(k, shape) {
                    (l, Some(m)) => (Some(l), m),
                    (l, None) => (Some(l), compute()),
                },
                _ => (None, compute()),
            };
            let d = sys.corpus.ncols();
            let placeholder = DenseSystem {
                id: sys.id.clone(),
                similarity: sys.similarity,
                queries: Array2::zeros((0, d)),
                corpus: Array2::zeros((0, d)),
                invocation: sys.invocation.clone(),
            };
            bundle::npy::recycle(sys.queries);
            bundle::npy::recycle(sys.corpus);
            let mut s = SystemScores {
                id: placeholder.id.clone(),
                similarity: rank::Scoring::Bundle(placeholder.similarity),
                scores: m.into(),
            };
            let (mut eval, mut eval_lookup) = (None, None);
            if let (Some(c), Some(k)) = (cache, &key) {
                let ekey = eval_cache::key(k, &ctx.context, &opts.eval);
                let (l, hit) = eval_cache::get(c, &ekey, shape.0, opts.eval.ks.len());
                eval_lookup = Some(l);
                let e = hit.unwrap_or_else(|| {
                    let e = evaluate_full(&ctx.bundle, &ctx.truth, &s, &opts.eval);
                    let _ = eval_cache::put(c, &ekey, &e);
                    e
                });
                eval = Some(e.system_eval(&s.id, s.similarity, &opts.eval));
            }
            let stored = lookup == Some(Lookup::Hit);
            if let Some(slot) = ctx
                .done
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get_mut(i)
            {
                *slot = Some((s.clone(), lookup, eval));
            }
            let stage = Stage {
                bundle: &ctx.bundle,
                truth: &ctx.truth,
                cache: &ctx.index,
                opts,
                done: &ctx.done,
            };
            progress(Scored {
                index: i,
                total: ctx.total,
                scores: &s,
                lookup,
                stage: Some(&stage),
            });
            // Evaluated: the matrix leaves memory for the rank cache (stored now when rows are
            // kept, else computed again should a pane ask for its rows).
            if let (Some(c), Some(k)) = (cache, &key) {
                let kept =
                    stored || !opts.rank.keep_rows || c.put(k, s.scores.matrix().view()).is_ok();
                if kept {
                    let lazy = rank::deferred_scores(
                        c.clone(),
                        k.clone(),
                        shape,
                        root.into(),
                        Some(s.id.clone()),
                    );
                    s.scores = lazy.clone();
                    if let Some(Some(slot)) = ctx
                        .done
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .get_mut(i)
                    {
                        slot.0.scores = lazy;
                    }
                }
            }
            (placeholder, (s, lookup, key, eval_lookup))
        };
        let loaded =
            bundle::load::load_streaming(root, &bundle::LoadOptions::default(), prepare, &each);
        bundle::npy::release();
        let (b, per_system) = loaded?;
        let b = Arc::new(b);
        let index = Arc::new(bundle::CacheIndex::build(&b));
        let truth = Arc::new(Truth::from_index(&b, &index));
        let (mut scores, mut lookups, mut keys, mut first) = (vec![], vec![], vec![], vec![]);
        for (s, l, k, e) in per_system {
            scores.push(s);
            lookups.push(l);
            keys.push(k);
            first.push(e);
        }
        if opts.rank.bm25 {
            let shape = shape_of(&b);
            let (l, m, k) = match cache {
                Some(c) => {
                    let k = crate::rank::bm25_cache_key(&b);
                    let bm25 = || rank::bm25_system(&b).scores.into_array();
                    let (l, m) = match opts.rank.keep_rows {
                        true => crate::store::get_or_compute(c, &k, shape, bm25),
                        false => match c.get(&k, shape) {
                            (l, Some(m)) => (l, m),
                            (l, None) => (l, bm25()),
                        },
                    };
                    (Some(l), m, Some(k))
                }
                None => (None, rank::bm25_system(&b).scores.into_array(), None),
            };
            let s = SystemScores {
                id: rank::BM25_ID.to_string(),
                similarity: rank::Scoring::Bm25,
                scores: m.into(),
            };
            progress(Scored {
                index: scores.len(),
                total: scores.len() + 1,
                scores: &s,
                lookup: l,
                stage: None,
            });
            scores.push(s);
            lookups.push(l);
            keys.push(k);
        }
        let ec = cache.and_then(|c| {
            Some(EvalCache {
                cache: c.clone(),
                context: eval_cache::context_digest(&b, &truth),
                score_keys: keys.into_iter().collect::<Option<_>>()?,
            })
        });
        let mut engine = Engine::assemble_shared(b, truth, index, scores, lookups, ec, opts);
        // What the lookup made right after scoring found (the assembly's own finds that entry).
        for (slot, l) in engine.eval_lookups.iter_mut().zip(first) {
            if l.is_some() {
                *slot = l;
            }
        }
        Ok(engine)
    }

    /// The warm open of [`Engine::open_with`], or None when the full path must run.
    fn open_warm(
        root: &Path,
        opts: &EngineOptions,
        cache: &Store,
        progress: &(dyn Fn(Scored<'_>) + Sync),
    ) -> Option<Engine> {
        let files = bundle::load::npz_files(root).ok()?;
        let mut shas = Vec::with_capacity(files.len());
        for (_, path) in &files {
            shas.push(memo::lookup(cache, path, &StatKey::of(path)?)?);
        }
        if root.join(bundle::stacked::STACKED).exists() {
            return None;
        }
        let lo = bundle::LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        };
        let mut b = bundle::load(root, &lo).ok()?;
        if !b.stacked.is_empty() {
            return None;
        }
        let mut sha = b.sha256.clone();
        let table = bundle::load::invocation_table(root, &mut sha).ok()?;
        for ((id, _), h) in files.iter().zip(&shas) {
            sha.insert(npz_rel(id), h.clone());
        }
        if root.join(bundle::files::SUMS).exists() {
            let problems = bundle::files::verify_sums_with(root, &sha).ok()?;
            if !problems.is_empty() {
                return None;
            }
        }
        b.notes = cache.get_notes(&crate::store::notes_key(&sha))?;
        b.sha256 = sha;
        for (id, _) in &files {
            let inv = table.get(id);
            let similarity = inv.map_or(Similarity::Cos, |i| i.similarity);
            b.systems.push(DenseSystem {
                id: id.clone(),
                similarity,
                queries: Array2::zeros((0, 0)),
                corpus: Array2::zeros((0, 0)),
                invocation: inv.cloned(),
            });
        }
        let shape = (b.queries.len(), b.corpus.len());
        let total = b.systems.len() + usize::from(opts.rank.bm25);
        // Every score matrix must be in the cache (checked by length here, by checksum when
        // read); none is read now: each stays on disk until a pane asks for its rows.
        let mut keys: Vec<String> = b
            .systems
            .iter()
            .map(|s| crate::store::dense_key(&b, s))
            .collect();
        if opts.rank.bm25 {
            keys.push(crate::rank::bm25_cache_key(&b));
        }
        let cache_index = bundle::CacheIndex::build(&b);
        let truth = Truth::from_index(&b, &cache_index);
        let context = eval_cache::context_digest(&b, &truth);
        // Each system needs its stored scores or its stored evaluation under these settings
        // (a report stores no scores; an engine re-evaluated under new settings reads them).
        let stored = |k: &String| {
            cache.has(k, shape) || eval_cache::has(cache, &eval_cache::key(k, &context, &opts.eval))
        };
        if !keys.iter().all(stored) {
            return None;
        }
        let mut scores = Vec::with_capacity(total);
        for (i, key) in keys.iter().enumerate() {
            let sys = b.systems.get(i);
            let s = SystemScores {
                id: sys.map_or_else(|| rank::BM25_ID.to_string(), |s| s.id.clone()),
                similarity: sys
                    .map_or(rank::Scoring::Bm25, |s| rank::Scoring::Bundle(s.similarity)),
                scores: rank::deferred_scores(
                    cache.clone(),
                    key.clone(),
                    shape,
                    b.root.clone(),
                    sys.map(|s| s.id.clone()),
                ),
            };
            progress(Scored {
                index: i,
                total,
                scores: &s,
                lookup: Some(Lookup::Hit),
                stage: None,
            });
            scores.push(s);
        }
        let lookups = vec![Some(Lookup::Hit); scores.len()];
        let ec = EvalCache {
            cache: cache.clone(),
            context,
            score_keys: keys,
        };
        Some(Engine::assemble_shared(
            Arc::new(b),
            Arc::new(truth),
            Arc::new(cache_index),
            scores,
            lookups,
            Some(ec),
            opts,
        ))
    }
}
