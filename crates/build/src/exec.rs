//! Batch execution for the builder: every pair goes through the oracle's worker pool, every result
//! becomes an execution-cache row, and one stream of progress events (phase, pairs done, pairs
//! queued) spans all phases; the CLI draws them (the core knows no terminal).
//!
//! A rebuild into the same directory reuses the full results (outcomes *and* observed values,
//! which selection needs and the cache format does not keep) of the previous build from a hidden
//! memo file, for pairs whose (code, tests, runner, isolation) are unchanged. A test that runs out
//! of time costs its whole budget plus hang detection, so fixing a few tasks of a large file would
//! otherwise mean re-running every mutant.
//!
//! The memo is also the build's journal: each executed pair is appended to it as it completes
//! (written and fsynced at most [`FLUSH_EVERY`] apart), so a build killed at any moment restarts
//! where it stopped. A torn last line (the kill landed mid-write) is cut off on reload.
//!
//! With a [`Shard`], the runner executes only the pairs whose key the shard owns; a pair another
//! shard owns and no memo holds is *pending*, and the build stops after the phase that needed it
//! (see `crate::shard`).

use execscope_core::bundle::model::ExecRecord;
use execscope_oracle::{record_from, ExecCache, IsolationLevel, Job, Oracle, SuiteResult};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The memo key of `job` run under hash seed `seed`: its tests' key with the seed in it, so a
/// seed check's result never stands for the build's own.
pub fn seed_key(job: &Job, seed: u32) -> (String, String) {
    let (code, tests) = job.key();
    let tagged =
        execscope_core::bundle::model::tests_sha256(&[format!("\u{0}hashseed:{seed}"), tests]);
    (code, tagged)
}

/// The memo file, relative to the bundle root (hidden: not bundle data, not in `SHA256SUMS`).
pub const MEMO_FILE: &str = ".execscope-build-memo.jsonl";

/// Longest time between two durable appends to the memo while pairs complete.
pub const FLUSH_EVERY: Duration = Duration::from_secs(2);

/// One memo line: a pair's key and its full result under a runner.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemoRow {
    pub code_sha256: String,
    pub tests_sha256: String,
    pub runner: String,
    pub result: SuiteResult,
}

type Key = (String, String);

/// A deterministic share of the pairs: shard `index` of `count` owns the keys whose stable hash
/// (SHA-256 of the pair key) falls in it, whatever the order or number of earlier runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// The shard (of `count`) that owns the pair key (code_sha256, tests_sha256).
    pub fn of_key(code_sha256: &str, tests_sha256: &str, count: u32) -> u32 {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(code_sha256.as_bytes());
        h.update(b"\n");
        h.update(tests_sha256.as_bytes());
        let d = h.finalize();
        let mut b = [0u8; 8];
        b.copy_from_slice(&d[..8]);
        (u64::from_be_bytes(b) % u64::from(count.max(1))) as u32
    }

    pub fn owns(&self, code_sha256: &str, tests_sha256: &str) -> bool {
        Shard::of_key(code_sha256, tests_sha256, self.count) == self.index
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// `i/n` with 0 ≤ i < n (shards are numbered from 0).
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard {s:?}: expected i/n with 0 <= i < n, e.g. 0/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Reads memo rows from `path`, cutting off a torn last line (a line without its newline) in
/// the file itself when `repair` is set. Unparsable lines are skipped.
pub fn read_memo(path: &Path, repair: bool) -> std::io::Result<Vec<MemoRow>> {
    let bytes = execscope_record::atomic::read_journal(path, repair)?;
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str::<MemoRow>(l).ok())
        .collect())
}

/// The memo opened for appending: rows are buffered and made durable (write + fsync) at most
/// [`FLUSH_EVERY`] apart and at the end of every batch.
struct Journal {
    file: std::fs::File,
    buf: Vec<u8>,
    last: Instant,
}

impl Journal {
    fn push(&mut self, row: &MemoRow) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.buf, row)?;
        self.buf.push(b'\n');
        if self.last.elapsed() >= FLUSH_EVERY {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            self.file.write_all(&self.buf)?;
            self.file.sync_data()?;
            self.buf.clear();
        }
        self.last = Instant::now();
        Ok(())
    }
}

/// Where a build's execution stands: the current phase, pairs done and pairs queued so far over
/// all phases (the total grows as phases start), and whether the run is over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    pub phase: String,
    pub done: u64,
    pub total: u64,
    pub finished: bool,
}

