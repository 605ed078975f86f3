//! An oracle started on first use: a run whose pairs are all cached never starts Python.
//! Shared by the audit command and the dashboard's audit pane.

pub use execscope_record::BatchError;

use super::{Job, Oracle, OracleConfig, SuiteResult};
use std::sync::OnceLock;

pub struct LazyOracle {
    cfg: OracleConfig,
    cell: OnceLock<Result<Oracle, String>>,
}

impl LazyOracle {
    pub fn new(cfg: OracleConfig) -> LazyOracle {
        LazyOracle {
            cfg,
            cell: OnceLock::new(),
        }
    }

    /// Run a batch (order preserved); `progress(done, total)` is called as pairs finish.
    /// Any failed pair is an error naming its index.
    pub fn run(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<SuiteResult>, BatchError> {
        let total = jobs.len();
        progress(0, total);
        if jobs.is_empty() {
            return Ok(Vec::new());
        }
        let oracle = self
            .cell
            .get_or_init(|| Oracle::new(self.cfg.clone()).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| BatchError::Start(e.clone()))?;
        let out = BatchError::collect(oracle.run_batch(jobs, &|done| progress(done, total)))?;
        if out.len() != total {
            return Err(BatchError::Count {
                got: out.len(),
                want: total,
            });
        }
        Ok(out)
    }

    /// Isolation level, privileges and runner string, once the oracle has started.
    pub fn describe(&self) -> Option<String> {
        match self.cell.get() {
            Some(Ok(o)) => Some(format!(
                "oracle isolation {} ({}), {}",
                o.isolation(),
                o.privileges(),
                o.runner_string()
            )),
            _ => None,
        }
    }
}
