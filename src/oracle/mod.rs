//! The execution oracle: sandboxed Python execution of (code, tests) pairs, and its cache.
//!
//! Design: a pool of pre-warmed harness servers (one per worker, each started inside the sandbox
//! once), each forking a fresh child per pair: the per-pair isolation of a fresh process (own
//! rlimits, work dir, uid, process group) without paying an interpreter start per pair.
//! [`Oracle::run_naive`] keeps the one-interpreter-per-pair runner as the baseline; both run the
//! same embedded harness (`assets/harness.py`), so they give the same outcomes.

pub mod cache;
mod confine;
mod judge;
pub mod lazy;
pub use crate::record::outcome;
mod sandbox;
mod server;
pub mod slowdown;
mod userns;

pub use cache::{
    record_from, verify, CacheError, Disagreement, ExecCache, VerifyReport, VerifySelection,
};
pub use outcome::{IsolationLevel, Outcome, SuiteResult};
pub use server::{Limits, HARNESS_KILLED};

use judge::Judge;
use sandbox::Launcher;
use server::Server;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// The harness, embedded so the binary is self-contained.
const HARNESS: &str = include_str!("../../assets/harness.py");

/// Version of the execution contract (outcome strings, namespace-per-test, timeout rule).
/// 2: outcomes decided by the judge from plain values; exception names from a fixed vocabulary.
/// 3: a wall budget per test (not per suite), each test's outcome its own after an earlier one
///    ran out of time; `HANG` for a test proven never to end, `TIMEOUT` only when not proven.
pub const CONTRACT: u32 = 3;

/// Default wall budget of each test.
pub const TEST_BUDGET: Duration = Duration::from_secs(2);
/// Default wall backstop of the hang detector (its proof itself is bounded by a count of traced
/// events, the same on any machine; see docs/threat-model.md "Verdicts that do not depend on the
/// machine").
pub const DETECT_BACKSTOP: Duration = Duration::from_secs(5);

/// Why `Auto` refuses every level below bubblewrap when execscope is not root.
const WEAK_REFUSED: &str = "no adequate sandbox for untrusted code here: pairs would run as your \
    own user, able to read and write your files. The `userns` level needs unprivileged user \
    namespaces (enable them: sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces \
    > 0, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0); or install bubblewrap \
    (e.g. `apt install bubblewrap`); or accept a weaker level explicitly with `--isolation \
    netns|rlimits` or EXECSCOPE_ISOLATION=netns|rlimits (see docs/threat-model.md)";

/// Longest `observed` repr kept (characters).
const OBSERVED_MAX: usize = 200;

/// Which isolation to use. `Auto` picks the strongest level that passes the start-up probe.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IsolationChoice {
    #[default]
    Auto,
    Rlimits,
    Netns,
    Bubblewrap,
    Userns,
}

impl std::str::FromStr for IsolationChoice {
    type Err = String;
    /// `auto`, `rlimits`, `netns`, `bubblewrap` or `userns` (as a CLI flag would spell them).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "auto" => IsolationChoice::Auto,
            "rlimits" => IsolationChoice::Rlimits,
            "netns" => IsolationChoice::Netns,
            "bubblewrap" | "bwrap" => IsolationChoice::Bubblewrap,
            "userns" => IsolationChoice::Userns,
            _ => {
                return Err(format!(
                    "unknown isolation {s:?} (auto|rlimits|netns|bubblewrap|userns)"
                ))
            }
        })
    }
}

