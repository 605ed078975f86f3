//! A CPU slowed N-fold, for `exec verify --slowdown N`: verdicts must not depend on the machine,
//! so re-running every cached pair on a CPU several times slower must give the same outcomes.
//!
//! Mechanism (no privileges needed): the calling thread is pinned to one CPU before the oracle
//! starts, so every harness, judge and pair process it starts inherits that single CPU, and N-1
//! busy spinner processes are started on the same CPU, each in a session of its own (the kernel's
//! scheduler shares a CPU between sessions first when autogrouping is on, and every pair runs in
//! its own session). The scheduler then gives the running pair about 1/N of that CPU. Other load
//! on the machine shares the CPU too (on a loaded machine N-1 spinners slow a pair less than
//! N-fold against its loaded baseline), so the factor is *measured*, not assumed:
//! [`Slowdown::measure`] times one CPU-bound calibration pair with the spinners stopped
//! (SIGSTOP) and running, on the same oracle, and reports the ratio; [`Slowdown::calibrate`]
//! adds spinners until the measured factor reaches the one requested.

use super::{Oracle, OracleError};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Spinners sharing the oracle's CPU; dropping it stops them and restores the thread's CPUs.
pub struct Slowdown {
    factor: u32,
    cpu: usize,
    /// Spinners may keep at most this many (a bound on what a loaded machine can demand).
    max_spinners: usize,
    running: bool,
    spinners: Vec<Child>,
    python: std::path::PathBuf,
    saved: libc::cpu_set_t,
}

fn affinity() -> std::io::Result<libc::cpu_set_t> {
    // SAFETY: a zeroed cpu_set_t is a valid empty set; the call fills it for this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(set)
    }
}

fn set_affinity(set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: a valid cpu_set_t of the size given; applies to the calling thread.
    let r = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

fn pin(cpu: usize) -> std::io::Result<()> {
    // SAFETY: building a one-CPU set with the libc macros' function forms.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        set
    };
    set_affinity(&set)
}

impl Slowdown {
    /// Pins the calling thread to its first allowed CPU and starts `factor - 1` spinners there,
    /// paused (see [`Slowdown::resume`]). Start the oracle *after* this, from this thread.
    pub fn start(factor: u32) -> Result<Slowdown, String> {
        if factor < 2 {
            return Err("a slowdown factor is at least 2".into());
        }
        let saved = affinity().map_err(|e| format!("sched_getaffinity: {e}"))?;
        // SAFETY: CPU_ISSET reads the set filled above.
        let cpu = (0..libc::CPU_SETSIZE as usize)
            .find(|&c| unsafe { libc::CPU_ISSET(c, &saved) })
            .ok_or("no CPU in this thread's affinity mask")?;
        pin(cpu).map_err(|e| format!("sched_setaffinity: {e}"))?;
        let mut s = Slowdown {
            factor,
            cpu,
            max_spinners: 8 * factor as usize,
            running: false,
            spinners: Vec::new(),
            python: super::sandbox::python()
                .map_err(|e| e.to_string())?
                .exe
                .clone(),
            saved,
        };
        s.add(factor as usize - 1)?;
        Ok(s)
    }

    /// Starts `n` more spinners on the CPU (stopped unless the others run): `python3 -c` busy
    /// loops, each in a new session, dying with execscope.
    fn add(&mut self, n: usize) -> Result<(), String> {
        for _ in 0..n {
            let mut cmd = Command::new(&self.python);
            cmd.args(["-I", "-c", "while True: pass"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    libc::setsid();
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                    Ok(())
                });
            }
            let child = cmd
                .spawn()
                .map_err(|e| format!("starting a spinner: {e}"))?;
            if !self.running {
                signal(&child, libc::SIGSTOP);
            }
            self.spinners.push(child);
        }
        Ok(())
    }

    /// Spinners running now.
    pub fn spinners(&self) -> usize {
        self.spinners.len()
    }

    /// Measures the factor ([`Slowdown::measure`]) and, while it is below the one requested,
    /// adds spinners in proportion and measures again (at most `8 × factor` spinners). Returns
    /// the last measured factor; the spinners are left running.
    pub fn calibrate(&mut self, oracle: &Oracle) -> Result<f64, OracleError> {
        let want = f64::from(self.factor);
        let mut got = self.measure(oracle, 3)?;
        while got < want && self.spinners.len() < self.max_spinners {
            let n = self.spinners.len().max(1);
            let more = ((n as f64 + 1.0) * (want / got.max(1.0)) - n as f64 - 1.0).ceil();
            let more = (more.max(1.0) as usize).min(self.max_spinners - n);
            self.add(more).map_err(OracleError::Spawn)?;
            got = self.measure(oracle, 3)?;
        }
        Ok(got)
    }

    /// The requested factor (spinners + 1).
    pub fn factor(&self) -> u32 {
        self.factor
    }

    /// The CPU everything runs on.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    pub fn resume(&mut self) {
        self.running = true;
        for c in &self.spinners {
            signal(c, libc::SIGCONT);
        }
    }

    pub fn pause(&mut self) {
        self.running = false;
        for c in &self.spinners {
            signal(c, libc::SIGSTOP);
        }
    }

    /// The slowdown a pair really sees: the median over `rounds` of (calibration wall with the
    /// spinners running) / (the same with them paused), each a CPU-bound test run by `oracle`.
    /// Leaves the spinners running.
    pub fn measure(&mut self, oracle: &Oracle, rounds: usize) -> Result<f64, OracleError> {
        let code = "def spin(n):\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    \
                    return s\n";
        let tests = vec!["assert spin(60000) >= 0".to_string()];
        let time = |o: &Oracle| -> Result<f64, OracleError> {
            let r = o.run(code, &tests)?;
            if !r.outcomes.first().is_some_and(|o| o.is_pass()) {
                return Err(OracleError::Protocol(format!(
                    "calibration pair gave {:?}",
                    r.outcomes
                )));
            }
            Ok(r.test_ms
                .first()
                .copied()
                .unwrap_or(r.wall_ms as u32)
                .max(1) as f64)
        };
        let mut ratios = Vec::new();
        for _ in 0..rounds.max(1) {
            self.pause();
            std::thread::sleep(Duration::from_millis(20));
            let base = time(oracle)?;
            self.resume();
            std::thread::sleep(Duration::from_millis(20));
            let slow = time(oracle)?;
            ratios.push(slow / base);
        }
        self.resume();
        ratios.sort_by(|a, b| a.total_cmp(b));
        Ok(ratios[ratios.len() / 2])
    }
}

fn signal(c: &Child, sig: libc::c_int) {
    // SAFETY: signalling our own child.
    unsafe {
        libc::kill(c.id() as libc::pid_t, sig);
    }
}

impl Drop for Slowdown {
    fn drop(&mut self) {
        for c in &mut self.spinners {
            let _ = c.kill();
            let _ = c.wait();
        }
        let _ = set_affinity(&self.saved);
    }
}
