//! `execscope fuse`: a hybrid of systems already in a bundle.

use super::{open_engine, EvalArgs};
use crate::bundle::Provenance;
use crate::systems::fuse::{fuse as fuse_scores, FuseConfig, Method, Norm};
use crate::systems::{self, AddOptions};
use anyhow::bail;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope fuse`.
#[derive(Args, Clone, Debug)]
pub struct FuseArgs {
    /// Bundle directory.
    pub bundle: PathBuf,
    /// Name of the hybrid (its file stem under embeddings/).
    #[arg(long)]
    pub name: String,
    /// rrf, combsum or combmnz.
    #[arg(long, value_parser = super::one_of::<Method>(["rrf", "combsum", "combmnz"]))]
    pub method: Method,
    /// Score normalisation of combsum/combmnz: minmax (default) or zscore.
    #[arg(long, value_parser = super::one_of::<Norm>(["minmax", "zscore"]))]
    pub norm: Option<Norm>,
    /// RRF's constant k.
    #[arg(long)]
    pub k: Option<f64>,
    /// CombMNZ: a part retrieves the snippets it ranks within this depth.
    #[arg(long)]
    pub depth: Option<usize>,
    /// Overwrite a system of the same name.
    #[arg(long)]
    pub replace: bool,
    /// Neither read nor write the rank cache.
    #[arg(long = "no-cache")]
    pub no_cache: bool,
    /// The systems to fuse (ids as the leaderboard shows them; BM25 included), at least two.
    #[arg(required = true, num_args = 2..)]
    pub parts: Vec<String>,
}

/// The fusion settings the arguments ask for, refusing options the method does not use.
fn config(args: &FuseArgs) -> anyhow::Result<FuseConfig> {
    let d = FuseConfig::default();
    let rrf = args.method == Method::Rrf;
    if rrf && args.norm.is_some() {
        bail!("--norm applies to combsum and combmnz; rrf fuses ranks");
    }
    if !rrf && args.k.is_some() {
        bail!("--k applies to rrf only");
    }
    if args.method != Method::CombMnz && args.depth.is_some() {
        bail!("--depth applies to combmnz only");
    }
    let k = args.k.unwrap_or(d.k);
    if !k.is_finite() || k < 0.0 {
        bail!("--k must be a finite number ≥ 0");
    }
    let depth = args.depth.unwrap_or(d.depth);
    if depth == 0 {
        bail!("--depth must be at least 1");
    }
    Ok(FuseConfig {
        method: args.method,
        norm: args.norm.unwrap_or(d.norm),
        k,
        depth,
    })
}

pub fn fuse(args: &FuseArgs) -> anyhow::Result<ExitCode> {
    let cfg = config(args)?;
    let mut seen = std::collections::HashSet::new();
    if let Some(dup) = args.parts.iter().find(|p| !seen.insert(p.as_str())) {
        bail!("system {dup:?} is named twice");
    }
    let eval = EvalArgs {
        no_cache: args.no_cache,
        ..EvalArgs::default()
    };
    let engine = open_engine(Some(&args.bundle), &eval)?;
    super::load_rows(&engine)?;
    systems::check_name(&args.bundle, engine.bundle(), &args.name, args.replace)?;
    let mut parts = Vec::new();
    for p in &args.parts {
        match engine.scores().iter().find(|s| &s.id == p) {
            Some(s) => parts.push(s.scores.matrix().view()),
            None => bail!(
                "no system {p:?} in {} (systems: {})",
                args.bundle.display(),
                engine
                    .scores()
                    .iter()
                    .map(|s| s.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    let fused = fuse_scores(&parts, &cfg);
    let rrf = cfg.method == Method::Rrf;
    let provenance = Provenance::Fused {
        method: cfg.method.as_str().to_string(),
        parts: args.parts.clone(),
        norm: (!rrf).then(|| cfg.norm.as_str().to_string()),
        k: rrf.then_some(cfg.k),
        depth: (cfg.method == Method::CombMnz).then_some(cfg.depth),
    };
    let meta = systems::load_meta(&args.bundle)?;
    let what = provenance.describe();
    let path = systems::add_system(
        &args.bundle,
        &meta,
        &args.name,
        &fused,
        provenance,
        &AddOptions {
            replace: args.replace,
        },
    )?;
    eprintln!("{} ({what}) written to {}", args.name, path.display());
    Ok(ExitCode::SUCCESS)
}
