//! `execscope audit`: admission / selection / return audit of retrieval or generated pools.

use super::{open_engine, EvalArgs};
use crate::atomic::write_atomic;
use crate::audit::account::AuditConfig;
use crate::audit::retrieval::{RetrievalSpec, DEFAULT_K, DEFAULT_VISIBLE};
use crate::audit::view::AuditView;
use crate::audit::{AuditRun, PoolSet};
use crate::oracle::Oracle;
use crate::oracle::{IsolationChoice, OracleConfig};
use crate::report::audit as tables;
use crate::report::Format;
use crate::shard::audit::PoolAudit;
use anyhow::{bail, Context};
use clap::Args;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// `execscope audit`.
#[derive(Args, Clone, Debug)]
pub struct AuditArgs {
    /// Bundle directory (retrieval pools).
    pub bundle: Option<PathBuf>,
    /// System whose top-k forms each pool.
    #[arg(long)]
    pub system: Option<String>,
    #[arg(long, default_value_t = DEFAULT_K)]
    pub k: usize,
    /// Visible tests (the first m of each suite) used as self-tests.
    #[arg(long, default_value_t = DEFAULT_VISIBLE)]
    pub visible: usize,
    /// Pool order inside score ties (retrieval pools): row (the release's), pessimistic or
    /// optimistic (snippets passing the whole suite last / first).
    #[arg(long, default_value = "row", value_parser = super::one_of::<crate::metrics::TiePolicy>(crate::metrics::TiePolicy::ALL.map(crate::metrics::TiePolicy::as_str)))]
    pub ties: crate::metrics::TiePolicy,
    /// Generated pool: candidates JSONL (task_id, sample_index, code, self_tests[, profile, cohort]).
    #[arg(long, requires = "tasks")]
    pub pool: Option<PathBuf>,
    /// Task file for --pool: execscope's audit task file (task_id, function_name, base_tests,
    /// plus_tests), or a benchmark file as published (HumanEval, MBPP, EvalPlus, HumanEval-X in
    /// any of its languages; docs/formats.md).
    #[arg(long, requires = "pool")]
    pub tasks: Option<PathBuf>,
    /// The task file's format: humaneval, humaneval-x, mbpp, evalplus or execscope (default: from
    /// its content).
    #[arg(long, value_name = "FORMAT", requires = "tasks")]
    pub from: Option<crate::build::formats::Format>,
    /// The pool's format: samples (human-eval/EvalPlus samples.jsonl, HumanEval-X generations), bigcode
    /// (generations.json), lm-eval (--log_samples jsonl) or execscope (default: from its content).
    #[arg(long = "pool-from", value_name = "FORMAT", requires = "pool")]
    pub pool_from: Option<crate::build::formats::pools::PoolFormat>,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = super::one_of::<Format>(Format::ALL.map(Format::as_str)))]
    pub format: Format,
    /// Also write every table in every format, and audit-view.json, into this directory; for
    /// `--pool`, it also holds the audit's journal and the per-sample results files (without
    /// it the journal goes under the cache directory, keyed by the pool and task files, and
    /// the results files beside the pool, as human-eval and EvalPlus write them).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed of the bootstrap and of sampled orders.
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    /// Task-cluster bootstrap draws.
    #[arg(long, default_value_t = crate::stats::CLUSTER_DRAWS)]
    pub draws: usize,
    /// Orders sampled when m! exceeds 40,320.
    #[arg(long = "order-sample", default_value_t = crate::audit::orders::DEFAULT_SAMPLE)]
    pub order_sample: usize,
    /// Wall budget of each test in the oracle, seconds.
    #[arg(long, default_value_t = 5.0)]
    pub timeout: f64,
    /// Oracle workers (default: four per core, or `EXECSCOPE_ORACLE_WORKERS`).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Isolation: auto, rlimits, netns, bubblewrap, userns.
    #[arg(long, default_value = "auto")]
    pub isolation: IsolationChoice,
    /// Generated pools: run every test of every suite, so the per-test outcomes (audit-view.json,
    /// the results files) are complete. Without it each candidate's base and plus suites stop
    /// at their first test that does not pass (the later ones are recorded `not-run`): P_b, P+
    /// and pass@k are the same either way.
    #[arg(long = "all-tests", requires = "pool")]
    pub all_tests: bool,
    /// Generated pools: whose time limits the tests run under. `execscope` (default): one
    /// budget per test (`--timeout`), the same for every input and machine. `evalplus` (EvalPlus
    /// task files): EvalPlus's own rule, to reproduce its verdicts: each input's limit the larger
    /// of 1 s and 4x the reference solution's time on it, measured on this machine; each suite at
    /// most 60 s (+2 s). The outputs' provenance records it.
    #[arg(
        long = "time-convention",
        value_name = "NAME",
        default_value = "execscope",
        requires = "pool"
    )]
    pub time_convention: crate::audit::generated::TimeConvention,
    /// Generated pools: execute only shard i of n (0 ≤ i < n) of the pairs, chosen by a stable
    /// hash of each pair's key; `--out` then receives a partial result for `execscope merge`.
    #[arg(long, value_name = "I/N", requires = "pool", requires = "out")]
    pub shard: Option<crate::shard::Shard>,
    /// Generated pools: reuse pair results from this memo (a file, or a directory holding one,
    /// e.g. the output of `execscope merge` after a round of shards). Repeatable.
    #[arg(long = "memo-from", value_name = "PATH", requires = "pool")]
    pub memo_from: Vec<PathBuf>,
    /// EvalPlus task files: compute the reference solution's outputs again rather than read them
    /// from the machine's shared memo of them (in the cache directory, keyed by each reference
    /// job's code and inputs; a run adds what it computed).
    #[arg(long = "fresh-references", requires = "pool")]
    pub fresh_references: bool,
}

