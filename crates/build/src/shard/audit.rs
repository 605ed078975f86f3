//! `audit --pool` journaled, resumable and sharded (docs/scale.md).
//!
//! A generated-pool audit executes every candidate in two phases: screen, inline self-tests and
//! the task's suites, then, for candidates that import a candidate-named module, the restricted
//! module supply (which needs the first phase's screen). Both go through the build's journaled
//! runner ([`crate::exec::Runner`]): each finished pair is appended to the memo in the
//! output directory (durable at most [`crate::exec::FLUSH_EVERY`] apart), a torn last line
//! is cut on reload, and a rerun into the same directory executes only what is missing.
//!
//! With a [`Shard`], the runner executes only the pairs the shard owns; a phase that needs other
//! shards' pairs stops the audit there (the manifest says which phase and how many pairs), and
//! the shards run again with the merged memo (`--memo-from`), one round per phase at most.
//! `execscope merge` (`merge_audit`) replays the audit from the merged memo alone, without an
//! oracle.

use super::{
    check_inputs_file, io, sha256_file, union_memos, write_manifest, write_memo, Manifest, Shard,
    ShardError, ShardRun,
};
use crate::exec::{ProgressFn, Runner, MEMO_FILE};
use crate::shared_memo::SharedMemo;
use execscope_core::audit::generated::{self, Runner as PairRunner};
use execscope_core::audit::{AuditError, Mode, PoolSet};
use execscope_oracle::lazy::BatchError;
use execscope_oracle::{Oracle, SuiteResult};
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The two execution phases of a generated-pool audit, in order.
pub const PHASES: [&str; 2] = ["screen, inline and suites", "module supply"];

/// The provenance line naming the oracle (the same words as an audit without a journal).
pub fn oracle_line(isolation: &str, privileges: &str, runner: &str) -> String {
    format!("oracle isolation {isolation} ({privileges}), {runner}")
}

/// What an audit of a generated pool is a function of, besides the executions.
#[derive(Clone, Debug)]
pub struct PoolAudit {
    /// The pool and task files, as the command named them (the audit's `mode` records them).
    pub pool: PathBuf,
    pub tasks: PathBuf,
    /// Options the tables depend on (seed, draws, order sample), recorded in the manifest so
    /// that `merge` renders what one machine would have.
    pub settings: BTreeMap<String, String>,
    /// The memo of EvalPlus reference outputs shared by every run on this machine
    /// ([`crate::shared_memo`]); `None`: computed for this run only.
    pub references: Option<PathBuf>,
}

/// The setting (in [`PoolAudit::settings`], so a shard's manifest records it and `merge`
/// replays it) that runs every test of every suite; absent, each suite stops at its first
/// failure.
pub const ALL_TESTS: &str = "all_tests";

/// The setting (in [`PoolAudit::settings`]) naming the time convention the suites run under
/// ([`generated::TimeConvention`]); absent, execscope's.
pub const TIME_CONVENTION: &str = "time_convention";

impl PoolAudit {
    /// How the suites run: every test when [`ALL_TESTS`] is set to `true`.
    pub fn suites(&self) -> generated::Suites {
        if self.settings.get(ALL_TESTS).map(String::as_str) == Some("true") {
            generated::Suites::AllTests
        } else {
            generated::Suites::StopAtFirstFailure
        }
    }

    /// Whose time limits the suites run under.
    pub fn time(&self) -> generated::TimeConvention {
        self.settings
            .get(TIME_CONVENTION)
            .and_then(|t| t.parse().ok())
            .unwrap_or_default()
    }

    fn mode(&self) -> Mode {
        Mode::Generated {
            pool: self.pool.display().to_string(),
            tasks: self.tasks.display().to_string(),
        }
    }

    fn inputs(&self) -> Result<BTreeMap<String, String>, ShardError> {
        let mut m = self.settings.clone();
        m.insert("pool_sha256".into(), sha256_file(&self.pool)?);
        m.insert("tasks_sha256".into(), sha256_file(&self.tasks)?);
        m.insert("tasks".into(), self.tasks.display().to_string());
        Ok(m)
    }
}