#[derive(Clone, Debug)]
pub struct OracleConfig {
    /// Wall budget of each test of a suite (the clock restarts at each test; a test that runs
    /// past it is killed and the next test runs in a fresh process).
    pub timeout: Duration,
    /// Wall backstop of the hang detector that re-runs a test which ran out of its budget
    /// (zero: no detection, every such test is `TIMEOUT`).
    pub detect: Duration,
    /// Address-space limit of the process running a pair.
    pub mem_bytes: u64,
    /// Pre-warmed servers, i.e. pairs run at once.
    pub workers: usize,
    pub isolation: IsolationChoice,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            timeout: TEST_BUDGET,
            detect: DETECT_BACKSTOP,
            mem_bytes: 1 << 30,
            workers: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            isolation: IsolationChoice::Auto,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("python interpreter: {0}")]
    Python(String),
    #[error("isolation level {level} unavailable: {reason}")]
    Unavailable {
        level: IsolationLevel,
        reason: String,
    },
    /// `auto` found only levels too weak to run untrusted code unasked (`reason` says what to
    /// enable, install or pass); `stronger` says why each stronger level could not start.
    #[error("refusing to run untrusted code at level {level}: {reason}{}", stronger_levels(.stronger))]
    Refused {
        level: IsolationLevel,
        reason: String,
        stronger: Vec<String>,
    },
    #[error("cannot start the harness: {0}")]
    Spawn(String),
    #[error("harness protocol: {0}")]
    Protocol(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn stronger_levels(why: &[String]) -> String {
    if why.is_empty() {
        String::new()
    } else {
        format!(" (stronger levels: {})", why.join("; "))
    }
}

/// Sandbox uids (used only when running as root). Each oracle draws a random block of 2048 uids
/// far above real accounts: servers get `base + slot`, one-shot runs cycle through
/// `base + 1024 ..`. Distinct uids let the harness kill every process a pair left behind
/// (`kill(-1)` as that uid) without touching another worker's, oracle's or program's pair.
const UID_BLOCK: u32 = 2048;

fn uid_base() -> u32 {
    use rand::Rng;
    let blocks = (2_000_000_000 - 1_000_000) / UID_BLOCK;
    1_000_000 + rand::rng().random_range(0..blocks) * UID_BLOCK
}

/// Name prefix of an oracle's scratch directory in the temp dir.
const SCRATCH_PREFIX: &str = "execscope-oracle-";
/// The file in a scratch directory its live owner holds an exclusive `flock` on.
const OWNER_LOCK: &str = "owner.lock";

/// Takes the owner lock of a fresh scratch directory: locked under a temporary name, then renamed
/// into place, so a sweep never sees the lock file unlocked while its owner lives.
fn lock_owner(dir: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::io::AsRawFd;
    let tmp = dir.join(".owner.lock.new");
    let f = std::fs::File::create(&tmp)?;
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    // SAFETY: flock on a descriptor we own.
    if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    std::fs::rename(&tmp, dir.join(OWNER_LOCK))?;
    Ok(f)
}

/// Removes scratch directories of oracles that are gone: the kernel drops a `flock` when its
/// holder dies, however it died (SIGKILL included), so a lock we can take has no owner. This
/// covers processes killed mid-run and oracles kept in statics (never dropped, so their
/// `TempDir` never cleans up). Directories without an owner lock (made by older versions) are
/// left alone, as is anything we cannot lock or read. Returns how many were removed.
pub fn sweep_stale_scratch(tmp: &std::path::Path) -> usize {
    use std::os::unix::io::AsRawFd;
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.to_string_lossy().starts_with(SCRATCH_PREFIX) {
            continue;
        }
        let dir = e.path();
        // Not through a symlink: only real directories, and only our own (in a shared temp dir,
        // another user's directory of that name is not ours to remove).
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions.
        let me = unsafe { libc::geteuid() };
        if !e.file_type().is_ok_and(|t| t.is_dir())
            || !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.uid() == me)
        {
            continue;
        }
        let Ok(lock) = std::fs::File::open(dir.join(OWNER_LOCK)) else {
            continue;
        };
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0
            && std::fs::remove_dir_all(&dir).is_ok()
        {
            removed += 1;
        }
    }
    removed
}