/// A receiver of [`Progress`] events (the CLI draws a bar from them).
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Runs pairs and remembers them.
pub struct Runner<'a> {
    /// `None`: a replay from memos alone (`merge`); every pair the memos lack is pending.
    oracle: Option<&'a Oracle>,
    /// Oracles under other string-hash seeds (`PYTHONHASHSEED`), for the canonicals' seed check
    /// (see [`crate::gates::seed_gate`]); their pairs are keyed apart (see [`seed_key`]).
    seed_oracles: Vec<&'a Oracle>,
    runner: String,
    isolation: IsolationLevel,
    budget: Duration,
    shard: Option<Shard>,
    /// Every executed pair's row, in first-execution order.
    pub cache: ExecCache,
    /// Pairs executed by the oracle (a pair needed twice in one phase counts once).
    pub pairs: usize,
    /// Wall time spent inside the oracle.
    pub busy: Duration,
    /// Pairs answered from the memo of an earlier build.
    pub reused: usize,
    /// Memo rows loaded (usable by this runner and isolation level).
    pub memo_rows: usize,
    /// Pairs needed but neither in a memo nor this shard's to execute.
    pub pending: usize,
    /// The first phase that had pending pairs.
    pub pending_phase: Option<String>,
    /// Why the journal stopped being written, if it did (the build goes on; resuming loses more).
    pub journal_error: Option<String>,
    memo: HashMap<Key, SuiteResult>,
    /// Results of this build, in first-execution order (the next memo).
    fresh: Vec<(Key, SuiteResult)>,
    journal: Option<Mutex<Journal>>,
    progress: Option<ProgressFn>,
    done: u64,
    total: u64,
}

impl<'a> Runner<'a> {
    /// `progress` receives an event whenever pairs complete or a phase starts.
    pub fn new(oracle: &'a Oracle, progress: Option<ProgressFn>) -> Runner<'a> {
        let mut r = Runner::replay(
            oracle.runner_string(),
            oracle.isolation(),
            oracle.config().timeout,
        );
        r.oracle = Some(oracle);
        r.progress = progress;
        r
    }

    /// A runner without an oracle, answering from memos only (for `merge`): `runner`,
    /// `isolation` and `budget` are those the memos' pairs were executed under.
    pub fn replay(runner: String, isolation: IsolationLevel, budget: Duration) -> Runner<'a> {
        Runner {
            oracle: None,
            seed_oracles: Vec::new(),
            runner,
            isolation,
            budget,
            shard: None,
            cache: ExecCache::new(),
            pairs: 0,
            busy: Duration::ZERO,
            reused: 0,
            memo_rows: 0,
            pending: 0,
            pending_phase: None,
            journal_error: None,
            memo: HashMap::new(),
            fresh: Vec::new(),
            journal: None,
            progress: None,
            done: 0,
            total: 0,
        }
    }

    /// The oracles under other hash seeds the seed check runs the canonicals on.
    pub fn set_seed_oracles(&mut self, oracles: Vec<&'a Oracle>) {
        self.seed_oracles = oracles;
    }

    /// Executes only the pairs `shard` owns.
    pub fn set_shard(&mut self, shard: Option<Shard>) {
        self.shard = shard;
    }

    pub fn isolation(&self) -> IsolationLevel {
        self.isolation
    }

    /// Loads the memo under `root` (rows of another runner or isolation level are ignored; an
    /// unreadable memo is simply not used). A torn last line is cut off the file.
    pub fn load_memo(&mut self, root: &Path) {
        self.load_memo_file(&root.join(MEMO_FILE), true);
    }

    /// Loads memo rows from one file (read-only unless `repair`).
    pub fn load_memo_file(&mut self, path: &Path, repair: bool) {
        let Ok(rows) = read_memo(path, repair) else {
            return;
        };
        for r in rows {
            if r.runner == self.runner && r.result.isolation == self.isolation {
                let key = (r.code_sha256, r.tests_sha256);
                if let std::collections::hash_map::Entry::Vacant(e) = self.memo.entry(key) {
                    e.insert(r.result);
                    self.memo_rows += 1;
                }
            }
        }
    }

