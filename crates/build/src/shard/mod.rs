//! Work spread over machines: deterministic shards of `build`, `exec verify` and `audit --pool`,
//! each leaving a partial result with a [`Manifest`], and [`merge`] of the partials into what one
//! machine would have written, byte for byte (docs/scale.md).
//!
//! A shard owns the pairs whose key hashes into it ([`Shard`]); the split depends on neither
//! the order of the pairs nor on earlier runs with another number of shards.
//!
//! `build` is a pipeline: each gate needs every outcome of the gate before it. A shard executes
//! its own pairs of the first phase that needs pairs no memo holds and stops there (its
//! manifest says which phase and how many pairs are pending). [`merge`] unions the shards'
//! memos; while pairs are pending the driver runs the shards again with the merged memo
//! (`--memo-from`), one round per phase at most. Once no shard has pending pairs, [`merge`]
//! replays the build from the merged memo alone, with no oracle, and writes the bundle.

pub mod audit;

pub use crate::exec::Shard;
use crate::exec::{read_memo, MemoRow, Runner, MEMO_FILE};
use crate::{BuildError, BuildOptions, BuildReport};
use execscope_oracle::{IsolationLevel, Oracle};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A partial result's manifest, relative to its directory.
pub const MANIFEST_FILE: &str = "shard.json";
/// `exec verify`'s per-pair results, relative to its output directory.
pub const VERIFY_FILE: &str = "verify.jsonl";

/// What a shard ran, on what, under which oracle, and how far it got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `build` or `verify`.
    pub kind: String,
    pub shard: Shard,
    /// `running` while the shard runs (a crashed shard keeps it), then `done`.
    pub state: String,
    /// The inputs the result is a function of (content hashes and options); shards of one run
    /// agree on all of them.
    pub inputs: BTreeMap<String, String>,
    /// The input as the command named it (`build`: the task file path the bundle records).
    pub source: String,
    pub isolation: String,
    pub privileges: String,
    /// The oracle's runner string (execscope and Python versions, execution contract).
    pub runner: String,
    /// Each test's wall budget.
    pub budget_ms: u64,
    pub execscope: String,
    /// Pairs this shard needed that another shard owns and no memo held.
    pub pending: usize,
    /// The first phase with pending pairs.
    pub phase: Option<String>,
    /// Pairs executed by this run, and answered from memos.
    pub executed: usize,
    pub reused: usize,
}