/// The sandboxed executor. `Send + Sync`: share it across threads by reference.
pub struct Oracle {
    cfg: OracleConfig,
    launcher: Launcher,
    /// Owns the private copy of the harness and the `Rlimits` work-dir base.
    _dir: tempfile::TempDir,
    /// Holds the scratch dir's owner lock for the oracle's lifetime (see [`sweep_stale_scratch`]).
    _owner: std::fs::File,
    slots: Vec<Mutex<Option<Server>>>,
    free: Mutex<Vec<usize>>,
    freed: Condvar,
    python_version: String,
    drops_uid: bool,
    readcap: bool,
    naive_seq: AtomicU32,
    uid_base: u32,
    /// Idle judges (trusted processes that plan tests and decide outcomes).
    judges: Mutex<Vec<Judge>>,
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
        sweep_stale_scratch(&std::env::temp_dir());
        let dir = tempfile::Builder::new()
            .prefix(SCRATCH_PREFIX)
            .tempdir()
            .map_err(|e| OracleError::Io {
                path: std::env::temp_dir(),
                source: e,
            })?;
        let io = |path: PathBuf| move |source| OracleError::Io { path, source };
        let owner = lock_owner(dir.path()).map_err(io(dir.path().join(OWNER_LOCK)))?;
        let harness_path = dir.path().join("harness.py");
        std::fs::write(&harness_path, HARNESS).map_err(io(harness_path.clone()))?;
        // Children get the source as fd 3; the file itself need not outlive this handle.
        let harness = std::fs::File::open(&harness_path).map_err(io(harness_path.clone()))?;
        std::fs::remove_file(&harness_path).map_err(io(harness_path.clone()))?;
        let work = dir.path().join("work");
        std::fs::create_dir(&work).map_err(io(work.clone()))?;
        // Traversable (not listable) by the unprivileged per-pair uid.
        use std::os::unix::fs::PermissionsExt;
        for p in [dir.path(), work.as_path()] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o711))
                .map_err(io(p.to_path_buf()))?;
        }
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
            let attempt = Launcher::new(level, python.clone(), handle, &work)
                .and_then(|l| probe(&l, &cfg, base).map(|s| (l, s)));
            match attempt {
                Ok((_, server))
                    if cfg.isolation == IsolationChoice::Auto
                        && !server.drops_uid
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
                Ok((launcher, server)) => {
                    let workers = cfg.workers.clamp(1, (UID_BLOCK / 2) as usize);
                    let mut slots: Vec<Mutex<Option<Server>>> =
                        (0..workers).map(|_| Mutex::new(None)).collect();
                    let python_version = if server.python.is_empty() {
                        launcher.python.version.clone()
                    } else {
                        server.python.clone()
                    };
                    let (drops_uid, readcap) = (server.drops_uid, server.readcap);
                    slots[0] = Mutex::new(Some(server));
                    return Ok(Oracle {
                        cfg: OracleConfig { workers, ..cfg },
                        launcher,
                        _dir: dir,
                        _owner: owner,
                        slots,
                        free: Mutex::new((0..workers).rev().collect()),
                        freed: Condvar::new(),
                        python_version,
                        drops_uid,
                        readcap,
                        naive_seq: AtomicU32::new(0),
                        uid_base: base,
                        judges: Mutex::new(Vec::new()),
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

    /// The level every result of this oracle ran under.
    pub fn isolation(&self) -> IsolationLevel {
        self.launcher.level
    }

    pub fn config(&self) -> &OracleConfig {
        &self.cfg
    }

    /// What the isolation level consists of on this machine (namespaces, Landlock ABI, seccomp).
    pub fn isolation_detail(&self) -> String {
        self.launcher.describe()
    }

    /// Whether pairs run under an unprivileged uid (only when the oracle runs as root).
    pub fn drops_privileges(&self) -> bool {
        self.drops_uid
    }

    /// Who a pair runs as, in words (for reports next to [`Oracle::isolation`]).
    pub fn privileges(&self) -> &'static str {
        match (self.drops_uid, self.readcap) {
            (true, false) => "unprivileged uid per pair",
            (true, true) => "unprivileged uid per pair, may read any file (CAP_DAC_READ_SEARCH)",
            (false, _) => "same uid as execscope",
        }
    }

    /// The cache's `runner` field: oracle version, interpreter, and the execution contract.
    pub fn runner_string(&self) -> String {
        format!(
            "execscope-oracle/{} contract/{CONTRACT} (python {} -I, fresh process per (code, \
             tests) pair, fresh namespace per test: code exec'd, then the test's calls evaluated \
             in the sandbox and the assertion judged by a separate process on their plain values; \
             wall {}s per test with process-group kill, later tests in a fresh process; a test \
             out of time re-run under a cycle detector (backstop {}s): HANG when a repeated \
             state is proven, else TIMEOUT; outcomes pass|FAIL|FAIL:<Exc>|ERROR:<Exc>|TIMEOUT|\
             HANG, <Exc> a builtin or stdlib exception name, else Other)",
            crate::version(),
            self.python_version,
            self.cfg.timeout.as_secs_f64(),
            self.cfg.detect.as_secs_f64()
        )
    }

    /// The limits every request of this oracle runs under.
    fn limits(&self) -> Limits {
        Limits {
            budget: self.cfg.timeout,
            detect: self.cfg.detect,
            mem: self.cfg.mem_bytes,
        }
    }

    /// Runs one pair on a pre-warmed server (blocking until one is free).
    pub fn run(&self, code: &str, tests: &[String]) -> Result<SuiteResult, OracleError> {
        let slot = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if let Some(s) = free.pop() {
                    break s;
                }
                free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result = self.run_on(slot, code, tests);
        self.free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(slot);
        self.freed.notify_one();
        result
    }

    fn run_on(
        &self,
        slot: usize,
        code: &str,
        tests: &[String],
    ) -> Result<SuiteResult, OracleError> {
        let units = self.plan(code, tests)?;
        let mut guard = self.slots[slot].lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(Server::spawn(
                &self.launcher,
                "--server",
                self.uid_base + slot as u32,
            )?);
        }
        let server = guard.as_mut().expect("just set");
        let start = Instant::now();
        let reply = server.request(code, &units, &self.limits());
        if reply.is_err() {
            // The server is dead or wedged: replace it on next use.
            server.kill();
            *guard = None;
        }
        drop(guard);
        self.conclude(code, tests, reply, start)
    }

    /// The sandbox's reply turned into a result by a judge (or, when the harness died or stopped
    /// answering, the outcome that says so for every test).
    fn conclude(
        &self,
        code: &str,
        tests: &[String],
        reply: Result<server::Reply, server::Fail>,
        start: Instant,
    ) -> Result<SuiteResult, OracleError> {
        let level = self.isolation();
        let reply = match reply {
            Ok(r) => r,
            Err(server::Fail::Protocol(m)) => return Err(OracleError::Protocol(m)),
            Err(f) => {
                return Ok(server::failed_result(
                    tests.len(),
                    &f,
                    level,
                    start.elapsed(),
                ))
            }
        };
        let (outcomes, observed) =
            self.with_judge(|j| j.judge(code, tests, &reply.results_json))?;
        let outcomes = outcomes
            .iter()
            .map(|s| s.parse::<Outcome>().map_err(OracleError::Protocol))
            .collect::<Result<Vec<_>, _>>()?;
        let observed = observed
            .into_iter()
            .map(|o| o.map(|s| outcome::escape_text(&s, OBSERVED_MAX)))
            .collect();
        let test_ms = if reply.test_ms.len() == tests.len() {
            reply.test_ms
        } else {
            Vec::new()
        };
        Ok(SuiteResult {
            outcomes,
            observed,
            isolation: level,
            wall_ms: reply.wall_ms,
            test_ms,
        })
    }

    /// Runs `f` on an idle judge (started on demand); a judge that failed is discarded.
    fn with_judge<T>(
        &self,
        f: impl FnOnce(&mut Judge) -> Result<T, OracleError>,
    ) -> Result<T, OracleError> {
        let idle = self.judges.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut judge = match idle {
            Some(j) => j,
            None => Judge::spawn(&self.launcher.python.exe)?,
        };
        let r = f(&mut judge);
        if r.is_ok() {
            self.judges
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(judge);
        }
        r
    }

    /// Per test, the units the sandbox must evaluate (they depend on the names the code binds,
    /// so a judge plans every pair; it caches plans by test and bound names).
    fn plan(&self, code: &str, tests: &[String]) -> Result<Vec<serde_json::Value>, OracleError> {
        if tests.is_empty() {
            return Ok(Vec::new());
        }
        self.with_judge(|j| j.plan(code, tests))
    }

    /// The baseline: a fresh interpreter (inside the same sandbox) for this one pair.
    pub fn run_naive(&self, code: &str, tests: &[String]) -> Result<SuiteResult, OracleError> {
        let seq = self.naive_seq.fetch_add(1, Ordering::Relaxed);
        let uid = self.uid_base + UID_BLOCK / 2 + seq % (UID_BLOCK / 2);
        let units = self.plan(code, tests)?;
        let start = Instant::now();
        let mut server = Server::spawn(&self.launcher, "--once", uid)?;
        let reply = server.request(code, &units, &self.limits());
        server.finish(Duration::from_secs(2));
        self.conclude(code, tests, reply, start)
    }

    /// Runs many pairs over all workers; results in input order. `progress` gets the number of
    /// pairs finished so far after each one.
    pub fn run_batch(
        &self,
        jobs: &[(String, Vec<String>)],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, false)
    }

    /// [`Oracle::run_batch`] with the naive runner (same parallelism), for the baseline.
    pub fn run_batch_naive(
        &self,
        jobs: &[(String, Vec<String>)],
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<Result<SuiteResult, OracleError>> {
        self.batch(jobs, progress, true)
    }

    fn batch(
        &self,
        jobs: &[(String, Vec<String>)],
        progress: &(dyn Fn(usize) + Sync),
        naive: bool,
    ) -> Vec<Result<SuiteResult, OracleError>> {
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let out: Vec<Mutex<Option<Result<SuiteResult, OracleError>>>> =
            jobs.iter().map(|_| Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..self.cfg.workers.min(jobs.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((code, tests)) = jobs.get(i) else {
                        break;
                    };
                    let r = if naive {
                        self.run_naive(code, tests)
                    } else {
                        self.run(code, tests)
                    };
                    *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                });
            }
        });
        out.into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Err(OracleError::Protocol("job not run".into())))
            })
            .collect()
    }
}

