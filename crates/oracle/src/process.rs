//! Process plumbing shared by every launcher: spawning from one long-lived thread (so a
//! parent-death signal fires only when execscope exits) and placing descriptors between fork and
//! exec.

use std::process::Command;
use std::sync::OnceLock;

/// Spawns `cmd` from one long-lived thread, so that a parent-death signal set in `pre_exec`
/// (`PR_SET_PDEATHSIG`, which fires when the spawning *thread* exits) fires only when execscope
/// itself exits: harness, bwrap and judge processes die with execscope.
pub(crate) fn spawn(mut cmd: Command) -> std::io::Result<std::process::Child> {
    use std::sync::mpsc;
    type Job = (Command, mpsc::Sender<std::io::Result<std::process::Child>>);
    static SPAWNER: OnceLock<std::sync::Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let tx = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        let started = std::thread::Builder::new()
            .name("execscope-spawner".into())
            .spawn(move || {
                for (mut cmd, reply) in rx {
                    let _ = reply.send(cmd.spawn());
                }
            });
        if started.is_err() {
            // No thread: fall back to the caller's (the channel's receiver is gone).
        }
        std::sync::Mutex::new(tx)
    });
    let (rtx, rrx) = mpsc::channel();
    let sent = tx
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((cmd, rtx));
    match sent {
        Ok(()) => rrx
            .recv()
            .unwrap_or_else(|_| Err(std::io::Error::other("spawner thread gone"))),
        Err(mpsc::SendError((c, _))) => {
            cmd = c;
            cmd.spawn()
        }
    }
}

/// Between fork and exec: puts each `(src, dst)` descriptor at `dst` (inheritable; a `src` of -1
/// leaves `dst` closed) and closes every other descriptor from 3 up. The sources are first moved
/// out of the way, so a source already sitting on another's target is not clobbered.
///
/// # Safety
/// Raw syscalls only, no allocation.
pub(crate) unsafe fn place_fds(fds: &[(i32, i32)]) -> std::io::Result<()> {
    let mut high = [-1i32; 8];
    for (k, &(src, _)) in fds.iter().enumerate().take(high.len()) {
        if src >= 0 {
            high[k] = libc::fcntl(src, libc::F_DUPFD_CLOEXEC, 100);
            if high[k] < 0 {
                return Err(std::io::Error::last_os_error());
            }
        }
    }
    let mut top = 2;
    for (k, &(_, dst)) in fds.iter().enumerate().take(high.len()) {
        top = top.max(dst);
        if high[k] >= 0 {
            if libc::dup2(high[k], dst) != dst {
                return Err(std::io::Error::last_os_error());
            }
        } else {
            libc::close(dst);
        }
    }
    close_fds_from(top as u32 + 1);
    Ok(())
}

/// Closes every descriptor from `low` up (between fork and exec: one syscall, or a bounded loop
/// where `close_range` is missing).
pub(crate) fn close_fds_from(low: u32) {
    // SAFETY: closing descriptors of this (child) process only.
    unsafe {
        if libc::syscall(libc::SYS_close_range, low, u32::MAX, 0) != 0 {
            let max = match libc::sysconf(libc::_SC_OPEN_MAX) {
                n if n > 0 => n.min(1 << 20) as i32,
                _ => 65536,
            };
            for fd in low as i32..max {
                libc::close(fd);
            }
        }
    }
}
