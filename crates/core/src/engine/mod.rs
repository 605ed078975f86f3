//! The engine: one loaded bundle with its PASS truth, every system's scores and evaluations.
//!
//! This is the single core result both front ends read: `report` renders tables from it and the
//! dashboard draws from it, so the two never compute a number differently.

use crate::bundle::{self, Bundle};
use crate::metrics::cache::{self as eval_cache, Evaluated, FALLBACK_DEPTH};
use crate::metrics::{evaluate, evaluate_full, EvalConfig, PassSource, SystemEval, Truth};
use crate::rank::{self, RankOptions, SystemScores};
use crate::store::{Lookup, Store};
use std::sync::Arc;

mod open;

/// Options for opening a bundle.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    pub rank: RankOptions,
    pub eval: EvalConfig,
}

/// A bundle with everything computed from it.
///
/// Every field is private: readers go through the accessors, and the only ways to change an
/// engine are [`Engine::reevaluate`] and [`Engine::execute_missing`]. The bundle, truth and scores
/// are shared behind `Arc`s, so [`Engine::with_config`] makes a re-evaluated snapshot without
/// copying them (the dashboard swaps snapshots instead of mutating an engine its jobs still read).
#[derive(Clone)]
pub struct Engine {
    bundle: Arc<Bundle>,
    /// Execution-cache lookups by (query, snippet) row.
    cache: Arc<bundle::CacheIndex>,
    truth: Arc<Truth>,
    scores: Arc<Vec<SystemScores>>,
    evals: Vec<SystemEval>,
    /// The settings of the current evaluation, kept as given (never inferred from the results:
    /// a bundle with no systems still reports the policy and cutoffs it was asked for).
    config: EvalConfig,
    /// Whether the BM25 baseline was scored.
    bm25: bool,
    /// Pairs `--execute` could not run (query id, corpus id, error), reported by the CLI.
    execution_failures: Vec<ExecutionFailure>,
    /// Per system (like `scores`): what the rank-cache lookup found (None when scored without a
    /// cache).
    rank_lookups: Vec<Option<Lookup>>,
    /// Where evaluations are cached, when the engine was opened through a rank cache.
    eval_cache: Option<EvalCache>,
    /// Per system, under the current settings: exec@1 under the three tie orders and the label
    /// fallbacks in the top [`FALLBACK_DEPTH`], when evaluated with them (see [`Evaluated`]).
    extras: Vec<Option<([f64; 3], usize)>>,
    /// Per system: what the evaluation-cache lookup of the current settings found.
    eval_lookups: Vec<Option<Lookup>>,
    /// What went wrong and was repaired on the way (a damaged cache entry recomputed), for the
    /// front end to show: the core never prints. Shared by the snapshots of one engine.
    notices: Arc<std::sync::Mutex<Vec<String>>>,
}

/// The evaluation cache of an engine: its directory, each system's rank-cache key (in the order
/// of `Engine::scores`) and the digest of the labels and verdicts the evaluation reads.
#[derive(Clone)]
struct EvalCache {
    cache: Store,
    score_keys: Vec<String>,
    context: [u8; 32],
}

/// A (query, snippet) pair the oracle failed to execute; its verdict stays the label fallback.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecutionFailure {
    pub query_id: String,
    pub corpus_id: String,
    pub error: String,
}

/// A system whose scores are ready, reported while an engine is built.
pub struct Scored<'a> {
    /// Index into `Engine::scores`.
    pub index: usize,
    /// Dense systems plus BM25.
    pub total: usize,
    pub scores: &'a SystemScores,
    pub lookup: Option<Lookup>,
    /// The engine being built, for [`Scored::snapshot`] (None where no snapshot is offered).
    stage: Option<&'a Stage<'a>>,
}

/// What an engine under construction has so far (see [`Scored::snapshot`]).
struct Stage<'a> {
    bundle: &'a Arc<Bundle>,
    truth: &'a Arc<Truth>,
    cache: &'a Arc<bundle::CacheIndex>,
    opts: &'a EngineOptions,
    /// Per system index: its scores, lookup and (once a snapshot needed it) evaluation.
    done: &'a std::sync::Mutex<Vec<Option<Finished>>>,
}

