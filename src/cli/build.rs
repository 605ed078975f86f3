//! Glue for `build`, `exec verify` and `check --oracle`: start the oracle, call the library,
//! print what it found.

use super::{BuildArgs, VerifyArgs};
use crate::build::{self, health, verify, BuildOptions};
use crate::bundle::{load, LoadOptions};
use crate::oracle::slowdown::Slowdown;
use crate::oracle::{Oracle, OracleConfig, VerifySelection};
use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

fn oracle() -> anyhow::Result<Oracle> {
    Oracle::new(OracleConfig::default()).context("starting the execution oracle")
}

/// A pairs progress bar on stderr when it is a terminal, hidden otherwise.
fn bar(len: usize, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(s) =
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} pairs, {per_sec}, ETA {eta}")
    {
        b.set_style(s.progress_chars("=> "));
    }
    b.set_message(what.to_string());
    b
}

pub fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let oracle = oracle()?;
    let pb = bar(0, "");
    let draw = pb.clone();
    let opts = BuildOptions {
        seed: args.seed,
        stacked: args.stacked,
        operators: args.operators.clone(),
        min_keep: args.min_distractors.map(|n| n as usize),
        progress: Some(std::sync::Arc::new(move |p: &build::exec::Progress| {
            if p.finished {
                draw.finish_and_clear();
                return;
            }
            draw.set_message(format!("{:>22}", p.phase));
            draw.set_length(p.total);
            draw.set_position(p.done);
        })),
        shard: args.shard,
        memos: args.memo_from.clone(),
        from: args.from,
        tests: args.tests,
        python_tests: args.python_tests.clone(),
        ..BuildOptions::default()
    };
    if args.shard.is_some() {
        let run = crate::shard::build_shard(&args.tasks, &args.out, &oracle, &opts)
            .with_context(|| format!("building shard into {}", args.out.display()))?;
        let m = &run.manifest;
        super::merge::print_shard_run(
            m,
            run.memo_rows,
            &args.out,
            "every gate ran: merge the shards to write the bundle",
        );
        return Ok(ExitCode::SUCCESS);
    }
    let report = build::build(&args.tasks, &args.out, &oracle, &opts)
        .with_context(|| format!("building {}", args.out.display()))?;
    println!("{report}");
    println!(
        "wrote {} (details: {})",
        args.out.display(),
        args.out.join(build::REPORT_FILE).display()
    );
    Ok(ExitCode::SUCCESS)
}