    /// Appends every pair executed from now on to the memo under `root`, durably (see
    /// [`FLUSH_EVERY`]). `keep`: false empties the memo first (a build that may not reuse).
    pub fn open_journal(&mut self, root: &Path, keep: bool) -> std::io::Result<()> {
        std::fs::create_dir_all(root)?;
        let path = root.join(MEMO_FILE);
        if keep {
            // Cut a torn last line so the next row starts on a line of its own.
            read_memo(&path, true)?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .truncate(false)
            .open(&path)?;
        if !keep {
            file.set_len(0)?;
        }
        self.journal = Some(Mutex::new(Journal {
            file,
            buf: Vec::new(),
            last: Instant::now(),
        }));
        Ok(())
    }

    /// Writes this build's results as the memo under `root`.
    pub fn save_memo(&self, root: &Path) -> std::io::Result<()> {
        let mut buf = Vec::new();
        for ((c, t), r) in &self.fresh {
            let row = MemoRow {
                code_sha256: c.clone(),
                tests_sha256: t.clone(),
                runner: self.runner.clone(),
                result: r.clone(),
            };
            serde_json::to_writer(&mut buf, &row)?;
            buf.push(b'\n');
        }
        execscope_record::atomic::write_atomic(&root.join(MEMO_FILE), &buf)
    }

    pub fn runner_string(&self) -> &str {
        &self.runner
    }

    /// The runner string of jobs in `language` (`Oracle::runner_string_for`: Python's is
    /// [`Runner::runner_string`]; a replay without an oracle has only that one).
    pub fn runner_string_for(&self, language: execscope_record::Language) -> String {
        match self.oracle {
            Some(o) if !language.is_python() => o.runner_string_for(language),
            _ => self.runner.clone(),
        }
    }

    /// Each test's wall budget in the oracle.
    pub fn test_budget(&self) -> Duration {
        self.budget
    }

    fn journal_push(&self, key: &Key, r: &SuiteResult) -> Result<(), String> {
        let Some(j) = &self.journal else {
            return Ok(());
        };
        let row = MemoRow {
            code_sha256: key.0.clone(),
            tests_sha256: key.1.clone(),
            runner: self.runner.clone(),
            result: r.clone(),
        };
        j.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(&row)
            .map_err(|e| e.to_string())
    }

    /// Runs `batch` on the oracle's workers, journaling each result as it completes.
    fn execute(
        &self,
        oracle: &Oracle,
        batch: &[Job],
        keys: &[Key],
        progress: &(dyn Fn(usize) + Sync),
    ) -> (Vec<Result<SuiteResult, String>>, Option<String>) {
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let failed: Mutex<Option<String>> = Mutex::new(None);
        let out: Vec<Mutex<Option<Result<SuiteResult, String>>>> =
            batch.iter().map(|_| Mutex::new(None)).collect();
        // Units of jobs of one suite, each on one worker (its judge compiles the suite once).
        let units = execscope_oracle::units(batch);
        std::thread::scope(|s| {
            for _ in 0..oracle.config().workers.min(units.len()) {
                s.spawn(|| loop {
                    let u = next.fetch_add(1, Ordering::Relaxed);
                    let Some(unit) = units.get(u) else {
                        break;
                    };
                    oracle.on_one_worker(|run| {
                        for &i in unit {
                            let r = run(&batch[i]).map_err(|e| e.to_string());
                            if let Ok(res) = &r {
                                if let Err(e) = self.journal_push(&keys[i], res) {
                                    failed
                                        .lock()
                                        .unwrap_or_else(|e| e.into_inner())
                                        .get_or_insert(e);
                                }
                            }
                            *out[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
                            progress(done.fetch_add(1, Ordering::Relaxed) + 1);
                        }
                    });
                });
            }
        });
        if let Some(j) = &self.journal {
            if let Err(e) = j.lock().unwrap_or_else(|e| e.into_inner()).flush() {
                failed
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_or_insert(e.to_string());
            }
        }
        let results = out
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .unwrap_or_else(|| Err("job not run".into()))
            })
            .collect();
        (
            results,
            failed.into_inner().unwrap_or_else(|e| e.into_inner()),
        )
    }

    /// Executes `jobs` (results in input order; an oracle failure is `Err(message)`), recording
    /// each successful result in the cache. Pairs this runner may not execute (another shard's,
    /// or no oracle) and no memo holds are counted as pending and come back as `Err`.
    pub fn run(&mut self, phase: &str, jobs: &[Job]) -> Vec<Result<SuiteResult, String>> {
        self.run_under(phase, jobs, None)
    }

