//! How an oracle is asked to run: the isolation to choose and the limits of every pair.

use super::{IsolationLevel, BUILD_BUDGET, DETECT_BACKSTOP, TEST_BUDGET};
use std::time::Duration;

/// Which isolation to use. `Auto` picks the strongest level that passes the start-up probe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IsolationChoice {
    #[default]
    Auto,
    Rlimits,
    Netns,
    Bubblewrap,
    Userns,
}

impl From<IsolationLevel> for IsolationChoice {
    /// Exactly that level (an oracle started like another one runs where it runs).
    fn from(l: IsolationLevel) -> Self {
        match l {
            IsolationLevel::Rlimits => IsolationChoice::Rlimits,
            IsolationLevel::Netns => IsolationChoice::Netns,
            IsolationLevel::Bubblewrap => IsolationChoice::Bubblewrap,
            IsolationLevel::Userns => IsolationChoice::Userns,
        }
    }
}

impl std::str::FromStr for IsolationChoice {
    type Err = String;
    /// `auto`, `rlimits`, `netns`, `bubblewrap` or `userns` (as a CLI flag would spell them).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "auto" => IsolationChoice::Auto,
            "rlimits" => IsolationChoice::Rlimits,
            "netns" => IsolationChoice::Netns,
            "bubblewrap" | "bwrap" => IsolationChoice::Bubblewrap,
            "userns" => IsolationChoice::Userns,
            _ => {
                return Err(format!(
                    "unknown isolation {s:?} (auto|rlimits|netns|bubblewrap|userns)"
                ))
            }
        })
    }
}

#[derive(Clone, Debug)]
pub struct OracleConfig {
    /// Wall budget of each test of a suite (the clock restarts at each test; a test that runs
    /// past it is killed and the next test runs in a fresh process).
    pub timeout: Duration,
    /// Wall backstop of the hang detector that re-runs a test which ran out of its budget
    /// (zero: no detection, every such test is `TIMEOUT`).
    pub detect: Duration,
    /// How long the code may hold the ball in one test before the test is probed for a hang
    /// (replayed to the same state under the detector: a proof is its `HANG` without the rest
    /// of its budget; otherwise it runs again with its whole budget). `None`:
    /// [`PROBE_SHARE`](crate::PROBE_SHARE) of the budget. It changes when a proof is tried,
    /// never a verdict.
    pub probe: Option<Duration>,
    /// Wall budget of building and starting a program in another language than Python (compile,
    /// runtime start, static initialisers), before its first test's budget starts; a program
    /// that overruns it records `TIMEOUT` for every test.
    pub build: Duration,
    /// Address-space limit of the process running a pair.
    pub mem_bytes: u64,
    /// Pre-warmed servers, i.e. pairs run at once.
    pub workers: usize,
    pub isolation: IsolationChoice,
    /// `PYTHONHASHSEED` of every harness and judge: str/bytes hashes, hence set iteration order,
    /// are the same on every run (the build re-runs canonicals under other seeds to refuse a
    /// task whose verdicts depend on it).
    pub hash_seed: u32,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            timeout: TEST_BUDGET,
            detect: DETECT_BACKSTOP,
            probe: None,
            build: BUILD_BUDGET,
            mem_bytes: 1 << 30,
            workers: default_workers(),
            isolation: IsolationChoice::Auto,
            hash_seed: 0,
        }
    }
}

impl OracleConfig {
    /// How long the code may hold the ball in one test before the test is probed for a hang:
    /// `probe`, else [`PROBE_SHARE`](crate::PROBE_SHARE) of the budget.
    pub fn probe_after(&self) -> Duration {
        self.probe
            .unwrap_or_else(|| self.timeout.mul_f64(crate::PROBE_SHARE))
    }
}

/// Workers per core by default. A pair spends much of its time waiting on pipes between the
/// judge and the sandbox, and a test that runs out of time holds its worker for its whole wall
/// budget (a mutant that loops forever spends it): with four workers per core the others keep
/// the cores busy meanwhile (a from-scratch build of the embedded tasks: 1.6x faster than with
/// two, every outcome the same). At most one process of a worker runs at a time (the judge waits
/// while the code computes, and the other way round), so a test gets at least a quarter of a
/// core: the slowdown `exec verify --slowdown 4` shows every verdict survives.
pub const WORKERS_PER_CORE: usize = 4;

/// The default's ceiling (each worker is two warm interpreters, about 30 MB of private memory).
pub const MAX_DEFAULT_WORKERS: usize = 128;

/// Workers by default: [`WORKERS_PER_CORE`] per core, at most [`MAX_DEFAULT_WORKERS`].
/// `EXECSCOPE_ORACLE_WORKERS` overrides it.
fn default_workers() -> usize {
    if let Some(n) = std::env::var("EXECSCOPE_ORACLE_WORKERS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        return n.max(1);
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (cores * WORKERS_PER_CORE).min(MAX_DEFAULT_WORKERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isolation_choice_parses() {
        assert_eq!("netns".parse(), Ok(IsolationChoice::Netns));
        assert_eq!("bwrap".parse(), Ok(IsolationChoice::Bubblewrap));
        assert_eq!("userns".parse(), Ok(IsolationChoice::Userns));
        assert!("jail".parse::<IsolationChoice>().is_err());
    }
}
