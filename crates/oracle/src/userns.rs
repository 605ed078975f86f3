//! The `userns` level's view of the machine, built by execscope itself between fork and exec:
//! a pid namespace whose init is the harness, and a new root that holds only read-only copies of
//! the system directories and the interpreter, a minimal `/dev`, a `/proc` of the pair's own pid
//! namespace and a size-capped `/tmp`. No user file, task file, output dir or cache is in it.
//!
//! Everything here runs in the forked child of a possibly multi-threaded process, so the paths
//! are prepared as C strings before the fork ([`RootPlan`]) and the child makes raw syscalls only.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Where the new root is assembled (a tmpfs mounted over it in the private mount namespace).
const NEWROOT: &str = "/tmp";

/// Size cap of the pair's `/tmp` (a tmpfs, i.e. RAM) at the `netns` and `userns` levels.
pub const TMP_SIZE: &core::ffi::CStr = c"mode=1777,size=268435456";
/// Size cap of `/dev/shm`.
const SHM_SIZE: &core::ffi::CStr = c"mode=1777,size=67108864";

/// Device files a Python program may legitimately open (bound from the host's `/dev`).
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// One thing to put into the new root.
#[derive(Debug)]
enum Entry {
    /// A directory (a parent of a bind target).
    Dir(CString),
    /// A symbolic link with the host's target (e.g. `/lib64 -> usr/lib64`).
    Symlink { path: CString, target: CString },
    /// A read-only recursive copy of a host directory at the same path.
    BindDir { src: CString, dst: CString },
    /// A host device file at `/dev/<name>`, writable, no exec.
    BindDev { src: CString, dst: CString },
    /// A read-only copy of one host file (of `/etc`) at the same path.
    BindFile { src: CString, dst: CString },
}

/// The paths a new root is built from, prepared before the fork.
#[derive(Debug)]
pub struct RootPlan {
    entries: Vec<Entry>,
    proc_: CString,
    tmp: CString,
    shm: CString,
    dev_links: Vec<(CString, CString)>,
}

fn c(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes()).unwrap_or_default()
}

fn inside(p: &Path) -> CString {
    let rel = p.strip_prefix("/").unwrap_or(p);
    c(&Path::new(NEWROOT).join(rel))
}

impl RootPlan {
    /// The system directories that exist here (as directories or as links), each of `prefixes`
    /// that lies elsewhere (the interpreter's, the candidate languages' toolchains), and the
    /// listed files (of `/etc`) that exist, alone.
    pub fn new(system_dirs: &[&str], files: &[&str], prefixes: &[PathBuf]) -> RootPlan {
        let mut entries = Vec::new();
        let mut made: Vec<PathBuf> = Vec::new();
        for d in system_dirs {
            let p = Path::new(d);
            let Ok(meta) = std::fs::symlink_metadata(p) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                if let Ok(t) = std::fs::read_link(p) {
                    entries.push(Entry::Symlink {
                        path: inside(p),
                        target: c(&t),
                    });
                }
            } else if meta.is_dir() {
                entries.push(Entry::Dir(inside(p)));
                entries.push(Entry::BindDir {
                    src: c(p),
                    dst: inside(p),
                });
            }
            made.push(p.to_path_buf());
        }
        let mut bound: Vec<&Path> = Vec::new();
        for prefix in prefixes {
            let covered = system_dirs.iter().any(|d| {
                prefix.starts_with(d)
                    && std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir() && !m.is_symlink())
            }) || bound.iter().any(|b| prefix.starts_with(b));
            if covered || !prefix.is_absolute() || !prefix.is_dir() {
                continue;
            }
            let mut parents: Vec<&Path> = prefix.ancestors().collect();
            parents.reverse();
            for p in parents.iter().filter(|p| p.parent().is_some()) {
                entries.push(Entry::Dir(inside(p)));
            }
            entries.push(Entry::BindDir {
                src: c(prefix),
                dst: inside(prefix),
            });
            bound.push(prefix);
        }
        let mut parents: Vec<PathBuf> = Vec::new();
        for f in files {
            let p = Path::new(f);
            // Only regular files (a link is followed: /etc/localtime names a zone file).
            if !std::fs::metadata(p).is_ok_and(|m| m.is_file()) {
                continue;
            }
            if let Some(parent) = p.parent().filter(|d| !parents.iter().any(|q| q == d)) {
                parents.push(parent.to_path_buf());
                entries.push(Entry::Dir(inside(parent)));
            }
            entries.push(Entry::BindFile {
                src: c(p),
                dst: inside(p),
            });
        }
        entries.push(Entry::Dir(inside(Path::new("/dev"))));
        for d in DEVICES {
            let host = Path::new("/dev").join(d);
            if host.exists() {
                entries.push(Entry::BindDev {
                    src: c(&host),
                    dst: inside(&host),
                });
            }
        }
        let dev_links = [
            ("fd", "/proc/self/fd"),
            ("stdin", "/proc/self/fd/0"),
            ("stdout", "/proc/self/fd/1"),
            ("stderr", "/proc/self/fd/2"),
        ]
        .iter()
        .map(|(n, t)| (inside(&Path::new("/dev").join(n)), c(Path::new(t))))
        .collect();
        RootPlan {
            entries,
            proc_: inside(Path::new("/proc")),
            tmp: inside(Path::new("/tmp")),
            shm: inside(Path::new("/dev/shm")),
            dev_links,
        }
    }
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

