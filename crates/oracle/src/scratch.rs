//! An oracle's scratch directory in the temp dir: its private copy of the harness and the
//! `Rlimits` work-dir base, held under an owner lock for as long as the oracle lives, and the
//! sweep that removes the directories of oracles that are gone.

use super::runtime::HARNESS;
use super::OracleError;
use std::path::{Path, PathBuf};

/// Name prefix of an oracle's scratch directory in the temp dir.
const SCRATCH_PREFIX: &str = "execscope-oracle-";
/// The file in a scratch directory its live owner holds an exclusive `flock` on.
const OWNER_LOCK: &str = "owner.lock";

/// Takes the owner lock of a fresh scratch directory: locked under a temporary name, then renamed
/// into place, so a sweep never sees the lock file unlocked while its owner lives.
fn lock_owner(dir: &Path) -> std::io::Result<std::fs::File> {
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
pub fn sweep_stale_scratch(tmp: &Path) -> usize {
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

/// A fresh scratch directory, ready for the launchers.
pub(super) struct Scratch {
    /// Owns the directory (removed when the oracle is dropped).
    pub dir: tempfile::TempDir,
    /// Holds the directory's owner lock (see [`sweep_stale_scratch`]).
    pub owner: std::fs::File,
    /// The harness source, open; children get it as fd 3 (the file itself is already removed).
    pub harness: std::fs::File,
    /// Where the harness was written (named in errors).
    pub harness_path: PathBuf,
    /// The work-dir base of the `Rlimits` level.
    pub work: PathBuf,
}

impl Scratch {
    /// Sweeps the stale directories, then makes this oracle's: owner lock, harness, work dir.
    pub(super) fn create() -> Result<Scratch, OracleError> {
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
        std::fs::write(&harness_path, HARNESS.as_str()).map_err(io(harness_path.clone()))?;
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
        Ok(Scratch {
            dir,
            owner,
            harness,
            harness_path,
            work,
        })
    }
}
