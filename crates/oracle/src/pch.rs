//! The C++ and Rust stubs' fixed parts, compiled once per machine (issue 44 item 6) by a trusted
//! step of execscope, outside every sandbox, into the cache directory, keyed by the compiler, its
//! version, the flags and the source; the directory is made visible read-only in every sandbox
//! root beside the toolchain, and each pair still compiles its own candidate once, in its own
//! process image.
//!
//! * C++: `g++ -x c++-header` of the `#include <...>` lines of `stubs/es_stub.hpp` (the standard
//!   library only, never a candidate's code; `<unistd.h>`, the POSIX names, stays after the
//!   candidate). A pair's compile includes it first (`-include`), so g++ loads the `.gch`
//!   instead of parsing those headers again. A missing or stale `.gch` changes nothing but the
//!   time: g++ then reads the header's text, and the translation unit is the same.
//! * Rust: `stubs/es_stub.rs` as a library crate (`libes_stub.rlib`), which the candidate's crate
//!   links (`--extern`) instead of compiling the stub's source again: only the generic code its
//!   entries' types instantiate is compiled with it.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The flags every C++ compile of a pair uses (`execscope_oracle/toolchains.py`); a `.gch` is
/// only used by a compile with the same ones.
pub const CXX_FLAGS: [&str; 2] = ["-O0", "-w"];

/// The header's file name in its directory (the `.gch` beside it).
pub const HEADER: &str = "es_stub_std.hpp";

/// The text of the precompiled header: the stub's standard `#include` lines but `<unistd.h>`.
pub fn header_text(stub: &str) -> String {
    let mut out = String::from(
        "// execscope: the C++ stub's standard headers, included before the candidate's code.\n",
    );
    for l in stub.lines() {
        let t = l.trim();
        if t.starts_with("#include <") && t != "#include <unistd.h>" {
            out.push_str(t);
            out.push('\n');
        }
    }
    out
}

/// The cache directory: `$EXECSCOPE_CACHE_DIR`, else `$XDG_CACHE_HOME/execscope`, else
/// `~/.cache/execscope`.
fn cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    env("EXECSCOPE_CACHE_DIR")
        .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("execscope")))
        .or_else(|| env("HOME").map(|d| d.join(".cache/execscope")))
        .filter(|d| d.is_absolute())
}

/// The C++ stub.
const STUB: &str = include_str!("../stubs/es_stub.hpp");

/// Whether the stubs' fixed parts are precompiled: only with `EXECSCOPE_PRECOMPILED=1`. Off by
/// default: with it on, the Python red team run as `nobody` (`red_team_as_an_unprivileged_user`)
/// failed "no view of other processes" at `netns` twice beside the root red team, and passed
/// with it off (docs/performance.md); until that is understood, each pair compiles the stubs
/// from their text, as `cargo bench --bench languages` measures against.
fn enabled() -> bool {
    std::env::var_os("EXECSCOPE_PRECOMPILED").is_some_and(|v| v == "1")
}

