//! `execscope build`: a task file → a benchmark bundle, through the five validation gates of the
//! paper (§3.3), every refusal naming the task file line, the task id and the reason, never
//! stopping the run.
//!
//! 1. schema ([`task::read_tasks`]); 2. AST semantics ([`task::ast_gate`]); 3. canonical
//!    execution; 3b. independent execution (the task's `independent` implementation passes every
//!    test); 4. distractor execution and selection (signature-only edits the query does not state
//!    are refused first); 5. corpus integrity ([`gates`]).
//!
//! Execution goes through one [`Runner`](exec::Runner) (oracle worker pool, cache, progress bar);
//! each gate submits all tasks' pairs as one batch. Everything written under `data/` is a pure
//! function of the task file, the seed and the oracle's outcomes, so two builds of the same input
//! are byte-identical (up to shipped snippets whose outcomes include resource exhaustion, see
//! below); `build_report.json` (timings) is written after `SHA256SUMS` and is not
//! listed in it, so the sums are reproducible too.

pub mod assemble;
pub mod ast;
pub mod equivalence;
pub mod exec;
pub mod formats;
pub mod fuzz;
pub mod gates;
pub mod health;
pub mod mutate;
pub mod rules;
pub mod shard;
pub mod shared_memo;
pub mod stacked;
pub mod summary;
pub mod task;
pub mod verify;

pub use gates::{Admitted, Collision, Dropped, GateLog, MIN_KEEP};
pub use summary::BuildReport;
pub use task::{Gate, Refusal, Task};

use execscope_oracle::Oracle;
use std::collections::BTreeMap;
use std::path::Path;

/// Where `--stacked` rows go, relative to the bundle root.
pub const STACKED_FILE: &str = "data/stacked_distractors.jsonl";
/// The build report, relative to the bundle root (not covered by `SHA256SUMS`).
pub const REPORT_FILE: &str = "build_report.json";

#[derive(Clone)]
pub struct BuildOptions {
    pub seed: u64,
    pub stacked: bool,
    /// Distractors per query wanted (the paper's four).
    pub max_keep: usize,
    /// The mutation families (`--operators`); `None`: the format's rules' ([`rules::Rules`]:
    /// the paper's six for execscope's own file, the whole catalogue for a benchmark file).
    pub operators: Option<crate::mutate::Operators>,
    /// The fewest distractors a task may keep (`--min-distractors`); `None`: the format's
    /// rules' (3, or 1 for a benchmark file).
    pub min_keep: Option<usize>,
    /// Receives the execution's progress events (the CLI draws a bar; `None` = silent).
    pub progress: Option<exec::ProgressFn>,
    /// Reuse results of an earlier build into the same directory (see `exec`'s memo).
    pub reuse: bool,
    /// Execute only this shard's pairs (see `crate::shard`); the bundle is then not written.
    pub shard: Option<exec::Shard>,
    /// Further memo files to reuse results from (read-only), e.g. a merge of earlier rounds.
    pub memos: Vec<std::path::PathBuf>,
    /// `PYTHONHASHSEED`s besides the oracle's own (0) every canonical must pass under
    /// ([`gates::seed_gate`]); empty skips the check.
    pub hash_seeds: Vec<u32>,
    /// The task file's format (`--from`); `None`: found from its content.
    pub from: Option<formats::Format>,
    /// How many tests gate 1 lets a task have (`--tests`; the paper's rule is `7..10`);
    /// `None`: the format's rules' ([`rules::Rules::for_file`]).
    pub tests: Option<task::TestRange>,
    /// Where a HumanEval-X or MBXP file's Python tests are read from (`--python-tests`); `None`:
    /// the format's file beside it (`humaneval_python.jsonl.gz`, `mbpp_release_v1.jsonl`).
    pub python_tests: Option<std::path::PathBuf>,
}