pub fn verify(root: &Path, args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    // With --slowdown, everything the oracle starts shares one CPU with N-1 spinners (pinned
    // before the oracle starts, so its processes inherit the CPU); one worker, so the pair runs
    // against the spinners alone.
    let mut slow = match args.slowdown {
        Some(n) => Some(Slowdown::start(n).map_err(anyhow::Error::msg)?),
        None => None,
    };
    let oracle = match &slow {
        Some(_) => Oracle::new(OracleConfig {
            workers: 1,
            ..OracleConfig::default()
        })
        .context("starting the execution oracle")?,
        None => oracle()?,
    };
    if let Some(s) = &mut slow {
        let f = s
            .calibrate(&oracle)
            .context("measuring the slowdown with a calibration pair")?;
        println!(
            "slowdown: {} spinners share CPU {} with the oracle; a CPU-bound pair runs {f:.1}x \
             slower than with them paused (requested {}x)",
            s.spinners(),
            s.cpu(),
            s.factor()
        );
        if f < f64::from(s.factor()) {
            anyhow::bail!(
                "could not slow the CPU {}-fold (measured {f:.1}x with {} spinners)",
                s.factor(),
                s.spinners()
            );
        }
    }
    if let Some(out) = &args.out {
        if args.sample.is_some() {
            anyhow::bail!("--out re-executes every cached pair (of its shard); drop --sample");
        }
        let shard = args
            .shard
            .unwrap_or(crate::shard::Shard { index: 0, count: 1 });
        let pb = bar(0, "re-executing");
        let draw = pb.clone();
        let progress: build::exec::ProgressFn =
            std::sync::Arc::new(move |p: &build::exec::Progress| {
                if p.finished {
                    draw.finish_and_clear();
                    return;
                }
                draw.set_length(p.total);
                draw.set_position(p.done);
            });
        let (rows, run) = crate::shard::verify_shard(root, &oracle, shard, out, Some(progress))
            .with_context(|| format!("verifying {}", root.display()))?;
        pb.finish_and_clear();
        if run.manifest.reused > 0 {
            println!(
                "resumed: {} pairs reused from the journal of an earlier run in {}",
                run.manifest.reused,
                out.display()
            );
        }
        let disagree = rows.iter().filter(|r| !r.agree).count();
        for r in rows.iter().filter(|r| !r.agree) {
            println!(
                "DISAGREE {}: cached [{}], now [{}]",
                r.label,
                r.cached.join(" "),
                r.now.join(" ")
            );
        }
        println!(
            "shard {shard}: {} pairs re-executed, {disagree} disagree; isolation {}; wrote {}",
            rows.len(),
            oracle.isolation(),
            out.join(crate::shard::VERIFY_FILE).display()
        );
        return Ok(if disagree == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let selection = match args.sample {
        Some(n) => VerifySelection::Sample { n, seed: args.seed },
        None => VerifySelection::All,
    };
    let pb = bar(0, "re-executing");
    let v = verify::verify_bundle(root, &oracle, selection, &|done| {
        pb.set_position(done as u64)
    })
    .map_err(anyhow::Error::msg)
    .with_context(|| format!("verifying {}", root.display()))?;
    pb.finish_and_clear();
    if v.cache_rows == 0 {
        anyhow::bail!(
            "verifying {}: its execution cache (data/execution_cache.jsonl) is absent or holds no \
             rows; there is nothing to re-execute",
            root.display()
        );
    }
    if v.report.checked == 0 {
        anyhow::bail!(
            "verifying {}: none of the {} cache rows was re-executed ({} cannot be recovered from \
             the bundle's own code and test texts{})",
            root.display(),
            v.cache_rows,
            v.unrecoverable,
            if args.sample == Some(0) {
                "; --sample 0 selects none"
            } else {
                ""
            }
        );
    }
    for d in &v.report.disagreements {
        let now = match &d.now {
            Ok(o) => o.join(" "),
            Err(e) => format!("oracle error: {e}"),
        };
        let changes = d.pass_changes();
        let which = if changes.is_empty() {
            "pass/not-pass the same, only the kind of failure differs".to_string()
        } else {
            let tests: Vec<String> = changes.iter().map(|t| (t + 1).to_string()).collect();
            format!("pass/not-pass differs: test {}", tests.join(", "))
        };
        println!(
            "DISAGREE {} (code {}…, tests {}…): cached [{}], now [{}] ({which})",
            v.labels.get(d.pair).map(String::as_str).unwrap_or("?"),
            &d.code_sha256[..12.min(d.code_sha256.len())],
            &d.tests_sha256[..12.min(d.tests_sha256.len())],
            d.cached.join(" "),
            now
        );
    }
    let disagree = match v.report.disagreements.len() {
        0 => "0 disagree".to_string(),
        n => format!(
            "{n} disagree ({} of them on a test's pass/not-pass)",
            v.report.pass_changing()
        ),
    };
    println!(
        "{} cache rows; {} re-executed, {disagree}; {} rows not recoverable from the bundle's \
         texts; tests key encoding {}; isolation {}",
        v.cache_rows,
        v.report.checked,
        v.unrecoverable,
        v.encoding.as_deref().unwrap_or("unknown"),
        oracle.isolation()
    );
    Ok(if v.report.disagreements.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The `--oracle` part of `check`; true when every query is healthy.
pub fn oracle_check(root: &Path) -> anyhow::Result<bool> {
    let opts = LoadOptions {
        verify_checksums: false,
        systems: None,
        skip_embeddings: true,
    };
    let b = load(root, &opts).with_context(|| format!("loading {}", root.display()))?;
    let oracle = oracle()?;
    let pb = bar(0, "oracle health");
    let health = health::oracle_health(&b, &oracle, &|d| pb.set_position(d as u64));
    pb.finish_and_clear();
    let mut bad = 0;
    for h in &health {
        if !h.reference_ok() {
            bad += 1;
            for (id, o, pass) in &h.references {
                if !pass {
                    println!("REFERENCE FAILS {} × {}: [{}]", h.query_id, id, o.join(" "));
                }
            }
        }
        if !h.control_rejected() {
            if h.reference_ok() {
                bad += 1;
            }
            match &h.control {
                Ok(o) => println!(
                    "CONTROL NOT REJECTED {}: [{}] (the suite never checks the result on the \
                     chosen input)",
                    h.query_id,
                    o.join(" ")
                ),
                Err(e) => println!("NO CONTROL {}: {e}", h.query_id),
            }
        }
    }
    println!(
        "oracle health: {} queries, {} references pass, {} controls rejected, {} unhealthy; \
         isolation {}",
        health.len(),
        health.iter().filter(|h| h.reference_ok()).count(),
        health.iter().filter(|h| h.control_rejected()).count(),
        bad,
        oracle.isolation()
    );
    Ok(bad == 0)
}
