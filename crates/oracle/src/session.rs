//! One pair, test by test: execscope relays between the judge (which runs the test) and the
//! harness (whose pair child runs the code), line by line, without reading what it relays.
//!
//! Per test: the harness executes the code in a fresh namespace and reports its names; the judge
//! runs the test with them; every request of the judge goes to the code and every answer (or
//! request of the code, a callback into the test) comes back, until the judge's verdict. The
//! harness enforces the test's wall budget while the code holds the ball and this side while the
//! judge does; whichever runs out, the test is `TIMEOUT` (and, when the code held the ball, it is
//! run once more under the hang detector). A harness or judge that dies or stops answering is
//! replaced and only the test it was on records it; the pair goes on with the next test.

use super::judge::{Judge, JudgeLine};
use super::sandbox::Launcher;
use super::server::{Fail, Limits, Server, ServerLine, BACKSTOP, HARNESS_KILLED};
use super::{outcome, OracleConfig, OracleError, Outcome, SuiteResult, OBSERVED_MAX};
use execscope_record::{Job, SelfTest};
use std::time::{Duration, Instant};

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
            mem: self.cfg.mem_bytes,
        }
    }

    /// A judge zygote for this oracle's interpreter and hash seed.
    pub fn spawn_judge(&self) -> Result<Judge, OracleError> {
        let py = &self.launcher.python;
        Judge::spawn(&py.exe, &py.flags(), self.cfg.hash_seed)
    }
}

/// The processes one worker keeps warm: a harness server and a judge zygote.
#[derive(Default)]
pub struct Worker {
    pub server: Option<Server>,
    pub judge: Option<Judge>,
}

/// How a test ended.
struct Ended {
    outcome: String,
    observed: Option<String>,
    /// The sandbox ran out of time while the code held the ball (a hang may be provable).
    code_timed_out: bool,
}

impl Ended {
    fn status(s: &str) -> Ended {
        Ended {
            outcome: s.to_string(),
            observed: None,
            code_timed_out: s == "TIMEOUT",
        }
    }
}

/// The state of one pair's run on a worker.
pub(crate) struct PairRun<'a> {
    oracle: Ctx<'a>,
    w: &'a mut Worker,
    job: &'a Job,
    limits: Limits,
    uid: u32,
    mode: &'static str,
    /// The server (judge) knows this pair (`begin` sent since it was started).
    server_on: bool,
    judge_on: bool,
}

impl<'a> PairRun<'a> {
    pub fn new(oracle: Ctx<'a>, w: &'a mut Worker, job: &'a Job, uid: u32, once: bool) -> Self {
        PairRun {
            limits: oracle.limits(),
            oracle,
            w,
            job,
            uid,
            mode: if once { "--once" } else { "--server" },
            server_on: false,
            judge_on: false,
        }
    }

    /// Runs every test. `Err` only when no harness or judge can be started at all.
    pub fn run(mut self) -> Result<SuiteResult, OracleError> {
        let start = Instant::now();
        let n = self.job.tests.len();
        let (mut outcomes, mut observed, mut test_ms) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        if self.job.selftest.is_some() {
            let e = self.selftest()?;
            outcomes.push(e.outcome);
            observed.push(e.observed);
            test_ms.push(start.elapsed().as_millis() as u32);
        } else {
            for i in 0..n {
                let t0 = Instant::now();
                let mut e = self.attempt(i, None)?;
                let ms = t0.elapsed().as_millis() as u32;
                if e.code_timed_out && !self.limits.detect.is_zero() {
                    let d = self.attempt(i, Some(self.limits.detect))?;
                    e = Ended::status(if d.outcome == "HANG" {
                        "HANG"
                    } else {
                        "TIMEOUT"
                    });
                }
                outcomes.push(e.outcome);
                observed.push(e.observed);
                test_ms.push(ms);
            }
        }
        self.finish();
        let outcomes = outcomes
            .iter()
            .map(|s| s.parse::<Outcome>().unwrap_or_else(|_| unjudged()))
            .collect();
        Ok(SuiteResult {
            outcomes,
            observed: observed
                .into_iter()
                .map(|o| o.map(|s| outcome::escape_text(&s, OBSERVED_MAX)))
                .collect(),
            isolation: self.oracle.launcher.level,
            wall_ms: start.elapsed().as_millis() as u64,
            test_ms,
        })
    }

