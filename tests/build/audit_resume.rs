//! `audit --pool … --out DIR` killed with SIGKILL at several moments resumes from its journal
//! (the rerun says how many pairs it reused), ends with the same stdout and the same files,
//! byte for byte, as an uninterrupted audit, and leaves no oracle scratch directory in the temp
//! dir. A torn last journal line (a kill mid-append) is cut off. Real oracle, real python3, a
//! generated pool made from the first tasks of the embedded task file.

use crate::common;
use crate::common::audit_pool;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

const MEMO: &str = ".execscope-build-memo.jsonl";

/// `execscope audit --pool` run in `dir` with its temp dir (where the oracle keeps its scratch)
/// in `tmp`.
fn audit_cmd(dir: &Path, out: &str, tmp: &Path) -> Command {
    let mut c = common::execscope();
    c.current_dir(dir)
        .args(audit_pool::ARGS)
        .args(["--timeout", "3", "--out", out])
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn run_to_end(dir: &Path, out: &str, tmp: &Path) -> (Vec<u8>, String) {
    let o = audit_cmd(dir, out, tmp).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "audit failed: {err}");
    (o.stdout, err)
}

use common::oracle_scratch_dirs as scratch_dirs;

fn journal_rows(out: &Path) -> usize {
    std::fs::read_to_string(out.join(MEMO))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// "resumed: N pairs reused" from the audit's stderr.
fn reused(stderr: &str) -> usize {
    stderr
        .split("resumed: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn killed_audits_resume_to_the_same_bytes_and_leave_no_scratch() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    audit_pool::write(dir, 10);

    let (first_out, first_err) = run_to_end(dir, "whole", &tmp);
    assert_eq!(reused(&first_err), 0, "{first_err}");
    assert!(scratch_dirs(&tmp).is_empty(), "{:?}", scratch_dirs(&tmp));
    let pairs = journal_rows(&dir.join("whole"));
    assert!(pairs >= 60, "a few dozen pairs wanted, got {pairs}");
    // The pool exercises the second phase (module supply) too.
    let audit = std::fs::read_to_string(dir.join("whole/audit.json")).unwrap();
    assert!(
        !audit.contains(" 0 module supply)"),
        "no module supply pair"
    );

    // Killed at several moments into the same directory, then run to the end.
    let out = dir.join("killed");
    let mut before = 0;
    let mut grew = false;
    // The first kill at a fixed moment (often before anything is journaled); the later ones
    // as soon as the journal has grown, so a slow machine still kills mid-run and a fast one
    // does not finish the audit between kills (never timed: the moment is read off the
    // journal, which grows in bursts: 75 of the 101 rows at once, then a few at a time; waits
    // of 200 and 600 ms after a burst let the whole audit finish once hangs were probed after
    // an eighth of their budget).
    for (i, wait_ms) in [400u64, 0, 20].into_iter().enumerate() {
        let mut child = audit_cmd(dir, "killed", &tmp).spawn().unwrap();
        if i > 0 {
            let until = std::time::Instant::now() + Duration::from_secs(180);
            while journal_rows(&out) <= before
                && std::time::Instant::now() < until
                && child.try_wait().unwrap().is_none()
            {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        std::thread::sleep(Duration::from_millis(wait_ms));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let rows = journal_rows(&out);
        assert!(rows >= before, "the journal lost rows: {before} -> {rows}");
        grew |= rows > before;
        before = rows;
    }
    assert!(grew, "no killed audit committed a pair to its journal");
    assert!(before < pairs, "the killed audits finished everything");
    // A kill mid-append: a torn last line.
    common::append_torn_line(&out.join(MEMO));

    let (stdout, stderr) = run_to_end(dir, "killed", &tmp);
    let n = reused(&stderr);
    assert!(n > 0 && n <= before, "reused {n} of {before}: {stderr}");
    assert!(
        stdout == first_out,
        "stdout differs from the uninterrupted audit"
    );
    audit_pool::assert_same(&dir.join("whole"), &out);
    // The killed runs' scratch dirs were swept by the next oracle; the last run removed its own.
    assert!(scratch_dirs(&tmp).is_empty(), "{:?}", scratch_dirs(&tmp));
    let text = std::fs::read_to_string(out.join(MEMO)).unwrap();
    assert!(text.ends_with('\n'));
    for l in text.lines() {
        serde_json::from_str::<serde_json::Value>(l).expect("a whole journal line");
    }

    // Run again: everything comes from the journal, nothing is executed, same bytes.
    let (again, err) = run_to_end(dir, "killed", &tmp);
    assert_eq!(reused(&err), pairs, "{err}");
    assert!(err.contains("(0 executed now)"), "{err}");
    assert!(again == first_out);
    audit_pool::assert_same(&dir.join("whole"), &out);
}
