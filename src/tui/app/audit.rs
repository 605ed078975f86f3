//! The app's side of the audit pane: queueing the retrieval-audit job for the current system,
//! dropping a result when the system changes, and the progress the status bar shows.

use super::App;
use crate::tui::jobs::{AuditRequest, Job, JobProgress};
use crate::tui::view::AuditSlot;

impl App {
    /// Queue the retrieval audit of the current system (the pane asks, on Enter).
    pub(super) fn start_audit(&mut self, k: usize, visible: usize) {
        let Some(d) = self.data.as_mut() else { return };
        // Expected ties have no single pool order (the pane says so and never asks).
        if matches!(d.audit, AuditSlot::Running(..))
            || d.engine.scores().is_empty()
            || self.settings.policy() == crate::metrics::TiePolicy::Expected
        {
            return;
        }
        self.audit_token += 1;
        let request = AuditRequest {
            system: self.settings.system,
            k,
            visible,
            ties: self.settings.policy(),
            token: self.audit_token,
        };
        let progress = std::sync::Arc::new(JobProgress::default());
        d.audit = AuditSlot::Running(request, progress.clone());
        self.jobs.push(Job::Audit {
            request,
            engine: d.engine.clone(),
            progress,
        });
    }

    /// An audit result belongs to one system under one tie policy: switching either drops it
    /// (a running job's result is then dropped on arrival).
    pub(super) fn invalidate_audit(&mut self) {
        let settings = &self.settings;
        if let Some(d) = self.data.as_mut() {
            if d.audit.request().is_some_and(|r| !settings.is_current(&r)) {
                d.audit = AuditSlot::Idle;
            }
        }
    }

    /// Progress of a running audit (or of the bundle's scoring while it loads), for the status bar.
    /// `secs`: how long the work has run (for the ETA).
    pub fn audit_progress(&self, secs: Option<u64>) -> Option<String> {
        let Some(d) = self.data.as_ref() else {
            return self.load_progress.as_ref()?.text_of("systems scored");
        };
        match &d.audit {
            AuditSlot::Running(_, p) => {
                let t = p.text()?;
                Some(match secs.and_then(|s| p.eta(s)) {
                    Some(eta) => format!("{t}, ETA {}", crate::tui::widgets::text::clock(eta)),
                    None => t,
                })
            }
            _ => None,
        }
    }
}