const OPEN_TREE_CLONE: libc::c_uint = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;
const MOVE_MOUNT_F_EMPTY_PATH: libc::c_uint = 0x4;
const MOUNT_ATTR_RDONLY: u64 = 0x1;
const MOUNT_ATTR_NOSUID: u64 = 0x2;
const MOUNT_ATTR_NODEV: u64 = 0x4;
const MOUNT_ATTR_NOEXEC: u64 = 0x8;

fn err() -> io::Error {
    io::Error::last_os_error()
}

/// Sets mount attributes on a mount (and, with `AT_RECURSIVE`, everything under it).
///
/// # Safety
/// Raw syscall; `path` must be a valid C string.
unsafe fn setattr(
    dfd: i32,
    path: &core::ffi::CStr,
    flags: libc::c_uint,
    set: u64,
) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: 0,
        propagation: 0,
        userns_fd: 0,
    };
    let r = libc::syscall(
        libc::SYS_mount_setattr,
        dfd,
        path.as_ptr(),
        flags,
        &attr as *const MountAttr,
        std::mem::size_of::<MountAttr>(),
    );
    if r != 0 {
        return Err(err());
    }
    Ok(())
}

/// Forks once more after `unshare(CLONE_NEWPID)`: the child, pid 1 of the new pid namespace,
/// returns (and goes on to exec the harness); the parent closes every descriptor, waits for it
/// and exits with its status, so the process execscope spawned lives exactly as long as the
/// harness. The child dies with that parent (`PR_SET_PDEATHSIG`), and everything in the pid
/// namespace dies with the child.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn fork_into_pidns() -> io::Result<()> {
    let pid = libc::syscall(
        libc::SYS_clone,
        libc::SIGCHLD as libc::c_ulong,
        0usize,
        0usize,
        0usize,
        0usize,
    );
    if pid < 0 {
        return Err(err());
    }
    if pid == 0 {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong);
        return Ok(());
    }
    // The waiter: holds no pipe end (so EOF reaches execscope when the harness dies) and never
    // returns into the exec path.
    super::process::close_fds_from(0);
    let mut status = 0;
    loop {
        let r = libc::waitpid(pid as libc::pid_t, &mut status, 0);
        if r == pid as libc::pid_t {
            break;
        }
        if r < 0 && *libc::__errno_location() != libc::EINTR {
            libc::_exit(127);
        }
    }
    if libc::WIFEXITED(status) {
        libc::_exit(libc::WEXITSTATUS(status));
    }
    libc::_exit(128 + libc::WTERMSIG(status));
}

/// Mounts a fresh `/proc` (the pid namespace's own view) over `target`.
///
/// # Safety
/// Called between fork and exec, as pid 1 of a new pid namespace.
pub unsafe fn mount_proc(target: &core::ffi::CStr) -> io::Result<()> {
    if libc::mount(
        c"proc".as_ptr(),
        target.as_ptr(),
        c"proc".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        std::ptr::null(),
    ) != 0
    {
        return Err(err());
    }
    Ok(())
}

