//! Confinement: every path a bundle names must resolve to a regular file inside the bundle root.
//! Each test builds a copy of the tiny fixture beside an `outside/` directory holding a canary
//! (a valid npz and a FIFO). The canary directory is watched with inotify: any open or read of a
//! file in it is recorded, and the test fails if there was one. A FIFO opened the ordinary way
//! would block forever, so every load and check runs on a thread with a deadline.

use execscope::bundle::{check, load, CheckStatus, LoadOptions};
use std::ffi::CString;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::common;
use common::tiny::{copy_tiny_into, TINY};

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    watch: Watch,
}

/// An inotify watch on one directory: every open or read of a file in it.
struct Watch(i32);

impl Watch {
    fn new(dir: &Path) -> Watch {
        // SAFETY: plain syscalls on a fresh descriptor and a NUL-terminated path.
        unsafe {
            let fd = libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC);
            assert!(fd >= 0, "inotify_init1");
            let c = CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
            let w = libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_OPEN | libc::IN_ACCESS);
            assert!(w >= 0, "inotify_add_watch");
            Watch(fd)
        }
    }

    /// Names of the files opened or read since the watch began (or the last call).
    fn touched(&self) -> Vec<String> {
        let mut buf = [0u8; 8192];
        let mut out = Vec::new();
        loop {
            // SAFETY: reading into a local buffer of the stated length.
            let n = unsafe { libc::read(self.0, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                return out;
            }
            let mut at = 0usize;
            while at < n as usize {
                // SAFETY: the kernel writes whole inotify_event records into the buffer.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let name_at = at + std::mem::size_of::<libc::inotify_event>();
                let name = &buf[name_at..name_at + ev.len as usize];
                let name = String::from_utf8_lossy(name)
                    .trim_end_matches('\0')
                    .to_string();
                out.push(if name.is_empty() {
                    "(the directory)".into()
                } else {
                    name
                });
                at = name_at + ev.len as usize;
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor this value owns.
        unsafe {
            libc::close(self.0);
        }
    }
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    copy_tiny_into(&root, true);
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(
        Path::new(TINY).join("embeddings/toy-cos.npz"),
        outside.join("canary.npz"),
    )
    .unwrap();
    std::fs::write(outside.join("canary.txt"), "secret\n").unwrap();
    let fifo = CString::new(outside.join("canary.fifo").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let watch = Watch::new(&outside);
    Setup {
        _dir: dir,
        root,
        outside,
        watch,
    }
}

/// `check` and `load` of the bundle, each on a thread with a deadline (a blocking open of the
/// canary FIFO would otherwise hang the test run); then the canary must be untouched.
fn run(s: &Setup) -> (execscope::bundle::CheckReport, String) {
    let (tx, rx) = mpsc::channel();
    let root = s.root.clone();
    std::thread::spawn(move || {
        let report = check(&root);
        let loaded = match load(&root, &LoadOptions::default()) {
            Ok(_) => "loaded".to_string(),
            Err(e) => e.to_string(),
        };
        let _ = tx.send((report, loaded));
    });
    let out = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("check/load did not finish: something opened a FIFO or read without bound");
    assert_eq!(
        s.watch.touched(),
        Vec::<String>::new(),
        "a file outside the bundle was opened"
    );
    out
}

fn failed(r: &execscope::bundle::CheckReport) -> String {
    assert!(!r.is_ok(), "check passed:\n{r}");
    r.items
        .iter()
        .filter(|i| i.status == CheckStatus::Fail)
        .map(|i| format!("{}: {}", i.name, i.detail))
        .collect::<Vec<_>>()
        .join("\n")
}

fn contains_all(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should contain {p:?}");
    }
}

fn set_file(root: &Path, system: &str, file: &str) {
    let p = root.join("results/invocation_table.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
    for s in v["systems"].as_array_mut().unwrap() {
        if s["id"] == system {
            s["file"] = file.into();
        }
    }
    std::fs::write(&p, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    std::fs::remove_file(root.join("SHA256SUMS")).unwrap();
}

#[test]
fn the_unmodified_copy_passes_and_touches_nothing_outside() {
    let s = setup();
    let (r, loaded) = run(&s);
    assert!(r.is_ok(), "{r}");
    assert_eq!(loaded, "loaded");
}

#[test]
fn invocation_table_absolute_paths_are_refused() {
    for target in ["/etc/passwd", "/proc/self/mem", "/dev/zero"] {
        let s = setup();
        set_file(&s.root, "toy-dot", target);
        let (r, loaded) = run(&s);
        let f = failed(&r);
        // toy-dot is the second entry; its id is on line 15 of the pretty-printed table.
        for msg in [f.as_str(), loaded.as_str()] {
            contains_all(
                msg,
                &[
                    "results/invocation_table.json:15",
                    "system `toy-dot` (entry 2)",
                    target,
                    "absolute path",
                ],
            );
        }
    }
}

#[test]
fn invocation_table_dotdot_and_foreign_files_are_refused() {
    let s = setup();
    set_file(&s.root, "toy-cos", "../outside/canary.npz");
    let (r, loaded) = run(&s);
    for msg in [failed(&r), loaded] {
        contains_all(
            &msg,
            &[
                "results/invocation_table.json:4",
                "system `toy-cos` (entry 1)",
                "contains `..`",
            ],
        );
    }
    // A file inside the bundle that is not the system's own npz.
    let s = setup();
    set_file(&s.root, "toy-cos", "data/queries.jsonl");
    let (r, loaded) = run(&s);
    for msg in [failed(&r), loaded] {
        contains_all(
            &msg,
            &[
                "system `toy-cos`",
                "\"data/queries.jsonl\"",
                "embeddings/toy-cos.npz",
            ],
        );
    }
}

#[test]
fn invocation_table_symlink_out_is_refused() {
    let s = setup();
    symlink(
        s.outside.join("canary.npz"),
        s.root.join("results/vectors.npz"),
    )
    .unwrap();
    set_file(&s.root, "toy-cos", "results/vectors.npz");
    let (r, loaded) = run(&s);
    for msg in [failed(&r), loaded] {
        contains_all(
            &msg,
            &["system `toy-cos`", "outside the bundle root", "canary.npz"],
        );
    }
}

fn add_sums_line(root: &Path, name: &str) -> usize {
    let p = root.join("SHA256SUMS");
    let mut text = std::fs::read_to_string(&p).unwrap();
    text.push_str(&format!("{}  {name}\n", "0".repeat(64)));
    std::fs::write(&p, &text).unwrap();
    text.lines().count()
}

#[test]
fn sha256sums_entries_outside_are_refused_with_their_line() {
    for (name, why) in [
        ("../outside/canary.txt", "contains `..`"),
        ("/etc/hostname", "absolute path"),
    ] {
        let s = setup();
        let line = add_sums_line(&s.root, name);
        let (r, loaded) = run(&s);
        let want = format!("SHA256SUMS:{line}: entry refused");
        for msg in [failed(&r), loaded] {
            contains_all(&msg, &[&want, name, why]);
        }
    }
    // Through a symbolic link inside the bundle.
    let s = setup();
    symlink(s.outside.join("canary.txt"), s.root.join("data/notes.txt")).unwrap();
    let line = add_sums_line(&s.root, "data/notes.txt");
    let (r, loaded) = run(&s);
    let want = format!("SHA256SUMS:{line}: entry refused");
    for msg in [failed(&r), loaded] {
        contains_all(&msg, &[&want, "outside the bundle root"]);
    }
}

#[test]
fn embeddings_symlinks_out_and_special_files_are_refused() {
    // A link to the canary npz (which would load as a valid system), to /dev/zero (which would
    // be read until memory runs out), and to the canary FIFO (which would block).
    for (name, target) in [
        ("link.npz", None),
        ("zero.npz", Some(PathBuf::from("/dev/zero"))),
        ("fifo.npz", Some(PathBuf::from("canary.fifo"))),
    ] {
        let s = setup();
        std::fs::remove_file(s.root.join("SHA256SUMS")).unwrap();
        let target = match target {
            None => s.outside.join("canary.npz"),
            Some(t) if t.is_absolute() => t,
            Some(t) => s.outside.join(t),
        };
        symlink(&target, s.root.join("embeddings").join(name)).unwrap();
        let (r, loaded) = run(&s);
        let entry = format!("embeddings/{name}");
        for msg in [failed(&r), loaded] {
            contains_all(&msg, &[&entry, "refused", "outside the bundle root"]);
        }
    }
}

#[test]
fn a_fifo_inside_the_bundle_is_refused_not_opened() {
    let s = setup();
    std::fs::remove_file(s.root.join("SHA256SUMS")).unwrap();
    let fifo = CString::new(
        s.root
            .join("embeddings/pipe.npz")
            .as_os_str()
            .as_encoded_bytes(),
    )
    .unwrap();
    // SAFETY: mkfifo on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let (r, loaded) = run(&s);
    for msg in [failed(&r), loaded] {
        contains_all(
            &msg,
            &["embeddings/pipe.npz", "is a FIFO, not a regular file"],
        );
    }
}

#[test]
fn fixed_bundle_files_may_not_link_out() {
    let s = setup();
    std::fs::remove_file(s.root.join("SHA256SUMS")).unwrap();
    let q = s.root.join("data/queries.jsonl");
    std::fs::rename(&q, s.outside.join("queries.jsonl")).unwrap();
    // The rename itself is an event on the watched directory only if it opened something; start
    // from a clean slate.
    s.watch.touched();
    symlink(s.outside.join("queries.jsonl"), &q).unwrap();
    let (r, loaded) = run(&s);
    for msg in [failed(&r), loaded] {
        contains_all(&msg, &["data/queries.jsonl", "outside the bundle root"]);
    }
}

#[test]
fn a_symlink_inside_the_bundle_is_followed() {
    // Links that stay inside are fine: the bundle's own file, reached another way.
    let s = setup();
    std::fs::remove_file(s.root.join("SHA256SUMS")).unwrap();
    let real = s.root.join("data/real-corpus.jsonl");
    std::fs::rename(s.root.join("data/corpus.jsonl"), &real).unwrap();
    symlink("real-corpus.jsonl", s.root.join("data/corpus.jsonl")).unwrap();
    let (r, loaded) = run(&s);
    assert!(r.is_ok(), "{r}");
    assert_eq!(loaded, "loaded");
}
