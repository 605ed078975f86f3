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

/// Grace on top of the suite timeout before the host gives up on the harness itself (the harness
/// enforces the suite timeout; this only catches a harness that stopped answering).
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
        let mut child = launcher
            .command(mode, uid)
            .spawn()
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
        let line = s.read_line(Instant::now() + STARTUP).map_err(|f| {
            OracleError::Spawn(format!(
                "harness at level {} did not start: {f:?}",
                launcher.level
            ))
        })?;
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
        let fd = self.stdout.as_raw_fd();
        loop {
            if let Some(pos) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=pos).collect();
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
            self.buf.extend_from_slice(&chunk[..n as usize]);
        }
    }

    /// Sends one pair and waits for its reply.
    pub fn request(
        &mut self,
        code: &str,
        tests: &[String],
        timeout: Duration,
        mem: u64,
        isolation: IsolationLevel,
    ) -> Result<SuiteResult, Fail> {
        let req = serde_json::json!({
            "code": code, "tests": tests, "timeout": timeout.as_secs_f64(), "mem": mem,
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
        let reply = self.read_line(Instant::now() + timeout + BACKSTOP)?;
        parse_reply(&reply, tests.len(), isolation).map_err(Fail::Protocol)
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
    }
}

fn parse_reply(line: &str, n: usize, isolation: IsolationLevel) -> Result<SuiteResult, String> {
    #[derive(serde::Deserialize)]
    struct Reply {
        outcomes: Vec<String>,
        observed: Vec<Option<String>>,
        wall_ms: u64,
    }
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            return Err(format!("harness rejected the request: {e}"));
        }
    }
    let r: Reply = serde_json::from_str(line).map_err(|e| format!("bad reply {line:?}: {e}"))?;
    if r.outcomes.len() != n || r.observed.len() != n {
        return Err(format!(
            "reply has {} outcomes / {} observed for {n} tests",
            r.outcomes.len(),
            r.observed.len()
        ));
    }
    let outcomes = r
        .outcomes
        .iter()
        .map(|s| s.parse::<Outcome>())
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SuiteResult {
        outcomes,
        observed: r.observed,
        isolation,
        wall_ms: r.wall_ms,
    })
}
