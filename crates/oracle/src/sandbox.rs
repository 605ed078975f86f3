//! How a harness process is launched at each isolation level, and the start-up probe that decides
//! which level this machine really gives.
//!
//! Every level runs the real interpreter (`sys._base_executable`, never a pyenv shim) as
//! `python3 -I` with only `PATH` in the environment. The harness source reaches it as fd 3
//! (`/dev/fd/3`), so it stays readable even where `/tmp` is replaced by a private tmpfs.
//! - `Rlimits`: a plain child process; rlimits, process-group kill, private work dir, and (as root)
//!   an unprivileged uid per pair are applied by the harness.
//! - `Netns`: additionally `unshare(CLONE_NEWNET | CLONE_NEWNS)` in `pre_exec`: no network, a
//!   private tmpfs on `/tmp`, and `/root` hidden behind a tmpfs (the interpreter's prefix is
//!   bind-mounted back when it lives there, so the unprivileged uid can still import the stdlib).
//! - `Netns` also gets a pid namespace (the harness is its init, see [`userns::fork_into_pidns`])
//!   with its own `/proc`, a new IPC namespace and the seccomp filter of [`confine`].
//! - `Bubblewrap`: `bwrap` with a read-only root, private `/tmp` and `/root`, new net/pid/ipc/uts
//!   namespaces.
//! - `Userns`: execscope's own sandbox, for root and for an ordinary user alike (a user namespace
//!   mapping only the caller's ids when not root): new mount, pid, network, IPC and UTS
//!   namespaces, a new root with read-only copies of the system dirs and the interpreter only
//!   ([`userns::build_root`]), then a Landlock domain and the seccomp filter ([`confine`]).

use super::confine::{self, Landlock};
use super::outcome::IsolationLevel;
use super::toolchain::Toolchains;
use super::userns::{self, RootPlan};
use super::OracleError;
use std::ffi::CString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

/// The interpreter the oracle runs, resolved once per process.
#[derive(Clone, Debug)]
pub struct Python {
    /// The real executable (not a shim).
    pub exe: PathBuf,
    /// `sys.base_prefix`: the installation that must stay readable inside the sandbox.
    pub prefix: PathBuf,
    /// e.g. "3.11.7".
    pub version: String,
}

impl Python {
    /// The interpreter flags of every harness and judge: no user site-packages, no script
    /// directory on `sys.path` (`-P`, Python 3.11+). Not `-I`: that implies `-E`, which would
    /// ignore the fixed `PYTHONHASHSEED`; the environment is cleared instead.
    pub fn flags(&self) -> Vec<&'static str> {
        let mut v = self
            .version
            .split('.')
            .map(|p| p.parse::<u32>().unwrap_or(0));
        let (major, minor) = (v.next().unwrap_or(0), v.next().unwrap_or(0));
        if (major, minor) >= (3, 11) {
            vec!["-s", "-P"]
        } else {
            vec!["-s"]
        }
    }
}

/// Where a harness's or judge's stderr goes: nowhere, unless `EXECSCOPE_ORACLE_DEBUG` is set
/// (then execscope's own stderr, to diagnose the oracle itself).
pub(crate) fn debug_stderr() -> Stdio {
    if std::env::var_os("EXECSCOPE_ORACLE_DEBUG").is_some() {
        Stdio::inherit()
    } else {
        Stdio::null()
    }
}