unsafe fn tmpfs(
    target: &core::ffi::CStr,
    data: &core::ffi::CStr,
    extra: libc::c_ulong,
) -> io::Result<()> {
    if libc::mount(
        c"tmpfs".as_ptr(),
        target.as_ptr(),
        c"tmpfs".as_ptr(),
        libc::MS_NOSUID | libc::MS_NODEV | extra,
        data.as_ptr().cast(),
    ) != 0
    {
        return Err(err());
    }
    Ok(())
}

/// Makes every mount of this (new) mount namespace private, so nothing done here propagates to
/// the host's namespace.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn private_mounts() -> io::Result<()> {
    let null = std::ptr::null();
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
    Ok(())
}

/// Makes every mount of this (private) mount namespace read-only, recursively (`mount_setattr`;
/// on a kernel without it, the root mount alone).
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn read_only_everywhere() -> io::Result<()> {
    match setattr(libc::AT_FDCWD, c"/", AT_RECURSIVE, MOUNT_ATTR_RDONLY) {
        Ok(()) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
            if libc::mount(
                std::ptr::null(),
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY,
                std::ptr::null(),
            ) != 0
            {
                return Err(err());
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Most bind sources a plan may hold (system dirs, prefix, devices).
const MAX_BINDS: usize = 32;

/// Builds the new root from `plan` and switches to it (`pivot_root`); the old root is detached.
/// Must run in a private mount namespace, as pid 1 of the pair's pid namespace (for `/proc`).
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn build_root(plan: &RootPlan) -> io::Result<()> {
    private_mounts()?;
    // Detached read-only copies of every source first: the tmpfs below hides the host's /tmp,
    // where a source could live.
    let mut fds = [-1i32; MAX_BINDS];
    let mut n = 0;
    for e in &plan.entries {
        let (src, set, rec) = match e {
            Entry::BindDir { src, .. } => (
                src,
                MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
                AT_RECURSIVE,
            ),
            Entry::BindDev { src, .. } => (src, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0),
            Entry::BindFile { src, .. } => (
                src,
                MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC,
                0,
            ),
            _ => continue,
        };
        if n == MAX_BINDS {
            return Err(io::Error::from_raw_os_error(libc::E2BIG));
        }
        let fd = libc::syscall(
            libc::SYS_open_tree,
            libc::AT_FDCWD,
            src.as_ptr(),
            OPEN_TREE_CLONE | libc::O_CLOEXEC as libc::c_uint | rec,
        );
        if fd < 0 {
            return Err(err());
        }
        let fd = fd as i32;
        setattr(fd, c"", libc::AT_EMPTY_PATH as libc::c_uint | rec, set)?;
        fds[n] = fd;
        n += 1;
    }
    tmpfs(c"/tmp", c"mode=0755,size=4194304", 0)?;
    libc::umask(0o022);
    let mut k = 0;
    for e in &plan.entries {
        match e {
            Entry::Dir(p) => {
                if libc::mkdir(p.as_ptr(), 0o755) != 0 && *libc::__errno_location() != libc::EEXIST
                {
                    return Err(err());
                }
            }
            Entry::Symlink { path, target } => {
                if libc::symlink(target.as_ptr(), path.as_ptr()) != 0 {
                    return Err(err());
                }
            }
            Entry::BindDir { dst, .. }
            | Entry::BindDev { dst, .. }
            | Entry::BindFile { dst, .. } => {
                if !matches!(e, Entry::BindDir { .. }) {
                    let f = libc::open(
                        dst.as_ptr(),
                        libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                        0o644,
                    );
                    if f < 0 {
                        return Err(err());
                    }
                    libc::close(f);
                }
                let r = libc::syscall(
                    libc::SYS_move_mount,
                    fds[k],
                    c"".as_ptr(),
                    libc::AT_FDCWD,
                    dst.as_ptr(),
                    MOVE_MOUNT_F_EMPTY_PATH,
                );
                libc::close(fds[k]);
                k += 1;
                if r != 0 {
                    return Err(err());
                }
            }
        }
    }
    for (link, target) in &plan.dev_links {
        if libc::symlink(target.as_ptr(), link.as_ptr()) != 0 {
            return Err(err());
        }
    }
    for d in [&plan.proc_, &plan.tmp, &plan.shm] {
        if libc::mkdir(d.as_ptr(), 0o755) != 0 {
            return Err(err());
        }
    }
    mount_proc(&plan.proc_)?;
    tmpfs(&plan.tmp, TMP_SIZE, 0)?;
    tmpfs(&plan.shm, SHM_SIZE, libc::MS_NOEXEC)?;
    if libc::chdir(c"/tmp".as_ptr()) != 0 {
        return Err(err());
    }
    if libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) != 0 {
        return Err(err());
    }
    if libc::umount2(c".".as_ptr(), libc::MNT_DETACH) != 0 {
        return Err(err());
    }
    if libc::chdir(c"/".as_ptr()) != 0 {
        return Err(err());
    }
    // The skeleton itself (and the dirs and links in /dev) becomes read-only too.
    setattr(libc::AT_FDCWD, c"/", 0, MOUNT_ATTR_RDONLY)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dsts(plan: &RootPlan) -> Vec<String> {
        plan.entries
            .iter()
            .filter_map(|e| match e {
                Entry::BindDir { dst, .. }
                | Entry::BindDev { dst, .. }
                | Entry::BindFile { dst, .. } => Some(dst.to_string_lossy().to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_prefix_outside_the_system_dirs_is_bound_under_traversable_parents() {
        let dir = tempfile::tempdir().unwrap();
        let py = dir.path().join("py/3.11");
        std::fs::create_dir_all(&py).unwrap();
        let plan = RootPlan::new(&["/usr", "/etc"], &[], std::slice::from_ref(&py));
        let inner = |p: &Path| format!("/tmp{}", p.display());
        let d = dsts(&plan);
        assert!(d.contains(&"/tmp/usr".to_string()), "{d:?}");
        assert!(d.contains(&inner(&py)), "{d:?}");
        let dirs: Vec<String> = plan
            .entries
            .iter()
            .filter_map(|e| match e {
                Entry::Dir(p) => Some(p.to_string_lossy().to_string()),
                _ => None,
            })
            .collect();
        let (top, mid) = (inner(dir.path()), inner(&dir.path().join("py")));
        for want in [&top, &mid, &inner(&py)] {
            assert!(dirs.contains(want), "{want} missing from {dirs:?}");
        }
        // Parents come before what is bound under them.
        let pos = |s: &str| dirs.iter().position(|d| d == s).unwrap();
        assert!(pos(&top) < pos(&mid));
        // A toolchain inside an earlier prefix is not bound again; one elsewhere is.
        let tool = dir.path().join("tool");
        std::fs::create_dir_all(&tool).unwrap();
        let both = RootPlan::new(&["/usr"], &[], &[py.clone(), py.join("lib"), tool.clone()]);
        let d = dsts(&both);
        assert!(
            d.contains(&inner(&tool)) && !d.contains(&inner(&py.join("lib"))),
            "{d:?}"
        );
    }

    #[test]
    fn a_prefix_inside_a_system_dir_is_not_bound_twice() {
        let plan = RootPlan::new(
            &["/usr"],
            &["/etc/passwd", "/etc/no-such-file"],
            &[PathBuf::from("/usr")],
        );
        let d = dsts(&plan);
        assert_eq!(
            d.iter().filter(|p| p.starts_with("/tmp/usr")).count(),
            1,
            "{d:?}"
        );
        // Only the host's devices that exist, each under the new /dev; of /etc only the listed
        // files that exist.
        assert!(d.iter().any(|p| p == "/tmp/dev/null"), "{d:?}");
        assert!(d.iter().any(|p| p == "/tmp/etc/passwd"), "{d:?}");
        assert!(
            !d.iter()
                .any(|p| p.contains("no-such-file") || p == "/tmp/etc"),
            "{d:?}"
        );
        assert!(!d.iter().any(|p| p.contains("tty")), "{d:?}");
    }
}
