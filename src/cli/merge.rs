//! `execscope merge`: partial results of `--shard i/n` runs → one bundle, verify file or audit.

use crate::shard::{self, Merged};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit status of a merge whose shards still have pairs pending (run another round).
pub const EXIT_ROUND: u8 = 3;

/// `execscope merge`.
#[derive(Args, Clone, Debug)]
pub struct MergeArgs {
    /// The shards' output directories (each holds a shard.json manifest).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Output directory: the bundle (for `build` shards), verify.jsonl (for `exec verify`), or
    /// the audit's tables, audit.json and audit-view.json (for `audit --pool`; the tables are
    /// also printed), or the bundle an embedding system is written into (for `embed` shards).
    #[arg(long)]
    pub out: PathBuf,
    /// The task file of `build` shards (default: the path they recorded).
    #[arg(long)]
    pub tasks: Option<PathBuf>,
}

pub fn merge(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if let Some(first) = args.parts.first() {
        if shard::read_manifest(first).is_ok_and(|m| m.kind == "embed") {
            let out = crate::embed::shard::merge(&args.parts, &args.out)
                .with_context(|| format!("merging into {}", args.out.display()))?;
            println!(
                "merged {} rows of {} dims; wrote {} and its invocation-table entry",
                out.rows,
                out.dims,
                out.file.display()
            );
            return Ok(ExitCode::SUCCESS);
        }
    }
    let merged = shard::merge(&args.parts, &args.out, args.tasks.as_deref())
        .with_context(|| format!("merging into {}", args.out.display()))?;
    Ok(match merged {
        Merged::Bundle(report) => {
            println!("{report}");
            println!("wrote {}", args.out.display());
            ExitCode::SUCCESS
        }
        Merged::Round {
            pending,
            phase,
            rows,
        } => {
            println!(
                "merged {rows} memo rows into {}; {pending} pair(s) of phase {phase} are still \
                 pending: run every shard again with --memo-from {} and merge again",
                args.out.display(),
                args.out.display()
            );
            ExitCode::from(EXIT_ROUND)
        }
        Merged::Audit { pools, settings } => {
            // The tables on stdout and the files in OUT, as `audit --pool … --out OUT` writes them.
            let cfg = super::audit::config_from(&settings)?;
            super::audit::render(&pools, &cfg, crate::report::Format::Table, Some(&args.out))?;
            if let crate::audit::Mode::Generated { pool, .. } = &pools.mode {
                super::audit::write_results(&pools, std::path::Path::new(pool), Some(&args.out));
            }
            ExitCode::SUCCESS
        }
        Merged::Verify { rows, disagree } => {
            println!(
                "merged {rows} re-executed pairs, {disagree} disagree; wrote {}",
                args.out.join(shard::VERIFY_FILE).display()
            );
            if disagree == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    })
}

/// What a `build` or `audit --pool` shard prints when it stops: its counts, what is left to the
/// other shards (or `all_ran` when every phase ran), and the files it wrote into `dir`.
pub(super) fn print_shard_run(
    m: &crate::shard::Manifest,
    memo_rows: usize,
    dir: &std::path::Path,
    all_ran: &str,
) {
    println!(
        "shard {}: executed {} pairs, reused {} ({} memo rows loaded); isolation {}",
        m.shard, m.executed, m.reused, memo_rows, m.isolation
    );
    match &m.phase {
        Some(phase) => println!(
            "{} pair(s) of phase {phase} belong to other shards: merge this round's shards, \
             then run again with --memo-from <merge output>",
            m.pending
        ),
        None => println!("{all_ran}"),
    }
    println!(
        "wrote {} (manifest {})",
        dir.join(crate::build::exec::MEMO_FILE).display(),
        dir.join(crate::shard::MANIFEST_FILE).display()
    );
}
