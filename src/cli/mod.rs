//! Command implementations behind the binary's subcommands. Each parses nothing itself (clap did)
//! and only wires core results to output.

mod audit;
mod build;
mod embed;
mod export;
mod fuse;
mod import;
mod merge;
mod plot;
mod probe;
mod progress;
mod report;

pub use audit::{audit, AuditArgs};
pub use embed::{embed, EmbedArgs};
pub use export::{export, ExportArgs};
pub use fuse::{fuse, FuseArgs};
pub use import::{import, ImportArgs};
pub use merge::{merge, MergeArgs};
pub use plot::{plot, PlotArgs};
pub use probe::{probe, ProbeArgs};
pub use report::{report, ReportArgs};

use crate::engine::{Engine, EngineOptions};
use crate::metrics::{EvalConfig, TiePolicy};
use crate::rank::RankOptions;
use anyhow::{bail, Context};
use clap::Args;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where the embedded benchmark lives: `$EXECSCOPE_BUNDLE`, else `data/bundle` of the source tree
/// this binary was built from, else `data/bundle` beside the executable or the working directory.
pub fn default_bundle() -> PathBuf {
    if let Some(p) = std::env::var_os("EXECSCOPE_BUNDLE") {
        return PathBuf::from(p);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle");
    if built.join("data/queries.jsonl").exists() {
        return built;
    }
    if let Ok(exe) = std::env::current_exe() {
        for dir in exe.ancestors().skip(1) {
            let cand = dir.join("data/bundle");
            if cand.join("data/queries.jsonl").exists() {
                return cand;
            }
        }
    }
    PathBuf::from("data/bundle")
}

/// `--ks`'s default as clap shows it: [`crate::metrics::DEFAULT_KS`] (a test holds them equal).
const DEFAULT_KS_ARG: &str = "1,3,5,10";

/// Options shared by every command that evaluates a bundle.
#[derive(Args, Clone, Debug)]
pub struct EvalArgs {
    /// Tie policy: row (release-compatible), expected, pessimistic, optimistic.
    #[arg(long = "ties", default_value = "expected", value_parser = one_of::<TiePolicy>(TiePolicy::ALL.map(TiePolicy::as_str)))]
    pub ties: TiePolicy,
    /// Treat scores within this distance as tied (single linkage); 0 = exact ties only.
    #[arg(long = "tie-eps", default_value_t = 0.0)]
    pub tie_eps: f32,
    /// Cutoffs k, comma-separated.
    #[arg(long = "ks", default_value = DEFAULT_KS_ARG, value_delimiter = ',')]
    pub ks: Vec<usize>,
    /// Leave out the BM25 baseline.
    #[arg(long = "no-bm25")]
    pub no_bm25: bool,
    /// Run the execution oracle on pairs the cache lacks (every top-10 pair and each query's own
    /// snippets) instead of falling back to the labels.
    #[arg(long)]
    pub execute: bool,
    /// With --execute: append the new rows to the bundle's data/execution_cache.jsonl.
    #[arg(long = "save-cache", requires = "execute")]
    pub save_cache: bool,
    /// Neither read nor write the rank cache (evaluations, significance tables and, where rows
    /// are read, score matrices, kept under the platform cache directory or $EXECSCOPE_CACHE_DIR).
    #[arg(long = "no-cache")]
    pub no_cache: bool,
}

impl Default for EvalArgs {
    fn default() -> Self {
        EvalArgs {
            ties: TiePolicy::Expected,
            tie_eps: 0.0,
            ks: crate::metrics::DEFAULT_KS.to_vec(),
            no_bm25: false,
            execute: false,
            save_cache: false,
            no_cache: false,
        }
    }
}

/// The parser of an option whose values are a closed set: `--help` lists the names and shell
/// completions offer them (never file names), while the type's own `FromStr` stays the one
/// place that turns a name into a value.
pub(crate) fn one_of<T>(
    names: impl IntoIterator<Item = &'static str>,
) -> impl clap::builder::TypedValueParser<Value = T>
where
    T: std::str::FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(names.into_iter().collect::<Vec<_>>())
        .try_map(|s| s.parse::<T>())
}

