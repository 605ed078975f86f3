//! Starting an oracle: the interpreter, the scratch directory, and the strongest isolation level
//! that passes the start-up probe (or the refusal that says why none adequate could start).

use super::error::stronger_levels;
use super::sandbox::{self, Launcher};
use super::scratch::Scratch;
use super::session::{Ctx, PairRun, Worker};
use super::{IsolationChoice, IsolationLevel, Oracle, OracleConfig, OracleError};
use execscope_record::Job;
use std::path::PathBuf;
use std::sync::atomic::AtomicU32;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Why `Auto` refuses every level below bubblewrap when execscope is not root.
const WEAK_REFUSED: &str = "no adequate sandbox for untrusted code here: pairs would run as your \
    own user, able to read and write your files. The `userns` level needs unprivileged user \
    namespaces (enable them: sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces \
    > 0, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0); or install bubblewrap \
    (e.g. `apt install bubblewrap`); or accept a weaker level explicitly with `--isolation \
    netns|rlimits` or EXECSCOPE_ISOLATION=netns|rlimits (see docs/threat-model.md)";

/// Sandbox uids (used only when running as root). Each oracle draws a random block of 2048 uids
/// far above real accounts: servers get `base + slot`, one-shot runs cycle through
/// `base + 1024 ..`. Distinct uids let the harness kill every process a pair left behind
/// (`kill(-1)` as that uid) without touching another worker's, oracle's or program's pair.
pub(super) const UID_BLOCK: u32 = 2048;

fn uid_base() -> u32 {
    use rand::Rng;
    let blocks = (2_000_000_000 - 1_000_000) / UID_BLOCK;
    1_000_000 + rand::rng().random_range(0..blocks) * UID_BLOCK
}

impl Oracle {
    /// Resolves the interpreter, writes the harness to a private temp dir and selects the
    /// isolation level, checking by a probe run that it really works (and, above `Rlimits`, that
    /// a pair cannot reach a listener on the host's loopback).
    pub fn new(mut cfg: OracleConfig) -> Result<Oracle, OracleError> {
        if cfg.isolation == IsolationChoice::Auto {
            if let Ok(s) = std::env::var("EXECSCOPE_ISOLATION") {
                cfg.isolation = s.parse().map_err(|e| OracleError::Unavailable {
                    level: IsolationLevel::Rlimits,
                    reason: format!("EXECSCOPE_ISOLATION: {e}"),
                })?;
            }
        }
        // Neither a pair nor anything else of the same uid may ptrace execscope or read its
        // memory, environment or descriptors through /proc.
        // SAFETY: prctl with constant arguments.
        unsafe {
            libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong);
        }
        let python = sandbox::python()?;
        let scratch = Scratch::create()?;
        let io = |path: PathBuf| move |source| OracleError::Io { path, source };
        let (harness, harness_path, work) =
            (&scratch.harness, &scratch.harness_path, &scratch.work);
        let candidates: &[IsolationLevel] = match cfg.isolation {
            IsolationChoice::Auto => &[
                IsolationLevel::Userns,
                IsolationLevel::Bubblewrap,
                IsolationLevel::Netns,
                IsolationLevel::Rlimits,
            ],
            IsolationChoice::Rlimits => &[IsolationLevel::Rlimits],
            IsolationChoice::Netns => &[IsolationLevel::Netns],
            IsolationChoice::Bubblewrap => &[IsolationLevel::Bubblewrap],
            IsolationChoice::Userns => &[IsolationLevel::Userns],
        };
        let mut last = None;
        // Why each stronger level was not taken, for the final refusal.
        let mut why: Vec<String> = Vec::new();
        let base = uid_base();
        for &level in candidates {
            let handle = harness.try_clone().map_err(io(harness_path.clone()))?;
            let attempt = Launcher::new(level, python.clone(), handle, work)
                .and_then(|l| probe(&l, &cfg, base).map(|(w, i)| (l, w, i)));
            match attempt {
                Ok((_, _, info))
                    if cfg.isolation == IsolationChoice::Auto
                        && !info.drops_uid
                        && level < IsolationLevel::Bubblewrap =>
                {
                    // Same uid as execscope and no pid namespace: a pair could signal, read and
                    // write everything the user can. Not chosen silently; the refusal names the
                    // strongest level that would have run.
                    if matches!(last, Some(OracleError::Refused { .. })) {
                        continue;
                    }
                    last = Some(OracleError::Refused {
                        level,
                        reason: WEAK_REFUSED.into(),
                        stronger: why.clone(),
                    });
                }
                Ok((launcher, worker, info)) => {
                    let workers = cfg.workers.clamp(1, (UID_BLOCK / 4) as usize);
                    let mut slots: Vec<Mutex<Worker>> = (0..workers)
                        .map(|_| Mutex::new(Worker::default()))
                        .collect();
                    let python_version = if info.python.is_empty() {
                        launcher.python.version.clone()
                    } else {
                        info.python.clone()
                    };
                    let (drops_uid, readcap) = (info.drops_uid, info.readcap);
                    slots[0] = Mutex::new(worker);
                    return Ok(Oracle {
                        cfg: OracleConfig { workers, ..cfg },
                        launcher,
                        _dir: scratch.dir,
                        _owner: scratch.owner,
                        slots,
                        free: Mutex::new((0..workers).rev().collect()),
                        freed: Condvar::new(),
                        python_version,
                        drops_uid,
                        readcap,
                        naive_seq: AtomicU32::new(0),
                        uid_base: base,
                    });
                }
                Err(e) => {
                    why.push(e.to_string());
                    last = Some(e);
                }
            }
        }
        match last {
            Some(OracleError::Unavailable { level, reason }) if why.len() > 1 => {
                Err(OracleError::Unavailable {
                    level,
                    reason: format!("{reason}{}", stronger_levels(&why[..why.len() - 1])),
                })
            }
            Some(e) => Err(e),
            None => Err(OracleError::Spawn("no isolation level to try".into())),
        }
    }
}

