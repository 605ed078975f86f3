//! An oracle started on first use: a run whose pairs are all cached never starts Python.
//! Shared by the audit command and the dashboard's audit pane.

use super::{Oracle, OracleConfig, OracleError, SuiteResult};
use std::sync::OnceLock;

/// Why a batch of pairs has no complete set of results.
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// The oracle could not start (no interpreter, no adequate isolation level, ...).
    #[error("starting the oracle: {0}")]
    Start(String),
    /// One pair could not be executed (the harness died, the protocol broke).
    #[error("oracle failed on pair {index}: {source}")]
    Pair { index: usize, source: OracleError },
    /// The runner answered a different number of pairs than it was given.
    #[error("the runner returned {got} results for {want} pairs")]
    Count { got: usize, want: usize },
    /// The runner answered a pair with a different number of outcomes than it has tests.
    #[error("the runner returned {got} outcomes for a pair of {want} tests")]
    Outcomes { got: usize, want: usize },
    /// A runner that reports failures as text (the build's journaled runner) failed on a pair.
    #[error("oracle failed on pair {index}: {message}")]
    Failed { index: usize, message: String },
    /// A sharded runner was asked for pairs another shard owns and no memo holds.
    #[error("{pairs} pair(s) belong to other shards")]
    Pending { pairs: usize },
}

impl BatchError {
    /// The per-pair results of [`Oracle::run_batch`] as one result (the first failure wins).
    pub fn collect(
        results: Vec<Result<SuiteResult, OracleError>>,
    ) -> Result<Vec<SuiteResult>, BatchError> {
        results
            .into_iter()
            .enumerate()
            .map(|(index, r)| r.map_err(|source| BatchError::Pair { index, source }))
            .collect()
    }
}

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
        jobs: &[(String, Vec<String>)],
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
