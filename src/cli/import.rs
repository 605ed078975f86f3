//! `execscope import`: bring a system from outside (a TREC run or a score matrix) into a bundle.

use crate::bundle::{files, sha256_hex, Provenance};
use crate::systems::{self, import, AddOptions};
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

fn base_name(p: &std::path::Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub fn import(args: &ImportArgs) -> anyhow::Result<ExitCode> {
    let root = &args.bundle;
    let bundle = systems::load_meta(root)?;
    systems::check_name(root, &bundle, &args.name, args.replace)?;
    let (scores, provenance, summary) = match (&args.run, &args.scores) {
        (Some(run), _) => {
            let bytes = files::read(run).with_context(|| format!("reading {}", run.display()))?;
            let r = import::parse_run(run, &bytes, &bundle)?;
            let summary = format!(
                "{} run lines, up to {} snippets per query{}",
                r.lines,
                r.depth,
                if r.empty_queries.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} queries without lines (all their snippets tie): {}",
                        r.empty_queries.len(),
                        r.empty_queries.join(", ")
                    )
                }
            );
            let p = Provenance::ImportedRun {
                file: base_name(run),
                sha256: sha256_hex(&bytes),
                lines: r.lines,
                depth: r.depth,
                tag: r.tag,
            };
            (r.scores, p, summary)
        }
        (None, Some(path)) => {
            let bytes = files::read(path).with_context(|| format!("reading {}", path.display()))?;
            let m = import::parse_scores_npy(path, &bytes, &bundle)?;
            let summary = format!("{} × {} scores", m.nrows(), m.ncols());
            let p = Provenance::ImportedScores {
                file: base_name(path),
                sha256: sha256_hex(&bytes),
            };
            (m, p, summary)
        }
        (None, None) => anyhow::bail!("give --run RUN or --scores S.npy"),
    };
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
