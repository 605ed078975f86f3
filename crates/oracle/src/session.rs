//! One pair on one worker. A worker is a harness server (in the sandbox) and a judge zygote
//! (outside it), joined by a pipe pair execscope creates when it starts them: the judge's child
//! writes its requests into one, the harness hands the other ends to each pair child it forks, and
//! the child answers on the other, every line tagged with the token the harness gave that child.
//! So requests and answers go judge ⇄ pair child directly; execscope sees only each test's
//! verdict, and is asked for a new pair child when one is gone (it died, or ran out of time and is
//! to be probed under the hang detector).
//!
//! The judge enforces each test's budget (while the code holds the ball, and its own logic's);
//! execscope only keeps a backstop. A judge or harness that dies or stops answering is replaced
//! (both, with new pipes) and only the test it was on records it; the pair goes on with the next
//! test.

use super::judge::{Judge, JudgeLine};
use super::sandbox::Launcher;
use super::server::{Fail, Limits, Server, ServerLine, BACKSTOP, HARNESS_KILLED};
use super::{outcome, OracleConfig, OracleError, Outcome, SuiteResult, OBSERVED_MAX};
use execscope_record::{Job, SelfTest};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

/// What a pair runs with: the level's launcher and the oracle's settings.
#[derive(Clone, Copy)]
pub(crate) struct Ctx<'a> {
    pub launcher: &'a Launcher,
    pub cfg: &'a OracleConfig,
}

impl Ctx<'_> {
    pub fn limits(&self) -> Limits {
        Limits {
            budget: self.cfg.timeout,
            detect: self.cfg.detect,
            probe: self.cfg.probe_after(),
            mem: self.cfg.mem_bytes,
            build: self.cfg.build,
        }
    }
}

/// The processes one worker keeps warm: a harness server and a judge zygote, started together
/// (they share the pipe pair), replaced together.
#[derive(Default)]
pub struct Worker {
    pub server: Option<Server>,
    pub judge: Option<Judge>,
}

fn pipe() -> Result<(OwnedFd, OwnedFd), OracleError> {
    let mut fds = [0i32; 2];
    // SAFETY: pipe2 writes two descriptors we then own.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(OracleError::Spawn(format!(
            "pipe: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: both descriptors are fresh and ours.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

impl Worker {
    /// Starts the harness (`mode` `--server` or `--once`, pairs as `uid`) and the judge, joined
    /// by a new pipe pair (execscope keeps no end of it).
    pub fn start(ctx: Ctx<'_>, mode: &str, uid: u32) -> Result<Worker, OracleError> {
        let (to_code_r, to_code_w) = pipe()?;
        let (from_code_r, from_code_w) = pipe()?;
        let records = pipe()?;
        // Most records fit at once (a pipe of 1 MiB, the most an ordinary user may ask for); a
        // longer one is written as the child reads it. Never blocking: the oracle waits with a
        // deadline.
        // SAFETY: fcntl on a descriptor we own.
        unsafe {
            let w = records.1.as_raw_fd();
            libc::fcntl(w, libc::F_SETPIPE_SZ, 1 << 20);
            libc::fcntl(
                w,
                libc::F_SETFL,
                libc::fcntl(w, libc::F_GETFL) | libc::O_NONBLOCK,
            );
        }
        let server = Server::spawn(
            ctx.launcher,
            mode,
            uid,
            ctx.cfg.hash_seed,
            (to_code_r.as_raw_fd(), from_code_w.as_raw_fd()),
            records,
        )?;
        let py = &ctx.launcher.python;
        let judge = Judge::spawn(
            &py.exe,
            &py.flags(),
            ctx.cfg.hash_seed,
            (to_code_w.as_raw_fd(), from_code_r.as_raw_fd()),
        )?;
        Ok(Worker {
            server: Some(server),
            judge: Some(judge),
        })
    }

    fn stop(&mut self) {
        if let Some(mut s) = self.server.take() {
            s.kill();
        }
        self.judge = None;
    }
}

/// How each test of a pair ended.
struct Tests {
    outcomes: Vec<Option<String>>,
    observed: Vec<Option<String>>,
    ms: Vec<u32>,
    /// The job's [`Job::stop`]: segment starts, each segment ending at its first non-pass.
    stop: Option<Vec<usize>>,
    /// The tests at which a segment stopped.
    stopped: Vec<usize>,
}

impl Tests {
    /// Records test `i`. Under a stop request a non-pass ends its segment: the segment's later
    /// tests are recorded not run (the judge runs none of them), whoever decided the outcome
    /// (the judge, or execscope for a process that died or stopped answering).
    fn set(&mut self, i: usize, outcome: &str, observed: Option<String>, ms: u32) {
        if i < self.outcomes.len() {
            self.outcomes[i] = Some(outcome.to_string());
            self.observed[i] = observed;
            self.ms[i] = ms;
            if let Some(stop) = &self.stop {
                if outcome != "pass" {
                    self.stopped.push(i);
                    let end = execscope_record::job::segment_end(stop, i, self.outcomes.len());
                    for j in i + 1..end {
                        self.outcomes[j] = Some(outcome::NOT_RUN.to_string());
                    }
                }
            }
        }
    }

    /// The first test without an outcome.
    fn next(&self) -> usize {
        self.outcomes
            .iter()
            .position(Option::is_none)
            .unwrap_or(self.outcomes.len())
    }
}

/// One pair's run on a worker.
pub(crate) struct PairRun<'a> {
    ctx: Ctx<'a>,
    w: &'a mut Worker,
    job: &'a Job,
    limits: Limits,
    uid: u32,
    mode: &'static str,
}