pub fn audit(args: &AuditArgs) -> anyhow::Result<ExitCode> {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let mut cfg = OracleConfig {
        timeout: Duration::from_secs_f64(args.timeout),
        isolation: args.isolation,
        ..OracleConfig::default()
    };
    if let Some(w) = args.workers {
        cfg.workers = w.max(1);
    }
    let table_cfg = table_config(args);
    let run = match (&args.pool, &args.tasks) {
        (Some(pool), Some(tasks)) => {
            if args.bundle.is_some() || args.system.is_some() {
                bail!("give either a bundle with --system, or --pool with --tasks, not both");
            }
            return journaled(args, cfg, pool, tasks);
        }
        _ => {
            let system = args
                .system
                .as_deref()
                .context("retrieval audit needs --system (or give --pool and --tasks)")?;
            let engine = open_engine(args.bundle.as_deref(), &EvalArgs::default())?;
            super::cutoffs_fit(&[args.k], engine.bundle().corpus.len(), "--k")?;
            let spec = RetrievalSpec {
                system: system.to_string(),
                k: args.k,
                visible: args.visible,
                ties: args.ties,
            };
            let notes = [format!(
                "pool order inside score ties: {} (--ties)",
                args.ties
            )];
            let progress = |done: usize, total: usize| {
                let step = (total / 20).max(1);
                if total > 0 && (done.is_multiple_of(step) || done == total) {
                    eprintln!("audit: {done}/{total} pairs executed");
                }
            };
            let run =
                crate::retrieval_audit::run(&engine, &spec, cfg, &notes, &table_cfg, &progress);
            super::print_notices(&engine);
            run?
        }
    };
    render_run(&run, args.format, args.out.as_deref())?;
    Ok(ExitCode::SUCCESS)
}

/// The settings of the audit's tables the arguments ask for.
fn table_config(args: &AuditArgs) -> AuditConfig {
    AuditConfig {
        draws: args.draws,
        seed: args.seed,
        order_sample: args.order_sample.max(1),
    }
}

/// The settings of an audit's tables, as a shard's manifest records them.
fn settings_of(cfg: &AuditConfig) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("seed".to_string(), cfg.seed.to_string()),
        ("draws".to_string(), cfg.draws.to_string()),
        ("order_sample".to_string(), cfg.order_sample.to_string()),
    ])
}

/// The table settings a shard's manifest recorded (for `execscope merge`).
pub(super) fn config_from(settings: &BTreeMap<String, String>) -> anyhow::Result<AuditConfig> {
    let get = |k: &str| -> anyhow::Result<u64> {
        settings
            .get(k)
            .and_then(|v| v.parse().ok())
            .with_context(|| format!("the shards' manifests have no numeric `{k}` input"))
    };
    Ok(AuditConfig {
        seed: get("seed")?,
        draws: get("draws")? as usize,
        order_sample: (get("order_sample")? as usize).max(1),
    })
}

