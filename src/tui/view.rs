//! The dashboard's state as the panes draw it: the core results its jobs delivered ([`Data`]:
//! the engine and the core's view rows, `crate::view`), the selection shared by the panes
//! ([`Shared`]) and the frame's snapshot of both ([`View`]). The app owns them and changes them
//! only in `App::handle`/`App::on_result`; drawing reads a [`View`] and changes nothing but
//! where clickable regions ended up ([`Hits`]) and each pane's remembered page height.

use super::jobs::{AuditRequest, AuditResult, CorpusIndex, JobProgress, SuitesResult};
use super::theme::Theme;
pub use super::widgets::hits::Hits;
use crate::analysis::significance::Significance;
use crate::audit::AuditError;
use crate::engine::Engine;
use crate::metrics::{EvalConfig, TiePolicy};
use crate::rank::bm25::Bm25Index;
use crate::view::{AnatomyView, Leaderboard};
use std::sync::Arc;

/// The retrieval audit of the current system: not asked for, running, finished or failed. Any
/// result belongs to the request it names; switching system or visible count clears it.
#[derive(Clone, Debug, Default)]
pub enum AuditSlot {
    #[default]
    Idle,
    Running(AuditRequest, Arc<JobProgress>),
    Done(Arc<AuditResult>),
    Failed(AuditRequest, Arc<AuditError>),
}

impl AuditSlot {
    /// The request of a running, finished or failed audit.
    pub fn request(&self) -> Option<AuditRequest> {
        match self {
            AuditSlot::Idle => None,
            AuditSlot::Running(r, _) | AuditSlot::Failed(r, _) => Some(*r),
            AuditSlot::Done(a) => Some(a.request),
        }
    }
}

/// Core results the dashboard shows, each present once its job finished.
pub struct Data {
    pub engine: Arc<Engine>,
    pub index: Arc<CorpusIndex>,
    /// The leaderboard's rows (the report's table is formatted from them where it is shown).
    pub lb: Option<Leaderboard>,
    /// The failure anatomy's rows.
    pub anatomy: Option<AnatomyView>,
    pub bm25: Option<Arc<Bm25Index>>,
    /// Bootstrap and Wilson intervals, pairs and tiers of the current evaluation (the report's).
    pub sig: Option<Arc<Significance>>,
    pub audit: AuditSlot,
    /// Test-suite strength from the bundle's build report (read once per bundle).
    pub suites: Option<Arc<SuitesResult>>,
    /// Evaluation generation (bumped by every re-evaluation).
    pub gen: u64,
}

impl Data {
    /// The data of a freshly loaded engine: every result still to come.
    pub fn new(engine: Arc<Engine>, index: Arc<CorpusIndex>, gen: u64) -> Data {
        Data {
            engine,
            index,
            lb: None,
            anatomy: None,
            bm25: None,
            sig: None,
            audit: AuditSlot::Idle,
            suites: None,
            gen,
        }
    }
}

/// The session's settings: one value every pane reads, under which every number the dashboard
/// draws or exports is computed (or the pane says which setting it used instead, and why). The
/// tie policy, near-tie tolerance and cutoffs are the evaluation's: they change only with the
/// data's engine ([`Settings::adopt`], when the app re-evaluates), so they are always the
/// engine's. The system, the compared system and the cutoff are the selection; the theme how it
/// all looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    eval: EvalConfig,
    /// Index into the evaluation's cutoffs.
    pub k_index: usize,
    /// Current system (index into `Engine::scores`).
    pub system: usize,
    /// System compared with it (the browser's side by side, the Pairs pane's column).
    pub compare: usize,
    pub theme: Theme,
}

impl Settings {
    pub fn new(eval: EvalConfig, theme: Theme) -> Settings {
        Settings {
            eval,
            k_index: 0,
            system: 0,
            compare: 0,
            theme,
        }
    }

    /// The evaluation's settings: tie policy, near-tie tolerance, cutoffs.
    pub fn eval(&self) -> &EvalConfig {
        &self.eval
    }

    pub fn policy(&self) -> TiePolicy {
        self.eval.policy
    }

    /// The cutoff k selected (1 where the evaluation has none).
    pub fn k(&self) -> usize {
        self.eval.ks.get(self.k_index).copied().unwrap_or(1)
    }

    /// Whether an audit asked for `r` is of the current system under the session's tie policy
    /// (what the Audit pane shows; any other result is stale).
    pub fn is_current(&self, r: &AuditRequest) -> bool {
        r.system == self.system && r.ties == self.policy()
    }

    /// The data's engine was (re-)evaluated under `eval`: take its settings (the cutoff kept
    /// where the new cutoffs have it).
    pub fn adopt(&mut self, eval: &EvalConfig) {
        let k = self.k();
        self.k_index = eval.ks.iter().position(|&x| x == k).unwrap_or(0);
        self.eval = eval.clone();
    }
}

/// What the panes share besides the settings: the query, a live query, where exports go.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    /// Current query (bundle row).
    pub query: usize,
    /// Live BM25 query text and its ranking (corpus row, score), when active.
    pub live: Option<(String, Vec<(u32, f64)>)>,
    /// Where the export key writes (`None`: the current directory).
    pub export_dir: Option<std::path::PathBuf>,
}

/// What one frame draws from.
pub struct View<'a> {
    pub data: Option<&'a Data>,
    pub settings: &'a Settings,
    pub shared: &'a Shared,
    /// The settings' theme.
    pub theme: &'a Theme,
    pub hits: &'a Hits,
    /// Spinner glyph for work in progress.
    pub spinner: char,
}

impl View<'_> {
    /// The cutoff k currently selected.
    pub fn k(&self) -> usize {
        self.settings.k()
    }

    /// The tie policy every number is computed under.
    pub fn policy(&self) -> TiePolicy {
        self.settings.policy()
    }

    /// Id of a system.
    pub fn system_id(&self, s: usize) -> &str {
        self.data
            .and_then(|d| d.engine.scores().get(s))
            .map_or("?", |x| x.id.as_str())
    }

    /// "⠋ computing …" line for a result that is not ready yet.
    pub fn pending(&self, what: &str) -> String {
        format!("{} computing {what} …", self.spinner)
    }
}
