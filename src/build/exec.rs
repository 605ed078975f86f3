//! Batch execution for the builder: every pair goes through the oracle's worker pool, every result
//! becomes an execution-cache row, and one stream of progress events (phase, pairs done, pairs
//! queued) spans all phases; the CLI draws them (the core knows no terminal).
//!
//! A rebuild into the same directory reuses the full results (outcomes *and* observed values,
//! which selection needs and the cache format does not keep) of the previous build from a hidden
//! memo file, for pairs whose (code, tests, runner, isolation) are unchanged. A test that runs out
//! of time costs its whole budget plus hang detection, so fixing a few tasks of a large file would
//! otherwise mean re-running every mutant.

use crate::bundle::model::{code_sha256, tests_sha256, ExecRecord};
use crate::oracle::{record_from, ExecCache, Oracle, SuiteResult};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The memo file, relative to the bundle root (hidden: not bundle data, not in `SHA256SUMS`).
pub const MEMO_FILE: &str = ".execscope-build-memo.jsonl";

#[derive(Serialize, Deserialize)]
struct MemoRow {
    code_sha256: String,
    tests_sha256: String,
    runner: String,
    result: SuiteResult,
}

type Key = (String, String);

/// Where a build's execution stands: the current phase, pairs done and pairs queued so far over
/// all phases (the total grows as phases start), and whether the run is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: String,
    pub done: u64,
    pub total: u64,
    pub finished: bool,
}

/// A receiver of [`Progress`] events (the CLI draws a bar from them).
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Runs pairs and remembers them.
pub struct Runner<'a> {
    oracle: &'a Oracle,
    runner: String,
    /// Every executed pair's row, in first-execution order.
    pub cache: ExecCache,
    /// Pairs handed to the oracle (including repeats of a pair already cached).
    pub pairs: usize,
    /// Wall time spent inside the oracle.
    pub busy: Duration,
    /// Pairs answered from the memo of an earlier build.
    pub reused: usize,
    memo: HashMap<Key, SuiteResult>,
    /// Results of this build, in first-execution order (the next memo).
    fresh: Vec<(Key, SuiteResult)>,
    progress: Option<ProgressFn>,
    done: u64,
    total: u64,
}

impl<'a> Runner<'a> {
    /// `progress` receives an event whenever pairs complete or a phase starts.
    pub fn new(oracle: &'a Oracle, progress: Option<ProgressFn>) -> Runner<'a> {
        Runner {
            oracle,
            runner: oracle.runner_string(),
            cache: ExecCache::new(),
            pairs: 0,
            busy: Duration::ZERO,
            reused: 0,
            memo: HashMap::new(),
            fresh: Vec::new(),
            progress,
            done: 0,
            total: 0,
        }
    }

    /// Loads the memo under `root` (rows of another runner or isolation level are ignored; an
    /// unreadable memo is simply not used).
    pub fn load_memo(&mut self, root: &Path) {
        let Ok(text) = std::fs::read_to_string(root.join(MEMO_FILE)) else {
            return;
        };
        let level = self.oracle.isolation();
        for line in text.lines() {
            if let Ok(r) = serde_json::from_str::<MemoRow>(line) {
                if r.runner == self.runner && r.result.isolation == level {
                    self.memo.insert((r.code_sha256, r.tests_sha256), r.result);
                }
            }
        }
    }

    /// Writes this build's results as the memo under `root`.
    pub fn save_memo(&self, root: &Path) -> std::io::Result<()> {
        let mut buf = Vec::new();
        for ((c, t), r) in &self.fresh {
            let row = MemoRow {
                code_sha256: c.clone(),
                tests_sha256: t.clone(),
                runner: self.runner.clone(),
                result: r.clone(),
            };
            serde_json::to_writer(&mut buf, &row)?;
            buf.push(b'\n');
        }
        crate::atomic::write_atomic(&root.join(MEMO_FILE), &buf)
    }

    pub fn runner_string(&self) -> &str {
        &self.runner
    }

    /// Each test's wall budget in the oracle.
    pub fn test_budget(&self) -> Duration {
        self.oracle.config().timeout
    }

    /// Executes `jobs` (results in input order; an oracle failure is `Err(message)`), recording
    /// each successful result in the cache.
    pub fn run(
        &mut self,
        phase: &str,
        jobs: &[(String, Vec<String>)],
    ) -> Vec<Result<SuiteResult, String>> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let keys: Vec<Key> = jobs
            .iter()
            .map(|(c, t)| (code_sha256(c), tests_sha256(t)))
            .collect();
        let todo: Vec<usize> = (0..jobs.len())
            .filter(|&i| !self.memo.contains_key(&keys[i]))
            .collect();
        let mut results: Vec<Option<Result<SuiteResult, String>>> = keys
            .iter()
            .map(|k| self.memo.get(k).cloned().map(Ok))
            .collect();
        self.reused += jobs.len() - todo.len();
        if !todo.is_empty() {
            let batch: Vec<(String, Vec<String>)> = todo.iter().map(|&i| jobs[i].clone()).collect();
            self.total += batch.len() as u64;
            let base = self.done;
            let total = self.total;
            let emit = |done: u64, finished: bool| {
                if let Some(f) = &self.progress {
                    f(&Progress {
                        phase: phase.to_string(),
                        done,
                        total,
                        finished,
                    });
                }
            };
            emit(base, false);
            let start = Instant::now();
            let out = self
                .oracle
                .run_batch(&batch, &|done| emit(base + done as u64, false));
            self.done = base + batch.len() as u64;
            self.busy += start.elapsed();
            self.pairs += batch.len();
            for (&i, r) in todo.iter().zip(out) {
                results[i] = Some(r.map_err(|e| e.to_string()));
            }
        }
        results
            .into_iter()
            .zip(jobs)
            .zip(keys)
            .map(|((r, (code, tests)), key)| {
                let r = r.unwrap_or_else(|| Err("not run".into()))?;
                let row: ExecRecord = record_from(code, tests, &r, &self.runner);
                if self.cache.insert(row).is_none() {
                    self.fresh.push((key, r.clone()));
                }
                Ok(r)
            })
            .collect()
    }

    /// Signals the end of the run (the CLI clears its bar).
    pub fn finish(&self) {
        if let Some(f) = &self.progress {
            f(&Progress {
                phase: String::new(),
                done: self.done,
                total: self.total,
                finished: true,
            });
        }
    }
}
