//! `execscope audit`: admission / selection / return audit of retrieval or generated pools.

use super::{open_engine, EvalArgs};
use crate::atomic::write_atomic;
use crate::audit::account::{audit as account, AuditConfig};
use crate::audit::generated::{self, Runner};
use crate::audit::view::AuditView;
use crate::audit::{retrieval, Mode, PoolSet};
use crate::oracle::lazy::LazyOracle;
use crate::oracle::{IsolationChoice, OracleConfig};
use crate::report::audit as tables;
use crate::report::Format;
use anyhow::{bail, Context};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
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
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Visible tests (the first m of each suite) used as self-tests.
    #[arg(long, default_value_t = 3)]
    pub visible: usize,
    /// Pool order inside score ties (retrieval pools): row (the release's), pessimistic or
    /// optimistic (snippets passing the whole suite last / first).
    #[arg(long, default_value = "row", value_parser = parse_policy)]
    pub ties: crate::metrics::TiePolicy,
    /// Generated pool: candidates JSONL (task_id, sample_index, code, self_tests[, profile, cohort]).
    #[arg(long, requires = "tasks")]
    pub pool: Option<PathBuf>,
    /// Task file for --pool (task_id, function_name, base_tests, plus_tests).
    #[arg(long, requires = "pool")]
    pub tasks: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, default_value = "table", value_parser = parse_format)]
    pub format: Format,
    /// Also write every table in every format, and audit-view.json, into this directory.
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
    /// Oracle workers (default: available cores).
    #[arg(long)]
    pub workers: Option<usize>,
    /// Isolation: auto, rlimits, netns, bubblewrap, userns.
    #[arg(long, default_value = "auto")]
    pub isolation: IsolationChoice,
}

fn parse_policy(s: &str) -> Result<crate::metrics::TiePolicy, String> {
    s.parse()
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
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
    let lazy = LazyOracle::new(cfg);
    let progress = |done: usize, total: usize| {
        let step = (total / 20).max(1);
        if total > 0 && (done.is_multiple_of(step) || done == total) {
            eprint!("\raudit: {done}/{total} pairs executed");
            if done == total {
                eprintln!();
            }
        }
    };
    let runner: &Runner<'_> = &|jobs| lazy.run(jobs, &progress);
    let mut pools: PoolSet = match (&args.pool, &args.tasks) {
        (Some(pool), Some(tasks)) => {
            if args.bundle.is_some() || args.system.is_some() {
                bail!("give either a bundle with --system, or --pool with --tasks, not both");
            }
            let specs = generated::read_tasks(tasks)?;
            let rows = generated::read_pool(pool)?;
            generated::build(
                &specs,
                &rows,
                runner,
                Mode::Generated {
                    pool: pool.display().to_string(),
                    tasks: tasks.display().to_string(),
                },
            )?
        }
        _ => {
            let system = args
                .system
                .as_deref()
                .context("retrieval audit needs --system (or give --pool and --tasks)")?;
            let engine = open_engine(args.bundle.as_deref(), &EvalArgs::default())?;
            let mut pools = retrieval::build_with_ties(
                &engine,
                system,
                args.k,
                args.visible,
                args.ties,
                runner,
            )?;
            pools.provenance.push(format!(
                "pool order inside score ties: {} (--ties)",
                args.ties
            ));
            pools
        }
    };
    pools.provenance.extend(lazy.describe());
    let cfg = AuditConfig {
        draws: args.draws,
        seed: args.seed,
        order_sample: args.order_sample.max(1),
    };
    let audits = account(&pools, &cfg);
    let tables = tables::all_tables(&pools, &audits);
    // JSON is one document (tables plus the raw per-cohort results); the rest are concatenated.
    let doc = serde_json::json!({
        "mode": pools.mode,
        "provenance": pools.provenance,
        "tables": tables.iter().map(|t| t.to_json()).collect::<Vec<_>>(),
        "cohorts": audits,
    });
    let mut out = std::io::stdout().lock();
    if args.format == Format::Json {
        out.write_all((serde_json::to_string_pretty(&doc)? + "\n").as_bytes())?;
    } else {
        for t in &tables {
            out.write_all(t.render(args.format).as_bytes())?;
            if args.format == Format::Table || args.format == Format::Markdown {
                out.write_all(b"\n")?;
            }
        }
    }
    if let Some(dir) = &args.out {
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
        let view = AuditView::build(&pools, &audits);
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
    Ok(ExitCode::SUCCESS)
}
