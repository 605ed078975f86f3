//! The execution cache, `data/execution_cache.jsonl`: one [`ExecRecord`] per line, keyed by
//! (`code_sha256`, `tests_sha256`).
//!
//! Crash safety is by appending: [`ExecCache::append`] takes an exclusive `flock`, cuts off a torn
//! last line left by an earlier crash (a row only counts once its `\n` is on disk), writes whole
//! lines with `O_APPEND` in one `write`, and `fsync`s before returning. A crash mid-append can
//! therefore only leave a partial *last* line, which [`ExecCache::load`] reports as a note and
//! skips; every row written before it stays intact. Any other malformed line is an error naming
//! the file and line.

use super::outcome::{Outcome, SuiteResult};
use super::Oracle;
use execscope_record::keys::{code_sha256, tests_sha256};
use execscope_record::{ExecRecord, Job};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {msg}")]
    Malformed {
        path: PathBuf,
        line: usize,
        msg: String,
    },
}

/// The cache in memory. Later rows for the same key replace earlier ones.
#[derive(Clone, Debug, Default)]
pub struct ExecCache {
    rows: Vec<ExecRecord>,
    index: HashMap<(String, String), usize>,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> CacheError + '_ {
    move |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Checks one parsed row; `Err` is the reason it is malformed.
fn check_record(r: &ExecRecord) -> Result<(), String> {
    if !is_hex64(&r.code_sha256) {
        return Err(format!(
            "code_sha256 {:?} is not 64 hex digits",
            r.code_sha256
        ));
    }
    if !is_hex64(&r.tests_sha256) {
        return Err(format!(
            "tests_sha256 {:?} is not 64 hex digits",
            r.tests_sha256
        ));
    }
    for o in &r.outcomes {
        o.parse::<Outcome>()?;
    }
    Ok(())
}

impl ExecCache {
    pub fn new() -> ExecCache {
        ExecCache::default()
    }

    /// Reads a cache file. A missing file is an empty cache (with a note). Returns notes for
    /// non-fatal findings: a torn last line, duplicate keys, `passes_all_tests` disagreeing with
    /// the outcomes.
    pub fn load(path: &Path) -> Result<(ExecCache, Vec<String>), CacheError> {
        let mut notes = Vec::new();
        let text = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                notes.push(format!("{}: no execution cache (empty)", path.display()));
                return Ok((ExecCache::new(), notes));
            }
            Err(e) => return Err(io_err(path)(e)),
        };
        let mut cache = ExecCache::new();
        let n_lines = text.split(|&b| b == b'\n').count();
        for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
            let lineno = i + 1;
            let is_last = lineno == n_lines;
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let parsed = std::str::from_utf8(raw)
                .map_err(|e| e.to_string())
                .and_then(|s| serde_json::from_str::<ExecRecord>(s).map_err(|e| e.to_string()))
                .and_then(|r| check_record(&r).map(|_| r));
            match parsed {
                Ok(r) => {
                    let all = !r.outcomes.is_empty() && r.outcomes.iter().all(|o| o == "pass");
                    if all != r.passes_all_tests {
                        notes.push(format!(
                            "{}:{lineno}: passes_all_tests={} but outcomes say {all}",
                            path.display(),
                            r.passes_all_tests
                        ));
                    }
                    if let Some(old) = cache.insert(r) {
                        let new = cache.get(&old.code_sha256, &old.tests_sha256);
                        if new.map(|n| n.outcomes != old.outcomes) == Some(true) {
                            notes.push(format!(
                                "{}:{lineno}: replaces an earlier row with other outcomes",
                                path.display()
                            ));
                        }
                    }
                }
                // No newline after it: an append that never completed.
                Err(msg) if is_last => notes.push(format!(
                    "{}:{lineno}: torn last line skipped (interrupted write): {msg}",
                    path.display()
                )),
                Err(msg) => {
                    return Err(CacheError::Malformed {
                        path: path.to_path_buf(),
                        line: lineno,
                        msg,
                    })
                }
            }
        }
        Ok((cache, notes))
    }

    pub fn get(&self, code_sha: &str, tests_sha: &str) -> Option<&ExecRecord> {
        self.index
            .get(&(code_sha.to_string(), tests_sha.to_string()))
            .map(|&i| &self.rows[i])
    }

    /// Looks a pair up by its texts.
    pub fn get_pair(&self, code: &str, tests: &[String]) -> Option<&ExecRecord> {
        self.get(&code_sha256(code), &tests_sha256(tests))
    }

    /// Inserts a row, returning the one it replaced.
    pub fn insert(&mut self, rec: ExecRecord) -> Option<ExecRecord> {
        let key = (rec.code_sha256.clone(), rec.tests_sha256.clone());
        match self.index.get(&key) {
            Some(&i) => Some(std::mem::replace(&mut self.rows[i], rec)),
            None => {
                self.index.insert(key, self.rows.len());
                self.rows.push(rec);
                None
            }
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Rows in first-insertion order.
    pub fn records(&self) -> &[ExecRecord] {
        &self.rows
    }

    /// Appends rows durably (see the module doc). Creates the file if needed.
    pub fn append(path: &Path, rows: &[ExecRecord]) -> Result<(), CacheError> {
        let mut buf = Vec::new();
        for r in rows {
            serde_json::to_writer(&mut buf, r).map_err(|e| CacheError::Io {
                path: path.to_path_buf(),
                source: e.into(),
            })?;
            buf.push(b'\n');
        }
        execscope_record::atomic::append_lines(path, &buf).map_err(io_err(path))
    }
}

/// The cache row for a job's result.
pub fn record_from(job: &Job, r: &SuiteResult, runner: &str) -> ExecRecord {
    let (code_sha256, tests_sha256) = job.key();
    ExecRecord {
        code_sha256,
        tests_sha256,
        outcomes: r.outcomes.iter().map(|o| o.to_string()).collect(),
        passes_all_tests: r.passes_all(),
        runner: runner.to_string(),
    }
}

/// Which cached pairs [`verify`] re-executes.
#[derive(Clone, Copy, Debug)]
pub enum VerifySelection {
    All,
    /// `n` pairs drawn without replacement by a ChaCha8 generator seeded with `seed`.
    Sample {
        n: usize,
        seed: u64,
    },
}

/// A cached pair whose re-execution gave other outcomes.
#[derive(Clone, Debug, PartialEq)]
pub struct Disagreement {
    pub code_sha256: String,
    pub tests_sha256: String,
    /// Index of the pair in the `pairs` argument of [`verify`].
    pub pair: usize,
    pub cached: Vec<String>,
    /// The new outcomes, or the oracle error.
    pub now: Result<Vec<String>, String>,
}

impl Disagreement {
    /// The tests (0-based) whose pass/not-pass differs between the cache and now: every test
    /// when the oracle failed or the counts differ. Empty when only the kind of failure moved
    /// (`TIMEOUT` against `FAIL:MemoryError`, say), which is what a test that races its budget
    /// against a count gives on machines of different speed (docs/performance.md "Verdicts
    /// that race the clock").
    pub fn pass_changes(&self) -> Vec<usize> {
        let pass = |o: &str| o.parse::<Outcome>().is_ok_and(|o| o.is_pass());
        match &self.now {
            Ok(now) if now.len() == self.cached.len() => (self.cached.iter().zip(now))
                .enumerate()
                .filter(|(_, (a, b))| pass(a) != pass(b))
                .map(|(i, _)| i)
                .collect(),
            _ => (0..self.cached.len()).collect(),
        }
    }
}

/// The result of [`verify`].
#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Pairs re-executed.
    pub checked: usize,
    /// Pairs given that have no cache row (not executed).
    pub not_cached: usize,
    pub disagreements: Vec<Disagreement>,
}