type Finished = (SystemScores, Option<Lookup>, Option<SystemEval>);

impl Scored<'_> {
    /// An engine of the systems scored so far (in the final engine's order, with those not yet
    /// scored left out), evaluated under the engine's settings: what a front end can show while
    /// the rest is scored. Shares the bundle, truth and score matrices (nothing large is
    /// copied); each system is evaluated once however many snapshots include it. None when the
    /// engine is not built in stages (a warm open, whose systems all arrive at once).
    pub fn snapshot(&self) -> Option<Engine> {
        let st = self.stage?;
        let mut done = st.done.lock().unwrap_or_else(|e| e.into_inner());
        let (mut scores, mut evals, mut lookups) = (Vec::new(), Vec::new(), Vec::new());
        for (s, l, e) in done.iter_mut().flatten() {
            let e = e.get_or_insert_with(|| evaluate(st.bundle, st.truth, s, &st.opts.eval));
            scores.push(s.clone());
            evals.push(e.clone());
            lookups.push(*l);
        }
        Some(Engine {
            bundle: st.bundle.clone(),
            cache: st.cache.clone(),
            truth: st.truth.clone(),
            scores: Arc::new(scores),
            evals,
            config: st.opts.eval.clone(),
            bm25: st.opts.rank.bm25,
            execution_failures: Vec::new(),
            extras: vec![None; lookups.len()],
            eval_lookups: vec![None; lookups.len()],
            rank_lookups: lookups,
            eval_cache: None,
            notices: Arc::default(),
        })
    }
}

impl Engine {
    /// Compute rankings and metrics for an in-memory bundle.
    pub fn from_bundle(bundle: Bundle, opts: &EngineOptions) -> Engine {
        Engine::from_bundle_with(bundle, opts, None, &|_| {})
    }