impl<'a> PairRun<'a> {
    pub fn new(ctx: Ctx<'a>, w: &'a mut Worker, job: &'a Job, uid: u32, once: bool) -> Self {
        PairRun {
            limits: ctx.limits(),
            ctx,
            w,
            job,
            uid,
            mode: if once { "--once" } else { "--server" },
        }
    }

    /// Runs every test. `Err` only when no worker can be started at all.
    pub fn run(mut self) -> Result<SuiteResult, OracleError> {
        let start = Instant::now();
        let n = self.job.tests.len();
        let mut t = Tests {
            outcomes: vec![None; n],
            observed: vec![None; n],
            ms: vec![0; n],
            stop: self
                .job
                .stop
                .clone()
                .filter(|_| self.job.selftest.is_none()),
            stopped: Vec::new(),
        };
        if self.job.selftest.is_some() {
            self.selftest(&mut t)?;
        } else {
            let mut tries = 0;
            while t.next() < n {
                tries += 1;
                if tries > n + 2 {
                    // Every attempt lost its worker: nothing can run this pair.
                    let i = t.next();
                    t.set(i, HARNESS_KILLED, None, 0);
                    continue;
                }
                self.run_from(&mut t)?;
            }
        }
        if let Some(s) = self.w.server.as_mut() {
            if n > 0 && !s.end() {
                self.w.stop();
            }
        }
        Ok(SuiteResult {
            outcomes: t
                .outcomes
                .iter()
                .map(|o| {
                    o.as_deref()
                        .and_then(|s| s.parse::<Outcome>().ok())
                        .unwrap_or_else(|| Outcome::Error("Other".into()))
                })
                .collect(),
            observed: t
                .observed
                .into_iter()
                .map(|o| o.map(|s| outcome::escape_text(&s, OBSERVED_MAX)))
                .collect(),
            isolation: self.ctx.launcher.level,
            wall_ms: start.elapsed().as_millis() as u64,
            test_ms: t.ms,
            stopped: t.stopped,
        })
    }

    fn worker(&mut self) -> Result<(), OracleError> {
        if self.w.server.is_none() || self.w.judge.is_none() {
            self.w.stop();
            *self.w = Worker::start(self.ctx, self.mode, self.uid)?;
        }
        Ok(())
    }

