//! Running pairs: on the pool of pre-warmed servers (one pair at a time per server, a fresh
//! forked child each), on a fresh interpreter per pair (the baseline), and in batches over all
//! workers. A judge outside the sandbox plans each pair's tests and decides their outcomes.

use super::judge::Judge;
use super::server::{self, Limits, Server};
use super::start::UID_BLOCK;
use super::{outcome, Oracle, OracleError, Outcome, SuiteResult, OBSERVED_MAX};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

impl Oracle {
    /// The limits every request of this oracle runs under.
    fn limits(&self) -> Limits {
        Limits {
            budget: self.cfg.timeout,
            detect: self.cfg.detect,
            mem: self.cfg.mem_bytes,
        }
    }

    /// Runs one pair on a pre-warmed server (blocking until one is free).
    pub fn run(&self, code: &str, tests: &[String]) -> Result<SuiteResult, OracleError> {
        let slot = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(s) = free.pop() {
                    break s;
                }
                free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = self.run_on(slot, code, tests);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot);
        self.freed.notify_one();
        result
    }

    fn run_on(
        &self,
        slot: usize,
        code: &str,
        tests: &[String],
    ) -> Result<SuiteResult, OracleError> {
        let units = self.plan(code, tests)?;
        let mut guard = self.slots[slot].lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(Server::spawn(
                &self.launcher,
                "--server",
                self.uid_base + slot as u32,
            )?);
        }
        let server = guard.as_mut().expect("just set");
        let start = Instant::now();
        let reply = server.request(code, &units, &self.limits());
        if reply.is_err() {
            // The server is dead or wedged: replace it on next use.
            server.kill();
            *guard = None;
        }
        drop(guard);
        self.conclude(code, tests, reply, start)
    }

    /// The sandbox's reply turned into a result by a judge (or, when the harness died or stopped
    /// answering, the outcome that says so for every test).
    fn conclude(
        &self,
        code: &str,
        tests: &[String],
        reply: Result<server::Reply, server::Fail>,
        start: Instant,
    ) -> Result<SuiteResult, OracleError> {
        let level = self.isolation();
        let reply = match reply {
            Ok(r) => r,
            Err(server::Fail::Protocol(m)) => return Err(OracleError::Protocol(m)),
            Err(f) => {
                return Ok(server::failed_result(
                    tests.len(),
                    &f,
                    level,
                    start.elapsed(),
                ))
            }
        };
        let (outcomes, observed) =
            self.with_judge(|j| j.judge(code, tests, &reply.results_json))?;
        let outcomes = outcomes
            .iter()
            .map(|s| s.parse::<Outcome>().map_err(OracleError::Protocol))
            .collect::<Result<Vec<_>, _>>()?;
        let observed = observed
            .into_iter()
            .map(|o| o.map(|s| outcome::escape_text(&s, OBSERVED_MAX)))
            .collect();
        let test_ms = if reply.test_ms.len() == tests.len() {
            reply.test_ms
        } else {
            Vec::new()
        };
        Ok(SuiteResult {
            outcomes,
            observed,
            isolation: level,
            wall_ms: reply.wall_ms,
            test_ms,
        })
    }

    /// Runs `f` on an idle judge (started on demand); a judge that failed is discarded.
    fn with_judge<T>(
        &self,
        f: impl FnOnce(&mut Judge) -> Result<T, OracleError>,
    ) -> Result<T, OracleError> {
        let idle = self.judges.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut judge = match idle {
            Some(j) => j,
            None => Judge::spawn(&self.launcher.python.exe)?,
        };
        let r = f(&mut judge);
        if r.is_ok() {
            self.judges
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(judge);
        }
        r
    }

    /// Per test, the units the sandbox must evaluate (they depend on the names the code binds,
    /// so a judge plans every pair; it caches plans by test and bound names).
    fn plan(&self, code: &str, tests: &[String]) -> Result<Vec<serde_json::Value>, OracleError> {
        if tests.is_empty() {
            return Ok(Vec::new());
        }
        self.with_judge(|j| j.plan(code, tests))
    }

    /// The baseline: a fresh interpreter (inside the same sandbox) for this one pair.
    pub fn run_naive(&self, code: &str, tests: &[String]) -> Result<SuiteResult, OracleError> {
        let seq = self.naive_seq.fetch_add(1, Ordering::Relaxed);
        let uid = self.uid_base + UID_BLOCK / 2 + seq % (UID_BLOCK / 2);
        let units = self.plan(code, tests)?;
        let start = Instant::now();
        let mut server = Server::spawn(&self.launcher, "--once", uid)?;
        let reply = server.request(code, &units, &self.limits());
        server.finish(Duration::from_secs(2));
        self.conclude(code, tests, reply, start)
    }

    /// Runs many pairs over all workers; results in input order. `progress` gets the number of
    /// pairs finished so far after each one.
    pub fn run_batch(
        &self,
        jobs: &[(String, Vec<String>)],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, false)
    }

    /// [`Oracle::run_batch`] with the naive runner (same parallelism), for the baseline.
    pub fn run_batch_naive(
        &self,
        jobs: &[(String, Vec<String>)],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, true)
    }

    fn batch(
        &self,
        jobs: &[(String, Vec<String>)],
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
                    let Some((code, tests)) = jobs.get(i) else {
                        break;
                    };
                    let r = if naive {
                        self.run_naive(code, tests)
                    } else {
                        self.run(code, tests)
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
