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
use crate::metrics::TiePolicy;
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

/// Selection shared by the panes: which system, which query, which cutoff.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    /// Current system (index into `Engine::scores`).
    pub system: usize,
    /// System compared side by side in the browser.
    pub compare: usize,
    /// Index into the evaluation's cutoffs.
    pub k_index: usize,
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
    pub shared: &'a Shared,
    pub theme: &'a Theme,
    pub hits: &'a Hits,
    pub policy: TiePolicy,
    /// Spinner glyph for work in progress.
    pub spinner: char,
}

/// The cutoff k the selection names (1 before the bundle is loaded).
pub fn cutoff(data: Option<&Data>, shared: &Shared) -> usize {
    data.and_then(|d| d.engine.config().ks.get(shared.k_index).copied())
        .unwrap_or(1)
}

impl View<'_> {
    /// The cutoff k currently selected.
    pub fn k(&self) -> usize {
        cutoff(self.data, self.shared)
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
