//! The execution cache: round trip, tolerance of a torn last line, file:line errors, crash
//! safety under kill -9, and re-verification against real data.

use crate::common;

use execscope::bundle::model::{code_sha256, tests_sha256, ExecRecord};
use execscope::oracle::cache::CacheError;
use execscope::oracle::{record_from, ExecCache, IsolationLevel, Outcome, SuiteResult};
use std::io::Write;

fn rec(i: usize) -> ExecRecord {
    ExecRecord {
        code_sha256: code_sha256(&format!("code {i}")),
        tests_sha256: tests_sha256(&[format!("assert f({i})")]),
        outcomes: if i.is_multiple_of(2) {
            vec!["pass".into(), "pass".into()]
        } else {
            vec!["pass".into(), "FAIL:TypeError".into()]
        },
        passes_all_tests: i.is_multiple_of(2),
        runner: "test-runner/1".into(),
    }
}

#[test]
fn append_load_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("execution_cache.jsonl");
    let (c, notes) = ExecCache::load(&path).unwrap();
    assert!(
        c.is_empty() && notes.len() == 1,
        "missing file is an empty cache with a note"
    );
    ExecCache::append(&path, &[rec(0), rec(1)]).unwrap();
    ExecCache::append(&path, &[rec(2)]).unwrap();
    let (c, notes) = ExecCache::load(&path).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(c.records(), &[rec(0), rec(1), rec(2)]);
    let r1 = rec(1);
    assert_eq!(c.get(&r1.code_sha256, &r1.tests_sha256), Some(&r1));
    assert_eq!(
        c.get_pair("code 1", &["assert f(1)".to_string()]),
        Some(&r1)
    );
    assert_eq!(c.get(&r1.code_sha256, &rec(0).tests_sha256), None);
    // One line per row, in the spec's field names.
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.starts_with("{\"code_sha256\":\""));
    assert!(text
        .lines()
        .nth(1)
        .unwrap()
        .contains("\"outcomes\":[\"pass\",\"FAIL:TypeError\"],\"passes_all_tests\":false"));
}

#[test]
fn record_from_a_result() {
    let r = SuiteResult {
        outcomes: vec![
            Outcome::Pass,
            Outcome::FailExc("TypeError".into()),
            Outcome::Hang,
        ],
        observed: vec![None; 3],
        isolation: IsolationLevel::Rlimits,
        wall_ms: 3,
        test_ms: vec![1, 1, 1],
        stopped: vec![],
    };
    let tests = vec!["assert f(1) == 1".to_string(); 3];
    let job = execscope::oracle::Job::new("def f(x): return x", tests.clone());
    let e = record_from(&job, &r, "runner-x");
    assert_eq!(e.outcomes, ["pass", "FAIL:TypeError", "HANG"]);
    assert!(!e.passes_all_tests);
    assert_eq!(e.code_sha256, code_sha256("def f(x): return x"));
    assert_eq!(e.tests_sha256, tests_sha256(&tests));
    assert_eq!(e.runner, "runner-x");
}

#[test]
fn torn_last_line_is_a_note_and_the_next_append_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    ExecCache::append(&path, &[rec(0), rec(1)]).unwrap();
    let full = serde_json::to_string(&rec(2)).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap()
        .write_all(&full.as_bytes()[..40])
        .unwrap();
    let (c, notes) = ExecCache::load(&path).unwrap();
    assert_eq!(c.len(), 2);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("c.jsonl:3: torn last line"), "{notes:?}");
    ExecCache::append(&path, &[rec(3)]).unwrap();
    let (c, notes) = ExecCache::load(&path).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(c.records(), &[rec(0), rec(1), rec(3)]);
}