/// Why `execscope PATH` cannot open PATH when it does not exist: a word close to a subcommand's
/// name is a mistyped subcommand, anything else a missing bundle directory. Both name the next
/// step.
pub fn bundle_arg_exists(path: &Path, subcommands: &[String]) -> anyhow::Result<()> {
    if path.exists() {
        return Ok(());
    }
    let word = path.to_string_lossy();
    let is_word = !word.contains(['/', '\\', '.']);
    let near = subcommands
        .iter()
        .filter(|c| is_word && strsim::damerau_levenshtein(c, &word) <= 2.max(word.len() / 3))
        .min_by_key(|c| strsim::damerau_levenshtein(c, &word));
    match near {
        Some(c) => bail!(
            "{word:?} is neither a subcommand nor a directory; did you mean `execscope {c}`? \
             (`execscope --help` lists the subcommands)"
        ),
        None if is_word => bail!(
            "{word:?} is neither a subcommand nor a directory; `execscope --help` lists the \
             subcommands, `execscope BUNDLE` opens a bundle directory"
        ),
        None => bail!(
            "no such directory: {word}; pass a bundle directory (e.g. data/bundle), or none for \
             the embedded benchmark"
        ),
    }
}

impl EvalArgs {
    /// The rank cache to use: none with --no-cache, else the platform's (or $EXECSCOPE_CACHE_DIR).
    pub fn rank_cache(&self) -> Option<crate::store::Store> {
        (!self.no_cache)
            .then(crate::store::Store::platform)
            .flatten()
    }

    pub fn engine_options(&self) -> anyhow::Result<EngineOptions> {
        if self.tie_eps < 0.0 || !self.tie_eps.is_finite() {
            bail!("--tie-eps must be a finite number ≥ 0");
        }
        let eval = EvalConfig {
            policy: self.ties,
            tie_eps: self.tie_eps,
            ..EvalConfig::default()
        }
        .with_ks(&self.ks);
        if eval.ks.is_empty() {
            bail!("--ks needs at least one cutoff ≥ 1");
        }
        Ok(EngineOptions {
            rank: RankOptions {
                bm25: !self.no_bm25,
                keep_rows: true,
            },
            eval,
        })
    }
}

/// Open a bundle (or the embedded default) with the evaluation options.
pub fn open_engine(bundle: Option<&Path>, eval: &EvalArgs) -> anyhow::Result<Engine> {
    open_engine_keeping(bundle, eval, true)
}

/// Print what the engine repaired on the way (damaged cache entries recomputed, score matrices
/// scored again) as warnings on stderr: the core never prints, it keeps notices.
pub fn print_notices(engine: &Engine) {
    for n in engine.take_notices() {
        eprintln!("execscope: warning: {n}");
    }
}

/// Read every score matrix now ([`Engine::load_rows`]), for a command that reads score rows:
/// the I/O happens here, with an error naming what failed, not in the middle of a table.
pub fn load_rows(engine: &Engine) -> anyhow::Result<()> {
    engine.load_rows().with_context(|| {
        format!(
            "reading the score matrices of {}",
            engine.bundle().root.display()
        )
    })
}

/// [`open_engine`], keeping the score matrices in the rank cache for row reads or not (see
/// [`RankOptions::keep_rows`]; a command that reads no score row need not write them).
pub fn open_engine_keeping(
    bundle: Option<&Path>,
    eval: &EvalArgs,
    keep_rows: bool,
) -> anyhow::Result<Engine> {
    let root = bundle.map_or_else(default_bundle, Path::to_path_buf);
    let mut opts = eval.engine_options()?;
    opts.rank.keep_rows = keep_rows;
    bundle_dir(&root)?;
    let mut engine =
        Engine::open_with(&root, &opts, eval.rank_cache().as_ref(), &|_| {}).map_err(|e| {
            anyhow::anyhow!(crate::report::diagnose::load_failure(
                &root,
                &format!("{e:#}")
            ))
        })?;
    cutoffs_fit(&opts.eval.ks, engine.bundle().corpus.len(), "--ks")?;
    let damaged = (engine.rank_lookups().iter())
        .chain(engine.eval_lookups())
        .filter(|l| **l == Some(crate::store::Lookup::Corrupt))
        .count();
    if damaged > 0 {
        eprintln!("execscope: warning: {damaged} damaged rank-cache file(s) ignored, recomputed and rewritten");
    }
    if eval.execute {
        let oracle = crate::oracle::Oracle::new(crate::oracle::OracleConfig::default())
            .context("starting the execution oracle")?;
        eprintln!(
            "execution oracle: isolation {} ({}), {}",
            oracle.isolation(),
            oracle.isolation_detail(),
            oracle.runner_string()
        );
        let rows = engine.execute_missing(&oracle, 10, &|done, total| {
            if done == total || done % 200 == 0 {
                eprint!("\rexecuted {done}/{total} missing pairs");
            }
        });
        eprintln!("\rexecuted {} missing pairs                ", rows.len());
        let failed = engine.execution_failures();
        if !failed.is_empty() {
            eprintln!(
                "execscope: error: the oracle could not execute {} pair(s); their PASS verdicts fall back to the labels:",
                failed.len()
            );
            for f in failed.iter().take(20) {
                eprintln!(
                    "  query {} × snippet {}: {}",
                    f.query_id, f.corpus_id, f.error
                );
            }
            if failed.len() > 20 {
                eprintln!("  … and {} more", failed.len() - 20);
            }
        }
        if eval.save_cache && !rows.is_empty() {
            let path = root.join("data/execution_cache.jsonl");
            crate::oracle::ExecCache::append(&path, &rows)
                .with_context(|| format!("appending to {}", path.display()))?;
            crate::bundle::files::refresh_sum(&root, "data/execution_cache.jsonl")?;
            eprintln!("appended {} rows to {}", rows.len(), path.display());
        }
    }
    Ok(engine)
}

