//! Dashboard state and its only mutator, [`App::handle`]. Headless: tests build an app, feed it
//! actions (or key events through the registry) and render it on a `TestBackend`.
//!
//! Files: this one holds the state, the jobs it queues and their results, and re-evaluation
//! under a new tie policy; `input` the keys and actions (every mode), `requests` what the main
//! loop does for it (exports, the external editor), `audit` the Audit tab's job, `start` the
//! leader selected on opening.

use super::jobs::{Job, JobResult};
use super::panes::{self, Pane, PaneId};
use super::theme::Theme;
use super::view::{AuditSlot, Data, Hits, Settings, Shared, View};
use crate::engine::{Engine, EngineOptions};
use crate::metrics::{EvalConfig, TiePolicy};

mod audit;
mod input;
mod requests;
mod start;
pub use requests::{Exported, Reply, Request};
use std::path::PathBuf;
use std::sync::Arc;

/// Who has the keyboard.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    Normal,
    /// The help overlay, scrolled `scroll` lines down (when the screen is too short for it).
    Help {
        scroll: usize,
    },
    /// The active pane's filter.
    Filter,
    /// Fuzzy system picker (`compare`: picks the browser's compared system).
    Picker {
        compare: bool,
        text: String,
        sel: usize,
    },
    /// Live BM25 query prompt.
    Prompt,
    /// Presenter: the headline numbers in large type (`B`).
    Big,
    /// Presenter: the command palette (Ctrl-P), filtered by `text`, entry `sel` highlighted.
    Palette {
        text: String,
        sel: usize,
    },
}

/// How many live-query results are kept.
pub const LIVE_DEPTH: usize = 200;

pub struct App {
    pub panes: Vec<Box<dyn Pane>>,
    pub tab: usize,
    pub mode: Mode,
    pub data: Option<Data>,
    /// The session's settings (tie policy, ε and cutoffs as the data's engine has them; system,
    /// compared system, cutoff; theme): what every pane reads.
    pub settings: Settings,
    pub shared: Shared,
    /// Bundle directory name (never the absolute path: screens are shared and snapshotted).
    pub bundle_name: String,
    /// Why the bundle did not load.
    pub error: Option<super::jobs::LoadFailure>,
    pub status: Option<String>,
    pub hits: Hits,
    pub quit: bool,
    /// Presenter: the active pane fills the screen (`z`).
    pub zoom: bool,
    jobs: Vec<Job>,
    /// Work asked of the main loop (exports, the external editor).
    requests: Vec<Request>,
    /// Jobs running, with when each started (the status bar shows elapsed time past a second).
    in_flight: Vec<(&'static str, std::time::Instant)>,
    pending_policy: Option<TiePolicy>,
    spinner: usize,
    /// Token of the last audit asked for (results carrying another one are stale).
    audit_token: u64,
    /// Systems scored so far while the bundle loads.
    pub(crate) load_progress: Option<Arc<super::jobs::JobProgress>>,
    /// The data holds a partial engine (systems scored so far) while the bundle loads.
    partial: bool,
    /// The newest partial engine, waiting for the leaderboard of the previous one.
    next_partial: Option<Arc<Engine>>,
    /// The system selected automatically (the leader), while the user has not chosen another.
    auto_system: Option<usize>,
}

impl App {
    fn blank(theme: Theme, bundle_name: String, eval: &EvalConfig) -> App {
        App {
            panes: panes::all(),
            tab: 0,
            mode: Mode::Normal,
            data: None,
            settings: Settings::new(eval.clone(), theme),
            shared: Shared::default(),
            bundle_name,
            error: None,
            status: None,
            hits: Hits::default(),
            quit: false,
            zoom: false,
            jobs: Vec::new(),
            requests: Vec::new(),
            in_flight: Vec::new(),
            pending_policy: None,
            spinner: 0,
            audit_token: 0,
            load_progress: None,
            partial: false,
            next_partial: None,
            auto_system: None,
        }
    }

    /// An app that loads `root` in the background.
    pub fn new(root: PathBuf, opts: EngineOptions, theme: Theme) -> App {
        let name = root.file_name().map_or_else(
            || root.display().to_string(),
            |n| n.to_string_lossy().to_string(),
        );
        let mut app = App::blank(theme, name, &opts.eval);
        // Opened for a talk: on the leader once it is known (app/start.rs). An app made over
        // a loaded engine (tests, benchmarks) keeps the first system.
        app.auto_system = Some(0);
        let progress = Arc::new(super::jobs::JobProgress::default());
        app.load_progress = Some(progress.clone());
        app.jobs.push(Job::Load {
            root,
            opts,
            cache: None,
            progress,
        });
        app
    }

    /// Load through this rank cache (set before the first frame).
    pub fn with_rank_cache(mut self, rank_cache: Option<crate::store::Store>) -> App {
        for job in &mut self.jobs {
            if let Job::Load { cache, .. } = job {
                cache.clone_from(&rank_cache);
            }
        }
        self
    }