impl std::fmt::Debug for BuildOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BuildOptions")
            .field("seed", &self.seed)
            .field("stacked", &self.stacked)
            .field("max_keep", &self.max_keep)
            .field(
                "operators",
                &self.operators.as_ref().map(ToString::to_string),
            )
            .field("min_keep", &self.min_keep)
            .field("progress", &self.progress.is_some())
            .field("reuse", &self.reuse)
            .field("shard", &self.shard)
            .field("memos", &self.memos)
            .field("hash_seeds", &self.hash_seeds)
            .field("from", &self.from)
            .field("tests", &self.tests)
            .field("python_tests", &self.python_tests)
            .finish()
    }
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            seed: execscope_core::stats::RELEASE_SEED,
            stacked: false,
            max_keep: crate::mutate::DEFAULT_MAX_KEEP,
            operators: None,
            min_keep: None,
            progress: None,
            reuse: true,
            shard: None,
            memos: Vec::new(),
            hash_seeds: vec![1, 2],
            from: None,
            tests: None,
            python_tests: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Bundle(#[from] execscope_core::bundle::BundleError),
    #[error("internal id integrity failure: {0}")]
    Integrity(String),
    /// No task to build from: an empty task file, or every task refused.
    #[error("{0}")]
    Empty(String),
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError {
    let path = path.to_path_buf();
    move |source| BuildError::Io { path, source }
}

/// Builds `out` from the task file at `tasks` (see the module docs). Refused tasks are reported,
/// not errors; an `Err` means the bundle could not be written.
pub fn build(
    tasks: &Path,
    out: &Path,
    oracle: &Oracle,
    opts: &BuildOptions,
) -> Result<BuildReport, BuildError> {
    // The task file is opened before anything is written into `out`: a mistyped name leaves
    // no memo (nor directory) behind.
    let file = std::fs::File::open(tasks).map_err(io_err(tasks))?;
    if !file.metadata().map_err(io_err(tasks))?.is_file() {
        return Err(BuildError::Io {
            path: tasks.to_path_buf(),
            source: std::io::Error::other("not a regular file (give the task file itself)"),
        });
    }
    drop(file);
    let seeded = seed_oracles(oracle, &opts.hash_seeds)?;
    let mut runner = exec::Runner::new(oracle, opts.progress.clone());
    runner.set_seed_oracles(seeded.iter().collect());
    prepare(&mut runner, out, opts)?;
    let source = tasks.display().to_string();
    build_with(tasks, &source, out, &mut runner, opts, oracle.privileges())?.ok_or_else(|| {
        BuildError::Integrity(format!(
            "{} pair(s) of phase {} were not executed",
            runner.pending,
            runner.pending_phase.as_deref().unwrap_or("?")
        ))
    })
}

/// Oracles like `oracle` but under each of `seeds` as `PYTHONHASHSEED` (one worker each: they
/// run the canonicals only).
pub fn seed_oracles(oracle: &Oracle, seeds: &[u32]) -> Result<Vec<Oracle>, BuildError> {
    seeds
        .iter()
        .map(|&hash_seed| {
            Oracle::new(execscope_oracle::OracleConfig {
                hash_seed,
                workers: oracle.config().workers.clamp(1, 2),
                isolation: oracle.isolation().into(),
                ..oracle.config().clone()
            })
            .map_err(|e| {
                BuildError::Integrity(format!(
                    "starting the oracle for PYTHONHASHSEED={hash_seed}: {e}"
                ))
            })
        })
        .collect()
}

/// Loads the memo of `out` (when `opts.reuse`) and `opts.memos`, and journals every pair
/// executed from now on into `out`'s memo.
pub fn prepare(
    runner: &mut exec::Runner,
    out: &Path,
    opts: &BuildOptions,
) -> Result<(), BuildError> {
    runner.set_shard(opts.shard);
    if opts.reuse {
        runner.load_memo(out);
    }
    for m in &opts.memos {
        let file = if m.is_dir() {
            m.join(exec::MEMO_FILE)
        } else {
            m.clone()
        };
        if !file.is_file() {
            return Err(BuildError::Io {
                path: file,
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no memo file here"),
            });
        }
        runner.load_memo_file(&file, false);
    }
    runner
        .open_journal(out, opts.reuse)
        .map_err(io_err(&out.join(exec::MEMO_FILE)))
}

/// The build with a prepared runner. `Ok(None)`: the gates could not all run because pairs are
/// pending (another shard's), or `opts.shard` is set (a shard writes no bundle; its memo is its
/// result). `source` is the task file as the bundle names it; `privileges` goes to the report.
pub fn build_with(
    tasks: &Path,
    source: &str,
    out: &Path,
    runner: &mut exec::Runner,
    opts: &BuildOptions,
    privileges: &str,
) -> Result<Option<BuildReport>, BuildError> {
    let io = io_err;
    let source = source.to_string();
    let asked = rules::Asked {
        tests: opts.tests,
        operators: opts.operators.clone(),
        min_keep: opts.min_keep,
    };
    let Some(input) = formats::tasks::read_for_build(
        tasks,
        opts.from,
        opts.python_tests.as_deref(),
        &asked,
        runner,
    )?
    else {
        runner.finish();
        return Ok(None);
    };
    let (read, refusals) = (input.tasks, input.refusals);
    let tasks_read = read.len() + refusals.len();
    if tasks_read == 0 {
        return Err(BuildError::Empty(format!(
            "{source}: the task file holds no tasks (every line is blank); nothing to build"
        )));
    }
    let mut log = gates::GateLog {
        refusals,
        ..Default::default()
    };

    let mut ast_ok = Vec::new();
    for t in read {
        match task::ast_gate(&t) {
            Ok(()) => ast_ok.push(t),
            Err(reason) => log.refusals.push(Refusal {
                line: t.line,
                task_id: t.task_id.clone(),
                gate: Gate::AstSemantics,
                reason,
            }),
        }
    }

    // Each gate needs every outcome of the one before: a shard stops at the first phase with
    // pairs pending (another shard's), after executing its own.
    let stop = |runner: &exec::Runner| {
        if runner.pending > 0 {
            runner.finish();
            true
        } else {
            false
        }
    };
    let rules = input.rules.clone();
    let passing = gates::canonical_gate(runner, ast_ok, rules.cost_margin, &mut log);
    if stop(runner) {
        return Ok(None);
    }
    let passing = gates::seed_gate(runner, passing, &opts.hash_seeds, &mut log);
    if stop(runner) {
        return Ok(None);
    }
    let passing = gates::independent_gate(runner, passing, &mut log);
    if stop(runner) {
        return Ok(None);
    }
    let admitted = gates::distractor_gate(runner, passing, opts, &rules, &mut log);
    if stop(runner) {
        return Ok(None);
    }
    let admitted = gates::integrity_gate(runner, admitted, &mut log);
    if stop(runner) {
        return Ok(None);
    }
    log.refusals.sort_by_key(|r| r.line);
    if admitted.is_empty() {
        runner.finish();
        return Err(BuildError::Empty(task::all_refused(&source, &log.refusals)));
    }

    let prov = assemble::Provenance {
        source: source.clone(),
        seed: opts.seed,
    };
    let mut bundle = assemble::assemble(&admitted, &prov);
    let problems = assemble::id_integrity(&bundle);
    if !problems.is_empty() {
        return Err(BuildError::Integrity(problems.join("; ")));
    }
    let stacked = opts
        .stacked
        .then(|| stacked::build(runner, &admitted, &bundle, opts.seed));
    runner.finish();
    if runner.pending > 0 || opts.shard.is_some() {
        return Ok(None);
    }
    // Cache rows for the pairs whose code the bundle ships (snippets, incl. cross-query pairs, and
    // stacked rows): every row can be re-executed by `exec verify` from the bundle's own texts.
    // Dropped mutants' rows stay in the memo and their outcomes in the build report; leaving them
    // out also keeps the file reproducible, since a mutant that exhausts memory or time may end
    // as `FAIL:MemoryError` on one run and `TIMEOUT` on another.
    let shipped: std::collections::HashSet<String> = bundle
        .corpus
        .iter()
        .map(|s| execscope_core::bundle::code_sha256(&s.code))
        .chain(stacked.iter().flat_map(|(rows, _)| {
            rows.iter()
                .filter_map(|r| r["code"].as_str().map(execscope_core::bundle::code_sha256))
        }))
        .collect();
    // Only pairs of a query's suite: an EvalPlus reference job runs the canonical's code too,
    // against tests of its own that no query has. A job in another language than Python is
    // keyed with its language (`Job::key`); the bundle keys every row by the suite alone (the
    // query records its language), so such a row ships under its suite's plain key.
    let suites: std::collections::HashMap<String, String> = bundle
        .queries
        .iter()
        .map(|q| {
            let plain = execscope_record::keys::tests_sha256(&q.tests);
            let job =
                execscope_record::Job::new(String::new(), q.tests.clone()).language(q.language);
            (job.key().1, plain)
        })
        .collect();
    bundle.cache = runner
        .cache
        .records()
        .iter()
        .filter(|r| shipped.contains(&r.code_sha256))
        .filter_map(|r| {
            let plain = suites.get(&r.tests_sha256)?;
            let mut r = r.clone();
            r.tests_sha256 = plain.clone();
            Some(r)
        })
        .collect();

    // Files of an earlier build that this one may not rewrite must not end up in SHA256SUMS.
    for rel in [REPORT_FILE, STACKED_FILE] {
        let p = out.join(rel);
        if p.exists() {
            std::fs::remove_file(&p).map_err(io(&p))?;
        }
    }
    if let Some((rows, _)) = &stacked {
        let mut buf = Vec::new();
        for r in rows {
            buf.extend_from_slice(r.to_string().as_bytes());
            buf.push(b'\n');
        }
        let p = out.join(STACKED_FILE);
        execscope_record::atomic::write_atomic(&p, &buf).map_err(io(&p))?;
    }
    execscope_core::bundle::write(&bundle, out)?;

    let (by_type, by_domain) = summary::tables(&bundle);
    let failing = summary::failing_counts(&admitted, &bundle);
    let mut drops_by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for d in &log.dropped {
        *drops_by_reason.entry(d.reason.clone()).or_default() += 1;
    }
    let secs = runner.busy.as_secs_f64();
    let equivalence = summary::equivalence(&log, &admitted);
    let suite_strength = summary::suite_strength(&log, &bundle);
    let with = |n: usize| {
        bundle
            .queries
            .iter()
            .filter(|q| q.paired.len() == n)
            .count()
    };
    let report = BuildReport {
        builder: format!("execscope {}", execscope_record::version()),
        source,
        format: input.format.to_string(),
        tests_rule: rules.tests.to_string(),
        reader_notes: input.notes,
        seed: opts.seed,
        operators: rules.operators.to_string(),
        tasks_read,
        tasks_kept: bundle.queries.len(),
        refused_by_gate: summary::by_gate(&log.refusals),
        refusals: log.refusals,
        queries: bundle.queries.len(),
        corpus: bundle.corpus.len(),
        distractors_by_bug_type: by_type,
        queries_with_4: with(4),
        queries_with_3: with(3),
        queries_with_2: with(2),
        queries_with_1: with(1),
        rules,
        queries_by_domain: by_domain,
        distractors_by_failing_tests: failing.histogram,
        distractors_failing_one_test: failing.one.len(),
        failing_one_test: failing.one,
        tasks_with_independent: admitted
            .iter()
            .filter(|a| a.task.independent.is_some())
            .count(),
        mutants_generated: log.mutants_generated,
        equivalence,
        suite_strength,
        drops_by_reason,
        dropped: log.dropped,
        collisions: log.collisions,
        stacked: stacked.map(|(_, s)| s),
        pairs_executed: runner.pairs,
        pairs_reused: runner.reused,
        cache_rows: bundle.cache.len(),
        oracle_seconds: secs,
        pairs_per_second: if secs > 0.0 {
            runner.pairs as f64 / secs
        } else {
            0.0
        },
        isolation: runner.isolation().to_string(),
        privileges: privileges.to_string(),
        // The runner of the bundle's language (a HumanEval-X build names its toolchain and
        // build budget); one per language, in report order, for a bundle of several.
        runner: match bundle.languages() {
            ls if ls.is_empty() => runner.runner_string().to_string(),
            ls => ls
                .into_iter()
                .map(|l| runner.runner_string_for(l))
                .collect::<Vec<_>>()
                .join(" | "),
        },
    };
    runner
        .save_memo(out)
        .map_err(io(&out.join(exec::MEMO_FILE)))?;
    let json = serde_json::to_vec_pretty(&report).unwrap_or_default();
    let p = out.join(REPORT_FILE);
    execscope_record::atomic::write_atomic(&p, &json).map_err(io(&p))?;
    Ok(Some(report))
}
