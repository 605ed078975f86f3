//! `build --shard i/n` rounds + `execscope merge` write the bundle a one-machine build writes,
//! byte for byte (same `SHA256SUMS`, same files); `exec verify --shard` + merge the same
//! verify.jsonl as one `exec verify --out`; and merge refuses what it must: a missing or
//! unfinished shard (by number), conflicting verdicts, shards of different inputs, different
//! isolation levels. Real oracle, real python3, the first tasks of the embedded task file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::task_file;

fn run(args: &[&dyn AsRef<std::ffi::OsStr>], env: &[(&str, &str)]) -> Output {
    let mut c = common::execscope();
    for a in args {
        c.arg(a);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn ok(o: &Output) -> String {
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    out
}

fn shard(tasks: &Path, out: &Path, spec: &str, memo: Option<&Path>, env: &[(&str, &str)]) {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"build", &tasks, &"--out", &out, &"--shard", &spec];
    if let Some(m) = &memo {
        args.push(&"--memo-from");
        args.push(m);
    }
    ok(&run(&args, env));
}

fn merge(parts: &[PathBuf], out: &Path) -> Output {
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![&"merge", &"--out", &out];
    for p in parts {
        args.push(p);
    }
    run(&args, &[])
}

/// Rounds of n shards and a merge until the merge writes the bundle; returns the rounds run.
fn sharded_build(tasks: &Path, dir: &Path, n: u32) -> (PathBuf, usize) {
    let merged = dir.join("merged");
    let parts: Vec<PathBuf> = (0..n).map(|i| dir.join(format!("shard{i}"))).collect();
    for round in 1..=8 {
        for (i, p) in parts.iter().enumerate() {
            let memo = (round > 1).then_some(merged.as_path());
            shard(tasks, p, &format!("{i}/{n}"), memo, &[]);
        }
        let o = merge(&parts, &merged);
        match o.status.code() {
            Some(0) => return (merged, round),
            Some(3) => continue,
            _ => panic!("merge failed: {}", String::from_utf8_lossy(&o.stderr)),
        }
    }
    panic!("no bundle after 8 rounds");
}

use common::bundle_bytes;

fn assert_same(a: &Path, b: &Path) {
    common::assert_same_files(&bundle_bytes(a), &bundle_bytes(b), a, b);
}

#[test]
fn shards_and_merge_reproduce_the_one_machine_bundle_and_verify() {
    let work = tempfile::tempdir().unwrap();
    let tasks = task_file(work.path(), 5);
    let whole = work.path().join("whole");
    ok(&run(&[&"build", &tasks, &"--out", &whole], &[]));

    let (merged, rounds) = sharded_build(&tasks, &work.path().join("three"), 3);
    assert!(
        rounds >= 2,
        "a pipeline of dependent gates needs more than one round"
    );
    assert_same(&whole, &merged);

    // One shard: its merge is the single-machine bundle too.
    let (one, _) = sharded_build(&tasks, &work.path().join("one"), 1);
    assert_same(&whole, &one);

    // exec verify: two shards merged = one run over every pair.
    let single = work.path().join("verify-one");
    ok(&run(&[&"exec", &"verify", &whole, &"--out", &single], &[]));
    let mut parts = Vec::new();
    for i in 0..2 {
        let p = work.path().join(format!("verify{i}"));
        ok(&run(
            &[
                &"exec",
                &"verify",
                &whole,
                &"--shard",
                &format!("{i}/2"),
                &"--out",
                &p,
            ],
            &[],
        ));
        parts.push(p);
    }
    let rows = |p: &Path| std::fs::read_to_string(p.join("verify.jsonl")).unwrap();
    let (a, b) = (
        rows(&parts[0]).lines().count(),
        rows(&parts[1]).lines().count(),
    );
    assert!(a > 0 && b > 0, "a shard got no pairs ({a}, {b})");
    let mv = work.path().join("verify-merged");
    ok(&merge(&parts, &mv));
    assert_eq!(rows(&single).lines().count(), a + b);
    assert!(rows(&single) == rows(&mv), "merged verify.jsonl differs");

    // Resumable: a rerun into the same directory re-executes only what the journal lacks; here
    // half of it, with a torn line after, as a kill mid-append leaves it.
    let journal = single.join(".execscope-build-memo.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), a + b, "one journal row per re-executed pair");
    let half = lines.len() / 2;
    std::fs::write(&journal, lines[..half].join("\n") + "\n{\"code_sha").unwrap();
    let again = ok(&run(&[&"exec", &"verify", &whole, &"--out", &single], &[]));
    assert!(
        again.contains(&format!("resumed: {half} pairs reused")),
        "{again}"
    );
    assert!(
        rows(&single) == rows(&mv),
        "the resumed verify.jsonl differs"
    );
}

#[test]
fn merge_refuses_missing_conflicting_and_foreign_shards() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let tasks = task_file(dir, 3);
    let s0 = dir.join("s0");
    let s1 = dir.join("s1");
    shard(&tasks, &s0, "0/2", None, &[]);
    shard(&tasks, &s1, "1/2", None, &[]);
    let refused = |parts: &[PathBuf], what: &str| {
        let o = merge(parts, &dir.join("out"));
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "not refused ({what}): {err}");
        assert!(err.contains(what), "expected {what:?} in: {err}");
    };
    // Both shards merge (a round: later phases pending).
    assert_eq!(
        merge(&[s0.clone(), s1.clone()], &dir.join("ok"))
            .status
            .code(),
        Some(3)
    );

    refused(std::slice::from_ref(&s0), "missing shard(s) 1 of 2");

    // A shard that never finished (killed: its manifest still says running).
    let s1run = dir.join("s1-running");
    copy_dir(&s1, &s1run);
    let m = std::fs::read_to_string(s1run.join("shard.json")).unwrap();
    std::fs::write(
        s1run.join("shard.json"),
        m.replace("\"done\"", "\"running\""),
    )
    .unwrap();
    refused(&[s0.clone(), s1run], "missing shard(s) 1 of 2 (1/2 in");

    // The same shard twice, one copy with a verdict changed.
    let s0bad = dir.join("s0-bad");
    copy_dir(&s0, &s0bad);
    let memo = s0bad.join(".execscope-build-memo.jsonl");
    let text = std::fs::read_to_string(&memo).unwrap();
    assert!(text.contains("\"pass\""), "{text}");
    std::fs::write(&memo, text.replacen("\"pass\"", "\"FAIL\"", 1)).unwrap();
    refused(&[s0.clone(), s1.clone(), s0bad], "conflicting verdicts");

    // A shard of another run (another seed).
    let s1seed = dir.join("s1-seed");
    let spec = "1/2";
    ok(&run(
        &[
            &"build", &tasks, &"--out", &s1seed, &"--shard", &spec, &"--seed", &"7",
        ],
        &[],
    ));
    refused(&[s0.clone(), s1seed], "different runs");

    // A shard executed under another isolation level.
    let s1iso = dir.join("s1-iso");
    shard(
        &tasks,
        &s1iso,
        "1/2",
        None,
        &[("EXECSCOPE_ISOLATION", "rlimits")],
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s1iso.join("shard.json")).unwrap()).unwrap();
    assert_eq!(m["isolation"], "rlimits");
    refused(&[s0.clone(), s1iso], "different isolation levels");

    // Split into another number of shards.
    let s1of3 = dir.join("s1-of-3");
    shard(&tasks, &s1of3, "1/3", None, &[]);
    refused(&[s0, s1of3], "different numbers");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