/// Whether every directory from `/` down to `p` lets other users through (`o+x`): a pair's own
/// uid then reads the header without the read capability a toolchain under `/root` needs.
fn traversable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.ancestors()
        .all(|a| std::fs::metadata(a).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// Where the precompiled stubs live (created): the cache directory's `stubs`, unless other
/// users cannot pass through it (root's `~/.cache`) and `/var/cache/execscope/stubs` can be
/// made, which they can.
fn parent_dir() -> Option<PathBuf> {
    let own = cache_dir().map(|d| d.join("stubs"));
    if let Some(d) = &own {
        if std::fs::create_dir_all(d).is_ok() && traversable(d) {
            return own;
        }
    }
    let system = PathBuf::from("/var/cache/execscope/stubs");
    if std::fs::create_dir_all(&system).is_ok() && traversable(&system) {
        return Some(system);
    }
    own.filter(|d| d.is_dir())
}

/// The precompiled header's text for the stub execscope embeds.
pub fn std_header() -> String {
    header_text(STUB)
}

/// The directory holding the header and its `.gch` for `cxx` (version line `version`): built
/// here when absent, or `None` (the pairs then include the header's text) when it cannot be.
pub fn precompiled(cxx: &Path, version: &str) -> Option<PathBuf> {
    if !enabled() {
        return None;
    }
    precompiled_in(&parent_dir()?, cxx, version)
}

fn precompiled_in(parent: &Path, cxx: &Path, version: &str) -> Option<PathBuf> {
    let text = header_text(STUB);
    let gch = format!("{HEADER}.gch");
    cached(
        parent,
        &[&cxx.to_string_lossy(), version, &CXX_FLAGS.join(" "), &text],
        &[HEADER, &gch],
        |dir| {
            std::fs::write(dir.join(HEADER), &text).is_ok()
                && quiet(
                    Command::new(cxx)
                        .args(CXX_FLAGS)
                        .args(["-x", "c++-header", "-o", &gch, HEADER])
                        .current_dir(dir),
                )
        },
    )
}

/// The Rust stub.
const RUST_STUB: &str = include_str!("../stubs/es_stub.rs");

/// The crate name and file of the Rust stub compiled as a library.
pub const RUST_CRATE: &str = "es_stub";
pub const RUST_RLIB: &str = "libes_stub.rlib";

/// The flags the stub's library is built with: a pair's own (`execscope_oracle/toolchains.py`),
/// so its code is what it was inside the candidate's crate.
const RUSTC_FLAGS: [&str; 10] = [
    "--edition",
    "2021",
    "--cap-lints",
    "allow",
    "-C",
    "opt-level=0",
    "-C",
    "debuginfo=0",
    "-C",
    "strip=debuginfo",
];

/// The directory holding the Rust stub compiled once as a library (`libes_stub.rlib`, by
/// `rustc` of version line `version`), or `None` (each pair then compiles the stub's source
/// with its candidate, as before).
pub fn rust_stub(rustc: &Path, version: &str) -> Option<PathBuf> {
    if !enabled() {
        return None;
    }
    rust_stub_in(&parent_dir()?, rustc, version)
}

fn rust_stub_in(parent: &Path, rustc: &Path, version: &str) -> Option<PathBuf> {
    cached(
        parent,
        &[
            &rustc.to_string_lossy(),
            version,
            &RUSTC_FLAGS.join(" "),
            RUST_STUB,
        ],
        &["es_stub.rs", RUST_RLIB],
        |dir| {
            std::fs::write(dir.join("es_stub.rs"), RUST_STUB).is_ok()
                && quiet(
                    Command::new(rustc)
                        .args(RUSTC_FLAGS)
                        .args(["--crate-type", "rlib", "--crate-name", RUST_CRATE])
                        .args(["-o", RUST_RLIB, "es_stub.rs"])
                        .current_dir(dir),
                )
        },
    )
}

/// Runs a build step with no input or output; whether it succeeded.
fn quiet(c: &mut Command) -> bool {
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The directory, keyed by `parts`, holding `files` as `build` made them in it: found, else
/// built aside and renamed into place (a concurrent execscope either wins the rename or finds
/// the finished directory), its files readable by every pair's uid and writable by none.
fn cached(
    parent: &Path,
    parts: &[&str],
    files: &[&str],
    build: impl FnOnce(&Path) -> bool,
) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let mut h = Sha256::new();
    for part in parts {
        h.update(part.as_bytes());
        h.update([0]);
    }
    let key: String = h.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = parent.join(&key);
    let complete = |d: &Path| files.iter().all(|f| d.join(f).is_file());
    if complete(&dir) {
        return Some(dir);
    }
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{key}-"))
        .tempdir_in(parent)
        .ok()?;
    if !build(tmp.path()) || !complete(tmp.path()) {
        return None;
    }
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    for f in files {
        mode(&tmp.path().join(f), 0o444).ok()?;
    }
    // What else the build left (none expected) goes.
    for e in std::fs::read_dir(tmp.path()).ok()?.flatten() {
        if !files.iter().any(|f| e.file_name() == **f) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    mode(tmp.path(), 0o555).ok()?;
    let built = tmp.keep();
    if std::fs::rename(&built, &dir).is_err() {
        let _ = mode(&built, 0o755);
        let _ = std::fs::remove_dir_all(&built);
    }
    complete(&dir).then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_holds_the_stubs_standard_includes_but_unistd() {
        let stub = "// x\n#include <cmath>\n#include <unistd.h>\n  #include <vector>\nnamespace es {}\n#include \"local.h\"\n";
        let t = header_text(stub);
        let lines: Vec<&str> = t.lines().skip(1).collect();
        assert_eq!(lines, ["#include <cmath>", "#include <vector>"]);
    }

    /// A program on PATH, or None (the test then says it skips).
    fn tool(name: &str) -> Option<PathBuf> {
        std::env::var("PATH")
            .unwrap_or_default()
            .split(':')
            .map(|d| Path::new(d).join(name))
            .find(|p| p.is_file())
    }

    #[test]
    fn the_cpp_header_is_precompiled_once_and_g_plus_plus_uses_it() {
        let Some(cxx) = tool("g++") else {
            eprintln!("SKIP pch::the_cpp_header_is_precompiled_once: no g++ on PATH");
            return;
        };
        let parent = tempfile::tempdir().unwrap();
        let dir = precompiled_in(parent.path(), &cxx, "v").expect("built");
        // Found, not built again; a different compiler version is another directory.
        assert_eq!(precompiled_in(parent.path(), &cxx, "v"), Some(dir.clone()));
        let gch = dir.join(format!("{HEADER}.gch"));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&gch).unwrap().permissions().mode() & 0o777,
            0o444
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2);
        // A compile with a pair's flags loads it (`-H` marks a used `.gch` with `!`).
        let src = parent.path().join("t.cpp");
        std::fs::write(
            &src,
            "#include <vector>\nint main() { std::vector<int> v; return (int)v.size(); }\n",
        )
        .unwrap();
        let out = Command::new(&cxx)
            .args(CXX_FLAGS)
            .args(["-Winvalid-pch", "-H", "-fsyntax-only", "-include"])
            .arg(dir.join(HEADER))
            .arg(&src)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(err.lines().next().unwrap_or("").starts_with("! "), "{err}");
        assert!(err.contains(&gch.display().to_string()), "{err}");
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
    }

    #[test]
    fn the_rust_stub_is_a_library_a_candidates_crate_links() {
        let Some(rustc) = tool("rustc") else {
            eprintln!("SKIP pch::the_rust_stub_is_a_library: no rustc on PATH");
            return;
        };
        let parent = tempfile::tempdir().unwrap();
        let dir = rust_stub_in(parent.path(), &rustc, "v").expect("built");
        let src = parent.path().join("p.rs");
        std::fs::write(
            &src,
            "extern crate es_stub;\nuse es_stub::__es;\nmod c { pub fn add(a: i32, b: i32) -> i32 { a + b } }\n\
             fn main() { let _e: Vec<__es::Entry> = vec![__es::entry2(c::add as fn(_, _) -> _)]; }\n",
        )
        .unwrap();
        let out = Command::new(&rustc)
            .args(RUSTC_FLAGS)
            .arg("--extern")
            .arg(format!("es_stub={}", dir.join(RUST_RLIB).display()))
            .arg("-o")
            .arg(parent.path().join("p"))
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755));
    }
}
