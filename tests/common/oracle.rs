//! One real oracle per test binary, and a batch runner over it (shared by the audit tests).

use execscope::oracle::{Job, Oracle, OracleConfig, SuiteResult};
use std::sync::OnceLock;
use std::time::Duration;

pub fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| {
        Oracle::new(OracleConfig {
            timeout: Duration::from_secs(5),
            workers: 2,
            ..OracleConfig::default()
        })
        .expect("an oracle at some level")
    })
}

/// Run a batch on the shared oracle; any failed pair is an error.
pub fn run(jobs: &[Job]) -> Result<Vec<SuiteResult>, execscope::oracle::lazy::BatchError> {
    execscope::oracle::lazy::BatchError::collect(oracle().run_batch(jobs, &|_| {}))
}