    fn server(&mut self) -> Result<&mut Server, OracleError> {
        if self.w.server.is_none() {
            self.server_on = false;
            self.w.server = Some(Server::spawn(
                self.oracle.launcher,
                self.mode,
                self.uid,
                self.oracle.cfg.hash_seed,
            )?);
        }
        let s = self.w.server.as_mut().expect("just set");
        if !self.server_on {
            self.server_on = true;
            if s.begin(self.job, &self.limits).is_err() {
                self.w.server = None;
                return Err(OracleError::Spawn(
                    "harness died at the start of a pair".into(),
                ));
            }
        }
        Ok(self.w.server.as_mut().expect("checked"))
    }

    fn judge(&mut self) -> Result<&mut Judge, OracleError> {
        if self.w.judge.is_none() {
            self.judge_on = false;
            self.w.judge = Some(self.oracle.spawn_judge()?);
        }
        if !self.judge_on {
            self.judge_on = true;
            let j = self.w.judge.as_mut().expect("just set");
            if j.begin(self.job).is_err() {
                self.w.judge = None;
                return Err(OracleError::Spawn(
                    "judge died at the start of a pair".into(),
                ));
            }
        }
        Ok(self.w.judge.as_mut().expect("checked"))
    }

    fn drop_server(&mut self) {
        if let Some(mut s) = self.w.server.take() {
            s.kill();
        }
        self.server_on = false;
    }

    fn drop_judge(&mut self) {
        self.w.judge = None;
        self.judge_on = false;
    }

    /// One run of test `i` (`detect`: under the hang detector, with that wall backstop).
    fn attempt(&mut self, i: usize, detect: Option<Duration>) -> Result<Ended, OracleError> {
        let budget = detect.unwrap_or(self.limits.budget);
        let req = serde_json::json!({
            "i": i, "budget": self.limits.budget.as_secs_f64(),
            "detect": detect.map_or(0.0, |d| d.as_secs_f64()),
        });
        // Both processes up first: starting one is not the test's time.
        self.judge()?;
        self.server()?;
        let deadline = Instant::now() + budget;
        let server = self.server()?;
        let got = match server.send(format!("T {req}").as_bytes()) {
            Ok(()) => server.next(deadline + BACKSTOP),
            Err(f) => Err(f),
        };
        let names = match got {
            Ok(ServerLine::Names(p)) => p,
            Ok(ServerLine::Status(st)) => return Ok(Ended::status(&st)),
            Ok(_) => {
                self.drop_server();
                return Ok(Ended::status("ERROR:Other"));
            }
            Err(f) => return Ok(self.server_lost(f)),
        };
        let judge = self.judge()?;
        if judge.send(format!("T {i} {names}").as_bytes()).is_err() {
            self.drop_judge();
            return Ok(Ended::status("ERROR:Other"));
        }
        self.relay(deadline, budget)
    }

    /// Relays between the judge and the code until the judge's verdict.
    fn relay(&mut self, deadline: Instant, budget: Duration) -> Result<Ended, OracleError> {
        let mut status: Option<Ended> = None;
        let mut until = deadline;
        loop {
            let judge = self.w.judge.as_mut().expect("started in attempt");
            let line = judge.next(until);
            match line {
                Ok(JudgeLine::Verdict(v)) => {
                    return Ok(status.unwrap_or_else(|| verdict(&v, true)));
                }
                Ok(JudgeLine::ToCode(msg)) => {
                    if status.is_none() {
                        status = self.relay_to_code(&msg, deadline);
                    }
                    let judge = self.w.judge.as_mut().expect("started in attempt");
                    let sent = match &status {
                        Some(_) => {
                            until = until.max(Instant::now() + budget);
                            judge.send(b"A")
                        }
                        None => Ok(()),
                    };
                    if sent.is_err() {
                        self.drop_judge();
                        return Ok(status.unwrap_or_else(|| Ended::status("ERROR:Other")));
                    }
                }
                Err(f) => {
                    // The judge ran out of time (or died): it is replaced, and the code's child
                    // (possibly waiting on it) with it.
                    self.drop_judge();
                    if let Some(s) = self.w.server.as_mut() {
                        if s.send(b"K").is_err() {
                            self.drop_server();
                        }
                    }
                    let why = if matches!(f, Fail::Timeout) {
                        "TIMEOUT"
                    } else {
                        "ERROR:Other"
                    };
                    return Ok(status.unwrap_or_else(|| Ended {
                        code_timed_out: false,
                        ..Ended::status(why)
                    }));
                }
            }
        }
    }