/// A bundle argument that is not a directory, said as such (not as a file missing inside it).
pub fn bundle_dir(root: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "no such bundle directory: {}; pass a bundle directory (e.g. data/bundle), or none \
             for the embedded benchmark",
            root.display()
        ),
        Err(e) => bail!("cannot open the bundle directory {}: {e}", root.display()),
        Ok(m) if !m.is_dir() => bail!(
            "{} is not a directory: a bundle is a directory holding data/queries.jsonl",
            root.display()
        ),
        Ok(_) => Ok(()),
    }
}

/// Cutoffs no longer than every query's ranking (the corpus): a larger k measures nothing the
/// whole ranking does not, and is refused with the largest one that fits.
pub fn cutoffs_fit(ks: &[usize], corpus: usize, option: &str) -> anyhow::Result<()> {
    if let Some(k) = ks.iter().find(|&&k| k > corpus) {
        bail!(
            "{option} {k}: a cutoff larger than the corpus ({corpus} snippets), which every \
             query ranks in full; give cutoffs from 1 to {corpus}"
        );
    }
    Ok(())
}

/// `execscope tui`.
#[derive(Args, Clone, Debug, Default)]
pub struct TuiArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    #[command(flatten)]
    pub eval: EvalArgs,
    /// Colour theme: dark, light or high-contrast (white on black, bright colours, reverse-video
    /// selection: for a projector). `T` cycles them at run time; NO_COLOR is honoured.
    #[arg(long, default_value = "dark", value_parser = one_of::<crate::tui::ThemeKind>(crate::tui::ThemeKind::ALL.map(crate::tui::ThemeKind::as_str)))]
    pub theme: crate::tui::ThemeKind,
}

/// `execscope check`.
#[derive(Args, Clone, Debug)]
pub struct CheckArgs {
    /// Bundle directory.
    pub bundle: Option<PathBuf>,
    /// Also run every canonical against its suite, with one negative control per query.
    #[arg(long)]
    pub oracle: bool,
}

/// `execscope build`.
#[derive(Args, Clone, Debug)]
pub struct BuildArgs {
    /// Task file: execscope's own (docs/task-file.md), or a benchmark file as published —
    /// HumanEval, HumanEval-X, MBPP, MBXP, EvalPlus HumanEval+/MBPP+ (`.jsonl`, `.jsonl.gz`, `.json`;
    /// docs/formats.md).
    pub tasks: PathBuf,
    /// The task file's format: humaneval, humaneval-x, mbpp, mbxp, evalplus or execscope
    /// (default: found from its content).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<crate::build::formats::Format>,
    /// The Python tests for a HumanEval-X file (HumanEval-X's `humaneval_python.jsonl.gz` or
    /// OpenAI's `HumanEval.jsonl.gz`; default: humaneval_python.jsonl.gz beside the file) or an
    /// MBXP file (MBXP's `mbpp_release_v1.jsonl`; default: that file beside it).
    #[arg(long, value_name = "FILE")]
    pub python_tests: Option<PathBuf>,
    /// How many tests a task must have, MIN..MAX or MIN.. (the paper's rule: 7..10; default
    /// 3.. for execscope's own task file, 1.. for a benchmark's suite as it was written).
    #[arg(long, value_name = "RANGE")]
    pub tests: Option<crate::build::task::TestRange>,
    /// Output bundle directory.
    #[arg(long)]
    pub out: PathBuf,
    /// Seed for mutant selection.
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    /// Also build stacked (2–4 edit) mutants into data/stacked_distractors.jsonl.
    #[arg(long)]
    pub stacked: bool,
    /// Mutation families: `paper` (the paper's six: the default for execscope's own task file;
    /// the embedded bundle and the release are built so), `all` (the whole catalogue: the
    /// default for a benchmark file, docs/formats.md "The benchmark rule"), or a comma list of
    /// family names (`paper` may stand for the six), e.g. `paper,negate_condition`
    /// (docs/bundle-format.md, "Bug types").
    #[arg(long, value_parser = parse_operators, value_hint = clap::ValueHint::Other)]
    pub operators: Option<crate::mutate::Operators>,
    /// The fewest distinct failing mutants a task must keep (default 3, the paper's rule, for
    /// execscope's own task file; 1 for a benchmark file, docs/formats.md "The benchmark rule").
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4))]
    pub min_distractors: Option<u64>,
    /// Execute only shard i of n (0 ≤ i < n) of the pairs, chosen by a stable hash of each
    /// pair's key; `--out` then receives a partial result for `execscope merge`.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<crate::shard::Shard>,
    /// Reuse pair results from this memo (a file, or a directory holding one, e.g. the output
    /// of `execscope merge` after a round of shards). Repeatable.
    #[arg(long = "memo-from", value_name = "PATH")]
    pub memo_from: Vec<PathBuf>,
}

