//! The trusted half of the oracle: a warm Python "zygote" (`crates/oracle/assets/judge.py` and
//! the engine it embeds) that forks one child per pair. The child runs the pair's tests — all
//! their logic, with its own builtins and standard library — and sends every operation on the
//! code's objects to the sandbox as a request, which [`super::session`] relays. It never runs the
//! code under test. See docs/threat-model.md.

use super::server::{read_line, Fail};
use super::OracleError;
use execscope_record::Job;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The judge, embedded so the binary is self-contained (the value codec, the RPC peer, the
/// stand-ins for the code's objects, the test engine, the pytest shim, then the zygote).
pub const JUDGE: &str = concat!(
    include_str!("../assets/codec.py"),
    include_str!("../assets/decode.py"),
    include_str!("../assets/excs.py"),
    include_str!("../assets/peer.py"),
    include_str!("../assets/proxy.py"),
    include_str!("../assets/engine.py"),
    include_str!("../assets/pytest_shim.py"),
    include_str!("../assets/judge.py"),
);

/// How long the zygote may take to start, and to reap a pair's child.
const STARTUP: Duration = Duration::from_secs(30);
const REAP: Duration = Duration::from_secs(10);

/// A line from the judge's child.
pub enum JudgeLine {
    /// A message for the code's side (`S ...`): relayed as is.
    ToCode(String),
    /// The test's verdict (`V {...}`).
    Verdict(String),
}

pub struct Judge {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    buf: Vec<u8>,
    /// A pair's child is running (between `begin` and `end`).
    busy: bool,
}

fn protocol(e: impl std::fmt::Display) -> OracleError {
    OracleError::Protocol(format!("judge: {e}"))
}

impl Judge {
    /// Starts the zygote: `python -s -P -c <judge>` with only `PATH` and the hash seed in its
    /// environment, its own session and process group, no inherited descriptor but the pipes.
    pub fn spawn(python: &Path, flags: &[&str], seed: u32) -> Result<Judge, OracleError> {
        let mut cmd = Command::new(python);
        cmd.args(flags)
            .args(["-c", JUDGE])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("PYTHONHASHSEED", seed.to_string())
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(super::sandbox::debug_stderr());
        // SAFETY: async-signal-safe syscalls only.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                super::sandbox::close_fds_from(3);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                Ok(())
            });
        }
        let mut child =
            super::sandbox::spawn(cmd).map_err(|e| OracleError::Spawn(format!("judge: {e}")))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let mut j = Judge {
            child,
            stdin,
            stdout,
            buf: Vec::new(),
            busy: false,
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

    /// Forks the pair's child: its tests, entry points and setup.
    pub fn begin(&mut self, job: &Job) -> Result<(), Fail> {
        let req = serde_json::json!({"tests": job.tests, "entry": job.entry, "setup": job.setup});
        self.busy = true;
        self.send(format!("P {req}").as_bytes())
    }

    /// The child's next message before `deadline` (blank and unknown lines skipped).
    pub fn next(&mut self, deadline: Instant) -> Result<JudgeLine, Fail> {
        loop {
            let l = self.line(deadline)?;
            if let Some(rest) = l.strip_prefix("S ") {
                return Ok(JudgeLine::ToCode(rest.to_string()));
            }
            if let Some(rest) = l.strip_prefix("V ") {
                return Ok(JudgeLine::Verdict(rest.to_string()));
            }
            if l == "Z" {
                // The child is gone (it failed outside any test).
                self.busy = false;
                return Err(Fail::Died);
            }
        }
    }

    /// Ends the pair: the child exits and the zygote says so. `false` when the zygote did not
    /// answer (it must then be replaced).
    pub fn end(&mut self) -> bool {
        if !self.busy {
            return true;
        }
        if self.send(b"E").is_err() {
            return false;
        }
        let deadline = Instant::now() + REAP;
        loop {
            match self.line(deadline) {
                Ok(l) if l == "Z" => {
                    self.busy = false;
                    return true;
                }
                Ok(_) => continue,
                Err(_) => return false,
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