    /// [`Runner::run`] under hash seed `seed` (an oracle of [`Runner::set_seed_oracles`], or, in
    /// a replay, the memo of one). `None`: the seed of this runner's own oracle.
    pub fn run_under(
        &mut self,
        phase: &str,
        jobs: &[Job],
        seed: Option<u32>,
    ) -> Vec<Result<SuiteResult, String>> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let keys: Vec<Key> = jobs
            .iter()
            .map(|j| match seed {
                None => j.key(),
                Some(s) => seed_key(j, s),
            })
            .collect();
        let oracle = match seed {
            None => self.oracle,
            Some(s) => self
                .seed_oracles
                .iter()
                .copied()
                .find(|o| o.config().hash_seed == s),
        };
        // A suite asked to stop at its first failure is served by its own row, else by the
        // full suite's (cut as the stopped run records it); a stopped row never serves a full
        // request (it is keyed apart: `Job::key`).
        let mut results: Vec<Option<Result<SuiteResult, String>>> = keys
            .iter()
            .zip(jobs)
            .map(|(k, job)| {
                self.memo
                    .get(k)
                    .cloned()
                    .or_else(|| {
                        let stop = job.stop.as_ref().filter(|_| seed.is_none())?;
                        let full = self.memo.get(&job.full().key())?;
                        Some(full.stopped_at_first_failure(stop))
                    })
                    .map(Ok)
            })
            .collect();
        let missing: Vec<usize> = (0..jobs.len()).filter(|&i| results[i].is_none()).collect();
        self.reused += jobs.len() - missing.len();
        let mine = |k: &Key| oracle.is_some() && self.shard.is_none_or(|s| s.owns(&k.0, &k.1));
        let (mut todo, pending): (Vec<usize>, Vec<usize>) =
            missing.into_iter().partition(|&i| mine(&keys[i]));
        // A key needed twice in one phase is executed once.
        let mut first: HashMap<&Key, usize> = HashMap::new();
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        todo.retain(|&i| match first.get(&keys[i]) {
            Some(&j) => {
                repeats.push((i, j));
                false
            }
            None => {
                first.insert(&keys[i], i);
                true
            }
        });
        drop(first);
        if !pending.is_empty() {
            // Distinct keys only: a phase may need the same pair twice.
            let distinct: std::collections::HashSet<&Key> =
                pending.iter().map(|&i| &keys[i]).collect();
            self.pending += distinct.len();
            self.pending_phase.get_or_insert_with(|| phase.to_string());
            for &i in &pending {
                results[i] = Some(Err("pending: another shard's pair".into()));
            }
        }
        if let (false, Some(oracle)) = (todo.is_empty(), oracle) {
            let batch: Vec<Job> = todo.iter().map(|&i| jobs[i].clone()).collect();
            let batch_keys: Vec<Key> = todo.iter().map(|&i| keys[i].clone()).collect();
            self.total += batch.len() as u64;
            let base = self.done;
            let total = self.total;
            let emit = |done: u64, finished: bool| {
                if let Some(f) = &self.progress {
                    f(&Progress {
                        phase: phase.to_string(),
                        done,
                        total,
                        finished,
                    });
                }
            };
            emit(base, false);
            let start = Instant::now();
            let (out, failed) = self.execute(oracle, &batch, &batch_keys, &|done| {
                emit(base + done as u64, false)
            });
            if let Some(e) = failed {
                self.journal_error.get_or_insert(e);
            }
            self.done = base + batch.len() as u64;
            self.busy += start.elapsed();
            self.pairs += batch.len();
            for (&i, r) in todo.iter().zip(out) {
                if let Ok(r) = &r {
                    // Later jobs of this build with the same key reuse it.
                    self.memo.insert(keys[i].clone(), r.clone());
                }
                results[i] = Some(r);
            }
            for (i, j) in repeats {
                results[i] = results[j].clone();
            }
        }
        results
            .into_iter()
            .zip(jobs)
            .zip(keys)
            .map(|((r, job), key)| {
                let r = r.unwrap_or_else(|| Err("not run".into()))?;
                if seed.is_none() {
                    let row: ExecRecord = record_from(job, &r, &self.runner);
                    if self.cache.insert(row).is_none() {
                        self.fresh.push((key, r.clone()));
                    }
                } else if !self.fresh.iter().any(|(k, _)| k == &key) {
                    // Memoised (a rebuild or a merge replays it), never a cache row.
                    self.fresh.push((key, r.clone()));
                }
                Ok(r)
            })
            .collect()
    }

    /// Signals the end of the run (the CLI clears its bar).
    pub fn finish(&self) {
        if let Some(f) = &self.progress {
            f(&Progress {
                phase: String::new(),
                done: self.done,
                total: self.total,
                finished: true,
            });
        }
    }
}
