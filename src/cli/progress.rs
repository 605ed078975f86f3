//! Long runs on stderr: pairs progress with an ETA (a bar on a terminal; on anything else one
//! line per update, at most one per 5 % of the pairs or per 30 s, never a run-on line of `\r`s),
//! and Ctrl-C during a journaled run saying what the journal kept and how to resume.

use crate::build::exec::{Progress, ProgressFn};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `1h 02m`, `3m 05s`, `42s`.
pub fn duration_text(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, (s / 60) % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, _) => format!("{h}h {m:02}m"),
    }
}

/// What the plain-line writer remembers between updates.
struct Lines {
    start: Option<Instant>,
    last: Option<Instant>,
    last_step: u64,
    phase: String,
}

/// The line a non-terminal gets for `p`: phase, pairs, percent, elapsed and the ETA at the rate
/// so far.
fn line(what: &str, p: &Progress, elapsed: Duration) -> String {
    let pct = (100 * p.done).checked_div(p.total).unwrap_or(100);
    let eta = if p.done > 0 && p.done < p.total {
        let left = elapsed.as_secs_f64() * (p.total - p.done) as f64 / p.done as f64;
        format!(", ETA {}", duration_text(Duration::from_secs_f64(left)))
    } else {
        String::new()
    };
    format!(
        "{what}: {}: {}/{} pairs executed ({pct} %), {} elapsed{eta}",
        p.phase,
        p.done,
        p.total,
        duration_text(elapsed)
    )
}

/// A progress receiver for `what` (e.g. `audit`): a bar with per-second rate and ETA when
/// stderr is a terminal, plain lines otherwise.
pub fn pairs(what: &'static str) -> ProgressFn {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        if let Ok(s) =
            ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} pairs, {per_sec}, ETA {eta}")
        {
            bar.set_style(s.progress_chars("=> "));
        }
        return Arc::new(move |p: &Progress| {
            if p.finished {
                bar.finish_and_clear();
                return;
            }
            bar.set_message(format!("{what}: {}", p.phase));
            bar.set_length(p.total);
            bar.set_position(p.done);
        });
    }
    let state = Mutex::new(Lines {
        start: None,
        last: None,
        last_step: u64::MAX,
        phase: String::new(),
    });
    Arc::new(move |p: &Progress| {
        let Ok(mut s) = state.lock() else { return };
        let now = Instant::now();
        let start = *s.start.get_or_insert(now);
        if p.finished {
            if s.last.is_some() {
                eprintln!(
                    "{what}: {} pairs executed in {}",
                    p.done,
                    duration_text(now - start)
                );
            }
            return;
        }
        let step = (20 * p.done).checked_div(p.total).unwrap_or(0);
        let due = s.phase != p.phase
            || step != s.last_step
            || p.done == p.total
            || s.last.is_none_or(|t| now - t >= Duration::from_secs(30));
        if due {
            eprintln!("{}", line(what, p, now - start));
            s.last = Some(now);
            s.last_step = step;
            s.phase.clone_from(&p.phase);
        }
    })
}

/// The write end of the pipe the signal handler writes to (-1: none).
static WAKE: AtomicI32 = AtomicI32::new(-1);

extern "C" fn on_signal(_: libc::c_int) {
    let fd = WAKE.load(Ordering::Relaxed);
    if fd >= 0 {
        let byte = 1u8;
        // SAFETY: write(2) is async-signal-safe; the buffer is one byte on this stack.
        unsafe {
            libc::write(fd, (&byte as *const u8).cast(), 1);
        }
    }
}

/// From now on, Ctrl-C (SIGINT) and SIGTERM end the process (exit 130) after saying on stderr
/// how many executed pairs the journal `memo` holds and that `again` resumes from them. The
/// signal only wakes a thread (a byte on a close-on-exec pipe); the counting and printing
/// happen there. Children the oracle starts get the default handling back at `exec`.
pub fn resume_on_interrupt(memo: PathBuf, again: String) {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe2 fills the two descriptors it is given.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    WAKE.store(fds[1], Ordering::Relaxed);
    let read_end = fds[0];
    std::thread::spawn(move || {
        let mut b = 0u8;
        // SAFETY: a blocking one-byte read into a stack byte.
        let n = unsafe { libc::read(read_end, (&mut b as *mut u8).cast(), 1) };
        if n != 1 {
            return;
        }
        let kept = execscope_record::atomic::read_journal(&memo, false)
            .map(|b| b.iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0);
        eprintln!(
            "\ninterrupted: {kept} executed pair(s) are kept in {} (pairs that finished in the \
             last 2 s may not be); run the same command again to resume from them:\n  {again}",
            memo.display()
        );
        std::process::exit(130);
    });
    // SAFETY: installing a handler that only calls write(2).
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGINT, &sa, std::ptr::null_mut());
        libc::sigaction(libc::SIGTERM, &sa, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_say_phase_pairs_percent_elapsed_and_eta() {
        let p = Progress {
            phase: "screen, inline and suites".into(),
            done: 25,
            total: 100,
            finished: false,
        };
        assert_eq!(
            line("audit", &p, Duration::from_secs(30)),
            "audit: screen, inline and suites: 25/100 pairs executed (25 %), 30s elapsed, ETA 1m 30s"
        );
        assert_eq!(duration_text(Duration::from_secs(3725)), "1h 02m");
    }
}
