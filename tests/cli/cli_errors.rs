//! Issue 45 item 8, the command line's part: a cutoff larger than the corpus is refused; a
//! mistyped bundle is named as a missing directory; a write that the system refuses names the
//! path once, with the system's reason once; a mistyped task file leaves nothing in `--out`.

use crate::common;

use std::path::{Path, PathBuf};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny");

#[test]
fn a_cutoff_larger_than_the_corpus_is_refused() {
    let (code, _, err) = common::run_execscope(&["report", TINY, "--ks", "1,5000"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--ks 5000") && err.contains("12 snippets") && err.contains("from 1 to 12"),
        "{err}"
    );
    let (code, _, err) = common::run_execscope(&[
        "audit",
        TINY,
        "--system",
        "toy-dot",
        "--k",
        "13",
        "--visible",
        "1",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("--k 13"), "{err}");
    // The dashboard refuses it before it takes the terminal.
    let (code, _, err) = common::run_execscope(&[TINY, "--ks", "5000"]);
    assert_ne!(code, 0);
    assert!(err.contains("--ks 5000"), "{err}");
    let (code, _, err) = common::run_execscope(&["report", TINY, "--ks", "12"]);
    assert_eq!(code, 0, "the whole ranking is a cutoff: {err}");
}

#[test]
fn a_mistyped_bundle_is_a_missing_directory() {
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo");
    for cmd in ["report", "export", "check"] {
        let mut args = vec![cmd, typo.to_str().unwrap()];
        if cmd == "export" {
            args.extend(["--trec", "x"]);
        }
        let (code, _, err) = common::run_execscope(&args);
        assert_ne!(code, 0);
        assert!(
            err.contains(&format!("no such bundle directory: {}", typo.display())),
            "{cmd}: {err}"
        );
        assert!(
            !err.contains("queries.jsonl: required file"),
            "{cmd}: {err}"
        );
    }
    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let (_, _, err) = common::run_execscope(&["report", file.to_str().unwrap()]);
    assert!(err.contains("is not a directory"), "{err}");
}

#[test]
fn a_mistyped_task_file_leaves_nothing_in_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("D");
    let (code, _, err) = common::run_execscope(&[
        "build",
        dir.path().join("typo.jsonl").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("typo.jsonl"), "{err}");
    assert!(
        !out.exists(),
        "build left {:?}",
        std::fs::read_dir(&out).map(|d| d.count())
    );
}

/// The binary, and a copy of the tiny fixture, where an unprivileged user can run and read
/// them; and how to run as one: directly when not root, else through `setpriv` as `nobody`.
/// None (said by name) when root has no `setpriv`.
fn unprivileged(test: &str, dir: &Path) -> Option<(PathBuf, PathBuf, Vec<String>)> {
    use std::os::unix::fs::PermissionsExt;
    let root = unsafe { libc::geteuid() } == 0;
    let setpriv = Path::new("/usr/bin/setpriv");
    if root && !setpriv.exists() {
        common::skip(
            test,
            "running as root without /usr/bin/setpriv to drop to nobody",
        );
        return None;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exe = dir.join("execscope");
    std::fs::copy(common::execscope().get_program(), &exe).unwrap();
    let bundle = dir.join("tiny");
    common::copy_dir(Path::new(TINY), &bundle);
    let out = std::process::Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(out.success());
    let prefix = if root {
        vec![
            setpriv.display().to_string(),
            "--reuid=nobody".into(),
            "--regid=nogroup".into(),
            "--clear-groups".into(),
        ]
    } else {
        Vec::new()
    };
    Some((exe, bundle, prefix))
}

#[test]
fn a_refused_write_names_its_path_once() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let Some((exe, bundle, prefix)) = unprivileged(
        "cli::cli_errors::a_refused_write_names_its_path_once",
        dir.path(),
    ) else {
        return;
    };
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let b = bundle.to_str().unwrap().to_string();
    let at = |p: &str| ro.join(p).display().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            vec![
                "report".into(),
                b.clone(),
                "--all".into(),
                "--out".into(),
                at("x"),
            ],
            at("x"),
        ),
        (
            vec![
                "report".into(),
                b.clone(),
                "--all".into(),
                "--out".into(),
                at(""),
            ],
            ro.display().to_string(),
        ),
        (
            vec![
                "export".into(),
                b.clone(),
                "--trec".into(),
                at("t"),
                "--ties".into(),
                "row".into(),
            ],
            at("t"),
        ),
        (
            vec![
                "plot".into(),
                b.clone(),
                "--figure".into(),
                "forest".into(),
                "--out".into(),
                at("f.svg"),
            ],
            at("f.svg"),
        ),
    ];
    for (args, path) in cases {
        let mut cmd = match prefix.split_first() {
            Some((p, rest)) => {
                let mut c = std::process::Command::new(p);
                c.args(rest).arg(&exe);
                c
            }
            None => std::process::Command::new(&exe),
        };
        let out = cmd
            .args(&args)
            .env("EXECSCOPE_CACHE_DIR", dir.path().join("cache-unused"))
            .arg("--no-cache")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(err.contains(&path), "{args:?} names {path}: {err}");
        assert_eq!(
            err.matches("Permission denied").count(),
            1,
            "{args:?}: {err}"
        );
        let without_dir = err.replace(&dir.path().display().to_string(), "DIR");
        assert!(
            !without_dir.contains(".tmp"),
            "{args:?}: a temporary file's name: {err}"
        );
    }
}
