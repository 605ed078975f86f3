//! The execution oracle: sandboxed Python execution of (code, tests) pairs, and its cache.
//!
//! Design: a pool of workers, each a pre-warmed harness server (started inside the sandbox once)
//! and a pre-warmed judge zygote (outside it), each forking a fresh child per pair: the per-pair
//! isolation of a fresh process (own rlimits, work dir, uid, process group) without paying an
//! interpreter start per pair. The judge's child runs every test's logic; only operations on the
//! code's objects go to the sandbox's child, relayed by execscope (`session`).
//! [`Oracle::run_naive`] keeps the one-interpreter-per-pair runner as the baseline; both run the
//! same embedded harness and judge (`crates/oracle/python/`, loaded by `runtime`), so they give
//! the same outcomes.
//!
//! Layout: the public types in `config` (what to run under) and `error`; `start` (the scratch
//! directory from `scratch`, the level chosen by a probe run, or the refusal); `pool` (running
//! jobs on the workers, the naive baseline, and batches over all workers); `session` (one pair's
//! relay between judge and harness); `server`, `sandbox`, `confine` and `userns` (the processes
//! and their confinement); `judge` (the trusted side that runs the tests); `cache` and `lazy` (the
//! execution cache, and an oracle started only when a pair is missing from it).

pub mod cache;
mod config;
mod confine;
mod error;
mod judge;
pub mod lazy;
pub use execscope_record::outcome;
mod pch;
mod pool;
pub use pool::{units, UNIT};
mod process;
mod runtime;
mod sandbox;
mod scratch;
mod server;
mod session;
pub mod slowdown;
mod start;
mod toolchain;
mod userns;

pub use cache::{
    record_from, selected, verify, CacheError, Disagreement, ExecCache, VerifyReport,
    VerifySelection,
};
pub use config::{IsolationChoice, OracleConfig};
pub use error::OracleError;
pub use execscope_record::{with_prelude, Budgets, Job, SelfTest};
pub use outcome::{IsolationLevel, Outcome, SuiteResult};
pub use scratch::sweep_stale_scratch;
pub use server::{Limits, HARNESS_KILLED};

use sandbox::Launcher;
use session::Worker;
use std::sync::atomic::AtomicU32;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Version of the execution contract (outcome strings, namespace-per-test, timeout rule).
/// 2: outcomes decided by the judge from plain values; exception names from a fixed vocabulary.
/// 3: a wall budget per test (not per suite), each test's outcome its own after an earlier one
///    ran out of time; `HANG` for a test proven never to end, `TIMEOUT` only when not proven.
/// 4: the judge runs every test's logic (any statements) with its own builtins; only operations
///    on the code's objects go to the sandbox; values keep their types' semantics; a fixed hash
///    seed everywhere.
/// 5: the random module's shared generator seeded at every test's start on both sides; the hang
///    detector's give-up bounded by the work of its state keys too (both counts: the same on any
///    machine).
/// 6: a test whose code holds the ball for a share of its budget ([`PROBE_SHARE`]) is probed:
///    replayed to the same state (the child's earlier tests again) and run under the cycle
///    detector, so a proven hang spends that share of its budget instead of all of it. (When a
///    probe comes changes no verdict: the share went from a quarter to an eighth, then to 1/32,
///    within 6.)
pub const CONTRACT: u32 = 6;

/// The share of its budget a test's code may hold the ball before the test is probed for a hang
/// (unless `OracleConfig::probe` says otherwise). 1/32: a hang costs 62.5 ms of a 2 s budget and
/// a test that runs out of time without a proof 62.5 ms more; a test that ends after more than
/// that pays a detection (bounded by its work) and a second run. docs/performance.md
/// "1/32 of the budget, and a stall that cost 30 s".
pub const PROBE_SHARE: f64 = 0.03125;

/// Default wall budget of each test.
pub const TEST_BUDGET: Duration = Duration::from_secs(2);
/// Default wall budget of building and starting a program in another language than Python (its
/// compile, its runtime's start and its static initialisers), before the first test's own budget
/// starts: javac and a JVM take 1-3 s on a loaded machine of two cores (docs/languages.md).
pub const BUILD_BUDGET: Duration = Duration::from_secs(30);
/// Default wall backstop of the hang detector (its proof itself is bounded by a count of traced
/// events, the same on any machine; see docs/threat-model.md "Verdicts that do not depend on the
/// machine").
pub const DETECT_BACKSTOP: Duration = Duration::from_secs(5);

/// Longest `observed` repr kept (characters).
const OBSERVED_MAX: usize = 200;

