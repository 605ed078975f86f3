//! `execscope export`: qrels and runs for trec_eval, pytrec_eval and ranx.

use super::{open_engine, EvalArgs};
use crate::systems::export::export_trec;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope export`.
#[derive(Args, Clone, Debug)]
pub struct ExportArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Directory for the TREC files (qrels, runs/, manifest.json).
    #[arg(long)]
    pub trec: PathBuf,
    /// Write only the first N snippets of every query's ranking (default: all).
    #[arg(long)]
    pub depth: Option<usize>,
    #[command(flatten)]
    pub eval: EvalArgs,
}

pub fn export(args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let engine = open_engine(args.bundle.as_deref(), &args.eval)?;
    super::load_rows(&engine)?;
    let cfg = engine.config();
    let s = export_trec(
        engine.bundle(),
        engine.truth(),
        engine.scores(),
        engine.evals(),
        &cfg,
        &args.trec,
        args.depth,
    )?;
    eprintln!(
        "wrote {} files under {} (tie policy {}; {} judged pairs, {} decided by the label fallback, listed in {})",
        s.files.len(),
        args.trec.display(),
        cfg.policy,
        s.judged,
        s.label_fallbacks,
        crate::systems::export::LABEL_FALLBACKS
    );
    if s.run_policy == cfg.policy {
        eprintln!(
            "the runs reproduce `execscope report --ties {}` in trec_eval, pytrec_eval and ranx \
             (manifest.json says which file answers which measure)",
            cfg.policy
        );
    } else {
        eprintln!(
            "note: under ties {} no single run reproduces the report: a tie group's snippets count \
             with their expected value, which trec_eval, pytrec_eval and ranx cannot break ties into. \
             The runs are in the {} order (they reproduce `execscope report --ties {}`, the lower \
             bound); the expected values `execscope report` averages are in {}/<system>.json, per \
             query. For runs that reproduce the report, export with --ties row, pessimistic or \
             optimistic.",
            cfg.policy,
            s.run_policy,
            s.run_policy,
            crate::systems::export::EXPECTED
        );
    }
    Ok(if engine.execution_failures().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
