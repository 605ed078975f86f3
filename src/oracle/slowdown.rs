//! A CPU slowed N-fold, for `exec verify --slowdown N`: verdicts must not depend on the machine,
//! so re-running every cached pair on a CPU several times slower must give the same outcomes.
//!
//! Mechanism (no privileges needed): the calling thread is pinned to one CPU before the oracle
//! starts, so every harness, judge and pair process it starts inherits that single CPU, and N-1
//! busy spinner threads are pinned to the same CPU. The kernel's fair scheduler then gives the
//! running pair about 1/N of that CPU. Other load on the machine shares the CPU too, so the
//! factor is *measured*, not assumed: [`Slowdown::measure`] times one CPU-bound calibration pair
//! with the spinners paused and running, on the same oracle, and reports the ratio.

use super::{Oracle, OracleError};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

const RUN: u8 = 0;
const PAUSE: u8 = 1;
const STOP: u8 = 2;

/// Spinners sharing the oracle's CPU; dropping it stops them and restores the thread's CPUs.
pub struct Slowdown {
    factor: u32,
    cpu: usize,
    state: Arc<AtomicU8>,
    spinners: Vec<JoinHandle<()>>,
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
        let state = Arc::new(AtomicU8::new(PAUSE));
        let spinners = (1..factor)
            .map(|_| {
                let state = Arc::clone(&state);
                std::thread::spawn(move || {
                    let _ = pin(cpu);
                    loop {
                        match state.load(Ordering::Relaxed) {
                            RUN => {
                                for _ in 0..10_000 {
                                    std::hint::spin_loop();
                                }
                            }
                            PAUSE => std::thread::sleep(Duration::from_millis(2)),
                            _ => break,
                        }
                    }
                })
            })
            .collect();
        Ok(Slowdown {
            factor,
            cpu,
            state,
            spinners,
            saved,
        })
    }

    /// The requested factor (spinners + 1).
    pub fn factor(&self) -> u32 {
        self.factor
    }

    /// The CPU everything runs on.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    pub fn resume(&self) {
        self.state.store(RUN, Ordering::Relaxed);
    }

    pub fn pause(&self) {
        self.state.store(PAUSE, Ordering::Relaxed);
    }

    /// The slowdown a pair really sees: the median over `rounds` of (calibration wall with the
    /// spinners running) / (the same with them paused), each a CPU-bound test run by `oracle`.
    /// Leaves the spinners running.
    pub fn measure(&self, oracle: &Oracle, rounds: usize) -> Result<f64, OracleError> {
        let code = "def spin(n):\n    s = 0\n    for i in range(n):\n        s += i * i % 7\n    \
                    return s\n";
        let tests = vec!["assert spin(400000) >= 0".to_string()];
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

impl Drop for Slowdown {
    fn drop(&mut self) {
        self.state.store(STOP, Ordering::Relaxed);
        for h in self.spinners.drain(..) {
            let _ = h.join();
        }
        let _ = set_affinity(&self.saved);
    }
}
