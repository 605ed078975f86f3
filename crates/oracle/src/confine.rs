//! Kernel-enforced limits applied to the harness just before it is exec'd, so they bind it and
//! every pair it forks: a Landlock domain (the `userns` level) and a seccomp filter (`netns` and
//! `userns`).
//!
//! The rule sets are computed before the fork with the `landlock` and `seccompiler` crates; what
//! runs between fork and exec ([`apply_landlock`], [`apply_seccomp`]) makes raw syscalls only.

use landlock::{Access, AccessFs, AccessNet, Ruleset, RulesetAttr, Scope, ABI};
use seccompiler::{
    SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;
use std::io;
use std::os::fd::OwnedFd;

/// What Landlock offers here, as access masks for the rules added after the fork.
#[derive(Clone, Copy, Debug)]
pub struct Landlock {
    /// The kernel's Landlock ABI version.
    pub abi: i32,
    abi_enum: ABI,
    /// Every filesystem right of this ABI (all handled; granted on the scratch dirs).
    all: u64,
    /// Read and execute (granted on the whole, already minimal, view).
    read: u64,
    /// Every right that applies to a file (granted on the device files).
    file: u64,
}

fn abi_enum(v: i32) -> Option<ABI> {
    Some(match v {
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        v if v >= 7 => ABI::V7,
        _ => return None,
    })
}

/// The kernel's Landlock ABI, or `None` where Landlock is absent or disabled.
pub fn landlock() -> Option<Landlock> {
    const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
    // SAFETY: the documented version query (null attribute, size 0).
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    let abi = abi_enum(v as i32)?;
    let all = AccessFs::from_all(abi);
    Some(Landlock {
        abi: v as i32,
        abi_enum: abi,
        all: all.bits(),
        read: AccessFs::from_read(abi).bits(),
        file: (AccessFs::from_file(abi) & all).bits(),
    })
}

impl Landlock {
    /// A fresh ruleset that handles every filesystem right, TCP bind/connect (ABI >= 4; no port
    /// is ever allowed) and, from ABI 6, signal and abstract-socket scoping. One per spawn: the
    /// child adds its path rules to it and then restricts itself.
    pub fn ruleset(&self) -> io::Result<OwnedFd> {
        let abi = self.abi_enum;
        let mut r = Ruleset::default()
            .handle_access(AccessFs::from_all(abi))
            .map_err(io::Error::other)?;
        if self.abi >= 4 {
            r = r
                .handle_access(AccessNet::from_all(abi))
                .map_err(io::Error::other)?;
        }
        if self.abi >= 6 {
            r = r.scope(Scope::from_all(abi)).map_err(io::Error::other)?;
        }
        let created = r.create().map_err(io::Error::other)?;
        let fd: Option<OwnedFd> = created.into();
        fd.ok_or_else(|| io::Error::other("landlock ruleset not created"))
    }
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

unsafe fn add_rule_fd(ruleset: i32, fd: i32, access: u64) -> io::Result<()> {
    const LANDLOCK_RULE_PATH_BENEATH: u32 = 1;
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: fd,
    };
    if libc::syscall(
        libc::SYS_landlock_add_rule,
        ruleset,
        LANDLOCK_RULE_PATH_BENEATH,
        &attr as *const PathBeneathAttr,
        0u32,
    ) != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

unsafe fn add_rule(ruleset: i32, path: &core::ffi::CStr, access: u64) -> io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
    if fd < 0 {
        // A device the host lacks is simply not granted.
        return if path.to_bytes().starts_with(b"/dev/") {
            Ok(())
        } else {
            Err(io::Error::last_os_error())
        };
    }
    let r = add_rule_fd(ruleset, fd, access);
    libc::close(fd);
    r
}

/// Restricts this process (and so the harness and every pair) to: read and execute in the new
/// root, read the harness source on `harness_fd`, full access to `/tmp` and `/dev/shm` (both
/// private, size-capped tmpfs), write to the harmless device files; nothing else is writable,
/// no TCP port can be bound or connected, and (ABI >= 6) no signal reaches a process outside the
/// domain. Called after `pivot_root`; `ruleset` is closed.
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn apply_landlock(ll: &Landlock, ruleset: i32, harness_fd: i32) -> io::Result<()> {
    const READ_FILE: u64 = 1 << 2;
    add_rule_fd(ruleset, harness_fd, READ_FILE & ll.all)?;
    add_rule(ruleset, c"/", ll.read)?;
    add_rule(ruleset, c"/tmp", ll.all)?;
    add_rule(ruleset, c"/dev/shm", ll.all)?;
    for d in [
        c"/dev/null",
        c"/dev/zero",
        c"/dev/full",
        c"/dev/random",
        c"/dev/urandom",
    ] {
        add_rule(ruleset, d, ll.file)?;
    }
    libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    let r = libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32);
    libc::close(ruleset);
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Namespace flags a pair may not create (`clone`); `unshare` and `setns` are denied outright.
const NS_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWCGROUP,
    0x80, // CLONE_NEWTIME
];

