//! `execscope report`: the leaderboard and the other tables, in every format.

use super::{open_engine_keeping, EvalArgs};
use crate::analysis::significance::SigConfig;
use crate::atomic::write_atomic;
use crate::engine::Engine;
use crate::metrics::MetricKey;
use crate::report::{anatomy, leaderboard, pairs, results, suites, Format, Table, TableKind};
use crate::view::Snapshot;
use anyhow::{bail, Context};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `execscope report`.
#[derive(Args, Clone, Debug)]
pub struct ReportArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Output format: table, json, csv, markdown, latex.
    #[arg(long, default_value = "table", value_parser = super::one_of::<Format>(Format::ALL.map(Format::as_str)))]
    pub format: Format,
    /// Which table.
    #[arg(long, value_enum, default_value_t = TableKind::Leaderboard)]
    pub table: TableKind,
    /// Metric cell for `--table pairs` (e.g. exec@1, execp@3, ndcg@10, mrr).
    #[arg(long, default_value = "exec@1", value_parser = parse_metric, value_hint = clap::ValueHint::Other)]
    pub metric: MetricKey,
    /// Write every table in every format plus the release-schema JSON files into --out.
    #[arg(long)]
    pub all: bool,
    /// Also write `results/<system>.json` in the release's schema into the bundle (or --out).
    #[arg(long = "write-results")]
    pub write_results: bool,
    /// Directory for written files (default: the bundle for --write-results; required by --all).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Bootstrap replicates for intervals and paired tests.
    #[arg(long, default_value_t = crate::stats::DEFAULT_REPLICATES)]
    pub bootstrap: usize,
    /// Bootstrap seed.
    #[arg(long, default_value_t = crate::stats::RELEASE_SEED)]
    pub seed: u64,
    #[command(flatten)]
    pub eval: EvalArgs,
}

fn parse_metric(s: &str) -> Result<MetricKey, String> {
    s.parse()
}