    /// An app over an engine already loaded (tests, benchmarks); the leaderboard, anatomy and BM25
    /// index are queued as jobs.
    pub fn with_engine(engine: Engine, theme: Theme) -> App {
        let name = engine
            .bundle()
            .root
            .file_name()
            .map_or_else(|| "bundle".to_string(), |n| n.to_string_lossy().to_string());
        let eval = engine.config();
        let mut app = App::blank(theme, name, &eval);
        let index = super::jobs::CorpusIndex::build(&engine);
        app.install(Arc::new(engine), Arc::new(index));
        app
    }

    /// Show the systems of a loading bundle scored so far: only their leaderboard is built
    /// (the other panes wait for the whole engine). While that leaderboard is being built, a
    /// newer partial engine waits, so every leaderboard that arrives is current.
    fn install_partial(&mut self, engine: Arc<Engine>) {
        if self.data.is_some() && !self.partial {
            return; // the whole engine is in
        }
        if self.in_flight.iter().any(|(l, _)| *l == "leaderboard")
            || self.jobs.iter().any(|j| j.label() == "leaderboard")
        {
            self.next_partial = Some(engine);
            return;
        }
        let gen = self.data.as_ref().map_or(0, |d| d.gen + 1);
        // The previous partial leaderboard stays on screen until this one's is built.
        let lb = self.data.as_mut().and_then(|d| d.lb.take());
        let index = Arc::new(super::jobs::CorpusIndex::build(&engine));
        self.partial = true;
        self.jobs.push(Job::Leaderboard {
            gen,
            engine: engine.clone(),
        });
        self.data = Some(Data {
            lb,
            ..Data::new(engine, index, gen)
        });
    }

    fn install(&mut self, engine: Arc<Engine>, index: Arc<super::jobs::CorpusIndex>) {
        self.settings.compare = usize::from(engine.scores().len() > 1);
        // A fresh generation, so results computed for a partial engine are not taken for it.
        let gen = self.data.as_ref().map_or(0, |d| d.gen + 1);
        self.partial = false;
        self.next_partial = None;
        self.jobs.push(Job::Bm25 {
            engine: engine.clone(),
        });
        self.jobs.push(Job::Suites {
            engine: engine.clone(),
        });
        self.settings.adopt(&engine.config());
        self.data = Some(Data::new(engine, index, gen));
        self.queue_evaluation_jobs();
    }

    /// The leaderboard first: the bootstrap and the anatomy are queued once it is in
    /// ([`App::queue_followup_jobs`]), so they do not compete with it for the cores.
    fn queue_evaluation_jobs(&mut self) {
        if let Some(d) = &self.data {
            self.jobs.push(Job::Leaderboard {
                gen: d.gen,
                engine: d.engine.clone(),
            });
        }
    }

    fn queue_followup_jobs(&mut self) {
        if let Some(d) = &self.data {
            self.jobs.push(Job::Significance {
                gen: d.gen,
                engine: d.engine.clone(),
                base: None,
            });
            self.jobs.push(Job::Anatomy {
                gen: d.gen,
                engine: d.engine.clone(),
            });
            self.jobs.push(Job::Rows {
                engine: d.engine.clone(),
            });
        }
    }

    /// Jobs to start now (the caller runs them and feeds the results to [`App::on_result`]).
    pub fn take_jobs(&mut self) -> Vec<Job> {
        let jobs = std::mem::take(&mut self.jobs);
        let now = std::time::Instant::now();
        self.in_flight.extend(jobs.iter().map(|j| (j.label(), now)));
        jobs
    }

    /// Run every queued job on this thread until none is left (tests, benchmarks).
    pub fn run_jobs_inline(&mut self) {
        loop {
            let jobs = self.take_jobs();
            if jobs.is_empty() {
                break;
            }
            for j in jobs {
                let r = j.run();
                self.on_result(r);
            }
        }
    }

    /// Labels of the jobs still running.
    pub fn busy(&self) -> Vec<&'static str> {
        self.in_flight.iter().map(|(l, _)| *l).collect()
    }

    /// Seconds since the oldest running job started, once past one (`None` before).
    pub fn busy_secs(&self) -> Option<u64> {
        let t = self.in_flight.iter().map(|(_, t)| *t).min()?;
        Some(t.elapsed().as_secs()).filter(|s| *s >= 1)
    }

    fn done(&mut self, label: &str) {
        if let Some(i) = self.in_flight.iter().position(|(l, _)| *l == label) {
            self.in_flight.remove(i);
        }
    }