#[test]
fn malformed_lines_are_errors_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    let good = serde_json::to_string(&rec(0)).unwrap();
    let cases = [
        format!("{good}\n{{not json\n{good}\n"),
        format!("{good}\n\n{}\n", good.replace("\"pass\"", "\"PASSED\"")),
        format!("{}\n", good.replace(&rec(0).code_sha256, "abc")),
    ];
    let want_line = [2, 3, 1];
    for (text, line) in cases.iter().zip(want_line) {
        std::fs::write(&path, text).unwrap();
        match ExecCache::load(&path) {
            Err(CacheError::Malformed {
                line: l, path: p, ..
            }) => {
                assert_eq!(l, line, "{text}");
                assert_eq!(p, path);
            }
            other => panic!("expected a malformed-line error, got {other:?}"),
        }
    }
    // A row whose flag disagrees with its outcomes is loaded, with a note.
    std::fs::write(
        &path,
        format!(
            "{}\n",
            good.replace("\"passes_all_tests\":true", "\"passes_all_tests\":false")
        ),
    )
    .unwrap();
    let (c, notes) = ExecCache::load(&path).unwrap();
    assert_eq!(c.len(), 1);
    assert!(
        notes[0].contains("c.jsonl:1: passes_all_tests=false"),
        "{notes:?}"
    );
}

/// Appends batches of rows forever; run as a child by the crash test, killed with SIGKILL.
#[test]
fn append_helper_child() {
    let Ok(path) = std::env::var("EXECSCOPE_APPEND_HELPER") else {
        return;
    };
    let mut i = 0;
    loop {
        let batch: Vec<ExecRecord> = (i..i + 5).map(rec).collect();
        ExecCache::append(std::path::Path::new(&path), &batch).unwrap();
        i += 5;
    }
}

#[test]
fn kill_9_mid_append_loses_no_committed_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.jsonl");
    for round in 0..3 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                &common::test_path(module_path!(), "append_helper_child"),
                "--nocapture",
                "--test-threads=1",
            ])
            .env("EXECSCOPE_APPEND_HELPER", &path)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300 + 170 * round));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let (c, notes) = ExecCache::load(&path).expect("loadable after kill -9");
        assert!(notes.len() <= 1, "{notes:?}");
        // Every round restarts at row 0, so rows repeat; the unique ones form a prefix 0..n.
        let n = c.len();
        assert!(n > 0, "the child appended nothing in round {round}");
        for (k, r) in c.records().iter().enumerate() {
            assert_eq!(r, &rec(k), "row {k} after round {round}");
        }
    }
}

#[test]
fn a_disagreement_names_the_tests_whose_pass_changed() {
    use execscope::oracle::cache::{Disagreement, VerifyReport};
    let words = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
    let d = |cached: &str, now: Result<&str, &str>| Disagreement {
        code_sha256: "c".into(),
        tests_sha256: "t".into(),
        pair: 0,
        cached: words(cached),
        now: now.map(words).map_err(String::from),
    };
    // Only the kind of failure moved (a race of the clock against a count): no test's label.
    let kinds = d(
        "pass TIMEOUT FAIL FAIL:Unjudged",
        Ok("pass FAIL:MemoryError TIMEOUT ERROR:ProcessExit"),
    );
    assert_eq!(kinds.pass_changes(), Vec::<usize>::new());
    // A failure that now passes and a pass that now fails, among kinds that moved.
    let labels = d("pass TIMEOUT FAIL HANG", Ok("FAIL TIMEOUT pass TIMEOUT"));
    assert_eq!(labels.pass_changes(), vec![0, 2]);
    // No outcomes to compare (the oracle failed, or the count of tests differs): every test.
    assert_eq!(
        d("pass FAIL", Err("harness died")).pass_changes(),
        vec![0, 1]
    );
    assert_eq!(d("pass FAIL", Ok("pass")).pass_changes(), vec![0, 1]);
    let report = VerifyReport {
        checked: 9,
        not_cached: 0,
        disagreements: vec![kinds, labels],
    };
    assert_eq!(report.pass_changing(), 1);
}