/// Every table of the report, formatted from the one view of the engine's evaluation (each part
/// computed at most once, when a table first needs it).
fn table(view: &Snapshot<'_>, kind: TableKind, metric: MetricKey) -> anyhow::Result<Table> {
    let engine = view.engine();
    Ok(match kind {
        TableKind::Leaderboard => leaderboard::table(view.leaderboard(), Some(view.significance())),
        TableKind::Domains => leaderboard::domain_table(view.leaderboard()),
        TableKind::Languages => leaderboard::language_table(view.leaderboard()),
        TableKind::DeceptionLanguages => anatomy::language_deception_table(view.anatomy()),
        TableKind::BugtypesLanguages => anatomy::bugtypes_languages_table(view.anatomy()),
        TableKind::Pairs => {
            let sig = view.significance_with_pairs();
            pairs::pairs_table(engine, sig, metric).with_context(|| {
                format!(
                    "unknown metric {metric:?} for --table pairs (one of: {})",
                    sig.cells
                        .iter()
                        .map(|c| c.key.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?
        }
        TableKind::Misses => anatomy::misses_table(view.anatomy()),
        TableKind::Density => anatomy::density_table(view.anatomy()),
        TableKind::Bugtypes => anatomy::bugtypes_table(view.anatomy()),
        TableKind::DeceptionDomains => anatomy::domain_deception_table(view.anatomy()),
        TableKind::Editsize => anatomy::editsize_table(view.anatomy()),
        TableKind::Gaps => anatomy::gaps_table(view.anatomy()),
        TableKind::Difficulty => anatomy::difficulty_table(view.anatomy()),
        TableKind::Stacked => {
            let cfg = view.sig_config();
            match crate::analysis::stacked::stacked_deception(engine, cfg.replicates, cfg.seed) {
                Some(s) => anatomy::stacked_table(&s, cfg.replicates),
                None => bail!(
                    "this bundle has no stacked variants with embeddings (build with --stacked, then embed)"
                ),
            }
        }
        TableKind::Fusion => crate::report::fusion::fusion_table(
            &crate::systems::table::fusion_rows(engine),
            &engine.config().ks,
        ),
        TableKind::Suites | TableKind::SuiteTasks | TableKind::Survivors => {
            let b = engine.bundle();
            let s = view
                .suites()
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .with_context(|| {
                    format!(
                        "{} has no {} from `execscope build`, so no suite strength",
                        b.root.display(),
                        crate::analysis::suites::BUILD_REPORT
                    )
                })?;
            match kind {
                TableKind::Suites => suites::suites_table(s),
                TableKind::SuiteTasks => suites::suite_tasks_table(s),
                _ => suites::survivors_table(s),
            }
        }
    })
}

/// The leaderboard JSON of the README schema.
fn leaderboard_json(view: &Snapshot<'_>) -> String {
    let v = leaderboard::json(view.engine(), view.leaderboard(), Some(view.significance()));
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

pub fn report(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    if args.bootstrap == 0 {
        bail!("--bootstrap needs at least 1 replicate");
    }
    // Tables read evaluations, not score rows: only the results files (and the fusion table,
    // which recomputes what it lacks) read rows, so only they keep them in the rank cache.
    let rows = args.all || args.write_results || args.table == TableKind::Fusion;
    let engine = open_engine_keeping(args.bundle.as_deref(), &args.eval, rows)?;
    let sig_cfg = SigConfig {
        replicates: args.bootstrap,
        seed: args.seed,
    };
    if args.all || args.write_results || args.table.reads_rows() {
        super::load_rows(&engine)?;
    }
    let view = Snapshot::new(&engine, sig_cfg);
    let result = run(args, &view);
    super::print_notices(&engine);
    result
}

/// The report's output, from its view.
fn run(args: &ReportArgs, view: &Snapshot<'_>) -> anyhow::Result<ExitCode> {
    let engine = view.engine();
    if args.all {
        let out = args
            .out
            .clone()
            .context("--all needs --out DIR for the files it writes")?;
        let n = write_all(view, &out, args.metric)?;
        eprintln!("wrote {n} files under {}", out.display());
        let policy = engine.config().policy;
        if policy != crate::metrics::TiePolicy::Row {
            eprintln!(
                "note: the tables and leaderboard.json use {} ties; results/*.json and tests/*.json \
                 use row ties, as the release's schema does (each file records its tie_policy)",
                policy.as_str()
            );
        }
        return Ok(exit_code(engine));
    }
    let text = if args.table == TableKind::Leaderboard && args.format == Format::Json {
        leaderboard_json(view)
    } else {
        table(view, args.table, args.metric)?.render(args.format)
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    if args.write_results {
        let root = args
            .out
            .clone()
            .unwrap_or_else(|| engine.bundle().root.clone());
        let written = results::write_all(&view.release_results(), &root)?;
        eprintln!(
            "wrote {} results files under {}",
            written.len(),
            root.join("results").display()
        );
    }
    Ok(exit_code(engine))
}

/// Failure when `--execute` could not run some pairs (already reported on stderr by
/// `open_engine`), success otherwise.
fn exit_code(engine: &Engine) -> ExitCode {
    if engine.execution_failures().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Every table in every format, plus results/*.json and tests/*.json in the release's schema
/// (those three always under the `row` tie policy, as the release computed them).
fn write_all(view: &Snapshot<'_>, out: &Path, metric: MetricKey) -> anyhow::Result<usize> {
    let mut n = 0;
    let multilingual = view.leaderboard().multilingual();
    for kind in TableKind::ALL {
        if kind.by_language() && !multilingual {
            continue;
        }
        let t = match table(view, kind, metric) {
            Ok(t) => t,
            Err(e) if kind == TableKind::Stacked => {
                eprintln!("skipped stacked: {e}");
                continue;
            }
            Err(e)
                if matches!(
                    kind,
                    TableKind::Suites | TableKind::SuiteTasks | TableKind::Survivors
                ) =>
            {
                eprintln!("skipped {kind}: {e:#}");
                continue;
            }
            Err(e) => return Err(e),
        };
        for f in Format::ALL {
            let text = if kind == TableKind::Leaderboard && f == Format::Json {
                leaderboard_json(view)
            } else {
                t.render(f)
            };
            let path = out.join(format!("{kind}.{}", f.extension()));
            write_atomic(&path, text.as_bytes())
                .with_context(|| format!("writing {}", path.display()))?;
            n += 1;
        }
    }
    let engine = view.engine();
    n += results::write_all(&view.release_results(), out)?.len();
    // Release-schema statistics under the release's own tie rule.
    let sig = view.release_statistics();
    let pj = serde_json::to_string_pretty(&pairs::pairwise_json(engine, sig))?;
    let path = out.join("tests/pairwise_tests.json");
    write_atomic(&path, pj.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    let cj = serde_json::to_string_pretty(&pairs::intervals_json(engine, sig))?;
    let path = out.join("tests/confidence_intervals.json");
    write_atomic(&path, cj.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
    Ok(n + 2)
}