/// Where an audit of `pool` against `tasks` journals when no `--out` is given: under the cache
/// directory, keyed by both files' contents and the formats they are read in, so the same
/// command finds its journal again and another pool or task file never does.
fn default_journal(args: &AuditArgs, pool: &Path, tasks: &Path) -> anyhow::Result<PathBuf> {
    let base = crate::store::Store::platform()
        .map(|s| s.dir)
        .context("no cache directory for the audit's journal (set HOME, XDG_CACHE_HOME or EXECSCOPE_CACHE_DIR, or give --out DIR)")?;
    let digest = |p: &Path| -> anyhow::Result<String> {
        let bytes = std::fs::read(p).with_context(|| format!("reading {}", p.display()))?;
        Ok(crate::bundle::sha256_hex(&bytes))
    };
    let key = format!(
        "{}\n{}\n{:?}\n{:?}",
        digest(pool)?,
        digest(tasks)?,
        args.from.map(|f| f.to_string()),
        args.pool_from.map(|f| f.to_string())
    );
    let stem = pool
        .file_name()
        .map(|n| {
            n.to_string_lossy().replace(
                |c: char| !c.is_ascii_alphanumeric() && c != '.' && c != '-' && c != '_',
                "_",
            )
        })
        .unwrap_or_default();
    let hash = &crate::bundle::sha256_hex(key.as_bytes())[..16];
    Ok(base.join("audit-journals").join(format!("{stem}-{hash}")))
}

