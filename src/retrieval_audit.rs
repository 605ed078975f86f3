//! The retrieval audit run through the execution oracle, wired once for `execscope audit
//! --system`, the funnel figure and the dashboard's Audit pane: the pools of a
//! [`RetrievalSpec`] (pairs the bundle's execution cache lacks run through an oracle started
//! only when one is needed), the caller's notes and the oracle's own description appended to the
//! provenance, and the accounting. Not a front end: the three front ends call it.

use crate::audit::account::AuditConfig;
use crate::audit::retrieval::RetrievalSpec;
use crate::audit::{AuditError, AuditRun};
use crate::engine::Engine;
use crate::oracle::lazy::LazyOracle;
use crate::oracle::OracleConfig;

/// Run the audit `spec` asks for. `notes` are recorded in the provenance before the oracle's
/// description; `progress(done, total)` hears of every pair the oracle finishes.
pub fn run(
    engine: &Engine,
    spec: &RetrievalSpec,
    oracle: OracleConfig,
    notes: &[String],
    cfg: &AuditConfig,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<AuditRun, AuditError> {
    engine.load_rows()?;
    let oracle = LazyOracle::new(oracle);
    let runner = |jobs: &[execscope_oracle::Job]| oracle.run(jobs, progress);
    let mut pools = spec.pools(engine, &runner)?;
    pools.provenance.extend(notes.iter().cloned());
    pools.provenance.extend(oracle.describe());
    Ok(AuditRun::new(pools, cfg))
}
