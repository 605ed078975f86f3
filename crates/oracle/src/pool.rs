//! Running pairs: on the pool of workers (each a pre-warmed harness server and a judge zygote,
//! one pair at a time, a fresh forked child of each per pair), on a fresh interpreter per pair
//! (the baseline), and in batches over all workers.

use super::session::{Ctx, PairRun, Worker};
use super::start::UID_BLOCK;
use super::{Oracle, OracleError, SuiteResult};
use execscope_record::Job;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

impl Oracle {
    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx {
            launcher: &self.launcher,
            cfg: &self.cfg,
        }
    }

    /// Runs one pair whose entry point the judge infers (see [`Oracle::run_job`]).
    pub fn run(&self, code: &str, tests: &[String]) -> Result<SuiteResult, OracleError> {
        self.run_job(&Job::new(code, tests.to_vec()))
    }

    /// Runs one job on a worker (blocking until one is free). `Err` only when no harness or
    /// judge can be started; anything one pair does is recorded in its own outcomes.
    pub fn run_job(&self, job: &Job) -> Result<SuiteResult, OracleError> {
        if let Some(why) = self.language_unavailable(job.language) {
            return Err(OracleError::Toolchain(why));
        }
        let slot = self.acquire();
        let result = self.run_on(slot, job);
        self.release(slot);
        result
    }

    /// A free worker slot, waiting until one is.
    fn acquire(&self) -> usize {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(s) = free.pop() {
                return s;
            }
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release(&self, slot: usize) {
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot);
        self.freed.notify_one();
    }

    /// Runs `f` holding one worker, through which `f` runs any number of jobs, one after
    /// another ([`units`]: jobs of the same suite on one worker compile its tests once).
    pub fn on_one_worker<R>(
        &self,
        f: impl FnOnce(&dyn Fn(&Job) -> Result<SuiteResult, OracleError>) -> R,
    ) -> R {
        let slot = self.acquire();
        let r = f(&|job: &Job| self.run_on(slot, job));
        self.release(slot);
        r
    }

    /// Runs `job` on the worker in `slot` (acquired by the caller).
    fn run_on(&self, slot: usize, job: &Job) -> Result<SuiteResult, OracleError> {
        if let Some(why) = self.language_unavailable(job.language) {
            return Err(OracleError::Toolchain(why));
        }
        let mut w = self.slots[slot].lock().unwrap_or_else(|e| e.into_inner());
        PairRun::new(self.ctx(), &mut w, job, self.uid_base + slot as u32, false).run()
    }

    /// The baseline: a fresh harness interpreter and a fresh judge for this one pair.
    pub fn run_naive(&self, job: &Job) -> Result<SuiteResult, OracleError> {
        if let Some(why) = self.language_unavailable(job.language) {
            return Err(OracleError::Toolchain(why));
        }
        let seq = self.naive_seq.fetch_add(1, Ordering::Relaxed);
        let uid = self.uid_base + UID_BLOCK / 2 + seq % (UID_BLOCK / 4);
        let mut w = Worker::default();
        PairRun::new(self.ctx(), &mut w, job, uid, true).run()
    }

    /// Runs many jobs over all workers; results in input order. `progress` gets the number of
    /// pairs finished so far after each one.
    pub fn run_batch(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, false)
    }

    /// [`Oracle::run_batch`] with the naive runner (same parallelism), for the baseline.
    pub fn run_batch_naive(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, true)
    }

    fn batch(
        &self,
        jobs: &[Job],
        progress: &(dyn Fn(usize) + Sync),
        naive: bool,
    ) -> Vec<Result<SuiteResult, OracleError>> {
        let units = units(jobs);
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let out: Vec<Mutex<Option<Result<SuiteResult, OracleError>>>> =
            jobs.iter().map(|_| Mutex::new(None)).collect();
        let finish = |i: usize, r| {
            *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
        };
        std::thread::scope(|s| {
            for _ in 0..self.cfg.workers.min(units.len()) {
                s.spawn(|| loop {
                    let u = next.fetch_add(1, Ordering::Relaxed);
                    let Some(unit) = units.get(u) else {
                        break;
                    };
                    if naive {
                        for &i in unit {
                            finish(i, self.run_naive(&jobs[i]));
                        }
                        continue;
                    }
                    // One worker for the whole unit: its judge zygote compiles the unit's tests
                    // once (they are the same texts) and every pair's child inherits them.
                    self.on_one_worker(|run| {
                        for &i in unit {
                            finish(i, run(&jobs[i]));
                        }
                    });
                });
            }
        });
        out.into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Err(OracleError::Protocol("job not run".into())))
            })
            .collect()
    }
}

/// The most jobs one unit of a batch holds.
pub const UNIT: usize = 8;

/// A batch's units of work: the indices of jobs with the same tests and setup, in input order,
/// at most [`UNIT`] to a unit; units in the order their first job comes. A unit runs on one
/// worker, one pair after another, so the judge compiles a suite's test texts once for up to
/// [`UNIT`] pairs instead of once per worker that meets them (an EvalPlus suite of a hundred
/// inputs with their expected values costs a zygote 0.1-2 s to compile; docs/performance.md).
/// Which worker runs a pair never changes its verdict (each pair is a fresh child of each side).
pub fn units(jobs: &[Job]) -> Vec<Vec<usize>> {
    let mut open: HashMap<(&[String], &str), usize> = HashMap::new();
    let mut units: Vec<Vec<usize>> = Vec::new();
    for (i, job) in jobs.iter().enumerate() {
        let key = (job.tests.as_slice(), job.setup.as_str());
        match open.get(&key) {
            Some(&u) if units[u].len() < UNIT => units[u].push(i),
            _ => {
                open.insert(key, units.len());
                units.push(vec![i]);
            }
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_gather_jobs_of_the_same_suite_in_input_order_up_to_the_limit() {
        let job = |code: &str, tests: &[&str]| {
            Job::new(code, tests.iter().map(|t| t.to_string()).collect())
        };
        let mut jobs = vec![
            job("a", &["t1"]),
            job("b", &["t2"]),
            job("c", &["t1"]),
            job("d", &["t1", "t2"]),
        ];
        jobs.push(job("e", &["t1"]).setup("import math"));
        assert_eq!(units(&jobs), vec![vec![0, 2], vec![1], vec![3], vec![4]]);
        let many: Vec<Job> = (0..UNIT + 3).map(|i| job(&i.to_string(), &["t"])).collect();
        let u = units(&many);
        assert_eq!(u.len(), 2);
        assert_eq!(u[0], (0..UNIT).collect::<Vec<_>>());
        assert_eq!(u[1], (UNIT..UNIT + 3).collect::<Vec<_>>());
        assert!(units(&[]).is_empty());
    }
}
