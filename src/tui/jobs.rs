//! Heavy work off the UI thread: loading the engine, building the leaderboard, its bootstrap
//! intervals and the failure anatomy, indexing the corpus for live BM25 queries, and the
//! retrieval audit of one system (which may start the oracle), and the test-suite strength its
//! build report records.
//!
//! The app only *asks* for work (it queues [`Job`]s); `run.rs` executes each on its own thread and
//! sends the [`JobResult`] back through a channel, while tests execute them inline. Results carry
//! the generation of the evaluation they were computed for, so a result that arrives after the tie
//! policy changed again is dropped instead of shown.

use crate::analysis::significance::{SigConfig, Significance};
use crate::analysis::suites::SuiteStrength;
use crate::audit::account::AuditConfig;
use crate::audit::retrieval::RetrievalSpec;
use crate::audit::view::AuditView;
use crate::audit::{AuditError, AuditRun};
use crate::bundle::{BundleError, CheckReport};
use crate::engine::{Engine, EngineOptions};
use crate::oracle::OracleConfig;
use crate::rank::bm25::Bm25Index;
use crate::rank::ScoresError;
use crate::store::Store;
use crate::view::{AnatomyView, Leaderboard};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Lookups the browser needs per frame, computed once per bundle (cache lookups are the
/// engine's own `CacheIndex`).
#[derive(Debug, Default)]
pub struct CorpusIndex {
    /// Corpus id → row of `bundle.distractors`.
    pub distractor: HashMap<String, usize>,
}

impl CorpusIndex {
    pub fn build(engine: &Engine) -> CorpusIndex {
        let b = engine.bundle();
        CorpusIndex {
            distractor: b
                .distractors
                .iter()
                .enumerate()
                .map(|(i, d)| (d.corpus_id.clone(), i))
                .collect(),
        }
    }

    /// Cached per-test outcomes of snippet `c` on query `q`'s suite, if the cache holds the pair.
    pub fn outcomes<'e>(&self, engine: &'e Engine, q: usize, c: usize) -> Option<&'e [String]> {
        engine.cache_index().outcomes(engine.bundle(), q, c)
    }
}

/// What the suite-strength job found: the core's rows, no build report (`Ok(None)`), or why the
/// report could not be read.
pub type SuitesResult = Result<Option<SuiteStrength>, BundleError>;

/// The suite strength of `engine`'s bundle, read from its build report with the core's
/// constructor (`analysis::suites::from_bundle`, what `Snapshot::suites` and `report --table
/// suites` read).
pub fn suites_of(engine: &Engine) -> SuitesResult {
    crate::analysis::suites::from_bundle(engine.bundle())
}

/// Why the bundle did not load: the load's error and what `execscope check` finds in the
/// directory (the message is `report::diagnose::describe`'s, formatted where it is shown).
#[derive(Debug)]
pub struct LoadFailure {
    pub root: PathBuf,
    pub error: BundleError,
    pub check: Option<CheckReport>,
}

impl std::fmt::Display for LoadFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::report::diagnose::describe(
            &self.root,
            &self.error.to_string(),
            self.check.as_ref(),
        ))
    }
}

/// Pairs executed so far by a running audit (read by the status bar while the job runs).
#[derive(Debug, Default)]
pub struct JobProgress {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
}

impl JobProgress {
    /// `done/total`, once the job knows how many pairs the oracle must run.
    pub fn text(&self) -> Option<String> {
        self.text_of("pairs")
    }

    /// Seconds left at the rate so far, after `secs` seconds (once some work is done).
    pub fn eta(&self, secs: u64) -> Option<u64> {
        let total = self.total.load(Ordering::Relaxed);
        let done = self.done.load(Ordering::Relaxed);
        (done > 0 && total >= done)
            .then(|| (secs as u128 * (total - done) as u128 / done as u128) as u64)
    }

    /// `done/total unit`, once the total is known.
    pub fn text_of(&self, unit: &str) -> Option<String> {
        let total = self.total.load(Ordering::Relaxed);
        (total > 0).then(|| format!("{}/{total} {unit}", self.done.load(Ordering::Relaxed)))
    }
}

