//! A memo shared by every run on this machine, for pairs whose result is a function of their
//! content alone: EvalPlus's reference outputs (the benchmark's own solution called on each
//! input), which every audit and build of the same task file needs and which cost minutes to
//! compute (MBPP+: 378 tasks, about 36,000 inputs).
//!
//! The rows are [`MemoRow`]s keyed as the build's memo keys them (the job's code and tests, so
//! another task file, another input or another reference setup is another key: the reference
//! tests end with a version mark), and a row serves only a run of the same runner string and
//! isolation level ([`Runner::load_memo_file`]). A result the load could have made (a timeout,
//! a hang, a harness error) is shared only once a second run gives the same outcomes: the first
//! waits in a file beside the memo ([`SharedMemo::unsettled_path`]). The file is a journal: runs append the rows they
//! executed under an exclusive lock, a torn last line is cut, an unreadable line is skipped, so
//! two audits at once, a crash or a deleted file cost only recomputation. It lives in the user's
//! cache directory, which no isolation level lets a candidate reach (docs/threat-model.md); the
//! reference solution itself ran in the sandbox like any candidate when the row was made.

use crate::exec::{read_memo, MemoRow, Runner};
use execscope_oracle::{Job, Outcome, SuiteResult};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The file name of the reference-output memo in the cache directory.
pub const REFERENCE_MEMO: &str = "evalplus-reference-outputs.jsonl";

type Key = (String, String);

/// A shared memo: its file, the keys it held (for this runner) when loaded, and the results
/// with a timeout seen once (in the file beside it, [`SharedMemo::unsettled_path`]).
#[derive(Debug)]
pub struct SharedMemo {
    path: PathBuf,
    known: HashSet<Key>,
    unsettled: HashMap<Key, Vec<Outcome>>,
    /// Pairs of the shared memo that answered a job of this run.
    pub reused: usize,
    /// Rows this run appended.
    pub appended: usize,
    /// Why appending failed, if it did (the run goes on: a later run recomputes).
    pub error: Option<String>,
}

/// Whether a result could have been made by the load: a timeout, a hang, a harness error.
fn load_made(r: &SuiteResult) -> bool {
    r.outcomes
        .iter()
        .any(|o| matches!(o, Outcome::Timeout | Outcome::Hang | Outcome::Error(_)))
}

impl SharedMemo {
    /// Loads the rows of `path` usable by `runner` into it (a missing or unreadable file is an
    /// empty memo).
    pub fn open(path: &Path, runner: &mut Runner<'_>) -> SharedMemo {
        let iso = runner.isolation();
        let mine = |r: &MemoRow| r.runner == runner.runner_string() && r.result.isolation == iso;
        let rows = read_memo(path, false).unwrap_or_default();
        let known = rows
            .iter()
            .filter(|r| mine(r))
            .map(|r| (r.code_sha256.clone(), r.tests_sha256.clone()))
            .collect();
        let unsettled_path = Self::unsettled_path(path);
        let unsettled = read_memo(&unsettled_path, false)
            .unwrap_or_default()
            .into_iter()
            .filter(|r| mine(r))
            .map(|r| ((r.code_sha256, r.tests_sha256), r.result.outcomes))
            .collect();
        runner.load_memo_file(path, false);
        SharedMemo {
            path: path.to_path_buf(),
            known,
            unsettled,
            reused: 0,
            appended: 0,
            error: None,
        }
    }

    /// The memo's file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where results with a timeout wait for a second run: a result the load could have made
    /// is shared only once another run gave the same outcomes.
    pub fn unsettled_path(path: &Path) -> PathBuf {
        path.with_extension("unsettled.jsonl")
    }

    /// `runner.run(phase, jobs)`, then the results the shared memo lacked appended to it (or,
    /// for a result with a timeout seen for the first time, to the unsettled file).
    pub fn run(
        &mut self,
        runner: &mut Runner<'_>,
        phase: &str,
        jobs: &[Job],
    ) -> Vec<Result<SuiteResult, String>> {
        let out = runner.run(phase, jobs);
        let (mut settled, mut unsettled) = (Vec::new(), Vec::new());
        for (job, r) in jobs.iter().zip(&out) {
            let key = job.key();
            if self.known.contains(&key) {
                self.reused += 1;
                continue;
            }
            let Ok(result) = r else { continue };
            let row = MemoRow {
                code_sha256: key.0.clone(),
                tests_sha256: key.1.clone(),
                runner: runner.runner_string().to_string(),
                result: result.clone(),
            };
            let confirmed = self.unsettled.get(&key) == Some(&result.outcomes);
            let buf = if !load_made(result) || confirmed {
                self.known.insert(key);
                self.appended += 1;
                &mut settled
            } else {
                self.unsettled.insert(key, result.outcomes.clone());
                &mut unsettled
            };
            if serde_json::to_writer(&mut *buf, &row).is_ok() {
                buf.push(b'\n');
            }
        }
        let unsettled_path = Self::unsettled_path(&self.path);
        for (path, buf) in [(&self.path, settled), (&unsettled_path, unsettled)] {
            if buf.is_empty() {
                continue;
            }
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| execscope_record::atomic::append_lines(path, &buf));
            if let Err(e) = written {
                self.error
                    .get_or_insert_with(|| format!("{}: {e}", path.display()));
            }
        }
        out
    }
}
