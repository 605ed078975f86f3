//! One harness process (a pre-warmed `--server` or a one-shot `--once`) and the line protocol
//! spoken with it. Every read has a deadline, so a wedged harness costs a kill and a restart,
//! never a hang.

use super::outcome::{IsolationLevel, Outcome, SuiteResult};
use super::sandbox::Launcher;
use super::OracleError;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

/// Grace on top of the longest a suite may take (every test's budget and hang detection, plus a
/// fork per test) before the host gives up on the harness itself (the harness enforces each
/// test's budget; this only catches a harness that stopped answering).
pub const BACKSTOP: Duration = Duration::from_secs(10);
/// How long a harness may take to start and say it is ready (the machine may be loaded).
pub const STARTUP: Duration = Duration::from_secs(30);

/// Outcome given to every test of a pair during which the harness process died (for instance
/// because the code killed its parent, possible when not running as root).
pub const HARNESS_KILLED: &str = "ERROR:OracleKilled";

/// Why a request did not produce a reply.
#[derive(Debug)]
pub enum Fail {
    /// The harness closed its output (it died).
    Died,
    /// No reply before the backstop deadline.
    Timeout,
    /// Could not write, or the reply was not what the protocol says.
    Protocol(String),
}

pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
    buf: Vec<u8>,
    pub python: String,
    /// Whether pairs run under an unprivileged uid (the harness decides and says so).
    pub drops_uid: bool,
    /// Whether those pairs keep CAP_DAC_READ_SEARCH (interpreter under an unreadable home).
    pub readcap: bool,
}

impl Server {
    /// Starts a harness and waits for its `ready` line.
    pub fn spawn(launcher: &Launcher, mode: &str, uid: u32) -> Result<Server, OracleError> {
        let mut child = super::sandbox::spawn(launcher.command(mode, uid))
            .map_err(|e| OracleError::Spawn(format!("{}: {e}", launcher.level)))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut s = Server {
            child,
            stdin,
            stdout,
            buf: Vec::new(),
            python: String::new(),
            drops_uid: false,
            readcap: false,
        };
        let line = match s.read_line(Instant::now() + STARTUP) {
            Ok(line) => line,
            Err(f) => {
                let how = match f {
                    // The launcher or the interpreter exited before the harness was ready: its
                    // exit status is the one fact we keep (its stderr is never read).
                    Fail::Died => match s.child.wait() {
                        Ok(st) => format!("exited before it was ready ({st})"),
                        Err(_) => "exited before it was ready".to_string(),
                    },
                    Fail::Timeout => format!("was not ready within {} s", STARTUP.as_secs()),
                    Fail::Protocol(p) => p,
                };
                return Err(OracleError::Spawn(format!(
                    "harness at level {} {how}",
                    launcher.level
                )));
            }
        };
        let v: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| OracleError::Protocol(format!("bad ready line {line:?}: {e}")))?;
        if v["ready"] != serde_json::Value::Bool(true) {
            return Err(OracleError::Protocol(format!("bad ready line {line:?}")));
        }
        s.python = v["python"].as_str().unwrap_or("").to_string();
        s.drops_uid = v["uid"].as_i64().is_some_and(|u| u >= 0);
        s.readcap = v["readcap"] == serde_json::Value::Bool(true);
        Ok(s)
    }

    fn read_line(&mut self, deadline: Instant) -> Result<String, Fail> {
        read_line(self.stdout.as_raw_fd(), &mut self.buf, deadline)
    }

    /// Sends one pair (its code and, per test, the units the judge cut out) and waits for the
    /// reply: the per-test results as a JSON text (for the judge, never parsed here) and the wall
    /// time. A reply that does not echo this request's fresh nonce is a protocol failure (a line
    /// forged by a pair for a later request cannot match).
    pub fn request(
        &mut self,
        code: &str,
        units: &[serde_json::Value],
        limits: &Limits,
    ) -> Result<Reply, Fail> {
        let nonce = format!("{:032x}", rand::random::<u128>());
        let req = serde_json::json!({
            "nonce": nonce, "code": code, "units": units, "timeout": limits.budget.as_secs_f64(),
            "mem": limits.mem, "detect": limits.detect.as_secs_f64(),
        });
        let stdin = self.stdin.as_mut().ok_or(Fail::Died)?;
        let mut line = req.to_string();
        line.push('\n');
        if stdin
            .write_all(line.as_bytes())
            .and_then(|_| stdin.flush())
            .is_err()
        {
            return Err(Fail::Died);
        }
        // Lines that do not carry this request's nonce (forged by a pair that reached the pipe,
        // or a stale reply after such a forgery) are skipped, never taken for the reply.
        let deadline = Instant::now() + limits.longest(units.len()) + BACKSTOP;
        loop {
            let line = self.read_line(deadline)?;
            match parse_reply(&line, &nonce) {
                Err(Mismatch::Nonce) => continue,
                Err(Mismatch::Bad(m)) => return Err(Fail::Protocol(m)),
                Ok(r) => return Ok(r),
            }
        }
    }

    /// Kills the harness's whole process group and reaps it.
    pub fn kill(&mut self) {
        self.stdin = None;
        let pid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group (created with process_group(0)).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes stdin (a `--once` harness then exits) and reaps, killing after `grace`.
    pub fn finish(mut self, grace: Duration) {
        self.stdin = None;
        let end = Instant::now() + grace;
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        self.kill();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// Reads one line from `fd` (buffering in `buf`), giving up at `deadline`.
pub(crate) fn read_line(fd: i32, buf: &mut Vec<u8>, deadline: Instant) -> Result<String, Fail> {
    loop {
        if let Some(pos) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=pos).collect();
            return String::from_utf8(line)
                .map(|s| s.trim_end().to_string())
                .map_err(|_| Fail::Protocol("reply is not UTF-8".into()));
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Fail::Timeout);
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().min(i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms.max(1)) };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Fail::Protocol(format!("poll: {e}")));
        }
        if r == 0 {
            continue;
        }
        let mut chunk = [0u8; 65536];
        // SAFETY: reading into a stack buffer of the given length.
        let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(Fail::Died);
        }
        if n == 0 {
            return Err(Fail::Died);
        }
        buf.extend_from_slice(&chunk[..n as usize]);
    }
}

