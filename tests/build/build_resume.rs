//! A build killed with SIGKILL at several moments resumes from its memo (the pairs it finished
//! are reused and the rerun says so), ends byte-identical to an uninterrupted build (same
//! `SHA256SUMS`, same files), and leaves no oracle scratch directory in the temp dir. A torn last
//! memo line (a kill mid-append) is cut off and does not spoil the rows after it. Real oracle,
//! real python3, the first tasks of the embedded task file.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const MEMO: &str = ".execscope-build-memo.jsonl";

use common::task_file;

/// `execscope build` with its temp dir (where the oracle keeps its scratch) inside `tmp`.
fn build_cmd(tasks: &Path, out: &Path, tmp: &Path) -> Command {
    let mut c = common::execscope();
    c.arg("build")
        .arg(tasks)
        .arg("--out")
        .arg(out)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run_to_end(tasks: &Path, out: &Path, tmp: &Path) -> String {
    let o = build_cmd(tasks, out, tmp).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "build failed: {text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    text
}

use common::bundle_bytes;

use common::oracle_scratch_dirs as scratch_dirs;

/// "+N reused" from the build summary.
fn reused(summary: &str) -> usize {
    let at = summary
        .find(" reused from the previous build")
        .expect("summary line");
    let head = &summary[..at];
    let plus = head.rfind('+').unwrap();
    head[plus + 1..].parse().unwrap()
}

fn memo_rows(out: &Path) -> usize {
    std::fs::read_to_string(out.join(MEMO))
        .map(|t| t.matches('\n').count()) // whole lines only: a torn last line is not a row
        .unwrap_or(0)
}

#[test]
fn killed_builds_resume_to_the_same_bytes_and_leave_no_scratch() {
    let work = tempfile::tempdir().unwrap();
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let tasks = task_file(work.path(), 6);

    let whole = work.path().join("whole");
    let first = run_to_end(&tasks, &whole, &tmp);
    assert_eq!(reused(&first), 0, "{first}");
    let expected = bundle_bytes(&whole);
    assert!(scratch_dirs(&tmp).is_empty(), "{:?}", scratch_dirs(&tmp));

    // Killed at several moments into the same directory, then run to the end: once early (300 ms,
    // whatever it committed), then twice as soon as the memo has grown, so that on a loaded machine
    // too a killed run has committed pairs (no verdict of this test depends on timing).
    let out = work.path().join("killed");
    let mut rows_before = 0;
    let mut grew = false;
    for early in [true, false, false] {
        let mut child = build_cmd(&tasks, &out, &tmp).spawn().unwrap();
        if early {
            std::thread::sleep(Duration::from_millis(300));
        } else {
            while memo_rows(&out) <= rows_before && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = child.kill(); // SIGKILL (the run may have finished already)
        child.wait().unwrap();
        let rows = memo_rows(&out);
        assert!(
            rows >= rows_before,
            "the memo lost rows: {rows_before} -> {rows}"
        );
        grew |= rows > rows_before;
        rows_before = rows;
        assert!(
            !out.join("SHA256SUMS").exists() || out.join("data/queries.jsonl").exists(),
            "a half-written bundle"
        );
    }
    assert!(grew, "no killed run committed a pair to the memo");
    // A kill mid-append: a torn last line.
    common::append_torn_line(&out.join(MEMO));

    let summary = run_to_end(&tasks, &out, &tmp);
    assert!(
        reused(&summary) > 0,
        "the resumed run reused nothing: {summary}"
    );
    let got = bundle_bytes(&out);
    assert_eq!(
        got.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        expected.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, a), (_, b)) in got.iter().zip(&expected) {
        assert!(
            a == b,
            "{name} differs between the resumed and the uninterrupted build"
        );
    }
    // The killed runs' scratch dirs were swept by the next oracle; the last run removed its own.
    assert!(scratch_dirs(&tmp).is_empty(), "{:?}", scratch_dirs(&tmp));
    // Every line of the memo is whole again.
    let text = std::fs::read_to_string(out.join(MEMO)).unwrap();
    assert!(text.ends_with('\n'));
    for l in text.lines() {
        serde_json::from_str::<serde_json::Value>(l).expect("a whole memo line");
    }
}

#[test]
fn a_scratch_dir_whose_owner_is_alive_is_kept_and_a_dead_ones_is_swept() {
    let work = tempfile::tempdir().unwrap();
    let tasks = task_file(work.path(), 1);
    let tmp = work.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // An old-style dir without an owner lock is not ours to judge: left alone.
    std::fs::create_dir(tmp.join("execscope-oracle-legacy")).unwrap();
    // A live owner: this test process holds the lock of a dir it made.
    let live = tmp.join("execscope-oracle-live");
    std::fs::create_dir(&live).unwrap();
    let lock = std::fs::File::create(live.join("owner.lock")).unwrap();
    {
        use std::os::unix::io::AsRawFd;
        // SAFETY: flock on a descriptor we own.
        assert_eq!(
            unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
            0
        );
    }
    // A dead owner: a killed build's dir.
    let mut child = build_cmd(&tasks, &work.path().join("out"), &tmp)
        .spawn()
        .unwrap();
    let dead = loop {
        let mine: Vec<String> = scratch_dirs(&tmp)
            .into_iter()
            .filter(|n| n != "execscope-oracle-legacy" && n != "execscope-oracle-live")
            .filter(|n| tmp.join(n).join("owner.lock").exists())
            .collect();
        if let Some(d) = mine.first() {
            break d.clone();
        }
        assert!(child.try_wait().unwrap().is_none(), "the build ended first");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(tmp.join(&dead).exists());
    run_to_end(&tasks, &work.path().join("out"), &tmp);
    let left = scratch_dirs(&tmp);
    assert!(!left.contains(&dead), "{left:?}");
    assert!(
        left.contains(&"execscope-oracle-live".to_string()),
        "{left:?}"
    );
    assert!(
        left.contains(&"execscope-oracle-legacy".to_string()),
        "{left:?}"
    );
    drop(lock);
}