/// A task's `prelude` (e.g. the imports of a prompt) and a snippet joined as the one program the
/// oracle runs, as HumanEval-style harnesses join prompt and completion. An empty or blank
/// prelude leaves the code as it is.
pub fn with_prelude(prelude: &str, code: &str) -> String {
    if prelude.trim().is_empty() {
        return code.to_string();
    }
    let mut s = prelude.to_string();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(code);
    s
}

/// Starts a server at the launcher's level and checks it: a trivial test must pass, and above
/// `Rlimits` a connection to a listener on the host's loopback must fail.
fn probe(launcher: &Launcher, cfg: &OracleConfig, uid: u32) -> Result<Server, OracleError> {
    let level = launcher.level;
    let unavailable = |reason: String| OracleError::Unavailable { level, reason };
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| unavailable(format!("cannot bind a probe listener: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| unavailable(e.to_string()))?
        .port();
    let mut server =
        Server::spawn(launcher, "--server", uid).map_err(|e| unavailable(e.to_string()))?;
    let code = format!(
        "import socket\ndef net():\n    socket.create_connection(('127.0.0.1', {port}), \
         timeout=2).close()\n    return 1\n"
    );
    let tests = [
        "assert 1 + 1 == 2".to_string(),
        "assert net() == 1".to_string(),
    ];
    let units = [serde_json::json!([]), serde_json::json!([["e", "net()"]])];
    let limits = Limits {
        budget: cfg.timeout.max(Duration::from_secs(3)),
        detect: Duration::ZERO,
        mem: cfg.mem_bytes,
    };
    let reply = server
        .request(&code, &units, &limits)
        .map_err(|f| unavailable(format!("probe run failed: {f:?}")))?;
    let mut judge = Judge::spawn(&launcher.python.exe)?;
    let (outcomes, _) = judge.judge(&code, &tests, &reply.results_json)?;
    let r = SuiteResult {
        outcomes: outcomes
            .iter()
            .map(|s| s.parse::<Outcome>().map_err(OracleError::Protocol))
            .collect::<Result<Vec<_>, _>>()?,
        observed: Vec::new(),
        isolation: level,
        wall_ms: reply.wall_ms,
        test_ms: Vec::new(),
    };
    if !r.outcomes[0].is_pass() {
        return Err(unavailable(format!("probe test gave {}", r.outcomes[0])));
    }
    if level > IsolationLevel::Rlimits && r.outcomes[1].is_pass() {
        return Err(unavailable("a pair reached the host's loopback".into()));
    }
    Ok(server)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oracle_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Oracle>();
    }

    #[test]
    fn prelude_joins_as_one_program() {
        assert_eq!(with_prelude("", "x = 1\n"), "x = 1\n");
        assert_eq!(with_prelude("  \n", "x = 1\n"), "x = 1\n");
        assert_eq!(
            with_prelude("from typing import List", "def f(): pass\n"),
            "from typing import List\ndef f(): pass\n"
        );
        assert_eq!(with_prelude("import math\n", "y\n"), "import math\ny\n");
    }

    #[test]
    fn isolation_choice_parses() {
        assert_eq!("netns".parse(), Ok(IsolationChoice::Netns));
        assert_eq!("bwrap".parse(), Ok(IsolationChoice::Bubblewrap));
        assert_eq!("userns".parse(), Ok(IsolationChoice::Userns));
        assert!("jail".parse::<IsolationChoice>().is_err());
    }

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
