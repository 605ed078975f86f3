//! Atomic file writes: nothing the user had is lost if we crash mid-write.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory, fsync, then rename.
/// Creates missing parent directories. On error the previous file (if any) is untouched.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_creates_dirs() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/out.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