    /// Sends one of the judge's messages to the code and passes the answer back; `Some` when the
    /// sandbox ended the test instead (its status is the outcome).
    fn relay_to_code(&mut self, msg: &str, deadline: Instant) -> Option<Ended> {
        let Some(server) = self.w.server.as_mut() else {
            return Some(Ended::status(HARNESS_KILLED));
        };
        let got = match server.send(format!("C {msg}").as_bytes()) {
            Ok(()) => server.next(deadline + BACKSTOP),
            Err(f) => Err(f),
        };
        let reply = match got {
            Ok(ServerLine::Reply(r)) => r,
            Ok(ServerLine::Status(st)) => return Some(Ended::status(&st)),
            Ok(_) => {
                self.drop_server();
                return Some(Ended::status("ERROR:Other"));
            }
            Err(f) => return Some(self.server_lost(f)),
        };
        let judge = self.w.judge.as_mut().expect("started in attempt");
        if judge.send(format!("R {reply}").as_bytes()).is_err() {
            return Some(Ended::status("ERROR:Other"));
        }
        None
    }

    /// The harness died (or stopped answering): replaced for the next test.
    fn server_lost(&mut self, f: Fail) -> Ended {
        self.drop_server();
        match f {
            Fail::Timeout => Ended {
                code_timed_out: false,
                ..Ended::status("TIMEOUT")
            },
            _ => Ended::status(HARNESS_KILLED),
        }
    }

    /// A model-written self-test: run in the sandbox by a process of its own against the code's
    /// process; the harness relays between the two and returns the self-test runner's verdict.
    fn selftest(&mut self) -> Result<Ended, OracleError> {
        let supply = self.job.selftest == Some(SelfTest::Supply);
        let req = serde_json::json!({
            "tests": self.job.tests.first().cloned().unwrap_or_default(),
            "entry": self.job.entry, "supply": supply,
            "budget": self.limits.budget.as_secs_f64(),
        });
        self.server()?;
        let deadline = Instant::now() + self.limits.budget + BACKSTOP;
        let server = self.server()?;
        let got = match server.send(format!("Q {req}").as_bytes()) {
            Ok(()) => server.next(deadline),
            Err(f) => Err(f),
        };
        Ok(match got {
            Ok(ServerLine::Verdict(v)) => verdict(&v, false),
            Ok(ServerLine::Status(st)) => Ended::status(&st),
            Ok(_) => {
                self.drop_server();
                Ended::status("ERROR:Other")
            }
            Err(f) => self.server_lost(f),
        })
    }

    /// Ends the pair on both processes; one that does not confirm is replaced.
    fn finish(&mut self) {
        if self.judge_on {
            if let Some(j) = self.w.judge.as_mut() {
                if !j.end() {
                    self.drop_judge();
                }
            }
        }
        if self.server_on {
            if let Some(s) = self.w.server.as_mut() {
                if !s.end() {
                    self.drop_server();
                }
            }
        }
    }
}

fn unjudged() -> Outcome {
    Outcome::FailExc("Unjudged".into())
}

/// A verdict line `{"o": outcome, "obs": repr}`. From the judge (`trusted`) a malformed verdict
/// is the judge's failure (`ERROR:Other`); from a sandboxed self-test runner it is `Unjudged`.
fn verdict(v: &str, trusted: bool) -> Ended {
    #[derive(serde::Deserialize)]
    struct V {
        o: String,
        #[serde(default)]
        obs: Option<String>,
    }
    let bad = if trusted {
        "ERROR:Other"
    } else {
        "FAIL:Unjudged"
    };
    match serde_json::from_str::<V>(v) {
        Ok(v) if v.o.parse::<Outcome>().is_ok() => Ended {
            outcome: v.o,
            observed: v.obs,
            code_timed_out: false,
        },
        _ => Ended::status(bad),
    }
}