/// System calls no harness or pair needs, denied with EPERM: debugging other processes, kernel
/// keyrings, BPF, mounts and namespaces, modules, performance counters, io_uring (whose
/// operations seccomp cannot see), file handles, and the like.
const DENIED: &[libc::c_long] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_process_madvise,
    libc::SYS_pidfd_getfd,
    libc::SYS_pidfd_send_signal,
    libc::SYS_kcmp,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_chroot,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_name_to_handle_at,
    libc::SYS_open_by_handle_at,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_syslog,
    libc::SYS_quotactl,
    libc::SYS_fanotify_init,
    libc::SYS_vhangup,
    libc::SYS_landlock_create_ruleset,
    libc::SYS_landlock_add_rule,
    libc::SYS_landlock_restrict_self,
    // POSIX message queues live in the IPC namespace, where nothing lists them without a
    // mount of their own: a queue could outlive its pair (System V objects are listed in
    // /proc/sysvipc and removed by the harness after every pair).
    libc::SYS_mq_open,
];

/// What the filter of the `rlimits` level refuses: every call that creates an IPC object in the
/// host's IPC namespace (System V shared memory, semaphores and queues, POSIX message queues),
/// where it would outlive its pair and execscope itself.
const IPC_CREATE: &[libc::c_long] = &[
    libc::SYS_shmget,
    libc::SYS_semget,
    libc::SYS_msgget,
    libc::SYS_mq_open,
];

fn cond(arg: u8, len: SeccompCmpArgLen, op: SeccompCmpOp, v: u64) -> io::Result<SeccompCondition> {
    SeccompCondition::new(arg, len, op, v).map_err(io::Error::other)
}

fn rule(c: Vec<SeccompCondition>) -> io::Result<SeccompRule> {
    SeccompRule::new(c).map_err(io::Error::other)
}

/// The seccomp program of the `rlimits` level (EPERM on a match, allow otherwise): the calls
/// that create IPC objects in the host's IPC namespace ([`IPC_CREATE`]). `None` on an
/// architecture the crate does not know.
pub fn ipc_program() -> io::Result<Option<Vec<libc::sock_filter>>> {
    let Ok(arch) = std::env::consts::ARCH.try_into() else {
        return Ok(None);
    };
    let rules: BTreeMap<i64, Vec<SeccompRule>> =
        IPC_CREATE.iter().map(|&nr| (nr, Vec::new())).collect();
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(io::Error::other)?;
    let prog: seccompiler::BpfProgram = filter.try_into().map_err(io::Error::other)?;
    Ok(Some(
        prog.iter()
            .map(|f| libc::sock_filter {
                code: f.code,
                jt: f.jt,
                jf: f.jf,
                k: f.k,
            })
            .collect(),
    ))
}