/// The sandboxed executor. `Send + Sync`: share it across threads by reference.
pub struct Oracle {
    cfg: OracleConfig,
    launcher: Launcher,
    /// Owns the private copy of the harness and the `Rlimits` work-dir base.
    _dir: tempfile::TempDir,
    /// Holds the scratch dir's owner lock for the oracle's lifetime (see [`sweep_stale_scratch`]).
    _owner: std::fs::File,
    slots: Vec<Mutex<Worker>>,
    free: Mutex<Vec<usize>>,
    freed: Condvar,
    python_version: String,
    drops_uid: bool,
    readcap: bool,
    naive_seq: AtomicU32,
    uid_base: u32,
}

impl Oracle {
    /// The level every result of this oracle ran under.
    pub fn isolation(&self) -> IsolationLevel {
        self.launcher.level
    }

    pub fn config(&self) -> &OracleConfig {
        &self.cfg
    }

    /// What the isolation level consists of on this machine (namespaces, Landlock ABI, seccomp).
    pub fn isolation_detail(&self) -> String {
        self.launcher.describe()
    }

    /// Whether pairs run under an unprivileged uid (only when the oracle runs as root).
    pub fn drops_privileges(&self) -> bool {
        self.drops_uid
    }

    /// Who a pair runs as, in words (for reports next to [`Oracle::isolation`]).
    pub fn privileges(&self) -> &'static str {
        match (self.drops_uid, self.readcap) {
            (true, false) => "unprivileged uid per pair",
            (true, true) => "unprivileged uid per pair, may read any file (CAP_DAC_READ_SEARCH)",
            (false, _) => "same uid as execscope",
        }
    }

    /// The cache's `runner` field: oracle version, interpreter, and the execution contract.
    pub fn runner_string(&self) -> String {
        let probe = match self.cfg.probe {
            Some(d) => format!("{}s", d.as_secs_f64()),
            None => format!("{PROBE_SHARE} of it"),
        };
        format!(
            "execscope-oracle/{} contract/{CONTRACT} (python {} -s -P, PYTHONHASHSEED={}, \
             random.seed(0) at every test, fresh \
             process per (code, tests) pair, fresh namespace per test: code exec'd in the \
             sandbox, the test run by a separate judge process with its own builtins, every \
             operation on the code's objects a request to the sandbox answered with plain data; \
             wall {}s per test with process-group kill, later tests in a fresh process; a test \
             whose code holds the ball for {probe} replayed to the same state under a \
             cycle detector (backstop {}s): HANG when a repeated state is proven, else run \
             again with its whole budget, TIMEOUT when out of time; outcomes \
             pass|FAIL|FAIL:<Exc>|ERROR:<Exc>|TIMEOUT|HANG, <Exc> a builtin or stdlib exception name, else Other)",
            execscope_record::version(),
            self.python_version,
            self.cfg.hash_seed,
            self.cfg.timeout.as_secs_f64(),
            self.cfg.detect.as_secs_f64()
        )
    }
}

impl Oracle {
    /// The `runner` field of rows of jobs in `language`: [`Oracle::runner_string`] for Python (so
    /// a Python row is what it always was); for another language it also names the toolchain,
    /// the build and its budget, and what differs from a Python pair (docs/languages.md).
    pub fn runner_string_for(&self, language: execscope_record::Language) -> String {
        if language.is_python() {
            return self.runner_string();
        }
        let tool = match self.launcher.tools.get(language) {
            Some(t) => t.version(),
            None => "no toolchain".to_string(),
        };
        format!(
            "{}; {}: {tool}, {}, built with execscope's stub in the pair's sandbox within {}s \
             (its own budget, before the first test's), one process per pair child answering \
             every call with data, no hang proof (TIMEOUT)",
            self.runner_string(),
            language.as_str(),
            toolchain::build_flags(language),
            self.cfg.build.as_secs_f64(),
        )
    }

    /// Why pairs in `language` cannot run here (its toolchain is missing), or None.
    pub fn language_unavailable(&self, language: execscope_record::Language) -> Option<String> {
        if language.is_python() {
            return None;
        }
        match self.launcher.tools.get(language) {
            Some(_) => None,
            None => Some(format!(
                "{} candidates cannot run here: {}",
                language.display_name(),
                self.launcher
                    .tools
                    .why_missing(language)
                    .unwrap_or("no toolchain")
            )),
        }
    }
}

impl execscope_record::Runner for Oracle {
    fn run_pairs(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, String>> {
        self.run_batch(jobs, progress)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    }

    fn runner_string(&self) -> String {
        Oracle::runner_string(self)
    }

    fn runner_string_for(&self, language: execscope_record::Language) -> String {
        Oracle::runner_string_for(self, language)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Oracle>();
    }
}