/// Resolves the interpreter: `$EXECSCOPE_PYTHON` if set, else `python3` on `PATH`, asked for its
/// real executable so a pyenv shim (a shell script needing `$HOME` and `$PYENV_*`) is bypassed.
pub fn python() -> Result<Python, OracleError> {
    static PY: OnceLock<Result<Python, String>> = OnceLock::new();
    PY.get_or_init(|| {
        let cmd = std::env::var("EXECSCOPE_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&cmd)
            .args([
                "-I",
                "-c",
                "import os,sys;print(os.path.realpath(getattr(sys,'_base_executable',None) \
                 or sys.executable));print(sys.base_prefix);print(sys.version.split()[0])",
            ])
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {cmd}: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let lines: Vec<&str> = text.lines().collect();
        if !out.status.success() || lines.len() < 3 {
            return Err(format!(
                "{cmd} did not report its executable ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(Python {
            exe: PathBuf::from(lines[0]),
            prefix: PathBuf::from(lines[1]),
            version: lines[2].to_string(),
        })
    })
    .clone()
    .map_err(OracleError::Python)
}

/// Everything needed to start a harness process at one level.
#[derive(Debug)]
pub struct Launcher {
    pub level: IsolationLevel,
    pub python: Python,
    /// The harness source, opened once; handed to each child as fd 3.
    harness: File,
    /// Work-dir base as seen by the harness (private tmpfs path, or a host dir at `Rlimits`).
    tmp: PathBuf,
    bwrap: Option<PathBuf>,
    root: bool,
    /// `Userns`: what the new root is built from.
    plan: Option<Arc<RootPlan>>,
    /// `Userns`: the kernel's Landlock, when enabled.
    landlock: Option<Landlock>,
    /// `Netns` and `Userns`: the seccomp program, where the architecture is known.
    seccomp: Option<Arc<Vec<libc::sock_filter>>>,
    /// `Rlimits`: the filter that refuses IPC objects in the host's IPC namespace.
    ipc_filter: Option<Arc<Vec<libc::sock_filter>>>,
    /// The candidate languages' toolchains (their directories are read-only in every root).
    pub tools: &'static Toolchains,
}

/// Directories on the way from `/root` (exclusive) to `prefix` (inclusive), to recreate inside
/// the tmpfs that hides `/root`; `None` when the prefix is elsewhere.
fn dirs_under_root(prefix: &Path) -> Option<Vec<PathBuf>> {
    let rest = prefix.strip_prefix("/root").ok()?;
    let mut cur = PathBuf::from("/root");
    let mut out = Vec::new();
    for c in rest.components() {
        cur.push(c);
        out.push(cur.clone());
    }
    Some(out)
}

fn cstr(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

fn find_bwrap() -> Option<PathBuf> {
    for d in ["/usr/bin", "/bin", "/usr/local/bin"] {
        let p = Path::new(d).join("bwrap");
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

impl Launcher {
    /// A launcher for `level`; `harness` is an open handle on the harness source (its file may
    /// already be unlinked), `host_tmp` a private host dir (mode 0711) used as the work-dir base
    /// at `Rlimits`.
    pub fn new(
        level: IsolationLevel,
        python: Python,
        harness: File,
        host_tmp: &Path,
    ) -> Result<Launcher, OracleError> {
        let bwrap = find_bwrap();
        if level == IsolationLevel::Bubblewrap && bwrap.is_none() {
            return Err(OracleError::Unavailable {
                level,
                reason: "bwrap not installed".into(),
            });
        }
        let tmp = match level {
            IsolationLevel::Rlimits => host_tmp.to_path_buf(),
            _ => PathBuf::from("/tmp/execscope"),
        };
        let unavailable = |reason: String| OracleError::Unavailable { level, reason };
        let seccomp = match level {
            IsolationLevel::Netns | IsolationLevel::Userns => confine::seccomp_program()
                .map_err(|e| unavailable(format!("seccomp filter: {e}")))?
                .map(Arc::new),
            _ => None,
        };
        let ipc_filter = match level {
            IsolationLevel::Rlimits => confine::ipc_program()
                .map_err(|e| unavailable(format!("IPC filter: {e}")))?
                .map(Arc::new),
            _ => None,
        };
        let tools = super::toolchain::toolchains();
        let (plan, landlock) = if level == IsolationLevel::Userns {
            let mut prefixes = vec![python.prefix.clone()];
            prefixes.extend(tools.roots());
            (
                Some(Arc::new(RootPlan::new(SYSTEM_DIRS, ETC_FILES, &prefixes))),
                confine::landlock(),
            )
        } else {
            (None, None)
        };
        Ok(Launcher {
            level,
            python,
            harness,
            tmp,
            bwrap,
            // SAFETY: geteuid has no preconditions.
            root: unsafe { libc::geteuid() } == 0,
            plan,
            landlock,
            seccomp,
            ipc_filter,
            tools,
        })
    }

    /// The directories that must be readable in the sandbox besides the system directories: the
    /// interpreter's prefix, then the toolchains'.
    fn prefixes(&self) -> Vec<PathBuf> {
        let mut v = vec![self.python.prefix.clone()];
        v.extend(self.tools.roots());
        v
    }

    /// The scratch directories private to this level's sandbox, emptied after every pair so no
    /// pair sees (or is crowded out by) what an earlier one left.
    fn wipe_dirs(&self) -> Vec<&'static str> {
        match self.level {
            IsolationLevel::Rlimits => Vec::new(),
            IsolationLevel::Netns => vec![
                "/tmp",
                "/tmp/execscope",
                "/var/tmp",
                "/dev/shm",
                "/run",
                "/run/lock",
                "/var/lock",
            ],
            IsolationLevel::Bubblewrap => vec!["/tmp", "/tmp/execscope", "/dev/shm", "/dev/mqueue"],
            IsolationLevel::Userns => vec!["/tmp", "/tmp/execscope", "/dev/shm"],
        }
    }

    /// Whether execscope runs as root (its pairs then run as uids of their own).
    pub fn is_root(&self) -> bool {
        self.root
    }

    /// What this level consists of on this machine, in words (for reports and the docs'
    /// vocabulary).
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        let userns = if self.root { "" } else { "user, " };
        match self.level {
            IsolationLevel::Rlimits => parts.push("rlimits and a private work dir".into()),
            IsolationLevel::Netns => parts.push(format!(
                "{userns}mount, pid, network and IPC namespaces; private /tmp"
            )),
            IsolationLevel::Bubblewrap => parts.push("bubblewrap".into()),
            IsolationLevel::Userns => parts.push(format!(
                "{userns}mount, pid, network, IPC and UTS namespaces; read-only root of system \
                 dirs and interpreter only; private /tmp"
            )),
        }
        if let Some(l) = &self.landlock {
            parts.push(format!("Landlock ABI {}", l.abi));
        } else if self.level == IsolationLevel::Userns {
            parts.push("no Landlock (kernel lacks it)".into());
        }
        if self.ipc_filter.is_some() {
            parts.push(
                "no System V IPC or message queues (their objects would outlive a pair)".into(),
            );
        }
        if self.seccomp.is_some() {
            parts.push("seccomp filter".into());
        }
        parts.join("; ")
    }

    /// The command that starts a harness in `mode` (`--server` or `--once`) that runs its pairs
    /// as `uid` (ignored unless root). Stdin/stdout are piped; stderr is discarded.
    /// `judge_fds`: the judge's pipe ends (5, 6) and the records pipe's read end (7).
    pub fn command(&self, mode: &str, uid: u32, seed: u32, judge_fds: (i32, i32, i32)) -> Command {
        let uid: i64 = if self.root { uid as i64 } else { -1 };
        let cfg = serde_json::json!({
            "uid": uid, "tmp": self.tmp, "close_fd": 3, "wipe": self.wipe_dirs(),
            // A private IPC namespace per worker: the harness removes every System V object in
            // it after each pair.
            "own_ipc": self.level != IsolationLevel::Rlimits,
            "debug": std::env::var_os("EXECSCOPE_ORACLE_DEBUG").is_some(),
            // The candidate languages' toolchains (execscope_oracle/toolchains.py), and at
            // `rlimits`, where their directories are the host's, what a pair's uid must read.
            "tools": self.tools.settings(),
            "toolroots": self.tools.found.iter().map(|t| (t.language.as_str(), &t.roots))
                .collect::<std::collections::BTreeMap<_, _>>(),
        })
        .to_string();
        let mut py_args: Vec<std::ffi::OsString> = vec![self.python.exe.as_os_str().to_owned()];
        py_args.extend(self.python.flags().into_iter().map(Into::into));
        py_args.extend(["/dev/fd/3".into(), mode.into(), cfg.into()]);
        let mut cmd = match self.level {
            IsolationLevel::Bubblewrap => {
                let mut c = Command::new(self.bwrap.as_ref().expect("checked in new"));
                // A read-only view of the system directories and the interpreter only: the
                // user's files, the task files (the answer key), the output dir and the cache
                // are not in the sandbox at all.
                // bwrap would create /etc 0700 (untraversable by the pair's uid) for the files.
                c.args(["--perms", "0755", "--dir", "/etc"]);
                for d in SYSTEM_DIRS.iter().chain(ETC_FILES) {
                    c.args(["--ro-bind-try", d, d]);
                }
                c.args([
                    "--dev",
                    "/dev",
                    "--proc",
                    "/proc",
                    "--mqueue",
                    "/dev/mqueue",
                ]);
                // Scratch space is RAM: capped.
                c.args(["--perms", "1777", "--size", TMPFS_BYTES, "--tmpfs", "/tmp"]);
                // bwrap's /dev/shm is a directory of its uncapped /dev tmpfs: capped too.
                c.args([
                    "--perms", "1777", "--size", SHM_BYTES, "--tmpfs", "/dev/shm",
                ]);
                let mut bound: Vec<PathBuf> = Vec::new();
                for prefix in self.prefixes() {
                    if SYSTEM_DIRS.iter().any(|d| prefix.starts_with(d))
                        || bound.iter().any(|b| prefix.starts_with(b))
                        || !prefix.is_dir()
                    {
                        continue;
                    }
                    // bwrap would create the parents 0700: make them traversable.
                    let mut parents: Vec<&Path> = prefix.ancestors().skip(1).collect();
                    parents.reverse();
                    for d in parents.iter().filter(|d| d.parent().is_some()) {
                        c.args(["--perms", "0755", "--dir"]).arg(d);
                    }
                    c.arg("--ro-bind").arg(&prefix);
                    c.arg(&prefix);
                    bound.push(prefix);
                }
                c.args([
                    "--unshare-net",
                    "--unshare-pid",
                    "--unshare-ipc",
                    "--unshare-uts",
                ]);
                // bwrap itself dies with execscope (spawned from the long-lived spawner thread,
                // see `spawn`), and the sandbox with bwrap.
                // The harness is the pid namespace's init: a pair cannot signal it (not even
                // `kill(-1)`), and no bwrap process shares its stdout inside the namespace.
                c.args([
                    "--unshare-cgroup-try",
                    "--new-session",
                    "--die-with-parent",
                    "--as-pid-1",
                ]);
                if !self.root {
                    c.arg("--unshare-user");
                }
                c.args(["--chdir", "/", "--"]);
                c.args(&py_args);
                c
            }
            _ => {
                let mut c = Command::new(&py_args[0]);
                c.args(&py_args[1..]);
                c.current_dir("/");
                c
            }
        };
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("PYTHONHASHSEED", seed.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(debug_stderr());
        let fd = self.harness.as_raw_fd();
        let level = self.level;
        let netns = level == IsolationLevel::Netns;
        let plan = self.plan.clone();
        let seccomp = self.seccomp.clone();
        let ipc_filter = self.ipc_filter.clone();
        let landlock = self.landlock;
        // A fresh Landlock ruleset per spawn: the child adds the rules for its own new root.
        let ruleset = match (&landlock, level) {
            (Some(l), IsolationLevel::Userns) => l.ruleset().ok(),
            _ => None,
        };
        let ruleset_fd = ruleset.as_ref().map(|r| r.as_raw_fd());
        // Each prefix under `/root` (hidden at `netns`) with the directories on its way there, to
        // bind it back.
        let under_root: Vec<(CString, Vec<CString>)> = if Path::new("/root").is_dir() {
            let mut v: Vec<(CString, Vec<CString>)> = Vec::new();
            let mut seen: Vec<PathBuf> = Vec::new();
            for p in self.prefixes() {
                if seen.iter().any(|q| p.starts_with(q)) {
                    continue;
                }
                if let Some(dirs) = dirs_under_root(&p) {
                    v.push((cstr(&p), dirs.iter().map(|d| cstr(d)).collect()));
                    seen.push(p);
                }
            }
            v
        } else {
            Vec::new()
        };
        let mask_root = Path::new("/root").is_dir();
        // Not root: a user namespace first (mapping our own ids), which grants the mount and
        // network namespaces to an ordinary user where the kernel allows it.
        let userns = if self.root {
            None
        } else {
            // SAFETY: getuid/getgid have no preconditions.
            let (u, g) = unsafe { (libc::getuid(), libc::getgid()) };
            Some((format!("{u} {u} 1\n"), format!("{g} {g} 1\n")))
        };
        // SAFETY: the closure only makes raw syscalls on data prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                let _keep = &ruleset; // open until the fork
                                      // The harness source at 3, the Landlock ruleset at 4, the judge's pipes at 5 and
                                      // 6, the records pipe at 7; nothing else the shell that started execscope left
                                      // open reaches the harness (or bwrap, which would pass it on).
                let mut fds = [
                    (fd, 3),
                    (-1, 4),
                    (judge_fds.0, 5),
                    (judge_fds.1, 6),
                    (judge_fds.2, 7),
                ];
                if let Some(r) = ruleset_fd {
                    fds[1].0 = r;
                }
                super::process::place_fds(&fds)?;
                // No controlling terminal: a new session.
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
                if netns || level == IsolationLevel::Userns {
                    if let Some((u, g)) = &userns {
                        // execscope is non-dumpable, which makes /proc/self root-owned.
                        libc::prctl(libc::PR_SET_DUMPABLE, 1 as libc::c_ulong);
                        enter_userns(u.as_bytes(), g.as_bytes())?;
                    }
                }
                if netns {
                    enter_netns(mask_root, &under_root)?;
                    if libc::unshare(libc::CLONE_NEWPID | libc::CLONE_NEWIPC) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    userns::fork_into_pidns()?;
                    userns::mount_proc(c"/proc")?;
                }
                if level == IsolationLevel::Userns {
                    let flags = libc::CLONE_NEWNS
                        | libc::CLONE_NEWNET
                        | libc::CLONE_NEWIPC
                        | libc::CLONE_NEWUTS
                        | libc::CLONE_NEWPID;
                    if libc::unshare(flags) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    userns::fork_into_pidns()?;
                    if let Some(plan) = &plan {
                        userns::build_root(plan)?;
                    }
                    if let (Some(l), true) = (&landlock, ruleset_fd.is_some()) {
                        confine::apply_landlock(l, 4, 3)?;
                    }
                }
                if let Some(prog) = &ipc_filter {
                    confine::apply_seccomp(prog)?;
                }
                if let Some(prog) = &seccomp {
                    confine::apply_seccomp(prog)?;
                }
                Ok(())
            });
        }
        cmd
    }
}

/// Read-only inside bubblewrap and `userns`: the directories a Python installation and its
/// stdlib need (the interpreter's prefix is added when it lies elsewhere). Not `/etc`, `/opt`,
/// `/srv`, `/home` or anything else a task file could live in.
const SYSTEM_DIRS: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
];

