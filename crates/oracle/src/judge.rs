//! The trusted half of the oracle: a warm Python "zygote" (`execscope_oracle/judge.py` and the
//! engine it imports, `crates/oracle/python/`) that forks one child per pair. The child runs the pair's tests — all
//! their logic, with its own builtins and standard library — and sends every operation on the
//! code's objects as a request to the sandbox's pair child, over the pipe pair execscope set up
//! between them for this worker; execscope only sees each test's verdict and its requests for a
//! new sandbox child. It never runs the code under test. See docs/threat-model.md.

use super::server::{read_line, Fail};
use super::OracleError;
use execscope_record::Job;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the zygote may take to start.
const STARTUP: Duration = Duration::from_secs(30);

/// A line from the judge's child.
pub enum JudgeLine {
    /// A test's verdict (`V {"i", "o", "obs", "ms"}`).
    Verdict(String),
    /// The sandbox child is gone: a new one is needed (a detector child when the seconds are
    /// above zero).
    Renew(f64),
    /// The pair's child exited (after its last verdict, or because it failed).
    Done,
}

pub struct Judge {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    buf: Vec<u8>,
}

fn protocol(e: impl std::fmt::Display) -> OracleError {
    OracleError::Protocol(format!("judge: {e}"))
}

/// The `-c` program that reads `len` bytes of the judge's program from stdin (fd 0, unbuffered,
/// so the protocol's first line is still there for the judge's own reader) and runs it as
/// `__main__`.
fn loader(len: usize) -> String {
    format!(
        "import os\nb = b''\nwhile len(b) < {len}:\n    c = os.read(0, {len} - len(b))\n    \
         if not c:\n        raise SystemExit(1)\n    b += c\n\
         exec(compile(b, '<execscope_oracle/boot.py>', 'exec'))\n"
    )
}

impl Judge {
    /// Starts the zygote: `python -s -P -c LOADER` with only `PATH` and the hash seed in its
    /// environment, its own session and process group, no inherited descriptor but its control
    /// pipes and `sandbox` (the write end to the sandbox, the read end from it: fds 3 and 4).
    /// The judge's program comes first on its stdin ([`LOADER`] reads exactly its length): an
    /// argument is capped at 128 KiB by the kernel (`MAX_ARG_STRLEN`), and the program is larger.
    pub fn spawn(
        python: &Path,
        flags: &[&str],
        seed: u32,
        sandbox: (i32, i32),
    ) -> Result<Judge, OracleError> {
        let mut cmd = Command::new(python);
        cmd.args(flags)
            .args(["-c", &loader(super::runtime::JUDGE.len())])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("PYTHONHASHSEED", seed.to_string())
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(super::sandbox::debug_stderr());
        // SAFETY: async-signal-safe syscalls only.
        unsafe {
            cmd.pre_exec(move || {
                libc::setsid();
                super::process::place_fds(&[(sandbox.0, 3), (sandbox.1, 4)])?;
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                Ok(())
            });
        }
        let mut child =
            super::process::spawn(cmd).map_err(|e| OracleError::Spawn(format!("judge: {e}")))?;
        let mut stdin = child.stdin.take().expect("piped");
        if stdin.write_all(super::runtime::JUDGE.as_bytes()).is_err() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(protocol(
                "did not start (it closed its stdin before reading its program)",
            ));
        }
        let stdout = child.stdout.take().expect("piped");
        let mut j = Judge {
            child,
            stdin,
            stdout,
            buf: Vec::new(),
        };
        match j.line(Instant::now() + STARTUP) {
            Ok(l) if l == "ready" => Ok(j),
            Ok(l) => Err(protocol(format!("bad ready line {l:?}"))),
            Err(f) => Err(protocol(format!("did not start ({f:?})"))),
        }
    }

    fn line(&mut self, deadline: Instant) -> Result<String, Fail> {
        read_line(self.stdout.as_raw_fd(), &mut self.buf, deadline)
    }

    /// Writes one line (a protocol failure when the judge is gone).
    pub fn send(&mut self, line: &[u8]) -> Result<(), Fail> {
        self.stdin
            .write_all(line)
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush())
            .map_err(|_| Fail::Died)
    }

    /// Forks the pair's child: its tests (from `start`), entry points, setup and limits, and
    /// the token of the sandbox child it talks to.
    pub fn begin(
        &mut self,
        job: &Job,
        token: &str,
        limits: &super::server::Limits,
        start: usize,
    ) -> Result<(), Fail> {
        let mut req = serde_json::json!({
            "tests": job.tests, "entry": job.entry, "setup": job.setup, "token": token,
            "budget": limits.budget.as_secs_f64(), "detect": limits.detect.as_secs_f64(),
            "probe": limits.probe.as_secs_f64(), "start": start,
        });
        if let Some(stop) = job.stop.as_ref().filter(|_| job.selftest.is_none()) {
            // Each segment (starting at 0 and at these) ends at its first non-pass.
            req["stop"] = serde_json::json!(stop);
        }
        if let Some(b) = &job.budgets {
            // The benchmark's own time convention: each test's budget, each segment's cap.
            let secs = |ms: u32| f64::from(ms) / 1000.0;
            req["budgets"] =
                serde_json::json!(b.test_ms.iter().map(|&m| secs(m)).collect::<Vec<_>>());
            req["cap"] = serde_json::json!(secs(b.segment_ms));
            req["segments"] = serde_json::json!(b.segments);
        }
        if !job.language.is_python() {
            // The child builds the program first: the first test's clock starts once it says
            // so, within this budget of its own; no hang proofs (the detector traces Python).
            req["lang"] = serde_json::json!(job.language.as_str());
            req["build"] = serde_json::json!(limits.build.as_secs_f64());
        }
        self.send(format!("P {req}").as_bytes())
    }

    /// The child's next line before `deadline` (blank and unknown lines skipped).
    pub fn next(&mut self, deadline: Instant) -> Result<JudgeLine, Fail> {
        loop {
            let l = self.line(deadline)?;
            if let Some(rest) = l.strip_prefix("V ") {
                return Ok(JudgeLine::Verdict(rest.to_string()));
            }
            if let Some(rest) = l.strip_prefix("F ") {
                return Ok(JudgeLine::Renew(rest.trim().parse().unwrap_or(0.0)));
            }
            if l == "Z" {
                return Ok(JudgeLine::Done);
            }
        }
    }
}

impl Drop for Judge {
    fn drop(&mut self) {
        let pid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group (it called setsid).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
