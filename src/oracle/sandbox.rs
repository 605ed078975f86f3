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
//! - `Bubblewrap`: `bwrap` with a read-only root, private `/tmp` and `/root`, new net/pid/ipc/uts
//!   namespaces.

use super::outcome::IsolationLevel;
use super::OracleError;
use std::ffi::CString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

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
        Ok(Launcher {
            level,
            python,
            harness,
            tmp,
            bwrap,
            // SAFETY: geteuid has no preconditions.
            root: unsafe { libc::geteuid() } == 0,
        })
    }

    /// The command that starts a harness in `mode` (`--server` or `--once`) that runs its pairs
    /// as `uid` (ignored unless root). Stdin/stdout are piped; stderr is discarded.
    pub fn command(&self, mode: &str, uid: u32) -> Command {
        let uid: i64 = if self.root { uid as i64 } else { -1 };
        let cfg = serde_json::json!({"uid": uid, "tmp": self.tmp, "close_fd": 3}).to_string();
        let py_args = [
            self.python.exe.as_os_str().to_owned(),
            "-I".into(),
            "/dev/fd/3".into(),
            mode.into(),
            cfg.into(),
        ];
        let mut cmd = match self.level {
            IsolationLevel::Bubblewrap => {
                let mut c = Command::new(self.bwrap.as_ref().expect("checked in new"));
                c.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
                c.args(["--perms", "1777", "--tmpfs", "/tmp"]);
                if Path::new("/root").is_dir() {
                    c.args(["--tmpfs", "/root"]);
                    if let Some(dirs) = dirs_under_root(&self.python.prefix) {
                        // bwrap would create the parents 0700: make them traversable.
                        for d in &dirs[..dirs.len().saturating_sub(1)] {
                            c.args(["--perms", "0755", "--dir"]).arg(d);
                        }
                        c.arg("--ro-bind").arg(&self.python.prefix);
                        c.arg(&self.python.prefix);
                    }
                }
                c.args([
                    "--unshare-net",
                    "--unshare-pid",
                    "--unshare-ipc",
                    "--unshare-uts",
                ]);
                // No --die-with-parent: its parent-death signal fires when the *thread* that spawned
                // bwrap exits, not the process. The harness exits on stdin EOF instead.
                c.args(["--unshare-cgroup-try", "--new-session"]);
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
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let fd = self.harness.as_raw_fd();
        let netns = self.level == IsolationLevel::Netns;
        let root_dirs: Vec<CString> = if Path::new("/root").is_dir() {
            dirs_under_root(&self.python.prefix)
                .unwrap_or_default()
                .iter()
                .map(|p| cstr(p))
                .collect()
        } else {
            Vec::new()
        };
        let mask_root = Path::new("/root").is_dir();
        let prefix = cstr(&self.python.prefix);
        // SAFETY: the closure only makes raw syscalls on data prepared before the fork.
        unsafe {
            cmd.pre_exec(move || {
                if fd == 3 {
                    if libc::fcntl(3, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                } else if libc::dup2(fd, 3) != 3 {
                    return Err(std::io::Error::last_os_error());
                }
                if netns {
                    enter_netns(mask_root, &root_dirs, &prefix)?;
                }
                Ok(())
            });
        }
        cmd
    }
}

/// New network and mount namespaces: no interfaces but a down loopback, private `/tmp`,
/// `/var/tmp` and `/dev/shm`, `/root` hidden (prefix re-bound). Mount propagation is made private first so nothing leaks to the host.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
unsafe fn enter_netns(mask_root: bool, dirs: &[CString], prefix: &CString) -> std::io::Result<()> {
    let err = std::io::Error::last_os_error;
    let null = std::ptr::null();
    if libc::unshare(libc::CLONE_NEWNET | libc::CLONE_NEWNS) != 0 {
        return Err(err());
    }
    if libc::mount(
        null,
        c"/".as_ptr(),
        null,
        libc::MS_REC | libc::MS_PRIVATE,
        std::ptr::null(),
    ) != 0
    {
        return Err(err());
    }
    let tmpfs = c"tmpfs".as_ptr();
    let flags = libc::MS_NOSUID | libc::MS_NODEV;
    if libc::mount(
        tmpfs,
        c"/tmp".as_ptr(),
        tmpfs,
        flags,
        c"mode=1777,size=512m".as_ptr().cast(),
    ) != 0
    {
        return Err(err());
    }
    // Other places an unprivileged uid could leave files on the host: private too (best effort).
    for p in [c"/var/tmp", c"/dev/shm"] {
        libc::mount(
            tmpfs,
            p.as_ptr(),
            tmpfs,
            flags,
            c"mode=1777,size=64m".as_ptr().cast(),
        );
    }
    if mask_root {
        // Keep a handle on the real prefix: once /root is a tmpfs, its path leads there instead.
        let pfd = if dirs.is_empty() {
            -1
        } else {
            let fd = libc::open(
                prefix.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return Err(err());
            }
            fd
        };
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
        if pfd >= 0 {
            libc::umask(0o022);
            for d in dirs {
                libc::mkdir(d.as_ptr(), 0o755);
            }
            // "/proc/self/fd/<pfd>", built on the stack (no allocation after fork).
            let mut src = [0u8; 40];
            let head = b"/proc/self/fd/";
            src[..head.len()].copy_from_slice(head);
            let mut digits = [0u8; 12];
            let (mut n, mut k) = (pfd as u32, 0);
            loop {
                digits[k] = b'0' + (n % 10) as u8;
                k += 1;
                n /= 10;
                if n == 0 {
                    break;
                }
            }
            for j in 0..k {
                src[head.len() + j] = digits[k - 1 - j];
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
        }
    }
    Ok(())
}
