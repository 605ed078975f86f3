//! `execscope report`: the leaderboard and the other tables, in every format.

use super::{open_engine_keeping, EvalArgs};
use crate::analysis::significance::{SigConfig, Significance};
use crate::analysis::suites::SuiteStrength;
use crate::analysis::Anatomy;
use crate::atomic::write_atomic;
use crate::engine::Engine;
use crate::metrics::{EvalConfig, TiePolicy};
use crate::report::{
    anatomy, leaderboard, pairs, results, suites, Format, MetricKey, Table, TableKind,
};
use crate::stats::spearman;
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
    #[arg(long, default_value = "table", value_parser = parse_format)]
    pub format: Format,
    /// Which table.
    #[arg(long, value_enum, default_value_t = TableKind::Leaderboard)]
    pub table: TableKind,
    /// Metric cell for `--table pairs` (e.g. exec@1, execp@3, ndcg@10, mrr).
    #[arg(long, default_value = "exec@1", value_parser = parse_metric)]
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

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn parse_metric(s: &str) -> Result<MetricKey, String> {
    s.parse()
}

/// Builds tables on demand, computing each core result at most once.
struct Tables<'a> {
    engine: &'a Engine,
    sig_cfg: SigConfig,
    lb: Option<leaderboard::Leaderboard>,
    sig: Option<Significance>,
    anatomy: Option<Anatomy>,
    suites: Option<SuiteStrength>,
}

impl<'a> Tables<'a> {
    fn new(engine: &'a Engine, sig_cfg: SigConfig) -> Self {
        Tables {
            engine,
            sig_cfg,
            lb: None,
            sig: None,
            anatomy: None,
            suites: None,
        }
    }

    fn lb(&mut self) -> &leaderboard::Leaderboard {
        self.lb
            .get_or_insert_with(|| leaderboard::build(self.engine))
    }

    /// The leaderboard's significance (intervals, tiers): no pairs.
    fn sig(&mut self) -> &Significance {
        let (engine, cfg) = (self.engine, self.sig_cfg);
        self.sig
            .get_or_insert_with(|| Significance::compute_leaderboard(engine, cfg))
    }

    /// The significance with every system pair (the pairs table).
    fn sig_with_pairs(&mut self) -> &Significance {
        let (engine, cfg) = (self.engine, self.sig_cfg);
        let sig = self
            .sig
            .get_or_insert_with(|| Significance::compute_leaderboard(engine, cfg));
        sig.add_pairs(engine);
        sig
    }

    fn anatomy(&mut self) -> &Anatomy {
        let engine = self.engine;
        self.anatomy.get_or_insert_with(|| Anatomy::compute(engine))
    }

    fn table(&mut self, kind: TableKind, metric: MetricKey) -> anyhow::Result<Table> {
        let metric = metric.to_string();
        let engine = self.engine;
        Ok(match kind {
            TableKind::Leaderboard => {
                self.lb();
                self.sig();
                leaderboard::table(self.lb.as_ref().unwrap(), self.sig.as_ref())
            }
            TableKind::Domains => leaderboard::domain_table(self.lb()),
            TableKind::Pairs => {
                let sig = self.sig_with_pairs();
                pairs::pairs_table(engine, sig, &metric).with_context(|| {
                    format!(
                        "unknown metric {metric:?} for --table pairs (one of: {})",
                        sig.cells
                            .iter()
                            .map(|c| c.key.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?
            }
            TableKind::Misses => anatomy::misses_table(self.anatomy()),
            TableKind::Density => anatomy::density_table(self.anatomy()),
            TableKind::Bugtypes => anatomy::bugtypes_table(self.anatomy()),
            TableKind::DeceptionDomains => {
                anatomy::domain_deception_table(self.anatomy(), engine.bundle())
            }
            TableKind::Editsize => {
                let a = self.anatomy();
                let sizes: Vec<f64> = a.edit_sizes.iter().map(|&s| s as f64).collect();
                let rho = spearman(&sizes, &a.dense_pair_deception());
                anatomy::editsize_table(a, rho)
            }
            TableKind::Gaps => anatomy::gaps_table(self.anatomy()),
            TableKind::Difficulty => anatomy::difficulty_table(self.anatomy(), engine.bundle()),
            TableKind::Stacked => {
                let cfg = self.sig_cfg;
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
                let s = self.suites()?;
                match kind {
                    TableKind::Suites => suites::suites_table(s),
                    TableKind::SuiteTasks => suites::suite_tasks_table(s),
                    _ => suites::survivors_table(s),
                }
            }
        })
    }

    /// The bundle's suite strength (its build report), read once.
    fn suites(&mut self) -> anyhow::Result<&SuiteStrength> {
        if self.suites.is_none() {
            let b = self.engine.bundle();
            let s = crate::analysis::suites::from_bundle(b)?.with_context(|| {
                format!(
                    "{} has no {} from `execscope build`, so no suite strength",
                    b.root.display(),
                    crate::analysis::suites::BUILD_REPORT
                )
            })?;
            self.suites = Some(s);
        }
        Ok(self.suites.as_ref().expect("just set"))
    }

    /// The leaderboard JSON of the README schema.
    fn leaderboard_json(&mut self) -> String {
        self.lb();
        self.sig();
        let v = leaderboard::json(self.engine, self.lb.as_ref().unwrap(), self.sig.as_ref());
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
    }
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
    let mut tables = Tables::new(&engine, sig_cfg);
    if args.all {
        let out = args
            .out
            .clone()
            .context("--all needs --out DIR for the files it writes")?;
        let n = write_all(&mut tables, &out, args.metric)?;
        eprintln!("wrote {n} files under {}", out.display());
        return Ok(exit_code(&engine));
    }
    let text = if args.table == TableKind::Leaderboard && args.format == Format::Json {
        tables.leaderboard_json()
    } else {
        tables.table(args.table, args.metric)?.render(args.format)
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    if args.write_results {
        let root = args
            .out
            .clone()
            .unwrap_or_else(|| engine.bundle().root.clone());
        let written = results::write_all(&engine, &root)?;
        eprintln!(
            "wrote {} results files under {}",
            written.len(),
            root.join("results").display()
        );
    }
    Ok(exit_code(&engine))
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
fn write_all(tables: &mut Tables<'_>, out: &Path, metric: MetricKey) -> anyhow::Result<usize> {
    let mut n = 0;
    for kind in TableKind::ALL {
        let t = match tables.table(kind, metric) {
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
                tables.leaderboard_json()
            } else {
                t.render(f)
            };
            write_atomic(
                &out.join(format!("{kind}.{}", f.extension())),
                text.as_bytes(),
            )?;
            n += 1;
        }
    }
    let engine = tables.engine;
    n += results::write_all(engine, out)?.len();
    // Release-schema statistics under the release's own tie rule.
    let row_evals = engine.evaluate_all(&EvalConfig {
        policy: TiePolicy::Row,
        ..engine.config()
    });
    let sig = Significance::from_evals(&row_evals, tables.sig_cfg);
    let pj = serde_json::to_string_pretty(&pairs::pairwise_json(engine, &sig))?;
    write_atomic(&out.join("tests/pairwise_tests.json"), pj.as_bytes())?;
    let cj = serde_json::to_string_pretty(&pairs::intervals_json(engine, &sig))?;
    write_atomic(&out.join("tests/confidence_intervals.json"), cj.as_bytes())?;
    Ok(n + 2)
}
