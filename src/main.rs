//! The `execscope` binary: a thin command-line layer over the library.

use clap::{Args, CommandFactory, Parser, Subcommand};
use execscope::cli;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "execscope",
    version,
    about = "Evaluate code retrieval and generation by execution, not text similarity.",
    long_about = "Evaluate code retrieval and generation by execution, not text similarity.\n\n\
                  With no command, opens the dashboard on the embedded benchmark in data/bundle.\n\
                  `execscope BUNDLE` opens the dashboard on another bundle (the real release included);\n\
                  every option of `execscope tui` works so too (`execscope BUNDLE --theme light`).",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// `execscope [BUNDLE] [OPTIONS]` is `execscope tui [BUNDLE] [OPTIONS]`.
    #[command(flatten)]
    tui: cli::TuiArgs,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Open the terminal dashboard on a bundle (default: the embedded one).
    Tui(cli::TuiArgs),
    /// Print the leaderboard or another table (table, json, csv, markdown, latex).
    Report(cli::ReportArgs),
    /// Write publication figures (SVG): forest plot, density curves, deception, misses, domains.
    Plot(cli::PlotArgs),
    /// Run every integrity check on a bundle; exits non-zero on failure.
    Check(cli::CheckArgs),
    /// Build a bundle from a task file: mutation, execution oracle, validation gates.
    Build(cli::BuildArgs),
    /// Execution oracle tools.
    Exec(ExecArgs),
    /// Combine the partial results of `--shard i/n` runs into what one machine would write.
    Merge(cli::MergeArgs),
    /// Admission / selection / return audit of retrieval or generated pools.
    Audit(cli::AuditArgs),
    /// Bring a system from outside into a bundle: a TREC run or a query × snippet score matrix.
    Import(cli::ImportArgs),
    /// Add a hybrid of systems already in a bundle (rrf, combsum, combmnz).
    Fuse(cli::FuseArgs),
    /// Write TREC qrels and one run per system for trec_eval, pytrec_eval or ranx.
    Export(cli::ExportArgs),
    /// Embed a bundle with a sentence-embedding model and add it as a dense system.
    Embed(cli::EmbedArgs),
    /// Rank a typed or edited query (or an edited snippet) under every system, with verdicts.
    Probe(cli::ProbeArgs),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh) to stdout.
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) to stdout, e.g. `execscope man > execscope.1`.
    Man,
}

#[derive(Args)]
struct ExecArgs {
    #[command(subcommand)]
    command: ExecCommand,
}

#[derive(Subcommand)]
enum ExecCommand {
    /// Re-execute cached (code, tests) pairs and report disagreements.
    Verify(cli::VerifyArgs),
}

/// The man page, generated from the clap definitions: the top-level page, then one section per
/// subcommand with its synopsis and options.
fn man() -> anyhow::Result<ExitCode> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    let top = Cli::command();
    for sub in top.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("execscope {}", sub.get_name());
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        out.extend(format!(".SH \"{}\"\n{}\n", name.to_uppercase(), about).into_bytes());
        let mut part = Vec::new();
        let page = clap_mangen::Man::new(sub.clone().bin_name(&name));
        page.render_synopsis_section(&mut part)?;
        page.render_options_section(&mut part)?;
        let part = String::from_utf8_lossy(&part)
            .replace(".SH SYNOPSIS", ".SS Synopsis")
            .replace(".SH OPTIONS", ".SS Options");
        out.extend(part.into_bytes());
    }
    std::io::Write::write_all(&mut std::io::stdout().lock(), &out)?;
    Ok(ExitCode::SUCCESS)
}

/// The names of the subcommands, for telling a mistyped one from a missing bundle path.
fn subcommand_names() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

fn main() -> ExitCode {
    let parsed = Cli::parse();
    if parsed.command.is_none() {
        if let Some(path) = &parsed.tui.bundle {
            if let Err(e) = cli::bundle_arg_exists(path, &subcommand_names()) {
                eprintln!("execscope: error: {e:#}");
                return ExitCode::from(2);
            }
        }
    }
    let result = match parsed.command {
        None => cli::tui(&parsed.tui),
        Some(Command::Tui(a)) => cli::tui(&a),
        Some(Command::Report(a)) => cli::report(&a),
        Some(Command::Plot(a)) => cli::plot(&a),
        Some(Command::Check(a)) => cli::check(&a),
        Some(Command::Build(a)) => cli::build(&a),
        Some(Command::Exec(ExecArgs {
            command: ExecCommand::Verify(a),
        })) => cli::verify(&a),
        Some(Command::Merge(a)) => cli::merge(&a),
        Some(Command::Audit(a)) => cli::audit(&a),
        Some(Command::Import(a)) => cli::import(&a),
        Some(Command::Fuse(a)) => cli::fuse(&a),
        Some(Command::Export(a)) => cli::export(&a),
        Some(Command::Embed(a)) => cli::embed(&a),
        Some(Command::Probe(a)) => cli::probe(&a),
        Some(Command::Completions { shell }) => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "execscope", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Man) => man(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("execscope: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
