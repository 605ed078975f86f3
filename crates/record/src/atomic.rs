//! Atomic file writes: nothing the user had is lost if we crash mid-write.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

/// Write `bytes` to `path` through a temporary file in the same directory, fsync, then rename.
/// Creates missing parent directories. On error the previous file (if any) is untouched.
/// A `path` that exists and is no regular file or directory (`/dev/null`, `/dev/stdout`, a
/// FIFO) is written in place: renaming over it would replace the device or pipe with a file.
///
/// An error names the directory it concerns when that is not `path` itself (a directory that
/// cannot be made, or written into), never the temporary file's own name: a caller that adds
/// `path` as context shows one path, once.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Ok(m) = fs::metadata(path) {
        if !m.is_file() && !m.is_dir() {
            let mut f = fs::OpenOptions::new().write(true).open(path)?;
            return f.write_all(bytes).and_then(|_| f.flush());
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let in_dir = |what: &str| {
        let dir = dir.to_path_buf();
        let what = what.to_string();
        move |e: io::Error| {
            let kind = e.kind();
            // tempfile's errors add the temporary file's name: keep only the system's words.
            let text = e.to_string();
            let text = text.split(" at path ").next().unwrap_or(&text).to_string();
            io::Error::new(kind, format!("{what} {}: {text}", dir.display()))
        }
    };
    fs::create_dir_all(dir).map_err(in_dir("cannot create the directory"))?;
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(in_dir("cannot create a file in"))?;
    tmp.write_all(bytes)?;
    set_final_mode(tmp.as_file(), path)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The whole lines of a journal (a file only ever appended to, a line at a time): its bytes up
/// to the last newline, or nothing when it does not exist. A torn last line (an append cut short
/// by a crash) is left out, and with `repair` cut off the file itself (made durable), so the
/// next append starts a fresh line.
pub fn read_journal(path: &Path, repair: bool) -> io::Result<Vec<u8>> {
    let mut bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if !bytes.is_empty() && bytes.last() != Some(&b'\n') {
        let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        bytes.truncate(keep);
        if repair {
            let f = fs::OpenOptions::new().write(true).open(path)?;
            f.set_len(keep as u64)?;
            f.sync_all()?;
        }
    }
    Ok(bytes)
}

/// Appends whole lines (`lines` ends with `\n`) to the journal at `path`, durably: under an
/// exclusive lock on the file (concurrent appenders, even in other processes, never interleave),
/// after cutting a torn last line left by a crash, in one write, then `fsync`. Creates the file
/// (not its directory).
pub fn append_lines(path: &Path, lines: &[u8]) -> io::Result<()> {
    let mut f = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .read(true)
        .open(path)?;
    f.lock()?;
    cut_torn_tail(&mut f)?;
    f.write_all(lines)?;
    f.sync_all()
}

/// Truncates the file after its last `\n` (a partial line is an uncommitted row).
fn cut_torn_tail(f: &mut fs::File) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut pos = len;
    let mut chunk = vec![0u8; 4096];
    while pos > 0 {
        let start = pos.saturating_sub(chunk.len() as u64);
        let n = (pos - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut chunk[..n])?;
        if let Some(k) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            let keep = start + k as u64 + 1;
            if keep != len {
                f.set_len(keep)?;
            }
            return Ok(());
        }
        pos = start;
    }
    f.set_len(0)
}

/// The temporary file is created 0600; the result gets what a plain `File::create` would give
/// (0666 less the umask), or the mode of the file it replaces.
#[cfg(unix)]
fn set_final_mode(file: &fs::File, path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = match fs::metadata(path) {
        Ok(m) => m.permissions().mode() & 0o7777,
        Err(_) => 0o666 & !umask(),
    };
    file.set_permissions(fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_final_mode(_file: &fs::File, _path: &Path) -> io::Result<()> {
    Ok(())
}

/// The process umask, read without changing it (Linux reports it in /proc/self/status); 022
/// where it cannot be read.
#[cfg(unix)]
fn umask() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
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

    /// A write into a directory that cannot be written names the directory, not the temporary
    /// file's name.
    #[cfg(unix)]
    #[test]
    fn errors_name_the_directory_not_the_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro");
        fs::create_dir(&ro).unwrap();
        fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
        if fs::write(ro.join("probe"), b"").is_ok() {
            return; // root writes anywhere: nothing to see
        }
        let e = write_atomic(&ro.join("x.txt"), b"x")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("cannot create a file in {}", ro.display())),
            "{e}"
        );
        assert!(!e.contains(".tmp"), "{e}");
        let e = write_atomic(&ro.join("sub/x.txt"), b"x")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot create the directory"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn new_files_get_the_umask_mode_and_replaced_files_keep_theirs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.txt");
        write_atomic(&p, b"x").unwrap();
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask());
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&p, b"y").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    /// A FIFO (as `/dev/null` or `/dev/stdout` would be a device) is written in place, never
    /// replaced by a regular file.
    #[cfg(unix)]
    #[test]
    fn a_path_that_is_no_regular_file_is_written_in_place() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pipe");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        assert_eq!(unsafe { libc_mkfifo(c.as_ptr(), 0o600) }, 0);
        let reader = {
            let p = p.clone();
            std::thread::spawn(move || {
                let mut s = String::new();
                fs::File::open(&p).unwrap().read_to_string(&mut s).unwrap();
                s
            })
        };
        write_atomic(&p, b"through").unwrap();
        assert_eq!(reader.join().unwrap(), "through");
        assert!(fs::metadata(&p).unwrap().file_type().is_fifo());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let null = Path::new("/dev/null");
        if null.exists() {
            write_atomic(null, b"gone").unwrap();
            assert!(fs::metadata(null).unwrap().file_type().is_char_device());
        }
    }

    extern "C" {
        #[link_name = "mkfifo"]
        fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
    }
}
