//! `audit --pool --shard i/n` rounds + `execscope merge` print and write the audit a one-machine
//! `audit --pool --out` prints and writes, byte for byte; merge refuses a missing or unfinished
//! shard (by number), conflicting verdicts, shards of other inputs or another isolation level.
//! Real oracle, real python3, a generated pool made from the first tasks of the embedded task
//! file.

use crate::common;
use crate::common::audit_pool;

use std::path::Path;
use std::process::Output;

fn audit(dir: &Path, extra: &[&str]) -> Output {
    let mut c = common::execscope();
    c.current_dir(dir)
        .args(audit_pool::ARGS)
        .args(["--timeout", "3"]);
    c.args(extra).output().unwrap()
}

fn ok(o: &Output) -> Vec<u8> {
    assert!(
        o.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout.clone()
}

fn merge(dir: &Path, parts: &[&str], out: &str) -> Output {
    let mut c = common::execscope();
    c.current_dir(dir)
        .arg("merge")
        .args(parts)
        .args(["--out", out]);
    c.output().unwrap()
}

/// Rounds of n shards and a merge until the merge writes the audit: (merge stdout, rounds).
fn sharded(dir: &Path, n: u32, tag: &str) -> (Vec<u8>, usize) {
    let parts: Vec<String> = (0..n).map(|i| format!("{tag}{i}")).collect();
    let merged = format!("{tag}-merged");
    for round in 1..=4 {
        for (i, p) in parts.iter().enumerate() {
            let spec = format!("{i}/{n}");
            let mut extra = vec!["--shard", &spec, "--out", p];
            if round > 1 {
                extra.extend(["--memo-from", &merged]);
            }
            let out = String::from_utf8(ok(&audit(dir, &extra))).unwrap();
            assert!(out.contains(&format!("shard {spec}: executed")), "{out}");
        }
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let o = merge(dir, &refs, &merged);
        match o.status.code() {
            Some(0) => return (o.stdout, round),
            Some(3) => continue,
            _ => panic!("merge failed: {}", String::from_utf8_lossy(&o.stderr)),
        }
    }
    panic!("no audit after 4 rounds");
}

#[test]
fn audit_shards_merge_to_the_one_machine_audit() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    audit_pool::write(dir, 6);
    let whole = ok(&audit(dir, &["--out", "whole"]));
    // Without --out (no journal), the same tables; in JSON, the same provenance too (the oracle
    // line is written by another path when the audit journals).
    assert!(
        ok(&audit(dir, &[])) == whole,
        "the journal changed the tables"
    );
    let json = |extra: &[&str]| {
        let mut args = vec!["--format", "json"];
        args.extend(extra);
        ok(&audit(dir, &args))
    };
    let plain = json(&[]);
    assert!(String::from_utf8_lossy(&plain).contains("oracle isolation "));
    assert!(
        json(&["--out", "whole-json"]) == plain,
        "the journal changed audit.json"
    );

    let (merged, rounds) = sharded(dir, 3, "s");
    assert_eq!(rounds, 2, "screen, then module supply: two rounds");
    assert!(
        merged == whole,
        "merged stdout differs from the one-machine audit"
    );
    audit_pool::assert_same(&dir.join("whole"), &dir.join("s-merged"));
    // Shards split the work: each executed some pairs, none executed another's.
    let executed: Vec<u64> = (0..3)
        .map(|i| {
            let m: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("s{i}/shard.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(m["kind"], "audit");
            for k in ["pool_sha256", "tasks_sha256", "seed", "draws"] {
                assert!(m["inputs"][k].is_string(), "{k} missing in {m}");
            }
            for k in ["isolation", "runner", "budget_ms", "execscope"] {
                assert!(!m[k].is_null(), "{k} missing in {m}");
            }
            m["executed"].as_u64().unwrap()
        })
        .collect();
    assert!(executed.iter().all(|&e| e > 0), "{executed:?}");

    // One shard: its merge is the one-machine audit too.
    let (one, _) = sharded(dir, 1, "one");
    assert!(one == whole);
    audit_pool::assert_same(&dir.join("whole"), &dir.join("one-merged"));
}

#[test]
fn audit_merge_refuses_missing_conflicting_and_foreign_shards() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    audit_pool::write(dir, 3);
    for i in 0..2 {
        ok(&audit(
            dir,
            &["--shard", &format!("{i}/2"), "--out", &format!("a{i}")],
        ));
    }
    let refused = |parts: &[&str], what: &str| {
        let o = merge(dir, parts, "out");
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "not refused ({what}): {err}");
        assert!(err.contains(what), "expected {what:?} in: {err}");
    };
    assert_eq!(merge(dir, &["a0", "a1"], "ok").status.code(), Some(3));
    refused(&["a0"], "missing shard(s) 1 of 2");

    // A shard that never finished (its manifest still says running).
    copy_dir(&dir.join("a1"), &dir.join("a1-running"));
    let m = dir.join("a1-running/shard.json");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, text.replace("\"done\"", "\"running\"")).unwrap();
    refused(&["a0", "a1-running"], "missing shard(s) 1 of 2 (1/2 in");

    // The same shard twice, one copy with a verdict changed.
    copy_dir(&dir.join("a0"), &dir.join("a0-bad"));
    let memo = dir.join("a0-bad/.execscope-build-memo.jsonl");
    let text = std::fs::read_to_string(&memo).unwrap();
    assert!(text.contains("\"pass\""), "{text}");
    std::fs::write(&memo, text.replacen("\"pass\"", "\"FAIL\"", 1)).unwrap();
    refused(&["a0", "a1", "a0-bad"], "conflicting verdicts");

    // A shard of another run (another bootstrap seed), another isolation level, another split.
    ok(&audit(
        dir,
        &["--shard", "1/2", "--out", "a1-seed", "--seed", "7"],
    ));
    refused(&["a0", "a1-seed"], "different runs");
    ok(&audit(
        dir,
        &[
            "--shard",
            "1/2",
            "--out",
            "a1-iso",
            "--isolation",
            "rlimits",
        ],
    ));
    refused(&["a0", "a1-iso"], "different isolation levels");
    ok(&audit(dir, &["--shard", "1/3", "--out", "a1-of-3"]));
    refused(&["a0", "a1-of-3"], "different numbers");
    // A pool changed after the shards ran.
    let pool = dir.join("pool.jsonl");
    let text = std::fs::read_to_string(&pool).unwrap();
    std::fs::write(
        &pool,
        text.replacen("sample_index\":3", "sample_index\":9", 1),
    )
    .unwrap();
    refused(&["a0", "a1"], "changed since the shards ran");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
