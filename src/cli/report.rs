//! `execscope report`: the leaderboard and the other tables, in every format.

use super::{open_engine, EvalArgs};
use crate::analysis::Anatomy;
use crate::report::{anatomy, leaderboard, results, Format};

const ANATOMY_TABLES: [&str; 7] = [
    "misses",
    "density",
    "bugtypes",
    "deception-domains",
    "editsize",
    "gaps",
    "difficulty",
];
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope report`.
#[derive(Args, Clone, Debug)]
pub struct ReportArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Output format.
    #[arg(long, default_value = "table", value_parser = parse_format)]
    pub format: Format,
    /// Which table: leaderboard, domains.
    #[arg(long, default_value = "leaderboard")]
    pub table: String,
    /// Also write results/<system>.json in the release's schema into the bundle (or --out).
    #[arg(long = "write-results")]
    pub write_results: bool,
    /// Directory for written files (default: the bundle).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub eval: EvalArgs,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let engine = open_engine(args.bundle.as_deref(), &args.eval)?;
    let lb = leaderboard::build(&engine);
    let text = match (args.table.as_str(), args.format) {
        ("leaderboard", Format::Json) => {
            serde_json::to_string_pretty(&leaderboard::json(&engine, &lb))? + "\n"
        }
        ("leaderboard", f) => leaderboard::table(&lb).render(f),
        ("domains", f) => leaderboard::domain_table(&lb).render(f),
        (name, f) if ANATOMY_TABLES.contains(&name) => {
            let a = Anatomy::compute(&engine);
            let t = match name {
                "misses" => anatomy::misses_table(&a),
                "density" => anatomy::density_table(&a),
                "bugtypes" => anatomy::bugtypes_table(&a),
                "deception-domains" => anatomy::domain_deception_table(&a, &engine.bundle),
                "editsize" => anatomy::editsize_table(&a, None),
                "gaps" => anatomy::gaps_table(&a),
                _ => anatomy::difficulty_table(&a, &engine.bundle),
            };
            t.render(f)
        }
        (other, _) => anyhow::bail!(
            "unknown table {other:?} (leaderboard, domains, {})",
            ANATOMY_TABLES.join(", ")
        ),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    if args.write_results {
        let root = args
            .out
            .clone()
            .unwrap_or_else(|| engine.bundle.root.clone());
        let written = results::write_all(&engine, &root)?;
        eprintln!(
            "wrote {} results files under {}",
            written.len(),
            root.join("results").display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