/// What the probe's harness said about itself.
struct ServerInfo {
    python: String,
    drops_uid: bool,
    readcap: bool,
}

/// Starts a worker at the launcher's level and checks it: a trivial test must pass, and above
/// `Rlimits` a connection to a listener on the host's loopback must fail.
fn probe(
    launcher: &Launcher,
    cfg: &OracleConfig,
    uid: u32,
) -> Result<(Worker, ServerInfo), OracleError> {
    let level = launcher.level;
    let unavailable = |reason: String| OracleError::Unavailable { level, reason };
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| unavailable(format!("cannot bind a probe listener: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| unavailable(e.to_string()))?
        .port();
    let probe_cfg = OracleConfig {
        timeout: cfg.timeout.max(Duration::from_secs(3)),
        detect: Duration::ZERO,
        ..cfg.clone()
    };
    let ctx = Ctx {
        launcher,
        cfg: &probe_cfg,
    };
    let mut worker = Worker::start(ctx, "--server", uid).map_err(|e| unavailable(e.to_string()))?;
    let server = worker.server.as_ref().expect("started");
    let info = ServerInfo {
        python: server.python.clone(),
        drops_uid: server.drops_uid,
        readcap: server.readcap,
    };
    let code = format!(
        "import socket\ndef net():\n    socket.create_connection(('127.0.0.1', {port}), \
         timeout=2).close()\n    return 1\n"
    );
    let job = Job::new(
        code,
        vec![
            "assert 1 + 1 == 2".to_string(),
            "assert net() == 1".to_string(),
        ],
    )
    .entry("net");
    let r = PairRun::new(ctx, &mut worker, &job, uid, false)
        .run()
        .map_err(|e| unavailable(format!("probe run failed: {e}")))?;
    if !r.outcomes[0].is_pass() {
        return Err(unavailable(format!("probe test gave {}", r.outcomes[0])));
    }
    if level > IsolationLevel::Rlimits && r.outcomes[1].is_pass() {
        return Err(unavailable("a pair reached the host's loopback".into()));
    }
    Ok((worker, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_blocks_stay_in_range() {
        for _ in 0..1000 {
            let b = uid_base();
            assert!(b >= 1_000_000 && b + UID_BLOCK <= 2_000_000_000);
            assert!(
                (b - 1_000_000).is_multiple_of(UID_BLOCK),
                "blocks never overlap"
            );
        }
    }
}