    /// Starts the pair on the worker and collects the judge's verdicts from the first test that
    /// has none; when a process fails, the test it was on records it and the worker is replaced.
    fn run_from(&mut self, t: &mut Tests) -> Result<(), OracleError> {
        self.worker()?;
        let first = t.next();
        let server = self.w.server.as_mut().expect("started");
        let token = match server.begin(self.job, &self.limits) {
            Ok(tok) => tok,
            Err(_) => {
                self.w.stop();
                t.set(first, HARNESS_KILLED, None, 0);
                return Ok(());
            }
        };
        let judge = self.w.judge.as_mut().expect("started");
        if judge.begin(self.job, &token, &self.limits, first).is_err() {
            self.w.stop();
            t.set(first, "ERROR:Other", None, 0);
            return Ok(());
        }
        // The judge bounds each test (and its hang detection) and writes its verdicts together
        // (before asking for a new child, and at the end); this only catches a judge that
        // stopped answering.
        let left = (self.job.tests.len() - first).max(1) as u32;
        let build = if self.job.language.is_python() {
            std::time::Duration::ZERO
        } else {
            self.limits.build
        };
        let backstop =
            (self.limits.widest(self.job) + self.limits.detect) * left + build + BACKSTOP;
        let mut deadline = Instant::now() + backstop;
        loop {
            let judge = self.w.judge.as_mut().expect("started");
            match judge.next(deadline) {
                Ok(JudgeLine::Verdict(v)) => {
                    if let Some((i, o, obs, ms)) = verdict(&v) {
                        t.set(i, &o, obs, ms);
                    }
                }
                Ok(JudgeLine::Renew(detect)) => {
                    let server = self.w.server.as_mut().expect("started");
                    let token = match server.replace(self.job, detect) {
                        Ok(tok) => tok,
                        Err(_) => {
                            self.w.stop();
                            t.set(t.next(), HARNESS_KILLED, None, 0);
                            return Ok(());
                        }
                    };
                    let judge = self.w.judge.as_mut().expect("started");
                    if judge.send(format!("G {token}").as_bytes()).is_err() {
                        self.w.stop();
                        t.set(t.next(), "ERROR:Other", None, 0);
                        return Ok(());
                    }
                    deadline = Instant::now() + backstop;
                }
                Ok(JudgeLine::Done) => {
                    if t.next() < t.outcomes.len() {
                        // The judge's child failed outside any test: its test says so.
                        t.set(t.next(), "ERROR:Other", None, 0);
                    }
                    return Ok(());
                }
                Err(f) => {
                    // The judge overran its own budget (a loop of the test inside a C call) or
                    // died: both processes are replaced, the test records it.
                    self.w.stop();
                    let why = if matches!(f, Fail::Timeout) {
                        "TIMEOUT"
                    } else {
                        "ERROR:Other"
                    };
                    t.set(t.next(), why, None, backstop.as_millis() as u32);
                    return Ok(());
                }
            }
        }
    }

    /// A model-written self-test: run in the sandbox by a process of its own against the code's
    /// process; the harness returns the self-test runner's verdict.
    fn selftest(&mut self, t: &mut Tests) -> Result<(), OracleError> {
        let supply = self.job.selftest == Some(SelfTest::Supply);
        let req = serde_json::json!({ "budget": self.limits.budget.as_secs_f64() });
        let records = [
            serde_json::json!({ "code": self.job.code }),
            serde_json::json!({
                "code": self.job.code,
                "tests": self.job.tests.first().cloned().unwrap_or_default(),
                "entry": self.job.entry, "supply": supply,
            }),
        ];
        self.worker()?;
        let t0 = Instant::now();
        let server = self.w.server.as_mut().expect("started");
        let got = server.begin(self.job, &self.limits).and_then(|_| {
            server.selftest(
                &req,
                &records,
                Instant::now() + self.limits.budget + BACKSTOP,
            )
        });
        let ms = t0.elapsed().as_millis() as u32;
        match got {
            Ok(ServerLine::Verdict(v)) => match untrusted_verdict(&v) {
                Some((o, obs)) => t.set(0, &o, obs, ms),
                None => t.set(0, "FAIL:Unjudged", None, ms),
            },
            Ok(ServerLine::Status(st)) => t.set(0, &st, None, ms),
            Ok(_) => t.set(0, "ERROR:Other", None, ms),
            Err(f) => {
                self.w.stop();
                let why = if matches!(f, Fail::Timeout) {
                    "TIMEOUT"
                } else {
                    HARNESS_KILLED
                };
                t.set(0, why, None, ms);
            }
        }
        Ok(())
    }
}

/// A verdict line of the judge `{"i", "o", "obs", "ms"}`; an outcome the judge could not have
/// meant is its own failure (`ERROR:Other`).
fn verdict(v: &str) -> Option<(usize, String, Option<String>, u32)> {
    #[derive(serde::Deserialize)]
    struct V {
        i: usize,
        o: String,
        #[serde(default)]
        obs: Option<String>,
        #[serde(default)]
        ms: u32,
    }
    let v: V = serde_json::from_str(v).ok()?;
    let o = if v.o.parse::<Outcome>().is_ok() {
        v.o
    } else {
        "ERROR:Other".into()
    };
    Some((v.i, o, v.obs, v.ms))
}

/// A sandboxed self-test runner's verdict `{"o", "obs"}`: untrusted text, so anything that is not
/// an outcome is `Unjudged`.
fn untrusted_verdict(v: &str) -> Option<(String, Option<String>)> {
    #[derive(serde::Deserialize)]
    struct V {
        o: String,
        #[serde(default)]
        obs: Option<String>,
    }
    let v: V = serde_json::from_str(v).ok()?;
    v.o.parse::<Outcome>().ok()?;
    Some((v.o, v.obs))
}
