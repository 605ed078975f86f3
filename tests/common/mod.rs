//! Helpers shared by integration tests.
#![allow(dead_code)]

pub mod audit_pool;
pub mod oracle;
pub mod shared;
pub mod tiny;
pub mod tui;

#[allow(unused_imports)]
pub use shared::{require_data, require_python, shared_data, skip};

/// The name libtest knows a test by (`cache::append_helper_child`), for a test that runs one
/// test of its own binary again in a child process: `module` is the caller's `module_path!()`,
/// whose first segment is the binary's crate.
pub fn test_path(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, rest)) => format!("{rest}::{name}"),
        None => name.to_string(),
    }
}

/// The execscope binary as a `Command`, its rank cache in this test run's own directory under
/// `target/` (an integration test never writes into the user's `~/.cache`). Every test that runs
/// the binary starts it here; `tests/layering.rs` fails on one that does not.
pub fn execscope() -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_execscope"));
    cmd.env("EXECSCOPE_CACHE_DIR", rank_cache_dir());
    cmd
}

/// Runs the binary with `args`: (exit code, stdout, stderr), the outputs as text.
pub fn run_execscope(args: &[&str]) -> (i32, String, String) {
    let out = execscope().args(args).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Where binaries started by [`execscope`] keep their rank cache.
pub fn rank_cache_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("rank-cache")
}

/// The bundle shipped in `data/bundle`.
pub fn embedded_bundle() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle")
}

/// Copies the regular files of the bundle (or any directory tree) at `from` to `to`.
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for rel in execscope::bundle::files::list_files(from).unwrap() {
        let dst = to.join(&rel);
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(from.join(&rel), dst).unwrap();
    }
}

/// A copy of the embedded bundle in a fresh temporary directory: (guard, bundle root).
pub fn copy_embedded() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("bundle");
    copy_dir(&embedded_bundle(), &root);
    (tmp, root)
}

/// Runs `cmd`, fails the test with its stderr unless it succeeded, and returns its stdout.
pub fn stdout_ok(cmd: &mut std::process::Command) -> Vec<u8> {
    let out = cmd.output().expect("the command starts");
    assert!(
        out.status.success(),
        "{:?} failed ({}):\n{}",
        cmd,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Fails the test with the command's stderr unless it succeeded.
pub fn assert_ok(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "exit {}:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Opens the bundle at `root` with default settings but the tie policy `policy`.
pub fn open_engine(
    root: &std::path::Path,
    policy: execscope::metrics::TiePolicy,
) -> execscope::engine::Engine {
    use execscope::engine::{Engine, EngineOptions};
    use execscope::metrics::EvalConfig;
    let opts = EngineOptions {
        eval: EvalConfig {
            policy,
            ..EvalConfig::default()
        },
        ..EngineOptions::default()
    };
    Engine::open(root, &opts).expect("bundle loads")
}

/// Every file a bundle's SHA256SUMS lists, with its bytes, plus SHA256SUMS itself (to compare
/// two bundles byte for byte).
pub fn bundle_bytes(root: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let sums = std::fs::read_to_string(root.join("SHA256SUMS")).expect("SHA256SUMS");
    let mut files = vec![("SHA256SUMS".to_string(), sums.clone().into_bytes())];
    for line in sums.lines() {
        let rel = line.split_once("  ").expect("<hex>  <path>").1;
        files.push((rel.to_string(), std::fs::read(root.join(rel)).unwrap()));
    }
    files
}

/// The first `n` tasks of data/tasks.jsonl, written to `dir/tasks.jsonl`.
pub fn task_file(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
    let all = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tasks.jsonl"),
    )
    .expect("the embedded task file");
    let some: Vec<&str> = all.lines().take(n).collect();
    let p = dir.join("tasks.jsonl");
    std::fs::write(&p, some.join("\n") + "\n").unwrap();
    p
}

/// The execution oracles' scratch directories (`execscope-oracle-*`) left in `tmp`.
pub fn oracle_scratch_dirs(tmp: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("execscope-oracle-"))
        .collect()
}

/// The embedding environment when it is ready; else the test `test` says by name that it
/// skipped, and None.
pub fn embed_env_or_skip(test: &str) -> Option<execscope::embed::EmbedEnv> {
    let env = execscope::embed::EmbedEnv::locate().ok()?;
    if env.is_ready() {
        Some(env)
    } else {
        skip(test, &env.absence());
        None
    }
}

/// Fails unless `x` (the files of `a`) and `y` (those of `b`) are the same files, byte for byte.
pub fn assert_same_files(
    x: &[(String, Vec<u8>)],
    y: &[(String, Vec<u8>)],
    a: &std::path::Path,
    b: &std::path::Path,
) {
    assert_eq!(
        x.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        y.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, p), (_, q)) in x.iter().zip(y) {
        assert!(
            p == q,
            "{name} differs between {} and {}",
            a.display(),
            b.display()
        );
    }
}

/// A journal append cut short by a kill: half a memo row, no newline.
pub fn append_torn_line(path: &std::path::Path) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    std::io::Write::write_all(&mut f, b"{\"code_sha256\":\"abc").unwrap();
}
