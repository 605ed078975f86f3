//! `execscope plot`: publication figures (SVG or PNG) from the same rows the report prints.

use super::{open_engine, EvalArgs};
use crate::analysis::significance::SigConfig;
use crate::plot::{self, Figure, FunnelSpec, ImageFormat, PlotInputs};
use anyhow::{bail, Context};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope plot`.
#[derive(Args, Clone, Debug)]
pub struct PlotArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Which figure.
    #[arg(long, value_enum, conflicts_with = "all")]
    pub figure: Option<Figure>,
    /// Write every figure as `DIR/<figure>.svg` and `DIR/<figure>.png`.
    #[arg(long)]
    pub all: bool,
    /// With --all: only this format (default: both).
    #[arg(long, value_enum, requires = "all")]
    pub format: Option<ImageFormat>,
    /// Output file (FILE.svg or FILE.png) with --figure, or directory with --all. A missing
    /// directory is created, and the command says so on stderr.
    #[arg(long)]
    pub out: PathBuf,
    /// PNG resolution: 2 draws every PNG at twice the width and height (sharp text and lines
    /// for slides and high-density screens; the layout is the same). SVG is vector: unaffected.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub scale: u32,
    /// Bootstrap replicates for the intervals.
    #[arg(long, default_value_t = crate::stats::DEFAULT_REPLICATES)]
    pub bootstrap: usize,
    /// Bootstrap seed.
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    /// Funnel: the audited system (default: the leaderboard's leader).
    #[arg(long)]
    pub system: Option<String>,
    /// Funnel: pool size, the system's top k per query.
    #[arg(long, default_value_t = crate::audit::retrieval::DEFAULT_K)]
    pub k: usize,
    /// Funnel: visible self-tests per query.
    #[arg(long, default_value_t = crate::audit::retrieval::DEFAULT_VISIBLE)]
    pub visible: usize,
    #[command(flatten)]
    pub eval: EvalArgs,
}

pub fn plot(args: &PlotArgs) -> anyhow::Result<ExitCode> {
    if args.bootstrap == 0 {
        bail!("--bootstrap needs at least 1 replicate");
    }
    // Refuse bad extensions before loading anything.
    let figure = match (args.figure, args.all) {
        (Some(f), false) => {
            if ImageFormat::from_path(&args.out)? == ImageFormat::Svg && args.scale > 1 {
                bail!(
                    "--scale {} applies to PNG figures; {} is an SVG (vector: it scales without it)",
                    args.scale,
                    args.out.display()
                );
            }
            Some(f)
        }
        (None, true) => None,
        _ => bail!("give --figure F (with --out FILE.svg|FILE.png) or --all (with --out DIR)"),
    };
    let engine = open_engine(args.bundle.as_deref(), &args.eval)?;
    let dir = match figure {
        Some(_) => args.out.parent().filter(|p| !p.as_os_str().is_empty()),
        None => Some(args.out.as_path()),
    };
    if let Some(dir) = dir.filter(|d| !d.exists()) {
        // A missing output directory is created, never silently: the path may be a typo.
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the output directory {}", dir.display()))?;
        eprintln!("created directory {} (it did not exist)", dir.display());
    }
    if figure.is_none_or(Figure::reads_rows) {
        super::load_rows(&engine)?;
    }
    let mut inputs = PlotInputs::new(
        &engine,
        SigConfig {
            replicates: args.bootstrap,
            seed: args.seed,
        },
    );
    inputs.scale = args.scale;
    inputs.funnel = FunnelSpec {
        system: args.system.clone(),
        k: args.k,
        visible: args.visible,
    };
    match figure {
        Some(f) => {
            plot::write_figure(&inputs, f, &args.out)?;
            eprintln!("wrote {}", args.out.display());
        }
        None => {
            let formats = match args.format {
                Some(f) => vec![f],
                None => vec![ImageFormat::Svg, ImageFormat::Png],
            };
            let files = plot::write_all(&inputs, &args.out, &formats)
                .with_context(|| format!("writing figures under {}", args.out.display()))?;
            eprintln!("wrote {} figures under {}", files.len(), args.out.display());
        }
    }
    super::print_notices(&engine);
    Ok(ExitCode::SUCCESS)
}
