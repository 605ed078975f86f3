//! Running pairs: on the pool of workers (each a pre-warmed harness server and a judge zygote,
//! one pair at a time, a fresh forked child of each per pair), on a fresh interpreter per pair
//! (the baseline), and in batches over all workers.

use super::session::{Ctx, PairRun, Worker};
use super::start::UID_BLOCK;
use super::{Oracle, OracleError, SuiteResult};
use execscope_record::Job;
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
        let slot = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(s) = free.pop() {
                    break s;
                }
                free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = {
            let mut w = self.slots[slot].lock().unwrap_or_else(|e| e.into_inner());
            PairRun::new(self.ctx(), &mut w, job, self.uid_base + slot as u32, false).run()
        };
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot);
        self.freed.notify_one();
        result
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
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let out: Vec<Mutex<Option<Result<SuiteResult, OracleError>>>> =
            jobs.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..self.cfg.workers.min(jobs.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(job) = jobs.get(i) else {
                        break;
                    };
                    let r = if naive {
                        self.run_naive(job)
                    } else {
                        self.run_job(job)
                    };
                    *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
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