    /// A job finished.
    pub fn on_result(&mut self, r: JobResult) {
        match r {
            JobResult::Loaded(res) => {
                self.done("loading bundle");
                match *res {
                    Ok((engine, index)) => self.install(engine, index),
                    Err(e) => self.error = Some(e),
                }
            }
            JobResult::Partial(engine) => self.install_partial(engine),
            JobResult::Leaderboard { gen, lb } => {
                self.done("leaderboard");
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    d.lb = Some(*lb);
                    if !self.partial {
                        self.queue_followup_jobs();
                    }
                }
                self.select_leader_unless_chosen();
                if let Some(e) = self.next_partial.take() {
                    self.install_partial(e);
                }
            }
            JobResult::Significance { gen, sig } => {
                let pairs = sig.pairs.is_some();
                self.done(if pairs {
                    "system pairs"
                } else {
                    "bootstrap intervals"
                });
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    if !pairs {
                        self.jobs.push(Job::Significance {
                            gen,
                            engine: d.engine.clone(),
                            base: Some(sig.clone()),
                        });
                    }
                    d.sig = Some(sig);
                }
            }
            JobResult::Audit(res) => {
                self.done("retrieval audit");
                let (req, result) = *res;
                if let Some(d) = self.data.as_mut() {
                    let current = matches!(&d.audit, AuditSlot::Running(r, _) if *r == req);
                    if current {
                        d.audit = match result {
                            Ok(a) => AuditSlot::Done(Arc::new(a)),
                            Err(e) => AuditSlot::Failed(req, e),
                        };
                    }
                }
            }
            JobResult::Anatomy { gen, anatomy } => {
                self.done("failure anatomy");
                if let Some(d) = self.data.as_mut().filter(|d| d.gen == gen) {
                    d.anatomy = Some(*anatomy);
                }
            }
            JobResult::Rows(res) => {
                self.done("score rows");
                if let Err(e) = res {
                    self.status = Some(format!("score rows: {e}"));
                }
            }
            JobResult::Suites(s) => {
                self.done("suite strength");
                if let Some(d) = self.data.as_mut() {
                    d.suites = Some(s);
                }
            }
            JobResult::Bm25(idx) => {
                self.done("BM25 index");
                if let Some(d) = self.data.as_mut() {
                    d.bm25 = Some(idx);
                }
                self.rescore_live();
            }
        }
        // What the core repaired on the way (damaged cache entries) is said, not printed over
        // the screen.
        let notices = self
            .data
            .as_ref()
            .map(|d| d.engine.take_notices())
            .unwrap_or_default();
        if !notices.is_empty() {
            self.status = Some(format!("warning: {}", notices.join("; ")));
        }
        for p in &mut self.panes {
            p.data_changed();
        }
        if let Some(p) = self.pending_policy {
            self.apply_policy(p);
        }
        self.sync_active();
    }

    /// Re-evaluate every system under tie policy `p`: the data gets a new engine snapshot
    /// ([`Engine::with_config`], sharing the bundle, truth and scores) and the leaderboard and
    /// anatomy are rebuilt off the UI thread. Jobs still running keep the snapshot they were
    /// given; their results carry the old generation and are dropped.
    fn apply_policy(&mut self, p: TiePolicy) {
        let Some(d) = self.data.as_mut().filter(|_| !self.partial) else {
            self.pending_policy = Some(p);
            self.status = Some(format!("tie policy → {p} once the bundle is loaded"));
            return;
        };
        let cfg = EvalConfig {
            policy: p,
            ..d.engine.config()
        };
        d.engine = Arc::new(d.engine.with_config(&cfg));
        d.gen += 1;
        d.lb = None;
        d.anatomy = None;
        d.sig = None;
        self.settings.adopt(&cfg);
        self.pending_policy = None;
        // An audit belongs to the pool order it was run in.
        self.invalidate_audit();
        self.status = Some(format!("tie policy: {p}"));
        self.queue_evaluation_jobs();
        for pane in &mut self.panes {
            pane.data_changed();
        }
    }

    /// What the help overlay shows: the registry and the active pane's glyphs.
    pub fn help(&self) -> super::help::Help<'_> {
        super::help::Help {
            theme: &self.settings.theme,
            panes: &self.panes,
            tab: self.tab,
        }
    }

    /// The active pane.
    pub fn pane(&self) -> PaneId {
        self.panes[self.tab].kind()
    }

    /// The active pane's stable id (`leaderboard`, `browser`, …).
    pub fn pane_id(&self) -> &'static str {
        self.pane().as_str()
    }

    /// A snapshot for drawing.
    pub fn view(&self) -> View<'_> {
        // The settings' evaluation is the data's: every number drawn is computed under it.
        debug_assert!(
            self.data
                .as_ref()
                .is_none_or(|d| d.engine.config() == *self.settings.eval()),
            "the settings and the data's engine disagree"
        );
        const SPIN: [char; 8] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧'];
        View {
            data: self.data.as_ref(),
            settings: &self.settings,
            shared: &self.shared,
            theme: &self.settings.theme,
            hits: &self.hits,
            spinner: SPIN[self.spinner % SPIN.len()],
        }
    }

    /// Whether a tie-policy change is waiting for running jobs.
    pub fn pending_policy(&self) -> Option<TiePolicy> {
        self.pending_policy
    }
}

#[cfg(test)]
mod loading_tests;