/// What [`audit_pool`] ended with.
#[derive(Debug)]
pub struct AuditRun {
    /// The pools with every execution, when no pair is pending.
    pub pools: Option<Box<PoolSet>>,
    /// What the run did (also the shard's manifest, when sharded).
    pub run: ShardRun,
    /// The shared memo of reference outputs, with what this run took from it and added.
    pub references: Option<SharedMemo>,
}

/// Reads the audit's task file and pool (in their formats, `from` and `pool_from` of the
/// settings), then feeds the audit's batches to `runner`, naming the phases; other shards'
/// pairs end the audit with [`BatchError::Pending`].
fn audit_with(
    a: &PoolAudit,
    runner: &RefCell<Runner<'_>>,
    mut shared: Option<&mut SharedMemo>,
) -> Result<PoolSet, AuditError> {
    let from = a.settings.get("from").and_then(|f| f.parse().ok());
    let pool_from = a.settings.get("pool_from").and_then(|f| f.parse().ok());
    let before = runner.borrow().pending;
    let input = crate::formats::audit::read_inputs(
        &a.tasks,
        from,
        &a.pool,
        pool_from,
        &mut |phase, jobs| match shared.as_deref_mut() {
            Some(m) => m.run(&mut runner.borrow_mut(), phase, jobs),
            None => runner.borrow_mut().run(phase, jobs),
        },
    );
    let pending = runner.borrow().pending - before;
    if pending > 0 {
        return Err(AuditError::Run(BatchError::Pending { pairs: pending }));
    }
    let input = input?;
    let time = a.time();
    if time == generated::TimeConvention::EvalPlus
        && input.task_format != crate::formats::Format::EvalPlus
    {
        return Err(AuditError::Input {
            at: a.tasks.display().to_string(),
            msg: format!(
                "--time-convention evalplus needs an EvalPlus task file (its reference solution's \
                 times scale each input's limit); this one reads as {}: leave the option out",
                input.task_format
            ),
        });
    }
    let mut pools = audit_phases(a, &input.specs, &input.rows, runner)?;
    input.complete(&mut pools);
    if time == generated::TimeConvention::EvalPlus {
        pools.provenance.push(
            "time convention: EvalPlus's (each input's limit the larger of 1 s and 4x the \
             reference's time on it, measured on this machine; each suite at most 60 s + 2 s)"
                .into(),
        );
    }
    Ok(pools)
}

/// The audit's execution phases on read inputs.
fn audit_phases(
    a: &PoolAudit,
    specs: &[generated::TaskSpec],
    rows: &[generated::PoolRow],
    runner: &RefCell<Runner<'_>>,
) -> Result<PoolSet, AuditError> {
    let phase = Cell::new(0usize);
    let run: &PairRunner<'_> = &|jobs: &[execscope_oracle::Job]| {
        let mut r = runner.borrow_mut();
        let name = PHASES[phase.get().min(PHASES.len() - 1)];
        phase.set(phase.get() + 1);
        let before = r.pending;
        let out = r.run(name, jobs);
        if r.pending > before {
            return Err(BatchError::Pending {
                pairs: r.pending - before,
            });
        }
        out.into_iter()
            .enumerate()
            .map(|(index, x)| x.map_err(|message| BatchError::Failed { index, message }))
            .collect::<Result<Vec<SuiteResult>, BatchError>>()
    };
    generated::build_suites(specs, rows, run, a.mode(), a.suites(), a.time())
}