/// The command line as typed, for "run it again" (arguments with spaces quoted).
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.is_empty() || a.contains([' ', '\'', '"', '$', '`', '\\']) {
                format!("'{}'", a.replace('\'', "'\\''"))
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `audit --pool …`: every executed pair journaled (into `--out`, else the default journal
/// directory), so a killed or interrupted audit rerun executes only what is missing; with
/// `--shard`, only the shard's pairs, and `--out` receives the shard's partial result instead
/// of the tables.
fn journaled(
    args: &AuditArgs,
    cfg: OracleConfig,
    pool: &Path,
    tasks: &Path,
) -> anyhow::Result<ExitCode> {
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => default_journal(args, pool, tasks)?,
    };
    let oracle = Oracle::new(cfg).context("starting the execution oracle")?;
    let table_cfg = table_config(args);
    let mut settings = settings_of(&table_cfg);
    if let Some(f) = args.from {
        settings.insert("from".into(), f.to_string());
    }
    if let Some(f) = args.pool_from {
        settings.insert("pool_from".into(), f.to_string());
    }
    if args.all_tests {
        settings.insert(crate::shard::audit::ALL_TESTS.into(), "true".into());
    }
    if args.time_convention != crate::audit::generated::TimeConvention::Execscope {
        settings.insert(
            crate::shard::audit::TIME_CONVENTION.into(),
            args.time_convention.name().into(),
        );
    }
    let references = match args.fresh_references {
        true => None,
        false => crate::store::Store::platform()
            .map(|s| s.dir.join(crate::build::shared_memo::REFERENCE_MEMO)),
    };
    let a = PoolAudit {
        pool: pool.to_path_buf(),
        tasks: tasks.to_path_buf(),
        settings,
        references,
    };
    if args.out.is_none() {
        eprintln!(
            "audit: executed pairs are journaled in {} (interrupted, the same command resumes \
             from them; --out DIR puts them, the tables and the results files there)",
            dir.display()
        );
    }
    super::progress::resume_on_interrupt(dir.join(crate::build::exec::MEMO_FILE), command_line());
    let run = crate::shard::audit::audit_pool(
        &a,
        &dir,
        &oracle,
        args.shard,
        &args.memo_from,
        Some(super::progress::pairs("audit")),
    )
    .with_context(|| format!("auditing {} into {}", pool.display(), dir.display()))?;
    let m = &run.run.manifest;
    if args.shard.is_some() {
        super::merge::print_shard_run(
            m,
            run.run.memo_rows,
            &dir,
            "every phase ran: merge the shards to write the audit",
        );
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(r) = run
        .references
        .as_ref()
        .filter(|r| r.reused + r.appended > 0)
    {
        eprintln!(
            "audit: EvalPlus reference outputs: {} jobs read from the shared memo, {} computed \
             and added to it ({}; --fresh-references computes them all)",
            r.reused,
            r.appended,
            r.path().display()
        );
    }
    if let Some(e) = run.references.as_ref().and_then(|r| r.error.as_ref()) {
        eprintln!("audit: warning: the shared memo of reference outputs was not written: {e}");
    }
    if m.reused > 0 {
        eprintln!(
            "audit: resumed: {} pairs reused from the journal in {} ({} executed now)",
            m.reused,
            dir.display(),
            m.executed
        );
    }
    let pools = run
        .pools
        .context("pairs are pending although no shard was given")?;
    render(&pools, &table_cfg, args.format, args.out.as_deref())?;
    write_results(&pools, pool, args.out.as_deref());
    Ok(ExitCode::SUCCESS)
}

/// The per-sample results files (human-eval's `<pool>_results.jsonl`, and EvalPlus's
/// `eval_results.json` for an EvalPlus task file) into `out`, else beside the pool as both
/// harnesses write them. A results file that cannot be written is a warning: the audit's
/// tables are already out and its journal kept.
pub(super) fn write_results(pools: &PoolSet, pool: &Path, out: Option<&Path>) {
    use crate::report::pool_results;
    let dir = out.map_or_else(
        || pool.parent().map(Path::to_path_buf).unwrap_or_default(),
        Path::to_path_buf,
    );
    let name = pool
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "pool".into());
    let (he, ep) = pool_results::result_names(&name);
    let mut files = Vec::new();
    match std::fs::read_to_string(pool) {
        Ok(text) => files.push((dir.join(he), pool_results::humaneval_results(pools, &text))),
        Err(e) => eprintln!(
            "execscope: warning: no per-sample results file: reading {} again: {e}",
            pool.display()
        ),
    }
    if pools.task_format == "evalplus" {
        files.push((dir.join(ep), pool_results::evalplus_results(pools)));
    }
    for (path, text) in files {
        match write_atomic(&path, text.as_bytes()) {
            Ok(()) => eprintln!("wrote {}", path.display()),
            Err(e) => eprintln!(
                "execscope: warning: could not write {}: {e} (give --out DIR for a directory \
                 you can write)",
                path.display()
            ),
        }
    }
}

/// [`render_run`] of the accounting of `pools` under `cfg`.
pub(super) fn render(
    pools: &PoolSet,
    cfg: &AuditConfig,
    format: Format,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    render_run(&AuditRun::new(pools.clone(), cfg), format, out)
}

/// Prints the audit's tables on stdout in `format` and, with `out`, writes every table in every
/// format, audit.json and audit-view.json there.
fn render_run(run: &AuditRun, format: Format, out: Option<&Path>) -> anyhow::Result<()> {
    let (pools, audits) = (&run.pools, &run.audits);
    let tables = tables::all_tables(pools, audits);
    // JSON is one document (tables plus the raw per-cohort results); the rest are concatenated.
    let doc = serde_json::json!({
        "mode": pools.mode,
        "provenance": pools.provenance,
        "rejected_rows": pools.rejected,
        "missing_tasks": pools.missing_tasks,
        "tables": tables.iter().map(|t| t.to_json()).collect::<Vec<_>>(),
        "cohorts": audits,
    });
    for w in tables::input_warnings(pools) {
        eprintln!("execscope: warning: {w}");
    }
    let mut stdout = std::io::stdout().lock();
    if format == Format::Json {
        stdout.write_all((serde_json::to_string_pretty(&doc)? + "\n").as_bytes())?;
    } else {
        for t in &tables {
            stdout.write_all(t.render(format).as_bytes())?;
            if format == Format::Table || format == Format::Markdown {
                stdout.write_all(b"\n")?;
            }
        }
    }
    if let Some(dir) = out {
        // Every file through the one atomic writer: an interrupted run leaves no half file.
        let write = |path: std::path::PathBuf, text: String| {
            write_atomic(&path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))
        };
        for t in &tables {
            for f in Format::ALL {
                write(
                    dir.join(format!("{}.{}", t.name, f.extension())),
                    t.render(f),
                )?;
            }
        }
        write(dir.join("audit.json"), serde_json::to_string_pretty(&doc)?)?;
        let view = AuditView::build(pools, audits);
        write(
            dir.join("audit-view.json"),
            serde_json::to_string_pretty(&view)?,
        )?;
        eprintln!(
            "wrote {} tables × {} formats, audit.json and audit-view.json under {}",
            tables.len(),
            Format::ALL.len(),
            dir.display()
        );
    }
    Ok(())
}
