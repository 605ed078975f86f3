//! `execscope import`: bring a system from outside (a TREC run or a score matrix) into a bundle.

use crate::bundle::files;
use crate::systems::import::{ImportFormat, Imported};
use crate::systems::{self, AddOptions};
use anyhow::Context;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope import`.
#[derive(Args, Clone, Debug)]
pub struct ImportArgs {
    /// Bundle directory.
    pub bundle: PathBuf,
    /// Name of the new system (its file stem under embeddings/).
    #[arg(long)]
    pub name: String,
    /// A TREC run file: `qid Q0 docid rank score tag` lines, ids as in the bundle.
    #[arg(long, conflicts_with = "scores", required_unless_present = "scores")]
    pub run: Option<PathBuf>,
    /// A dense score matrix (.npy, float32/64, queries × corpus in the bundle's file order).
    #[arg(long)]
    pub scores: Option<PathBuf>,
    /// Overwrite a system of the same name.
    #[arg(long)]
    pub replace: bool,
}

pub fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let root = &args.bundle;
    let bundle = systems::load_meta(root)?;
    systems::check_name(root, &bundle, &args.name, args.replace)?;
    let (format, file) = match (&args.run, &args.scores) {
        (Some(run), _) => (ImportFormat::TrecRun, run),
        (None, Some(path)) => (ImportFormat::ScoreMatrix, path),
        (None, None) => anyhow::bail!("give --run RUN or --scores S.npy"),
    };
    let bytes = files::read(file).with_context(|| format!("reading {}", file.display()))?;
    let Imported {
        scores,
        provenance,
        summary,
    } = format.read(file, &bytes, &bundle)?;
    let path = systems::add_system(
        root,
        &bundle,
        &args.name,
        &scores,
        provenance,
        &AddOptions {
            replace: args.replace,
        },
    )?;
    eprintln!("imported {} ({summary}) into {}", args.name, path.display());
    Ok(ExitCode::SUCCESS)
}
