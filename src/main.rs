//! The `execscope` binary: a thin command-line layer over the library.

use clap::{Args, Parser, Subcommand};
use execscope::cli;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "execscope",
    version,
    about = "Evaluate code retrieval and generation by execution, not text similarity.",
    long_about = "Evaluate code retrieval and generation by execution, not text similarity.\n\n\
                  With no command, opens the dashboard on the embedded benchmark in data/bundle.\n\
                  `execscope BUNDLE` opens the dashboard on another bundle (the real release included)."
)]
struct Cli {
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
    /// Admission / selection / return audit of retrieval or generated pools.
    Audit(cli::AuditArgs),
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

fn main() -> ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // `execscope BUNDLE` is shorthand for `execscope tui BUNDLE`.
    if args.len() == 2 {
        let a = args[1].to_string_lossy().to_string();
        let known = [
            "tui", "report", "plot", "check", "build", "exec", "audit", "help",
        ];
        if !a.starts_with('-') && !known.contains(&a.as_str()) && PathBuf::from(&a).exists() {
            args.insert(1, "tui".into());
        }
    }
    let parsed = Cli::parse_from(args);
    let result = match parsed.command {
        None => cli::tui(&cli::TuiArgs::default()),
        Some(Command::Tui(a)) => cli::tui(&a),
        Some(Command::Report(a)) => cli::report(&a),
        Some(Command::Plot(a)) => cli::plot(&a),
        Some(Command::Check(a)) => cli::check(&a),
        Some(Command::Build(a)) => cli::build(&a),
        Some(Command::Exec(ExecArgs {
            command: ExecCommand::Verify(a),
        })) => cli::verify(&a),
        Some(Command::Audit(a)) => cli::audit(&a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("execscope: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