impl VerifyReport {
    /// How many disagreements change some test's pass/not-pass (the rest differ only in the
    /// kind of failure).
    pub fn pass_changing(&self) -> usize {
        (self.disagreements.iter())
            .filter(|d| !d.pass_changes().is_empty())
            .count()
    }
}

/// The pairs among `pairs` that `verify` re-executes: each cached pair once (its first
/// occurrence), all or a seeded sample of them, in input order; and how many pairs given have no
/// cache row.
pub fn selected(
    cache: &ExecCache,
    pairs: &[Job],
    selection: VerifySelection,
) -> (Vec<usize>, usize) {
    let mut cached: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, job) in pairs.iter().enumerate() {
        let key = (code_sha256(&job.code), tests_sha256(&job.tests));
        if cache.get(&key.0, &key.1).is_some() && seen.insert(key) {
            cached.push(i);
        }
    }
    let not_cached = pairs
        .iter()
        .filter(|j| cache.get_pair(&j.code, &j.tests).is_none())
        .count();
    if let VerifySelection::Sample { n, seed } = selection {
        use rand::SeedableRng;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut picked: Vec<usize> =
            rand::seq::index::sample(&mut rng, cached.len(), n.min(cached.len()))
                .into_iter()
                .map(|k| cached[k])
                .collect();
        picked.sort_unstable();
        cached = picked;
    }
    (cached, not_cached)
}

/// Re-executes the cached pairs among `pairs` (all, or a seeded sample of them: see
/// [`selected`]) and lists those whose outcomes differ from the cache. The cache holds only
/// hashes, so the caller supplies the jobs (for a bundle: each snippet's code with its query's
/// tests and function name).
pub fn verify(
    oracle: &Oracle,
    cache: &ExecCache,
    pairs: &[Job],
    selection: VerifySelection,
    progress: &(dyn Fn(usize) + Sync),
) -> VerifyReport {
    let (cached, not_cached) = selected(cache, pairs, selection);
    let jobs: Vec<Job> = cached.iter().map(|&i| pairs[i].clone()).collect();
    let results = oracle.run_batch(&jobs, progress);
    let mut disagreements = Vec::new();
    for (&i, res) in cached.iter().zip(results) {
        let row = cache
            .get_pair(&pairs[i].code, &pairs[i].tests)
            .expect("selected from the cache");
        let now = res
            .map(|r| r.outcomes.iter().map(|o| o.to_string()).collect::<Vec<_>>())
            .map_err(|e| e.to_string());
        if now.as_ref().ok() != Some(&row.outcomes) {
            disagreements.push(Disagreement {
                code_sha256: row.code_sha256.clone(),
                tests_sha256: row.tests_sha256.clone(),
                pair: i,
                cached: row.outcomes.clone(),
                now,
            });
        }
    }
    VerifyReport {
        checked: cached.len(),
        not_cached,
        disagreements,
    }
}
