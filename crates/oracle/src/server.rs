//! One harness process (a pre-warmed `--server` or a one-shot `--once`) and the line protocol
//! spoken with it. Every read has a deadline, so a wedged harness costs a kill and a restart,
//! never a hang.

use super::sandbox::Launcher;
use super::OracleError;
use execscope_record::Job;
use std::io::Write;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::{Child, ChildStdin, ChildStdout};
use std::time::{Duration, Instant};

/// Grace on top of a test's budget (and hang detection) before the host gives up on the judge or
/// the harness itself (the judge enforces each test's budget; this only catches a process that
/// stopped answering).
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
    /// The write end of the records pipe: each pair child's code (a self-test runner's
    /// self-tests too) goes there, read by the child itself, never by the harness (so the
    /// process every pair child is forked from never holds another pair's code).
    records: OwnedFd,
    buf: Vec<u8>,
    pub python: String,
    /// The current pair's nonce (see [`Server::begin`]).
    nonce: String,
    /// Whether pairs run under an unprivileged uid (the harness decides and says so).
    pub drops_uid: bool,
    /// Whether those pairs keep CAP_DAC_READ_SEARCH (interpreter under an unreadable home).
    pub readcap: bool,
    /// As root: the uid of this server's pairs (its self-test runners use uid + 512).
    pair_uid: Option<u32>,
}