fn parse_operators(s: &str) -> Result<crate::mutate::Operators, String> {
    s.parse()
}

/// `execscope exec verify`.
#[derive(Args, Clone, Debug)]
pub struct VerifyArgs {
    /// Bundle directory.
    pub bundle: Option<PathBuf>,
    /// Re-execute a seeded sample of this many cached pairs (default: all).
    #[arg(long)]
    pub sample: Option<usize>,
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    /// Re-execute on a CPU slowed this many times (one CPU shared with N-1 busy spinners; the
    /// factor really seen is measured and printed). Every verdict must still reproduce.
    #[arg(long, value_name = "N")]
    pub slowdown: Option<u32>,
    /// Re-execute only shard i of n of the cached pairs (by a stable hash of the pair key).
    #[arg(long, value_name = "I/N", requires = "out")]
    pub shard: Option<crate::shard::Shard>,
    /// Write every re-executed pair to OUT/verify.jsonl (sorted by key) with a manifest, for
    /// `execscope merge`.
    #[arg(long, value_name = "OUT")]
    pub out: Option<PathBuf>,
}

/// `execscope tui` (and `execscope` / `execscope BUNDLE`): the dashboard. The bundle loads on a
/// worker thread behind a progress indicator; a bundle that fails to load ends the dashboard with
/// the error, after the terminal is restored.
pub fn tui(args: &TuiArgs) -> anyhow::Result<ExitCode> {
    let root = args.bundle.clone().unwrap_or_else(default_bundle);
    if !root.join("data/queries.jsonl").is_file() {
        bail!(
            "{} is not a bundle (no data/queries.jsonl){}",
            root.display(),
            if args.bundle.is_none() {
                "; pass a bundle directory or set EXECSCOPE_BUNDLE"
            } else {
                ""
            }
        );
    }
    let opts = args.eval.engine_options()?;
    // The dashboard loads the bundle on a worker: its cutoffs are checked here, against the
    // corpus's rows (one a non-blank line), before the terminal is taken.
    if let Ok(corpus) = std::fs::read_to_string(root.join("data/corpus.jsonl")) {
        let rows = corpus.lines().filter(|l| !l.trim().is_empty()).count();
        cutoffs_fit(&opts.eval.ks, rows, "--ks")?;
    }
    let app = crate::tui::App::new(root, opts, crate::tui::Theme::from_env(args.theme))
        .with_rank_cache(args.eval.rank_cache());
    crate::tui::run::run(app)?;
    Ok(ExitCode::SUCCESS)
}

pub fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let root = args.bundle.clone().unwrap_or_else(default_bundle);
    bundle_dir(&root)?;
    let mut report = crate::bundle::check(&root);
    // A built bundle's suite strength, from its build report (an analysis, not an integrity
    // check: it warns about suite gaps and never fails).
    report
        .items
        .extend(crate::analysis::suites::check_item(&root));
    println!("{report}");
    let healthy = if args.oracle {
        println!();
        build::oracle_check(&root)?
    } else {
        true
    };
    Ok(if report.is_ok() && healthy {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

pub fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    build::build(args)
}

pub fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let root = args.bundle.clone().unwrap_or_else(default_bundle);
    bundle_dir(&root)?;
    build::verify(&root, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default cutoffs are defined once, in the core; clap's text is only how they are
    /// shown in `--help`.
    #[test]
    fn ks_default_text_is_the_cores_default() {
        let parsed: Vec<usize> = DEFAULT_KS_ARG
            .split(',')
            .map(|k| k.parse().unwrap())
            .collect();
        assert_eq!(parsed, crate::metrics::DEFAULT_KS);
        assert_eq!(EvalArgs::default().ks, crate::metrics::DEFAULT_KS);
    }
}