/// The result for a pair during which the harness died or stopped answering.
pub fn failed_result(
    n: usize,
    fail: &Fail,
    isolation: IsolationLevel,
    wall: Duration,
) -> SuiteResult {
    let outcome = match fail {
        Fail::Timeout => Outcome::Timeout,
        _ => HARNESS_KILLED.parse().expect("valid outcome"),
    };
    SuiteResult {
        outcomes: vec![outcome; n],
        observed: vec![None; n],
        isolation,
        wall_ms: wall.as_millis() as u64,
        test_ms: Vec::new(),
    }
}

/// What a request may spend: each test's wall budget, the hang detector's wall backstop (zero:
/// no detection) and the address-space limit.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub budget: Duration,
    pub detect: Duration,
    pub mem: u64,
}

impl Limits {
    /// The longest a suite of `n` tests can take in the harness: every test running out of its
    /// budget and then the detector's, plus a second per test for the forks and the sweeps.
    pub fn longest(&self, n: usize) -> Duration {
        (self.budget + self.detect + Duration::from_secs(1)) * n.max(1) as u32
    }
}

/// What a harness returns for one pair.
#[derive(Debug)]
pub struct Reply {
    /// Per test: a unit-value record, the code's own exception, or a status (see the judge).
    pub results_json: String,
    pub wall_ms: u64,
    /// Per test, its wall milliseconds as the harness measured them.
    pub test_ms: Vec<u32>,
}

enum Mismatch {
    Nonce,
    Bad(String),
}

fn parse_reply(line: &str, nonce: &str) -> Result<Reply, Mismatch> {
    #[derive(serde::Deserialize)]
    struct Raw {
        nonce: String,
        results_json: String,
        wall_ms: u64,
        #[serde(default)]
        test_ms: Vec<u32>,
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            if v.get("nonce").and_then(|n| n.as_str()) != Some(nonce) {
                return Err(Mismatch::Nonce);
            }
            return Err(Mismatch::Bad(format!(
                "harness rejected the request: {}",
                super::outcome::escape_text(e, 200)
            )));
        }
    }
    let r: Raw = match serde_json::from_str(line) {
        Ok(r) => r,
        // Not a reply at all: text that reached the pipe from elsewhere.
        Err(_) => return Err(Mismatch::Nonce),
    };
    if r.nonce != nonce {
        return Err(Mismatch::Nonce);
    }
    Ok(Reply {
        results_json: r.results_json,
        wall_ms: r.wall_ms,
        test_ms: r.test_ms,
    })
}