/// The seccomp program (EPERM on a match, allow otherwise): [`DENIED`]; `clone` with a
/// namespace flag; `clone3` (whose flags live in memory seccomp cannot read) answers ENOSYS so
/// the C library falls back to `clone`; `socket` of any family and `socketpair` of any family but
/// `AF_UNIX`; `ioctl` TIOCSTI
/// and TIOCLINUX (typing into a terminal); and any signal to pid 1, the harness (init of the
/// pair's pid namespace). `None` on an architecture the crate does not know.
pub fn seccomp_program() -> io::Result<Option<Vec<libc::sock_filter>>> {
    let Ok(arch) = std::env::consts::ARCH.try_into() else {
        return Ok(None);
    };
    use SeccompCmpArgLen::{Dword, Qword};
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &nr in DENIED {
        rules.insert(nr, Vec::new());
    }
    let mut clone = Vec::new();
    for &f in NS_FLAGS {
        clone.push(rule(vec![cond(0, Qword, MaskedEq(f as u64), f as u64)?])?);
    }
    rules.insert(libc::SYS_clone, clone);
    // No socket at all (a host Unix-domain socket is reachable by path even without a
    // network); a connected pair of Unix sockets (multiprocessing, asyncio's self-pipe) is fine.
    rules.insert(libc::SYS_socket, Vec::new());
    rules.insert(
        libc::SYS_socketpair,
        vec![rule(vec![cond(0, Dword, Ne, libc::AF_UNIX as u64)?])?],
    );
    rules.insert(
        libc::SYS_ioctl,
        vec![
            rule(vec![cond(1, Dword, Eq, libc::TIOCSTI)?])?,
            rule(vec![cond(1, Dword, Eq, libc::TIOCLINUX)?])?,
        ],
    );
    for nr in [
        libc::SYS_kill,
        libc::SYS_tkill,
        libc::SYS_tgkill,
        libc::SYS_rt_sigqueueinfo,
        libc::SYS_rt_tgsigqueueinfo,
    ] {
        rules.insert(nr, vec![rule(vec![cond(0, Dword, Eq, 1)?])?]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(io::Error::other)?;
    let prog: seccompiler::BpfProgram = filter.try_into().map_err(io::Error::other)?;
    let mut out: Vec<libc::sock_filter> = Vec::new();
    let stmt = |code: u16, k: u32| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    // Before the crate's program: clone3 answers ENOSYS, and on x86-64 a system call number
    // with the x32 bit set (same audit arch, different numbers) is refused outright.
    const LD_NR: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JEQ: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const JGE: u16 = (libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K) as u16;
    const RET: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    const RET_ERRNO: u32 = 0x0005_0000;
    // The arch is checked first (offset 4), as the crate's own program does next.
    let audit_arch = prog.get(1).map(|f| f.k).unwrap_or(0);
    out.push(stmt((libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, 4));
    out.push(libc::sock_filter {
        code: JEQ,
        jt: 1,
        jf: 0,
        k: audit_arch,
    });
    out.push(stmt(RET, libc::SECCOMP_RET_KILL_PROCESS));
    out.push(stmt(LD_NR, 0));
    out.push(libc::sock_filter {
        code: JGE,
        jt: 0,
        jf: 1,
        k: 0x4000_0000,
    });
    out.push(stmt(RET, RET_ERRNO | libc::ENOSYS as u32));
    out.push(libc::sock_filter {
        code: JEQ,
        jt: 0,
        jf: 1,
        k: libc::SYS_clone3 as u32,
    });
    out.push(stmt(RET, RET_ERRNO | libc::ENOSYS as u32));
    out.extend(prog.iter().map(|f| libc::sock_filter {
        code: f.code,
        jt: f.jt,
        jf: f.jf,
        k: f.k,
    }));
    Ok(Some(out))
}

/// Installs `prog` on this process (inherited by everything it execs and forks).
///
/// # Safety
/// Called between fork and exec: raw syscalls only, no allocation.
pub unsafe fn apply_seccomp(prog: &[libc::sock_filter]) -> io::Result<()> {
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut libc::sock_filter,
    };
    libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if libc::syscall(
        libc::SYS_seccomp,
        libc::SECCOMP_SET_MODE_FILTER,
        0u32,
        &fprog as *const libc::sock_fprog,
    ) != 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` in a forked child (raw syscalls only there) and returns its exit code.
    fn in_child(f: impl FnOnce() -> i32) -> i32 {
        // SAFETY: the child makes raw syscalls and leaves with _exit.
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0);
            if pid == 0 {
                libc::_exit(f());
            }
            let mut status = 0;
            assert_eq!(libc::waitpid(pid, &mut status, 0), pid);
            assert!(libc::WIFEXITED(status), "child died: {status}");
            libc::WEXITSTATUS(status)
        }
    }

    fn errno() -> i32 {
        std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
    }

    #[test]
    fn seccomp_refuses_sockets_ptrace_and_namespaces_but_not_unix_socket_pairs() {
        let Some(prog) = seccomp_program().unwrap() else {
            eprintln!(
                "skipped: seccomp program unknown on {}",
                std::env::consts::ARCH
            );
            return;
        };
        assert!(prog.len() < 4096, "{} instructions", prog.len());
        let code = in_child(|| unsafe {
            if apply_seccomp(&prog).is_err() {
                return 10;
            }
            if libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) >= 0 || errno() != libc::EPERM {
                return 11;
            }
            if libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, 0) >= 0 {
                return 12;
            }
            if libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) >= 0 || errno() != libc::EPERM {
                return 13;
            }
            let mut pair = [0i32; 2];
            if libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) != 0 {
                return 19;
            }
            if libc::socketpair(libc::AF_INET, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) == 0 {
                return 20;
            }
            if libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) == 0 || errno() != libc::EPERM {
                return 14;
            }
            if libc::unshare(libc::CLONE_NEWUSER) == 0 {
                return 15;
            }
            if libc::kill(1, 0) == 0 || errno() != libc::EPERM {
                return 16;
            }
            // Ordinary calls still work: signal ourselves with signal 0, fork a thread-less child.
            if libc::kill(libc::getpid(), 0) != 0 {
                return 17;
            }
            let pid = libc::fork();
            if pid == 0 {
                libc::_exit(0);
            }
            if pid < 0 {
                return 18;
            }
            libc::waitpid(pid, std::ptr::null_mut(), 0);
            0
        });
        assert_eq!(code, 0, "check {code} failed in the filtered child");
    }

    #[test]
    fn landlock_allows_reads_and_tmp_and_refuses_other_writes() {
        let Some(ll) = landlock() else {
            eprintln!("skipped: Landlock not enabled in this kernel");
            return;
        };
        let ruleset = ll.ruleset().unwrap();
        // A directory outside the writable scratch roots (/tmp, /dev/shm): the crate's target
        // dir, unless the checkout itself lives under one of them; then the home directory.
        let writable = |p: &std::path::Path| p.starts_with("/tmp") || p.starts_with("/dev/shm");
        let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target");
        let base = match std::fs::canonicalize(&target) {
            Ok(t) if !writable(&t) => t,
            _ => match std::env::var_os("HOME").map(std::path::PathBuf::from) {
                Some(h) if h.is_dir() && !writable(&h) => h,
                _ => {
                    eprintln!("skipped: no directory outside /tmp and /dev/shm to write-test");
                    return;
                }
            },
        };
        let dir = tempfile::Builder::new()
            .prefix("landlock-test-")
            .tempdir_in(base)
            .unwrap();
        let outside =
            std::ffi::CString::new(dir.path().join("written").as_os_str().as_encoded_bytes())
                .unwrap();
        let inside =
            std::ffi::CString::new(format!("/tmp/landlock-test-{}", std::process::id())).unwrap();
        let harness = std::fs::File::open("/etc/passwd").unwrap();
        use std::os::fd::AsRawFd;
        let (rfd, hfd) = (ruleset.as_raw_fd(), harness.as_raw_fd());
        let code = in_child(|| unsafe {
            if apply_landlock(&ll, rfd, hfd).is_err() {
                return 10;
            }
            let f = libc::open(
                outside.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o600,
            );
            if f >= 0 || errno() != libc::EACCES {
                return 11;
            }
            let f = libc::open(c"/etc/hostname".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
            if f < 0 && errno() == libc::EACCES {
                return 12;
            }
            let f = libc::open(
                inside.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o600,
            );
            if f < 0 {
                return 13;
            }
            libc::close(f);
            libc::unlink(inside.as_ptr());
            0
        });
        assert_eq!(code, 0, "check {code} failed in the restricted child");
        assert!(!dir.path().join("written").exists());
    }
}
