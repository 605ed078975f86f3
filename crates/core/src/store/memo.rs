//! The content-hash memo: a file's SHA-256 remembered under its stat key, so reopening an
//! unchanged bundle neither reads nor hashes its matrices.
//!
//! Key: (device, inode, size, mtime in ns, ctime in ns) of the file, as git's index keeps them.
//! The ctime is set by the kernel on every change of content or metadata and cannot be set by a
//! user (unlike the mtime, which `touch -d` rewinds), so a file whose content changed has a new
//! key and its hash is taken again from its bytes. A memo entry is written only when the file's
//! stat key was the same before and after the load that hashed it, and only for a file whose
//! ctime is at least [`SETTLED`] old: file times come from the kernel's coarse clock (one tick is
//! up to 10 ms), so a file rewritten within the tick of its last change could keep its key
//! ("racy git"); once the ctime is older than a tick, any later change gets a later ctime.
//!
//! File (`<cache dir>/stat/<SHA-256 of the canonical path>`): one line, the stat key's five
//! numbers and the hex SHA-256, space-separated. Anything else in it is ignored (treated as no
//! entry) and rewritten.

use super::Store;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What identifies one version of a file without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StatKey {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl StatKey {
    /// The stat key of `path` (following symbolic links, as the loader reads it). None where
    /// the platform has no inode and ctime (the memo is then never used).
    pub fn of(path: &Path) -> Option<StatKey> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let m = std::fs::metadata(path).ok()?;
            if !m.is_file() {
                return None;
            }
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            Some(StatKey {
                dev: m.dev(),
                ino: m.ino(),
                size: m.size(),
                mtime_ns: ns(m.mtime(), m.mtime_nsec()),
                ctime_ns: ns(m.ctime(), m.ctime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = path;
            None
        }
    }

    fn line(&self, sha256: &str) -> String {
        format!(
            "{} {} {} {} {} {sha256}\n",
            self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns
        )
    }
}

fn entry(cache: &Store, path: &Path) -> Option<PathBuf> {
    let canon = std::fs::canonicalize(path).ok()?;
    let h = Sha256::digest(canon.as_os_str().as_encoded_bytes());
    let name: String = h.iter().map(|b| format!("{b:02x}")).collect();
    Some(cache.dir.join("stat").join(name))
}

/// The remembered SHA-256 of `path` if its stat key is still `key`.
pub fn lookup(cache: &Store, path: &Path, key: &StatKey) -> Option<String> {
    let text = std::fs::read_to_string(entry(cache, path)?).ok()?;
    let sha = text.strip_prefix(&key.line("").trim_end().to_string())?;
    let sha = sha.strip_prefix(' ')?.strip_suffix('\n')?;
    (sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha.to_string())
}

/// How old a file's ctime must be before its hash is remembered.
pub const SETTLED: std::time::Duration = std::time::Duration::from_millis(100);

/// Remember `sha256` for `path` under `key`; Ok(false) when the file changed too recently to be
/// remembered safely (see [`SETTLED`]). Errors are returned for the caller to ignore (a memo
/// that cannot be written only costs the next run a read).
pub fn remember(cache: &Store, path: &Path, key: &StatKey, sha256: &str) -> std::io::Result<bool> {
    use std::io::Write;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    if now - key.ctime_ns.max(key.mtime_ns) < SETTLED.as_nanos() as i128 {
        return Ok(false);
    }
    let file = entry(cache, path).ok_or_else(|| std::io::Error::other("no canonical path"))?;
    let dir = file.parent().expect("memo files live in a directory");
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(key.line(sha256).as_bytes())?;
    tmp.persist(&file).map_err(|e| e.error)?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_until_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Store::new(dir.path().join("cache"));
        let f = dir.path().join("m.npz");
        std::fs::write(&f, b"one").unwrap();
        let k = StatKey::of(&f).unwrap();
        assert_eq!(lookup(&cache, &f, &k), None);
        let sha = "ab".repeat(32);
        // Just written: not settled, not remembered.
        assert!(!remember(&cache, &f, &k, &sha).unwrap());
        assert_eq!(lookup(&cache, &f, &k), None);
        std::thread::sleep(SETTLED * 2);
        assert!(remember(&cache, &f, &k, &sha).unwrap());
        assert_eq!(lookup(&cache, &f, &k), Some(sha.clone()));
        // Same size, same inode: only the times tell.
        std::fs::write(&f, b"two").unwrap();
        let k2 = StatKey::of(&f).unwrap();
        assert_ne!(k, k2, "a rewrite changes the ctime");
        assert_eq!(lookup(&cache, &f, &k2), None);
        // A damaged entry is no entry.
        let e = entry(&cache, &f).unwrap();
        std::fs::write(&e, "garbage").unwrap();
        assert_eq!(lookup(&cache, &f, &k), None);
    }
}