    /// [`Engine::from_bundle`] through a rank cache (a hit replaces the system's GEMM or BM25 by
    /// a checked read), reporting each system as its scores are ready.
    ///
    /// Each dense system's corpus matrix is dropped once the system is scored (nothing after
    /// ranking reads it; its scores hold all it gives), so `bundle.systems[i].corpus` of an
    /// engine is empty (0 × d); the query matrices stay.
    pub fn from_bundle_with(
        mut bundle: Bundle,
        opts: &EngineOptions,
        cache: Option<&Store>,
        progress: &(dyn Fn(Scored<'_>) + Sync),
    ) -> Engine {
        let total = bundle.systems.len() + usize::from(opts.rank.bm25);
        let cache_index = bundle::CacheIndex::build(&bundle);
        let truth = Arc::new(Truth::from_index(&bundle, &cache_index));
        let released = rank::release(&mut bundle, cache);
        let ec = cache.and_then(|c| {
            let mut keys: Vec<String> = released.keys().into_iter().collect::<Option<_>>()?;
            if opts.rank.bm25 {
                keys.push(crate::rank::bm25_cache_key(&bundle));
            }
            Some(EvalCache {
                cache: c.clone(),
                context: eval_cache::context_digest(&bundle, &truth),
                score_keys: keys,
            })
        });
        let bundle = Arc::new(bundle);
        let cache_index = Arc::new(cache_index);
        let done = std::sync::Mutex::new(vec![None; total]);
        let stage = Stage {
            bundle: &bundle,
            truth: &truth,
            cache: &cache_index,
            opts,
            done: &done,
        };
        let (scores, rank_lookups) = rank::score_released(
            &bundle,
            released,
            &opts.rank,
            cache,
            &|index, scores, lookup| {
                if let Some(slot) = stage
                    .done
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_mut(index)
                {
                    *slot = Some((scores.clone(), lookup, None));
                }
                progress(Scored {
                    index,
                    total,
                    scores,
                    lookup,
                    stage: Some(&stage),
                })
            },
        );
        let _ = stage;
        Engine::assemble_shared(bundle, truth, cache_index, scores, rank_lookups, ec, opts)
    }

    fn assemble_shared(
        bundle: Arc<Bundle>,
        truth: Arc<Truth>,
        cache: Arc<bundle::CacheIndex>,
        scores: Vec<SystemScores>,
        rank_lookups: Vec<Option<Lookup>>,
        eval_cache: Option<EvalCache>,
        opts: &EngineOptions,
    ) -> Engine {
        let n = scores.len();
        let mut engine = Engine {
            cache,
            bundle,
            truth,
            scores: Arc::new(scores),
            evals: Vec::new(),
            config: opts.eval.clone(),
            bm25: opts.rank.bm25,
            execution_failures: Vec::new(),
            rank_lookups,
            eval_cache,
            extras: vec![None; n],
            eval_lookups: vec![None; n],
            notices: Arc::default(),
        };
        engine.reevaluate(&opts.eval);
        engine
    }

    /// Recompute every system's metrics under a new configuration (policy, ks, eps).
    pub fn reevaluate(&mut self, cfg: &EvalConfig) {
        let (evals, extras, lookups) = self.evaluate_cached(cfg);
        self.evals = evals;
        self.extras = extras;
        self.eval_lookups = lookups;
        self.config = cfg.clone();
    }

    /// A snapshot of this engine re-evaluated under `cfg` (the bundle, truth and scores are
    /// shared, not copied); `self` is left as it was.
    pub fn with_config(&self, cfg: &EvalConfig) -> Engine {
        let (evals, extras, eval_lookups) = self.evaluate_cached(cfg);
        Engine {
            bundle: self.bundle.clone(),
            cache: self.cache.clone(),
            truth: self.truth.clone(),
            scores: self.scores.clone(),
            evals,
            config: cfg.clone(),
            bm25: self.bm25,
            execution_failures: self.execution_failures.clone(),
            rank_lookups: self.rank_lookups.clone(),
            eval_cache: self.eval_cache.clone(),
            extras,
            eval_lookups,
            notices: self.notices.clone(),
        }
    }

    /// Every system evaluated under `cfg`: through the evaluation cache when the engine has one
    /// (a hit reads the stored evaluation and never touches the scores; a miss or a damaged
    /// entry computes it with the leaderboard's extra columns and stores it), else computed.
    #[allow(clippy::type_complexity)]
    fn evaluate_cached(
        &self,
        cfg: &EvalConfig,
    ) -> (
        Vec<SystemEval>,
        Vec<Option<([f64; 3], usize)>>,
        Vec<Option<Lookup>>,
    ) {
        let Some(ec) = &self.eval_cache else {
            let n = self.scores.len();
            return (self.evaluate_uncached(cfg), vec![None; n], vec![None; n]);
        };
        let nq = self.bundle.queries.len();
        let mut out = (Vec::new(), Vec::new(), Vec::new());
        for (s, sk) in self.scores.iter().zip(&ec.score_keys) {
            let key = eval_cache::key(sk, &ec.context, cfg);
            let (lookup, hit) = eval_cache::get(&ec.cache, &key, nq, cfg.ks.len());
            let e: Evaluated = hit.unwrap_or_else(|| {
                let e = evaluate_full(&self.bundle, &self.truth, s, cfg);
                // A cache that cannot be written only costs the next run time.
                let _ = eval_cache::put(&ec.cache, &key, &e);
                e
            });
            out.0.push(e.system_eval(&s.id, s.similarity, cfg));
            out.1.push(Some((e.exec1_bounds, e.label_fallbacks)));
            out.2.push(Some(lookup));
        }
        out
    }

    fn evaluate_uncached(&self, cfg: &EvalConfig) -> Vec<SystemEval> {
        self.scores
            .iter()
            .map(|s| evaluate(&self.bundle, &self.truth, s, cfg))
            .collect()
    }

    /// A result computed from every system's evaluation under the current settings (and from
    /// `what`, the bytes of whatever else it depends on), through the engine's cache when it has
    /// one: the stored value when a checked entry of kind `kind` exists and `decode` accepts it,
    /// else `compute()`, stored with `encode`. A damaged entry is recomputed, rewritten and said
    /// in a notice ([`Engine::take_notices`]). The key covers every system's evaluation key in order (so any change to a
    /// score, verdict, label or setting misses) and `what`.
    pub fn memoized<T>(
        &self,
        kind: &str,
        what: &[u8],
        compute: impl FnOnce() -> T,
        encode: impl FnOnce(&T) -> Vec<u8>,
        decode: impl FnOnce(&[u8]) -> Option<T>,
    ) -> T {
        use sha2::{Digest, Sha256};
        let Some(ec) = &self.eval_cache else {
            return compute();
        };
        let mut h = Sha256::new();
        h.update(b"execscope-derived-1\0");
        h.update((kind.len() as u64).to_le_bytes());
        h.update(kind.as_bytes());
        h.update((self.scores.len() as u64).to_le_bytes());
        for sk in &ec.score_keys {
            h.update(eval_cache::key(sk, &ec.context, &self.config).as_bytes());
        }
        h.update((what.len() as u64).to_le_bytes());
        h.update(what);
        let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let (lookup, bytes) = ec.cache.get_blob(kind, &key);
        if let Some(v) = bytes.as_deref().and_then(decode) {
            return v;
        }
        if lookup != Lookup::Miss {
            self.notice(format!(
                "a damaged {kind} cache entry was ignored, recomputed and rewritten"
            ));
        }
        let v = compute();
        let _ = ec.cache.put_blob(kind, &key, &encode(&v));
        v
    }

    fn notice(&self, text: String) {
        self.notices
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }

    /// What went wrong and was repaired since the last call (damaged cache entries recomputed,
    /// score matrices scored again), oldest first, each once: the front end shows them (the CLI
    /// as warnings on stderr, the dashboard in its status bar).
    pub fn take_notices(&self) -> Vec<String> {
        let mut out = std::mem::take(&mut *self.notices.lock().unwrap_or_else(|e| e.into_inner()));
        out.extend(self.scores.iter().filter_map(|s| s.scores.take_notice()));
        out
    }

    /// Bring every system's score matrix into memory now (read from the rank cache, or scored
    /// again where it holds none), so that later row reads do no I/O: the explicit place a front
    /// end pays for the rows (the dashboard in a background job, the CLI before the tables that
    /// read rows).
    pub fn load_rows(&self) -> Result<(), rank::ScoresError> {
        for s in self.scores.iter() {
            s.scores.load()?;
        }
        Ok(())
    }

    /// Per system (like [`Engine::scores`]): what the evaluation-cache lookup of the current
    /// settings found (None when evaluated without a cache).
    pub fn eval_lookups(&self) -> &[Option<Lookup>] {
        &self.eval_lookups
    }

    /// The loaded bundle. Each dense system's corpus matrix is empty (0 × d) once it is scored.
    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    /// Execution-cache lookups by (query, snippet) row.
    pub fn cache_index(&self) -> &bundle::CacheIndex {
        &self.cache
    }

    /// The PASS verdict of every (query, snippet) pair and where it came from.
    pub fn truth(&self) -> &Truth {
        &self.truth
    }

    /// Every system's scores: dense systems in bundle order, then BM25.
    pub fn scores(&self) -> &[SystemScores] {
        &self.scores
    }

    /// Every system's evaluation under [`Engine::config`], in the order of [`Engine::scores`].
    pub fn evals(&self) -> &[SystemEval] {
        &self.evals
    }

    /// Per system (like [`Engine::scores`]): what the rank-cache lookup found (None when scored
    /// without a cache).
    pub fn rank_lookups(&self) -> &[Option<Lookup>] {
        &self.rank_lookups
    }

    /// Evaluate every system under `cfg` without changing the engine's current results.
    pub fn evaluate_all(&self, cfg: &EvalConfig) -> Vec<SystemEval> {
        match self.eval_cache {
            Some(_) => self.evaluate_cached(cfg).0,
            None => self.evaluate_uncached(cfg),
        }
    }

    /// The settings of the current evaluation, exactly as the engine was given them.
    pub fn config(&self) -> EvalConfig {
        self.config.clone()
    }

    /// Whether the BM25 baseline is among the systems.
    pub fn includes_bm25(&self) -> bool {
        self.bm25
    }

    /// Pairs the last [`Engine::execute_missing`] could not execute.
    pub fn execution_failures(&self) -> &[ExecutionFailure] {
        &self.execution_failures
    }

    pub fn system_index(&self, id: &str) -> Option<usize> {
        self.scores.iter().position(|s| s.id == id)
    }

    /// exec@1 of every system under the pessimistic, expected and optimistic tie policies.
    pub fn exec1_bounds(&self) -> Vec<[f64; 3]> {
        if let Some(v) = self.extras.iter().map(|x| x.map(|x| x.0)).collect() {
            return v;
        }
        let eps = self.config().tie_eps;
        self.scores
            .iter()
            .map(|s| crate::metrics::exec_at_policies(&self.bundle, &self.truth, s, eps, 1))
            .collect()
    }

    /// Run the oracle on every (query, snippet) pair that some system ranks in its top `depth` (or
    /// that is the query's own canonical or paired distractor) and that the cache does not hold;
    /// merge the verdicts into the truth and re-evaluate. Returns the new cache rows (keyed in the
    /// bundle's detected encoding) so a caller may append them to the bundle's cache file. Pairs
    /// the oracle fails to run keep their label verdict and are listed in
    /// [`Engine::execution_failures`]; the CLI reports them and exits non-zero.
    pub fn execute_missing(
        &mut self,
        oracle: &dyn execscope_record::Runner,
        depth: usize,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<crate::bundle::ExecRecord> {
        use std::collections::BTreeSet;
        let b = &self.bundle;
        let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
        for (q, query) in b.queries.iter().enumerate() {
            for &c in query.correct.iter().chain(&query.paired) {
                pairs.insert((q, c));
            }
            for s in self.scores.iter() {
                for c in rank::top_k(s.row(q), depth) {
                    pairs.insert((q, c as usize));
                }
            }
        }
        let missing: Vec<(usize, usize)> = pairs
            .into_iter()
            .filter(|&(q, c)| self.truth.source(q, c) == PassSource::Label)
            .collect();
        let jobs: Vec<execscope_record::Job> = missing.iter().map(|&(q, c)| b.job(q, c)).collect();
        let total = jobs.len();
        let results = oracle.run_pairs(&jobs, &|done| progress(done, total));
        let runner = oracle.runner_string();
        let mut rows = Vec::new();
        self.execution_failures.clear();
        for ((q, c), r) in missing.into_iter().zip(results) {
            let r = match r {
                Ok(r) => r,
                Err(e) => {
                    self.execution_failures.push(ExecutionFailure {
                        query_id: b.queries[q].id.clone(),
                        corpus_id: b.corpus[c].id.clone(),
                        error: e.to_string(),
                    });
                    continue;
                }
            };
            let ok = r.passes_all();
            rows.push(crate::bundle::ExecRecord {
                code_sha256: self.cache.code_hash[c].clone(),
                tests_sha256: self.cache.tests_hash[q].clone(),
                outcomes: r.outcomes.iter().map(ToString::to_string).collect(),
                passes_all_tests: ok,
                runner: runner.clone(),
            });
            Arc::make_mut(&mut self.truth).set(q, c, ok);
        }
        let b = Arc::make_mut(&mut self.bundle);
        b.cache.extend(rows.iter().cloned());
        self.cache = Arc::new(bundle::CacheIndex::build(b));
        if let Some(ec) = &mut self.eval_cache {
            ec.context = eval_cache::context_digest(&self.bundle, &self.truth);
        }
        let cfg = self.config();
        self.reevaluate(&cfg);
        rows
    }

    /// Per system: how many (query, snippet) pairs in the top `k` got their PASS verdict from the
    /// label fallback instead of the execution cache.
    pub fn label_fallbacks_in_top(&self, k: usize) -> Vec<usize> {
        if k == FALLBACK_DEPTH {
            if let Some(v) = self.extras.iter().map(|x| x.map(|x| x.1)).collect() {
                return v;
            }
        }
        self.scores
            .iter()
            .map(|s| crate::metrics::label_fallbacks(&self.truth, s, k))
            .collect()
    }
}

/// The bundle-relative path of system `id`'s npz file.
fn npz_rel(id: &str) -> String {
    format!("{}/{id}.npz", bundle::files::EMBEDDINGS)
}