/// What to audit: the retrieval pools of one system, in the pool order of a tie policy (the
/// session's when it was asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuditRequest {
    /// Index into `Engine::scores`.
    pub system: usize,
    pub k: usize,
    pub visible: usize,
    /// The pool order inside score ties.
    pub ties: crate::metrics::TiePolicy,
    /// Identifies this run; a result whose token is not the app's current one is dropped.
    pub token: u64,
}

/// A finished retrieval audit: the core's run (pools and accounting, from which the report's
/// tables are formatted) and its view rows, exactly what `execscope audit --system … --k …
/// --visible … --ties …` prints and writes as `audit-view.json`.
#[derive(Clone, Debug)]
pub struct AuditResult {
    pub request: AuditRequest,
    pub run: AuditRun,
    pub view: AuditView,
}

/// Work the UI thread must not do.
pub enum Job {
    Load {
        root: PathBuf,
        opts: EngineOptions,
        cache: Option<Store>,
        /// Systems scored so far, of how many (shown while the bundle loads).
        progress: Arc<JobProgress>,
    },
    Leaderboard {
        gen: u64,
        engine: Arc<Engine>,
    },
    /// The leaderboard's intervals and tiers (`base` None), then the system pairs added to them
    /// (`base`: the first result), so the leaderboard's intervals do not wait for the pairs.
    Significance {
        gen: u64,
        engine: Arc<Engine>,
        base: Option<Arc<Significance>>,
    },
    Anatomy {
        gen: u64,
        engine: Arc<Engine>,
    },
    Bm25 {
        engine: Arc<Engine>,
    },
    /// Read the bundle's test-suite strength (its build report); once per bundle, as it does
    /// not depend on the evaluation.
    Suites {
        engine: Arc<Engine>,
    },
    /// Bring every system's score matrix into memory (from the rank cache, or computed again
    /// from the bundle where a headless report stored none), so the first browser view does
    /// not wait for them on the UI thread.
    Rows {
        engine: Arc<Engine>,
    },
    Audit {
        request: AuditRequest,
        engine: Arc<Engine>,
        progress: Arc<JobProgress>,
    },
}

/// The retrieval audit (`crate::retrieval_audit`, the CLI's wiring).
fn run_audit(
    engine: &Engine,
    req: AuditRequest,
    progress: &JobProgress,
) -> Result<AuditResult, AuditError> {
    let system = engine
        .scores()
        .get(req.system)
        .map(|s| s.id.clone())
        .ok_or_else(|| AuditError::Settings(format!("no system #{}", req.system)))?;
    let tick = |done: usize, total: usize| {
        progress.total.store(total, Ordering::Relaxed);
        progress.done.store(done, Ordering::Relaxed);
    };
    let spec = RetrievalSpec {
        k: req.k,
        visible: req.visible,
        ties: req.ties,
        ..RetrievalSpec::new(system)
    };
    let notes = [format!(
        "pool order inside score ties: {} (the dashboard's tie policy)",
        req.ties
    )];
    let run = crate::retrieval_audit::run(
        engine,
        &spec,
        OracleConfig::default(),
        &notes,
        &AuditConfig::default(),
        &tick,
    )?;
    Ok(AuditResult {
        request: req,
        view: AuditView::build(&run.pools, &run.audits),
        run,
    })
}