impl Server {
    /// Starts a harness and waits for its `ready` line.
    pub fn spawn(
        launcher: &Launcher,
        mode: &str,
        uid: u32,
        seed: u32,
        judge_fds: (i32, i32),
        records: (OwnedFd, OwnedFd),
    ) -> Result<Server, OracleError> {
        let judge_fds = (judge_fds.0, judge_fds.1, records.0.as_raw_fd());
        let mut child = super::process::spawn(launcher.command(mode, uid, seed, judge_fds))
            .map_err(|e| OracleError::Spawn(format!("{}: {e}", launcher.level)))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        // The harness holds its own copy of the read end now.
        drop(records.0);
        let mut s = Server {
            child,
            stdin,
            stdout,
            records: records.1,
            buf: Vec::new(),
            python: String::new(),
            nonce: "-".to_string(),
            pair_uid: launcher.is_root().then_some(uid),
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

    /// Starts a pair: its code, the test count and limits, and a fresh nonce that every line of
    /// the harness about this pair carries (a line forged by a pair for a later one cannot
    /// match). The harness forks the pair's child under the token returned here, without
    /// answering: the judge may write the first test's start at once (the pipe holds it).
    pub fn begin(&mut self, job: &Job, limits: &Limits) -> Result<String, Fail> {
        self.nonce = format!("{:032x}", rand::random::<u128>());
        let token = format!("{:024x}", rand::random::<u128>() >> 32);
        let mut req = serde_json::json!({
            "nonce": self.nonce, "mem": limits.mem, "n": job.tests.len(),
            "budget": limits.widest(job).as_secs_f64(), "main": job.selftest.is_some(),
        });
        if !job.language.is_python() {
            // The build's CPU joins the child's limit; the language decides what the child may
            // read (its toolchain).
            req["build"] = serde_json::json!(limits.build.as_secs_f64());
            req["lang"] = serde_json::json!(job.language.as_str());
        }
        if job.selftest.is_none() {
            req["token"] = serde_json::Value::String(token.clone());
            self.send_with(format!("P {req}").as_bytes(), &[record(job)])?;
        } else {
            self.send(format!("P {req}").as_bytes())?;
        }
        Ok(token)
    }

    /// Replaces the pair's child (a detector child when `detect` is above zero); its token.
    pub fn replace(&mut self, job: &Job, detect: f64) -> Result<String, Fail> {
        let req = serde_json::json!({ "detect": detect });
        self.send_with(format!("F {req}").as_bytes(), &[record(job)])?;
        self.token()
    }

    /// Sends a control line and the records of the children it forks: what of the records the
    /// pipe takes at once goes first (so a child finds its record waiting), the line, then the
    /// rest as the children read it (a record can be longer than the pipe holds).
    fn send_with(&mut self, line: &[u8], records: &[serde_json::Value]) -> Result<(), Fail> {
        let mut data = Vec::new();
        for r in records {
            let body = r.to_string();
            data.extend_from_slice(format!("R {}\n", body.len()).as_bytes());
            data.extend_from_slice(body.as_bytes());
        }
        let fd = self.records.as_raw_fd();
        let mut at = write_some(fd, &data).map_err(|e| Fail::Protocol(format!("records: {e}")))?;
        self.send(line)?;
        let deadline = Instant::now() + STARTUP;
        while at < data.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Fail::Timeout);
            }
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLOUT,
                revents: 0,
            };
            let ms = left.as_millis().min(i32::MAX as u128) as i32;
            // SAFETY: one valid pollfd.
            if unsafe { libc::poll(&mut pfd, 1, ms.max(1)) } < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(Fail::Protocol(format!("poll: {e}")));
                }
            }
            at += write_some(fd, &data[at..]).map_err(|_| Fail::Died)?;
        }
        Ok(())
    }

    fn token(&mut self) -> Result<String, Fail> {
        match self.next(Instant::now() + STARTUP)? {
            ServerLine::Forked(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Ok(t)
            }
            other => Err(Fail::Protocol(format!(
                "expected a new child, got {other:?}"
            ))),
        }
    }

    /// A self-test run (its self-tests and the code in two children of the harness); the
    /// harness's answer: a verdict or a status.
    /// `records`: the code's child's, then the self-test runner's.
    pub fn selftest(
        &mut self,
        req: &serde_json::Value,
        records: &[serde_json::Value],
        deadline: Instant,
    ) -> Result<ServerLine, Fail> {
        self.send_with(format!("Q {req}").as_bytes(), records)?;
        self.next(deadline)
    }

    /// Writes one line to the harness.
    pub fn send(&mut self, line: &[u8]) -> Result<(), Fail> {
        let stdin = self.stdin.as_mut().ok_or(Fail::Died)?;
        stdin
            .write_all(line)
            .and_then(|_| stdin.write_all(b"\n"))
            .and_then(|_| stdin.flush())
            .map_err(|_| Fail::Died)
    }

    /// The harness's next line about the current pair, before `deadline`.
    fn next(&mut self, deadline: Instant) -> Result<ServerLine, Fail> {
        loop {
            let line = self.read_line(deadline)?;
            let Some(rest) = line
                .strip_prefix(self.nonce.as_str())
                .and_then(|r| r.strip_prefix(' '))
            else {
                continue; // not this pair's: text that reached the pipe from elsewhere
            };
            let (tag, payload) = rest.split_at(rest.find(' ').unwrap_or(rest.len()));
            let payload = payload.strip_prefix(' ').unwrap_or(payload).to_string();
            return Ok(match tag {
                "F" => ServerLine::Forked(payload),
                "X" => ServerLine::Status(payload),
                "V" => ServerLine::Verdict(payload),
                "D" => ServerLine::Done,
                _ => continue,
            });
        }
    }

    /// Ends the pair (the harness kills its child, sweeps what it left, empties the scratch
    /// space). `false` when the harness did not confirm: it must be replaced.
    pub fn end(&mut self) -> bool {
        if self.send(b"E").is_err() {
            return false;
        }
        let deadline = Instant::now() + STARTUP;
        loop {
            match self.next(deadline) {
                Ok(ServerLine::Done) => return true,
                Ok(_) => continue,
                Err(_) => return false,
            }
        }
    }

    /// Kills the harness's whole process group and reaps it; as root, also every process of
    /// its pairs' uids (a daemon a pair left, should the harness have died before sweeping).
    pub fn kill(&mut self) {
        self.stdin = None;
        let pid = self.child.id() as i32;
        // SAFETY: signalling our own child's process group (created with process_group(0)).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(uid) = self.pair_uid {
            kill_uid(uid);
            kill_uid(uid + 512);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// A pair child's record: its code and, for another language than Python, the language and the
/// entry points its stub answers for (a Python child's record is its code alone, as it always
/// was).
fn record(job: &Job) -> serde_json::Value {
    if job.language.is_python() {
        serde_json::json!({ "code": job.code })
    } else {
        serde_json::json!({ "code": job.code, "lang": job.language.as_str(), "entry": job.entry })
    }
}

/// Kills every process of `uid` (never execscope's own: only called as root for a sandbox uid),
/// from a forked child that becomes that uid.
fn kill_uid(uid: u32) {
    // SAFETY: the child makes raw syscalls only and leaves with _exit.
    unsafe {
        let pid = libc::fork();
        if pid == 0 {
            if libc::setresgid(uid, uid, uid) == 0 && libc::setresuid(uid, uid, uid) == 0 {
                libc::kill(-1, libc::SIGKILL);
            }
            libc::_exit(0);
        }
        if pid > 0 {
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
}

/// Writes what the non-blocking pipe `fd` takes now of `data`; how much.
fn write_some(fd: i32, data: &[u8]) -> std::io::Result<usize> {
    let mut at = 0;
    while at < data.len() {
        // SAFETY: writing from a live slice of the given length.
        let n = unsafe { libc::write(fd, data[at..].as_ptr().cast(), data.len() - at) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            match e.kind() {
                std::io::ErrorKind::Interrupted => continue,
                std::io::ErrorKind::WouldBlock => break,
                _ => return Err(e),
            }
        }
        at += n as usize;
    }
    Ok(at)
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

/// What a request may spend: each test's wall budget, the hang detector's wall backstop (zero:
/// no detection), how long the code may hold the ball in a test before it is probed for a hang,
/// and the address-space limit.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub budget: Duration,
    pub detect: Duration,
    pub probe: Duration,
    pub mem: u64,
    /// Building and starting a program in another language than Python.
    pub build: Duration,
}

impl Limits {
    /// The longest a test of `job` may run: the oracle's budget, or the largest of the job's
    /// own per-test budgets when it has them and one is longer ([`Job::budgets`]).
    pub fn widest(&self, job: &Job) -> Duration {
        let own = job.budgets.as_ref().and_then(|b| b.test_ms.iter().max());
        own.map_or(self.budget, |&ms| {
            self.budget.max(Duration::from_millis(ms.into()))
        })
    }
}

/// A line of the harness about the current pair.
#[derive(Debug)]
pub enum ServerLine {
    /// A new pair child is ready; its token.
    Forked(String),
    /// A self-test run ended in the sandbox without a verdict: `TIMEOUT`, `ERROR:<signal>`, ...
    Status(String),
    /// A self-test run's verdict (`{"o": .., "obs": ..}`).
    Verdict(String),
    /// The pair is over.
    Done,
}
