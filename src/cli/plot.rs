//! `execscope plot`: publication figures (SVG) from the same rows the report prints.

use super::{open_engine, EvalArgs};
use crate::analysis::significance::SigConfig;
use crate::plot::{self, PlotInputs, FIGURES};
use anyhow::{bail, Context};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope plot`.
#[derive(Args, Clone, Debug)]
pub struct PlotArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Which figure: forest, density, bugtypes, misses, domains, pairs, gaps, editsize.
    #[arg(long, conflicts_with = "all")]
    pub figure: Option<String>,
    /// Write every figure as `DIR/<figure>.svg`.
    #[arg(long)]
    pub all: bool,
    /// Output file (FILE.svg) with --figure, or directory with --all.
    #[arg(long)]
    pub out: PathBuf,
    /// Bootstrap replicates for the intervals.
    #[arg(long, default_value_t = crate::stats::DEFAULT_REPLICATES)]
    pub bootstrap: usize,
    /// Bootstrap seed.
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub eval: EvalArgs,
}

pub fn plot(args: &PlotArgs) -> anyhow::Result<ExitCode> {
    if args.bootstrap == 0 {
        bail!("--bootstrap needs at least 1 replicate");
    }
    // Refuse bad names and extensions before loading anything.
    let figure = match (&args.figure, args.all) {
        (Some(f), false) => {
            if !FIGURES.contains(&f.as_str()) {
                bail!("unknown figure {f:?} (one of: {})", FIGURES.join(", "));
            }
            plot::check_extension(&args.out)?;
            Some(f.as_str())
        }
        (None, true) => None,
        _ => bail!("give --figure F (with --out FILE.svg) or --all (with --out DIR)"),
    };
    let engine = open_engine(args.bundle.as_deref(), &args.eval)?;
    let inputs = PlotInputs::new(
        &engine,
        SigConfig {
            replicates: args.bootstrap,
            seed: args.seed,
        },
    );
    match figure {
        Some(f) => {
            plot::write_figure(&inputs, f, &args.out)?;
            eprintln!("wrote {}", args.out.display());
        }
        None => {
            let files = plot::write_all(&inputs, &args.out)
                .with_context(|| format!("writing figures under {}", args.out.display()))?;
            eprintln!("wrote {} figures under {}", files.len(), args.out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