/// The files of `/etc` the C library reads for a Python program (the dynamic loader's cache,
/// the local time zone, account names for `pwd`): the only ones in the sandbox's `/etc`.
pub(crate) const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
];

/// Size cap of the sandbox's `/tmp` (a tmpfs, i.e. RAM) under bubblewrap.
pub const TMPFS_BYTES: &str = "268435456";
/// Size cap of the sandbox's `/dev/shm` under bubblewrap.
const SHM_BYTES: &str = "67108864";

/// A new user namespace in which this process keeps its own uid and gid (written before the
/// fork by the caller): the capabilities it holds there until `exec` let it create the mount and
/// network namespaces; the interpreter it then runs has none.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
unsafe fn enter_userns(uid_map: &[u8], gid_map: &[u8]) -> std::io::Result<()> {
    let err = std::io::Error::last_os_error;
    if libc::unshare(libc::CLONE_NEWUSER) != 0 {
        return Err(err());
    }
    for (path, data) in [
        (c"/proc/self/setgroups", &b"deny"[..]),
        (c"/proc/self/uid_map", uid_map),
        (c"/proc/self/gid_map", gid_map),
    ] {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(err());
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        if n != data.len() as isize {
            return Err(err());
        }
    }
    Ok(())
}

/// New network and mount namespaces: no interfaces but a down loopback, private `/tmp`,
/// `/var/tmp` and `/dev/shm`, `/root` hidden (prefix re-bound). Mount propagation is made private first so nothing leaks to the host.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
unsafe fn enter_netns(
    mask_root: bool,
    under_root: &[(CString, Vec<CString>)],
) -> std::io::Result<()> {
    let err = std::io::Error::last_os_error;
    let null = std::ptr::null();
    if libc::unshare(libc::CLONE_NEWNET | libc::CLONE_NEWNS) != 0 {
        return Err(err());
    }
    userns::private_mounts()?;
    let tmpfs = c"tmpfs".as_ptr();
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    if mask_root {
        // Keep a handle on each real prefix: once /root is a tmpfs, its path leads there instead.
        let mut pfds = [-1i32; 8];
        for (k, (prefix, _)) in under_root.iter().enumerate().take(pfds.len()) {
            let fd = libc::open(
                prefix.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return Err(err());
            }
            pfds[k] = fd;
        }
        if libc::mount(
            tmpfs,
            c"/root".as_ptr(),
            tmpfs,
            flags,
            c"mode=0755,size=16m".as_ptr().cast(),
        ) != 0
        {
            return Err(err());
        }
        libc::umask(0o022);
        for (k, (prefix, dirs)) in under_root.iter().enumerate().take(pfds.len()) {
            for d in dirs {
                libc::mkdir(d.as_ptr(), 0o755);
            }
            // "/proc/self/fd/<pfd>", built on the stack (no allocation after fork).
            let mut src = [0u8; 40];
            let head = b"/proc/self/fd/";
            src[..head.len()].copy_from_slice(head);
            let mut digits = [0u8; 12];
            let (mut n, mut j) = (pfds[k] as u32, 0);
            loop {
                digits[j] = b'0' + (n % 10) as u8;
                j += 1;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            for i in 0..j {
                src[head.len() + i] = digits[j - 1 - i];
            }
            if libc::mount(
                src.as_ptr().cast(),
                prefix.as_ptr(),
                null,
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            ) != 0
            {
                return Err(err());
            }
            libc::close(pfds[k]);
        }
    }
    // No writable host directory: every mount read-only, then private, capped scratch space
    // where a program expects to write (and where host sockets live: /run is hidden whole).
    userns::read_only_everywhere()?;
    if libc::mount(
        tmpfs,
        c"/tmp".as_ptr(),
        tmpfs,
        flags,
        userns::TMP_SIZE.as_ptr().cast(),
    ) != 0
    {
        return Err(err());
    }
    for (p, mode) in [
        (c"/run", c"mode=0755,size=64m"),
        (c"/var/tmp", c"mode=1777,size=64m"),
        (c"/dev/shm", c"mode=1777,size=64m"),
        (c"/var/lock", c"mode=1777,size=64m"),
    ] {
        // Best effort: a directory that does not exist (or /var/lock, a link into /run on most
        // systems) stays as it is, read-only.
        libc::mount(tmpfs, p.as_ptr(), tmpfs, flags, mode.as_ptr().cast());
    }
    libc::umask(0o022);
    libc::mkdir(c"/run/lock".as_ptr(), 0o1777);
    libc::chmod(c"/run/lock".as_ptr(), 0o1777);
    Ok(())
}