impl Manifest {
    /// The manifest of a shard that starts now under `oracle` (nothing run or reused yet).
    fn running(
        kind: &str,
        shard: Shard,
        inputs: BTreeMap<String, String>,
        source: String,
        oracle: &Oracle,
    ) -> Manifest {
        Manifest {
            kind: kind.into(),
            shard,
            state: "running".into(),
            inputs,
            source,
            isolation: oracle.isolation().to_string(),
            privileges: oracle.privileges().to_string(),
            runner: oracle.runner_string(),
            budget_ms: oracle.config().timeout.as_millis() as u64,
            execscope: execscope_record::version().to_string(),
            pending: 0,
            phase: None,
            executed: 0,
            reused: 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    // The source's own text follows in the error chain (`{:#}`), not in this line.
    #[error("{}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a shard's result: {reason}", path.display())]
    NotAShard { path: PathBuf, reason: String },
    #[error("nothing to merge: no partial results given")]
    NoParts,
    #[error("the partial results are of different kinds: {0}")]
    Kinds(String),
    #[error("shards of different runs: {0}")]
    Inputs(String),
    #[error("shards executed under different isolation levels: {0}")]
    Isolation(String),
    #[error("shards executed by different oracles (runner or test budget): {0}")]
    Oracle(String),
    #[error("shards split into different numbers: {0}")]
    Count(String),
    #[error("missing shard(s) {missing} of {count}{unfinished}")]
    Missing {
        missing: String,
        count: u32,
        unfinished: String,
    },
    #[error("conflicting verdicts for one pair: {0}")]
    Conflict(String),
    #[error("{}: the input file changed since the shards ran (sha256 {now}, shards: {then})", path.display())]
    TasksChanged {
        path: PathBuf,
        now: String,
        then: String,
    },
    #[error("pairs still pending after every shard reported none: {0}")]
    Incomplete(String),
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Audit(#[from] execscope_core::audit::AuditError),
    #[error("{0}")]
    Verify(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ShardError {
    let path = path.to_path_buf();
    move |source| ShardError::Io { path, source }
}

fn sha256_file(path: &Path) -> Result<String, ShardError> {
    use sha2::{Digest, Sha256};
    let bytes = std::fs::read(path).map_err(io(path))?;
    Ok(format!("{:x}", Sha256::digest(&bytes)))
}

fn write_manifest(dir: &Path, m: &Manifest) -> Result<(), ShardError> {
    let p = dir.join(MANIFEST_FILE);
    let mut json = serde_json::to_vec_pretty(m).unwrap_or_default();
    json.push(b'\n');
    execscope_record::atomic::write_atomic(&p, &json).map_err(io(&p))
}

/// Reads the manifest of the partial result in `dir`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, ShardError> {
    let p = dir.join(MANIFEST_FILE);
    let text = std::fs::read_to_string(&p).map_err(|e| ShardError::NotAShard {
        path: dir.to_path_buf(),
        reason: format!("{MANIFEST_FILE}: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| ShardError::NotAShard {
        path: p,
        reason: e.to_string(),
    })
}

fn build_inputs(tasks: &Path, opts: &BuildOptions) -> Result<BTreeMap<String, String>, ShardError> {
    let mut m = BTreeMap::from([
        ("tasks_sha256".to_string(), sha256_file(tasks)?),
        ("seed".to_string(), opts.seed.to_string()),
        ("stacked".to_string(), opts.stacked.to_string()),
        ("max_keep".to_string(), opts.max_keep.to_string()),
    ]);
    if let Some(o) = &opts.operators {
        m.insert("operators".to_string(), o.to_string());
    }
    if let Some(k) = opts.min_keep {
        m.insert("min_keep".to_string(), k.to_string());
    }
    if let Some(f) = opts.from {
        m.insert("from".to_string(), f.to_string());
    }
    if let Some(t) = opts.tests {
        m.insert("tests".to_string(), t.to_string());
    }
    Ok(m)
}

/// What a shard of `build` did (also in its manifest).
#[derive(Clone, Debug)]
pub struct ShardRun {
    pub manifest: Manifest,
    /// Memo rows of earlier runs this one reused (its own journal and `--memo-from`).
    pub memo_rows: usize,
}

/// Runs shard `opts.shard` of `build` into `out`: its pairs' results are journaled into the
/// memo there (crash-safe; a rerun resumes), and the manifest says how far the build got.
pub fn build_shard(
    tasks: &Path,
    out: &Path,
    oracle: &Oracle,
    opts: &BuildOptions,
) -> Result<ShardRun, ShardError> {
    let shard = opts.shard.ok_or_else(|| ShardError::NotAShard {
        path: out.to_path_buf(),
        reason: "no --shard given".into(),
    })?;
    let mut m = Manifest::running(
        "build",
        shard,
        build_inputs(tasks, opts)?,
        tasks.display().to_string(),
        oracle,
    );
    std::fs::create_dir_all(out).map_err(io(out))?;
    write_manifest(out, &m)?;
    let seeded = crate::seed_oracles(oracle, &opts.hash_seeds)?;
    let mut runner = Runner::new(oracle, opts.progress.clone());
    runner.set_seed_oracles(seeded.iter().collect());
    crate::prepare(&mut runner, out, opts)?;
    let source = m.source.clone();
    crate::build_with(tasks, &source, out, &mut runner, opts, oracle.privileges())?;
    if let Some(e) = &runner.journal_error {
        return Err(ShardError::Io {
            path: out.join(MEMO_FILE),
            source: std::io::Error::other(e.clone()),
        });
    }
    m.state = "done".into();
    m.pending = runner.pending;
    m.phase = runner.pending_phase.clone();
    m.executed = runner.pairs;
    m.reused = runner.reused;
    write_manifest(out, &m)?;
    Ok(ShardRun {
        manifest: m,
        memo_rows: runner.memo_rows,
    })
}

/// Outcome of [`merge`].
#[derive(Debug)]
pub enum Merged {
    /// The bundle is written (byte-identical to a one-machine build).
    Bundle(Box<BuildReport>),
    /// The shards still have pairs pending: the merged memo is written; run the shards again
    /// with `--memo-from` the merge's output.
    Round {
        pending: usize,
        phase: String,
        rows: usize,
    },
    /// `exec verify`'s results, merged.
    Verify { rows: usize, disagree: usize },
    /// `audit --pool`'s executions, merged and replayed: the pools a one-machine audit builds,
    /// and the settings its tables depend on (seed, draws, order sample).
    Audit {
        pools: Box<execscope_core::audit::PoolSet>,
        settings: BTreeMap<String, String>,
    },
}

/// Checks that the partials' manifests belong to one run and that every shard is there.
/// Returns the manifests in shard order, deduplicated by shard (a shard rerun elsewhere).
pub fn check_parts(parts: &[PathBuf]) -> Result<Vec<(PathBuf, Manifest)>, ShardError> {
    if parts.is_empty() {
        return Err(ShardError::NoParts);
    }
    let mut ms = Vec::new();
    for p in parts {
        ms.push((p.clone(), read_manifest(p)?));
    }
    let first = ms[0].clone();
    let name = |p: &Path| p.display().to_string();
    for (p, m) in &ms[1..] {
        let differ = |what: &str, a: &str, b: &str| {
            format!(
                "{what} {a:?} in {} but {b:?} in {}",
                name(&first.0),
                name(p)
            )
        };
        if m.kind != first.1.kind {
            return Err(ShardError::Kinds(differ("kind", &first.1.kind, &m.kind)));
        }
        if m.shard.count != first.1.shard.count {
            return Err(ShardError::Count(differ(
                "shard count",
                &first.1.shard.count.to_string(),
                &m.shard.count.to_string(),
            )));
        }
        for (k, v) in first.1.inputs.iter().chain(&m.inputs) {
            let (a, b) = (first.1.inputs.get(k), m.inputs.get(k));
            if a != b {
                return Err(ShardError::Inputs(differ(
                    k,
                    a.map_or("(absent)", String::as_str),
                    b.map_or("(absent)", String::as_str),
                )));
            }
            let _ = v;
        }
        if m.source != first.1.source {
            return Err(ShardError::Inputs(differ(
                "source",
                &first.1.source,
                &m.source,
            )));
        }
        if m.isolation != first.1.isolation {
            return Err(ShardError::Isolation(differ(
                "isolation",
                &first.1.isolation,
                &m.isolation,
            )));
        }
        if m.runner != first.1.runner || m.budget_ms != first.1.budget_ms {
            return Err(ShardError::Oracle(differ(
                "runner",
                &format!("{} ({} ms per test)", first.1.runner, first.1.budget_ms),
                &format!("{} ({} ms per test)", m.runner, m.budget_ms),
            )));
        }
    }
    let count = first.1.shard.count;
    let done: std::collections::BTreeSet<u32> = ms
        .iter()
        .filter(|(_, m)| m.state == "done")
        .map(|(_, m)| m.shard.index)
        .collect();
    let missing: Vec<String> = (0..count)
        .filter(|i| !done.contains(i))
        .map(|i| i.to_string())
        .collect();
    if !missing.is_empty() {
        let unfinished: Vec<String> = ms
            .iter()
            .filter(|(_, m)| m.state != "done")
            .map(|(p, m)| format!("{} in {} did not finish", m.shard, name(p)))
            .collect();
        return Err(ShardError::Missing {
            missing: missing.join(", "),
            count,
            unfinished: if unfinished.is_empty() {
                String::new()
            } else {
                format!(" ({})", unfinished.join("; "))
            },
        });
    }
    ms.retain(|(_, m)| m.state == "done");
    ms.sort_by(|a, b| (a.1.shard.index, &a.0).cmp(&(b.1.shard.index, &b.0)));
    Ok(ms)
}

fn outcomes_text(r: &MemoRow) -> String {
    let o: Vec<String> = r.result.outcomes.iter().map(|o| o.to_string()).collect();
    format!("[{}]", o.join(" "))
}

/// Merges partial results in `parts` (directories) into `out`; see the module docs. Refuses
/// partials of different runs, kinds, isolation levels or oracles, missing shards (by number)
/// and conflicting verdicts for one pair. `tasks`: where to read the task file (default: the
/// path the shards recorded).
pub fn merge(parts: &[PathBuf], out: &Path, tasks: Option<&Path>) -> Result<Merged, ShardError> {
    let ms = check_parts(parts)?;
    match ms[0].1.kind.as_str() {
        "build" => merge_build(&ms, out, tasks),
        "verify" => merge_verify(&ms, out),
        "audit" => audit::merge_audit(&ms, out),
        k => Err(ShardError::NotAShard {
            path: ms[0].0.clone(),
            reason: format!("unknown kind {k:?}"),
        }),
    }
}

/// Memo rows by key, with where each came from.
type MemoUnion = BTreeMap<(String, String), (MemoRow, String)>;

/// The union of the partials' memos (rows of their own runner and isolation level), deduplicated
/// by key. The same key with different outcomes (or, with `observed`, different observed values,
/// which the audit's verdicts read) is a conflict naming both places.
fn union_memos(ms: &[(PathBuf, Manifest)], observed: bool) -> Result<MemoUnion, ShardError> {
    let mut rows: MemoUnion = BTreeMap::new();
    for (p, m) in ms {
        let memo = p.join(MEMO_FILE);
        for r in read_memo(&memo, false).map_err(io(&memo))? {
            if r.runner != m.runner || r.result.isolation.to_string() != m.isolation {
                continue;
            }
            let key = (r.code_sha256.clone(), r.tests_sha256.clone());
            match rows.get(&key) {
                Some((old, from))
                    if old.result.outcomes != r.result.outcomes
                        || (observed && old.result.observed != r.result.observed) =>
                {
                    return Err(ShardError::Conflict(format!(
                        "code {} tests {}: {} in {from}, {} in shard {} ({})",
                        key.0,
                        key.1,
                        outcomes_text(old),
                        outcomes_text(&r),
                        m.shard,
                        p.display()
                    )));
                }
                Some(_) => {}
                None => {
                    rows.insert(key, (r, format!("shard {} ({})", m.shard, p.display())));
                }
            }
        }
    }
    Ok(rows)
}

/// Writes the union as the memo under `out`, sorted by key.
fn write_memo(out: &Path, rows: &MemoUnion) -> Result<(), ShardError> {
    let mut buf = Vec::new();
    for (r, _) in rows.values() {
        serde_json::to_writer(&mut buf, r).map_err(|e| io(out)(e.into()))?;
        buf.push(b'\n');
    }
    let memo = out.join(MEMO_FILE);
    execscope_record::atomic::write_atomic(&memo, &buf).map_err(io(&memo))
}

/// Refuses an input file whose content changed since the shards recorded its hash.
/// The runner a merge replays a build or audit through: no oracle, the shards' runner string,
/// isolation level and budget, and the union memo at `out` (a pair it lacks is left pending).
fn replay_runner(
    m0: &Manifest,
    manifest_dir: &Path,
    out: &Path,
) -> Result<Runner<'static>, ShardError> {
    let isolation: IsolationLevel =
        serde_json::from_value(serde_json::Value::String(m0.isolation.clone())).map_err(|e| {
            ShardError::NotAShard {
                path: manifest_dir.to_path_buf(),
                reason: format!("isolation: {e}"),
            }
        })?;
    let mut runner = Runner::replay(
        m0.runner.clone(),
        isolation,
        Duration::from_millis(m0.budget_ms),
    );
    runner.load_memo(out);
    Ok(runner)
}

fn check_inputs_file(path: &Path, then: &str) -> Result<(), ShardError> {
    let now = sha256_file(path)?;
    if now != then {
        return Err(ShardError::TasksChanged {
            path: path.to_path_buf(),
            now,
            then: then.to_string(),
        });
    }
    Ok(())
}

fn merge_build(
    ms: &[(PathBuf, Manifest)],
    out: &Path,
    tasks: Option<&Path>,
) -> Result<Merged, ShardError> {
    let m0 = &ms[0].1;
    let rows = union_memos(ms, false)?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    write_memo(out, &rows)?;
    // Replay the build from the merged memo alone (no oracle): it gets through every gate when
    // the union holds every pair, even if each shard alone stopped at a phase.
    let tasks_path = tasks.map_or_else(|| PathBuf::from(&m0.source), Path::to_path_buf);
    check_inputs_file(
        &tasks_path,
        m0.inputs.get("tasks_sha256").map_or("", String::as_str),
    )?;
    let get = |k: &str| m0.inputs.get(k).cloned().unwrap_or_default();
    let opts = BuildOptions {
        seed: get("seed").parse().unwrap_or(BuildOptions::default().seed),
        stacked: get("stacked") == "true",
        max_keep: get("max_keep")
            .parse()
            .unwrap_or(BuildOptions::default().max_keep),
        // No `operators` (a manifest of a build before `--operators` existed, or one that took
        // the format's default): the format's rules decide, as they did for the shards.
        operators: m0.inputs.get("operators").and_then(|o| o.parse().ok()),
        min_keep: get("min_keep").parse().ok(),
        reuse: true,
        from: get("from").parse().ok(),
        tests: get("tests").parse().ok(),
        ..BuildOptions::default()
    };
    let mut runner = replay_runner(m0, &ms[0].0, out)?;
    match crate::build_with(
        &tasks_path,
        &m0.source,
        out,
        &mut runner,
        &opts,
        &m0.privileges,
    )? {
        Some(report) => Ok(Merged::Bundle(Box::new(report))),
        None if ms.iter().any(|(_, m)| m.pending > 0) => Ok(Merged::Round {
            pending: runner.pending,
            phase: runner.pending_phase.clone().unwrap_or_default(),
            rows: rows.len(),
        }),
        None => Err(ShardError::Incomplete(format!(
            "{} pair(s) of phase {}",
            runner.pending,
            runner.pending_phase.as_deref().unwrap_or("?")
        ))),
    }
}

/// One re-executed pair (what `exec verify --out` writes, one JSON line each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyRow {
    pub code_sha256: String,
    pub tests_sha256: String,
    /// "query × snippet".
    pub label: String,
    pub cached: Vec<String>,
    /// The outcomes now, or `["oracle error: …"]`.
    pub now: Vec<String>,
    pub agree: bool,
}

/// `exec verify` of the pairs `shard` owns (all with `0/1`), its results written to
/// `out/verify.jsonl` (sorted by key, keys in the bundle's own encoding) with a manifest.
/// Resumable: each re-executed pair is journaled into `out`'s memo as it finishes (as a build's),
/// so a rerun into the same `out` executes only what the killed run had not finished.
pub fn verify_shard(
    root: &Path,
    oracle: &Oracle,
    shard: Shard,
    out: &Path,
    progress: Option<crate::exec::ProgressFn>,
) -> Result<(Vec<VerifyRow>, ShardRun), ShardError> {
    let sums = root.join(execscope_core::bundle::files::SUMS);
    let cache = root.join(execscope_core::bundle::files::CACHE);
    let inputs = BTreeMap::from([
        (
            "bundle_sha256sums".to_string(),
            if sums.is_file() {
                sha256_file(&sums)?
            } else {
                String::new()
            },
        ),
        ("cache_sha256".to_string(), sha256_file(&cache)?),
    ]);
    let mut m = Manifest::running("verify", shard, inputs, String::new(), oracle);
    let opts = execscope_core::bundle::LoadOptions {
        verify_checksums: false,
        systems: None,
        skip_embeddings: true,
    };
    let b =
        execscope_core::bundle::load(root, &opts).map_err(|e| ShardError::Verify(e.to_string()))?;
    if b.cache.is_empty() {
        return Err(ShardError::Verify(format!(
            "{}: the execution cache is absent or empty; nothing to re-execute",
            root.display()
        )));
    }
    let stacked = crate::verify::stacked_rows(root).map_err(ShardError::Verify)?;
    let c = crate::verify::cached_pairs(&b, &stacked);
    let key = execscope_core::bundle::model::tests_key_fn(b.tests_key_encoding);
    let mine: Vec<usize> = (0..c.pairs.len())
        .filter(|&i| {
            let (code, tests) = c.pairs[i].key();
            shard.owns(&code, &tests)
        })
        .collect();
    std::fs::create_dir_all(out).map_err(io(out))?;
    write_manifest(out, &m)?;
    let mut runner = Runner::new(oracle, progress);
    runner.load_memo(out);
    runner
        .open_journal(out, true)
        .map_err(io(&out.join(MEMO_FILE)))?;
    let jobs: Vec<execscope_oracle::Job> = mine.iter().map(|&i| c.pairs[i].clone()).collect();
    let results = runner.run("re-executing", &jobs);
    runner.finish();
    if let Some(e) = &runner.journal_error {
        return Err(ShardError::Io {
            path: out.join(MEMO_FILE),
            source: std::io::Error::other(e.clone()),
        });
    }
    let mut rows = Vec::with_capacity(mine.len());
    for (&i, r) in mine.iter().zip(results) {
        let (code, tests) = (&c.pairs[i].code, &c.pairs[i].tests);
        let rec = c.cache.get_pair(code, tests).expect("a cached pair");
        let now = match r {
            Ok(r) => r.outcomes.iter().map(|o| o.to_string()).collect(),
            Err(e) => vec![format!("oracle error: {e}")],
        };
        rows.push(VerifyRow {
            code_sha256: rec.code_sha256.clone(),
            tests_sha256: key(tests),
            label: c.labels[i].clone(),
            agree: now == rec.outcomes,
            cached: rec.outcomes.clone(),
            now,
        });
    }
    rows.sort_by(|a, b| (&a.code_sha256, &a.tests_sha256).cmp(&(&b.code_sha256, &b.tests_sha256)));
    write_verify_rows(out, &rows)?;
    m.state = "done".into();
    m.executed = runner.pairs;
    m.reused = runner.reused;
    write_manifest(out, &m)?;
    let memo_rows = runner.memo_rows;
    Ok((
        rows,
        ShardRun {
            manifest: m,
            memo_rows,
        },
    ))
}

fn write_verify_rows(out: &Path, rows: &[VerifyRow]) -> Result<(), ShardError> {
    let mut buf = Vec::new();
    for r in rows {
        serde_json::to_writer(&mut buf, r).map_err(|e| io(out)(e.into()))?;
        buf.push(b'\n');
    }
    let p = out.join(VERIFY_FILE);
    execscope_record::atomic::write_atomic(&p, &buf).map_err(io(&p))
}

fn merge_verify(ms: &[(PathBuf, Manifest)], out: &Path) -> Result<Merged, ShardError> {
    let mut rows: BTreeMap<(String, String), (VerifyRow, String)> = BTreeMap::new();
    for (p, m) in ms {
        let f = p.join(VERIFY_FILE);
        let text = std::fs::read_to_string(&f).map_err(io(&f))?;
        for (i, line) in text.lines().enumerate() {
            let r: VerifyRow = serde_json::from_str(line).map_err(|e| ShardError::NotAShard {
                path: f.clone(),
                reason: format!("line {}: {e}", i + 1),
            })?;
            let key = (r.code_sha256.clone(), r.tests_sha256.clone());
            let from = format!("shard {} ({})", m.shard, p.display());
            match rows.get(&key) {
                Some((old, pa)) if old.now != r.now || old.cached != r.cached => {
                    return Err(ShardError::Conflict(format!(
                        "code {} tests {}: [{}] in {pa}, [{}] in {from}",
                        key.0,
                        key.1,
                        old.now.join(" "),
                        r.now.join(" ")
                    )));
                }
                Some(_) => {}
                None => {
                    rows.insert(key, (r, from));
                }
            }
        }
    }
    std::fs::create_dir_all(out).map_err(io(out))?;
    let rows: Vec<VerifyRow> = rows.into_values().map(|(r, _)| r).collect();
    write_verify_rows(out, &rows)?;
    Ok(Merged::Verify {
        rows: rows.len(),
        disagree: rows.iter().filter(|r| !r.agree).count(),
    })
}