impl Job {
    /// What the progress indicator says while this job runs.
    pub fn label(&self) -> &'static str {
        match self {
            Job::Load { .. } => "loading bundle",
            Job::Leaderboard { .. } => "leaderboard",
            Job::Significance { base: None, .. } => "bootstrap intervals",
            Job::Significance { base: Some(_), .. } => "system pairs",
            Job::Audit { .. } => "retrieval audit",
            Job::Anatomy { .. } => "failure anatomy",
            Job::Bm25 { .. } => "BM25 index",
            Job::Suites { .. } => "suite strength",
            Job::Rows { .. } => "score rows",
        }
    }

    /// Do the work. Consumes the job, so its engine handle is released before the result is sent.
    pub fn run(self) -> JobResult {
        self.run_reporting(&|_| {})
    }

    /// [`Job::run`], sending results that arrive before the end through `report`: while a
    /// bundle loads, [`JobResult::Partial`] engines of the systems scored so far (at most one
    /// per [`PARTIAL_EVERY`], and always the first), so the leaderboard fills in as systems
    /// finish.
    pub fn run_reporting(self, report: &(dyn Fn(JobResult) + Sync)) -> JobResult {
        match self {
            Job::Load {
                root,
                opts,
                cache,
                progress,
            } => match on_own_pool(|| {
                Engine::open_with(&root, &opts, cache.as_ref(), &{
                    let last = std::sync::Mutex::new(None::<std::time::Instant>);
                    move |s: crate::engine::Scored<'_>| {
                        progress.total.store(s.total, Ordering::Relaxed);
                        let n = progress.done.fetch_add(1, Ordering::Relaxed) + 1;
                        if n == s.total {
                            return; // the whole engine follows at once
                        }
                        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                        if last.is_some_and(|t| t.elapsed() < PARTIAL_EVERY) {
                            return;
                        }
                        if let Some(e) = s.snapshot() {
                            *last = Some(std::time::Instant::now());
                            report(JobResult::Partial(Arc::new(e)));
                        }
                    }
                })
            }) {
                Ok(engine) => {
                    let index = CorpusIndex::build(&engine);
                    JobResult::Loaded(Box::new(Ok((Arc::new(engine), Arc::new(index)))))
                }
                Err(error) => JobResult::Loaded(Box::new(Err(LoadFailure {
                    check: crate::report::diagnose::diagnose(&root),
                    root,
                    error,
                }))),
            },
            Job::Leaderboard { gen, engine } => JobResult::Leaderboard {
                gen,
                lb: Box::new(Leaderboard::build(&engine)),
            },
            Job::Significance { gen, engine, base } => {
                let sig = match base {
                    None => Significance::compute_leaderboard(&engine, SigConfig::default()),
                    Some(base) => {
                        let mut sig = Arc::unwrap_or_clone(base);
                        sig.add_pairs(&engine);
                        sig
                    }
                };
                JobResult::Significance {
                    gen,
                    sig: Arc::new(sig),
                }
            }
            Job::Audit {
                request,
                engine,
                progress,
            } => JobResult::Audit(Box::new((
                request,
                run_audit(&engine, request, &progress).map_err(Arc::new),
            ))),
            Job::Anatomy { gen, engine } => JobResult::Anatomy {
                gen,
                anatomy: Box::new(AnatomyView::build(&engine)),
            },
            Job::Bm25 { engine } => {
                let docs: Vec<&str> = engine
                    .bundle()
                    .corpus
                    .iter()
                    .map(|c| c.code.as_str())
                    .collect();
                JobResult::Bm25(Arc::new(Bm25Index::new(&docs)))
            }
            Job::Suites { engine } => JobResult::Suites(Arc::new(suites_of(&engine))),
            Job::Rows { engine } => JobResult::Rows(engine.load_rows()),
        }
    }
}

type Loaded = Result<(Arc<Engine>, Arc<CorpusIndex>), LoadFailure>;

/// The shortest interval between two partial engines of a loading bundle.
/// Run `f` on a thread pool of its own (as many threads as the global one). A bundle's load
/// keeps every thread of a pool busy with long GEMMs; on the global pool, the leaderboard of
/// the systems scored so far (whose parallel parts are queued there) would wait for the whole
/// load. On its own pool the load shares the cores with the other jobs through the scheduler.
fn on_own_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(rayon::current_num_threads())
        .thread_name(|i| format!("execscope-load-{i}"))
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

pub const PARTIAL_EVERY: std::time::Duration = std::time::Duration::from_millis(150);

/// A finished job.
pub enum JobResult {
    Loaded(Box<Loaded>),
    /// The systems of a loading bundle scored so far (see [`Job::run_reporting`]).
    Partial(Arc<Engine>),
    Leaderboard {
        gen: u64,
        lb: Box<Leaderboard>,
    },
    Anatomy {
        gen: u64,
        anatomy: Box<AnatomyView>,
    },
    Bm25(Arc<Bm25Index>),
    Suites(Arc<SuitesResult>),
    /// Every score matrix of the engine is in memory, or why not.
    Rows(Result<(), ScoresError>),
    Significance {
        gen: u64,
        sig: Arc<Significance>,
    },
    Audit(Box<(AuditRequest, Result<AuditResult, Arc<AuditError>>)>),
}