/// Audits the generated pool `a` with `oracle`, journaling every executed pair into `out`'s
/// memo (a rerun into `out` reuses them) and reusing the memos in `memos`. With `shard`, only
/// that shard's pairs are executed and `out` receives the shard's manifest; the pools come back
/// only when no pair was pending.
pub fn audit_pool(
    a: &PoolAudit,
    out: &Path,
    oracle: &Oracle,
    shard: Option<Shard>,
    memos: &[PathBuf],
    progress: Option<ProgressFn>,
) -> Result<AuditRun, ShardError> {
    let mut m = Manifest::running(
        "audit",
        shard.unwrap_or(Shard { index: 0, count: 1 }),
        a.inputs()?,
        a.pool.display().to_string(),
        oracle,
    );
    std::fs::create_dir_all(out).map_err(io(out))?;
    if shard.is_some() {
        write_manifest(out, &m)?;
    }
    let mut runner = Runner::new(oracle, progress);
    runner.set_shard(shard);
    runner.load_memo(out);
    for memo in memos {
        let file = if memo.is_dir() {
            memo.join(MEMO_FILE)
        } else {
            memo.clone()
        };
        if !file.is_file() {
            return Err(ShardError::Io {
                path: file,
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no memo file here"),
            });
        }
        runner.load_memo_file(&file, false);
    }
    runner
        .open_journal(out, true)
        .map_err(io(&out.join(MEMO_FILE)))?;
    let mut shared = a
        .references
        .as_deref()
        .map(|p| SharedMemo::open(p, &mut runner));
    let cell = RefCell::new(runner);
    let result = audit_with(a, &cell, shared.as_mut());
    let runner = cell.into_inner();
    runner.finish();
    if let Some(e) = &runner.journal_error {
        return Err(ShardError::Io {
            path: out.join(MEMO_FILE),
            source: std::io::Error::other(e.clone()),
        });
    }
    let pools = match result {
        Ok(mut pools) => {
            pools
                .provenance
                .push(oracle_line(&m.isolation, &m.privileges, &m.runner));
            Some(Box::new(pools))
        }
        Err(AuditError::Run(BatchError::Pending { .. })) => None,
        Err(e) => return Err(e.into()),
    };
    m.state = "done".into();
    m.pending = runner.pending;
    m.phase = runner.pending_phase.clone();
    m.executed = runner.pairs;
    m.reused = runner.reused;
    if shard.is_some() {
        write_manifest(out, &m)?;
    }
    Ok(AuditRun {
        pools,
        run: ShardRun {
            manifest: m,
            memo_rows: runner.memo_rows,
        },
        references: shared,
    })
}

/// Merges `audit --pool --shard` partials: the union of their memos into `out`, then the audit
/// replayed from it with no oracle ([`super::Merged::Round`] while pairs of a later phase are
/// pending: run the shards again with `--memo-from out`).
pub(super) fn merge_audit(
    ms: &[(PathBuf, Manifest)],
    out: &Path,
) -> Result<super::Merged, ShardError> {
    let m0 = &ms[0].1;
    let rows = union_memos(ms, true)?;
    let get = |k: &str| m0.inputs.get(k).cloned().unwrap_or_default();
    let a = PoolAudit {
        pool: PathBuf::from(&m0.source),
        tasks: PathBuf::from(get("tasks")),
        settings: m0
            .inputs
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "pool_sha256" | "tasks_sha256" | "tasks"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        references: None,
    };
    check_inputs_file(&a.pool, &get("pool_sha256"))?;
    check_inputs_file(&a.tasks, &get("tasks_sha256"))?;
    std::fs::create_dir_all(out).map_err(io(out))?;
    write_memo(out, &rows)?;
    let cell = RefCell::new(super::replay_runner(m0, &ms[0].0, out)?);
    let result = audit_with(&a, &cell, None);
    let runner = cell.into_inner();
    match result {
        Ok(mut pools) => {
            pools
                .provenance
                .push(oracle_line(&m0.isolation, &m0.privileges, &m0.runner));
            Ok(super::Merged::Audit {
                pools: Box::new(pools),
                settings: a.settings,
            })
        }
        Err(AuditError::Run(BatchError::Pending { .. }))
            if ms.iter().any(|(_, m)| m.pending > 0) =>
        {
            Ok(super::Merged::Round {
                pending: runner.pending,
                phase: runner.pending_phase.clone().unwrap_or_default(),
                rows: rows.len(),
            })
        }
        Err(AuditError::Run(BatchError::Pending { .. })) => Err(ShardError::Incomplete(format!(
            "{} pair(s) of phase {}",
            runner.pending,
            runner.pending_phase.as_deref().unwrap_or("?")
        ))),
        Err(e) => Err(e.into()),
    }
}
