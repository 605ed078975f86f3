//! The trusted half of the oracle: a Python process (`crates/oracle/assets/judge.py`) that never runs the code
//! under test. It cuts each test into the units the sandbox must evaluate (e.g. the call `f(3)`
//! of `assert f(3) == 5`) and later decides every outcome from the plain values the sandbox
//! returned. See docs/threat-model.md.

use super::server::{read_line, Fail};
use super::OracleError;
use std::io::Write;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

/// The judge, embedded so the binary is self-contained.
const JUDGE: &str = include_str!("../assets/judge.py");

/// How long one judge request may take (it only parses tests and compares plain values).
const JUDGE_DEADLINE: Duration = Duration::from_secs(120);

pub struct Judge {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    buf: Vec<u8>,
}

fn protocol(e: impl std::fmt::Display) -> OracleError {
    OracleError::Protocol(format!("judge: {e}"))
}

impl Judge {
    /// Starts `python -I -c <judge>`: no sandbox code ever runs in it; its own session, no
    /// inherited descriptor but the two pipes.
    pub fn spawn(python: &Path) -> Result<Judge, OracleError> {
        let mut cmd = Command::new(python);
        cmd.args(["-I", "-c", JUDGE])
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
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
        Ok(Judge {
            child,
            stdin,
            stdout,
            buf: Vec::new(),
        })
    }

    fn call(&mut self, req: &serde_json::Value) -> Result<serde_json::Value, OracleError> {
        let mut line = req.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.flush())
            .map_err(protocol)?;
        let reply = read_line(
            self.stdout.as_raw_fd(),
            &mut self.buf,
            Instant::now() + JUDGE_DEADLINE,
        )
        .map_err(|f| match f {
            Fail::Protocol(m) => protocol(m),
            f => protocol(format!("{f:?}")),
        })?;
        let v: serde_json::Value = serde_json::from_str(&reply).map_err(protocol)?;
        if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
            return Err(protocol(e));
        }
        Ok(v)
    }

    /// Per test, the units (`["e", expression]` or `["s", statements]`) the sandbox evaluates.
    pub fn plan(
        &mut self,
        code: &str,
        tests: &[String],
    ) -> Result<Vec<serde_json::Value>, OracleError> {
        let v = self.call(&serde_json::json!({"op": "plan", "code": code, "tests": tests}))?;
        let units = v["units"]
            .as_array()
            .filter(|a| a.len() == tests.len())
            .ok_or_else(|| protocol("plan of the wrong length"))?;
        Ok(units.clone())
    }

    /// Outcome strings and observed reprs from the sandbox's per-test results.
    #[allow(clippy::type_complexity)]
    pub fn judge(
        &mut self,
        code: &str,
        tests: &[String],
        results_json: &str,
    ) -> Result<(Vec<String>, Vec<Option<String>>), OracleError> {
        #[derive(serde::Deserialize)]
        struct Verdict {
            outcomes: Vec<String>,
            observed: Vec<Option<String>>,
        }
        let v = self.call(&serde_json::json!({
            "op": "judge", "code": code, "tests": tests, "results_json": results_json,
        }))?;
        let v: Verdict = serde_json::from_value(v).map_err(protocol)?;
        if v.outcomes.len() != tests.len() || v.observed.len() != tests.len() {
            return Err(protocol("verdict of the wrong length"));
        }
        Ok((v.outcomes, v.observed))
    }
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
