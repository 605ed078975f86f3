//! `execscope embed`: embed a bundle's queries and corpus (and, on request, its stacked variants)
//! with one model, resumably, and add the result to the bundle as a dense system.
//!
//! Rows are committed as they finish: each batch's vectors are appended to
//! `embeddings/.<name>.partial/vectors.f32` (hidden, so no manifest or loader sees it) and synced
//! before the next batch starts, beside a `settings.json` naming the model, its settings and a
//! digest of every input text. A rerun with the same settings and texts continues after the last
//! whole row; anything else starts afresh. At the end the matrix (`<name>.npz`), the
//! invocation-table entry and `SHA256SUMS` are written, each atomically, after everything was
//! computed (so a failure leaves the bundle as it was), and the partial folder is removed.

use super::worker::{ModelInfo, Role, Worker};
use super::{adds_own_prefixes, ModelSpec, MODEL_MARKER};
use anyhow::{bail, Context};
use execscope_core::bundle::npy::{write_npz, NpzItem};
use execscope_core::bundle::{self, sha256_hex, LoadOptions};
use ndarray::{s, Array2};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};

/// What to embed and how.
#[derive(Clone, Debug)]
pub struct EmbedOptions {
    /// System name: the npz stem and the invocation-table id.
    pub name: String,
    pub spec: ModelSpec,
    /// Also embed `data/stacked_distractors.jsonl` (as the npz arrays `stacked`/`stacked_ids`).
    pub stacked: bool,
}

/// Progress of one embedding run (rows embedded so far, of how many).
#[derive(Clone, Copy, Debug)]
pub struct EmbedProgress {
    pub done: usize,
    pub total: usize,
    /// Rows found already embedded by an interrupted run.
    pub resumed: usize,
}

/// What a finished run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub file: PathBuf,
    pub rows: usize,
    pub resumed: usize,
    pub dims: usize,
    pub entry: Value,
}

/// A system name usable as a file stem.
pub fn check_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !ok {
        bail!(
            "system name {name:?}: use letters, digits, '.', '_' and '-' (not starting with '.')"
        );
    }
    if name.eq_ignore_ascii_case(execscope_core::rank::BM25_ID) {
        bail!("system name {name:?} is reserved for the lexical baseline");
    }
    Ok(())
}

fn partial_dir(root: &Path, name: &str) -> PathBuf {
    root.join("embeddings").join(format!(".{name}.partial"))
}

/// The texts to embed, in npz row order: queries, corpus, stacked variants.
pub(crate) struct Texts {
    pub(crate) items: Vec<(Role, String)>,
    pub(crate) query_ids: Vec<String>,
    pub(crate) corpus_ids: Vec<String>,
    pub(crate) stacked_ids: Vec<String>,
}

impl Texts {
    /// (section, id) of row `i`: `queries`, `corpus` or `stacked`, and the row's id there.
    pub(crate) fn key(&self, i: usize) -> (&'static str, &str) {
        let (nq, nc) = (self.query_ids.len(), self.corpus_ids.len());
        if i < nq {
            ("queries", &self.query_ids[i])
        } else if i < nq + nc {
            ("corpus", &self.corpus_ids[i - nq])
        } else {
            ("stacked", &self.stacked_ids[i - nq - nc])
        }
    }
}

/// The batches a run from the first row encodes: runs of consecutive rows of one role, at most
/// `batch_size` long. A row's vector depends (in its last bits) on the batch it is encoded in
/// (padding), so shards encode exactly these batches.
pub(crate) fn batches(items: &[(Role, String)], batch_size: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut done = 0;
    while done < items.len() {
        let role = items[done].0;
        let mut end = done;
        while end < items.len() && end - done < batch_size.max(1) && items[end].0 == role {
            end += 1;
        }
        out.push(done..end);
        done = end;
    }
    out
}

pub(crate) fn texts_of(root: &Path, stacked: bool) -> anyhow::Result<Texts> {
    let b = bundle::load(
        root,
        &LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        },
    )
    .with_context(|| format!("reading bundle {}", root.display()))?;
    if stacked && b.stacked.is_empty() {
        bail!(
            "--stacked: {} has no data/stacked_distractors.jsonl",
            root.display()
        );
    }
    let mut items: Vec<(Role, String)> = b
        .queries
        .iter()
        .map(|q| (Role::Query, q.text.clone()))
        .collect();
    items.extend(b.corpus.iter().map(|c| (Role::Passage, c.code.clone())));
    let mut stacked_ids = Vec::new();
    if stacked {
        items.extend(b.stacked.iter().map(|v| (Role::Passage, v.code.clone())));
        stacked_ids = b.stacked.iter().map(|v| v.id.clone()).collect();
    }
    Ok(Texts {
        items,
        query_ids: b.queries.iter().map(|q| q.id.clone()).collect(),
        corpus_ids: b.corpus.iter().map(|c| c.id.clone()).collect(),
        stacked_ids,
    })
}

/// Settings that must match for a partial run to be continued.
pub(crate) fn settings_json(spec: &ModelSpec, info: &ModelInfo, texts: &Texts) -> Value {
    let mut h = String::new();
    for (role, t) in &texts.items {
        h.push_str(role.as_str());
        h.push('\0');
        h.push_str(&sha256_hex(t.as_bytes()));
        h.push('\n');
    }
    json!({
        "model": spec.model,
        "query_prefix": spec.query_prefix,
        "passage_prefix": spec.passage_prefix,
        "max_seq_length": spec.max_seq_length,
        "batch_size": spec.batch_size,
        "device": spec.device,
        "weights_sha256": info.weights_sha256,
        "runtime": info.runtime,
        "dims": info.dims,
        "rows": texts.items.len(),
        "texts_sha256": sha256_hex(h.as_bytes()),
    })
}

/// Embed the bundle at `root` with `worker` and write the system. `progress` is called after
/// every committed batch (and once at the start).
pub fn embed_bundle(
    root: &Path,
    opts: &EmbedOptions,
    worker: &mut Worker,
    progress: &mut dyn FnMut(EmbedProgress),
) -> anyhow::Result<Outcome> {
    check_name(&opts.name)?;
    if opts.spec.batch_size == 0 {
        bail!("--batch-size must be at least 1");
    }
    if adds_own_prefixes(&opts.spec.model)
        && (!opts.spec.query_prefix.is_empty() || !opts.spec.passage_prefix.is_empty())
    {
        bail!(
            "{} adds the prefixes 'query: ' / 'passage: ' itself; drop --query-prefix/--passage-prefix",
            opts.spec.model
        );
    }
    let texts = texts_of(root, opts.stacked)?;
    let info = worker
        .info(&opts.spec)
        .with_context(|| format!("loading model {}", opts.spec.model))?;
    let d = info.dims;
    if d == 0 {
        bail!("model {} reports 0 dimensions", opts.spec.model);
    }
    let total = texts.items.len();
    let settings = settings_json(&opts.spec, &info, &texts);
    let pdir = partial_dir(root, &opts.name);
    let vec_path = pdir.join("vectors.f32");
    let set_path = pdir.join("settings.json");
    let same = std::fs::read(&set_path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .is_some_and(|v| v == settings);
    let row_bytes = (d * 4) as u64;
    let mut done = 0usize;
    let plan = batches(&texts.items, opts.spec.batch_size);
    if same {
        let len = std::fs::metadata(&vec_path).map_or(0, |m| m.len());
        done = ((len / row_bytes) as usize).min(total);
        // Back to the start of a batch: a row's last bits depend on the batch it was encoded in.
        if done < total {
            done = plan
                .iter()
                .map(|r| r.start)
                .filter(|&s| s <= done)
                .max()
                .unwrap_or(0);
        }
    } else {
        if pdir.exists() {
            std::fs::remove_dir_all(&pdir)
                .with_context(|| format!("removing stale {}", pdir.display()))?;
        }
        execscope_record::atomic::write_atomic(
            &set_path,
            serde_json::to_string_pretty(&settings)?.as_bytes(),
        )
        .with_context(|| format!("writing {}", set_path.display()))?;
    }
    let resumed = done;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(false)
        .write(true)
        .truncate(false)
        .open(&vec_path)
        .with_context(|| format!("opening {}", vec_path.display()))?;
    // Drop a torn last row, then append.
    file.set_len(done as u64 * row_bytes)?;
    std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))?;
    progress(EmbedProgress {
        done,
        total,
        resumed,
    });
    let from = done;
    for r in plan.iter().filter(|r| r.start >= from) {
        let role = texts.items[r.start].0;
        let end = r.end;
        let batch: Vec<String> = texts.items[r.clone()]
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        let m = worker.encode(&opts.spec, role, &batch)?;
        if m.ncols() != d {
            bail!(
                "model {} returned {} dimensions, announced {d}",
                opts.spec.model,
                m.ncols()
            );
        }
        let mut bytes = Vec::with_capacity(m.len() * 4);
        for x in m.iter() {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        file.write_all(&bytes)?;
        file.sync_data()?;
        done = end;
        progress(EmbedProgress {
            done,
            total,
            resumed,
        });
    }
    drop(file);
    let raw = std::fs::read(&vec_path)?;
    if raw.len() as u64 != total as u64 * row_bytes {
        bail!(
            "{}: {} bytes, expected {} rows × {d} float32",
            vec_path.display(),
            raw.len(),
            total
        );
    }
    let all: Vec<f32> = raw
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let all = Array2::from_shape_vec((total, d), all)?;
    let entry = invocation_entry(opts, &info, d, texts.stacked_ids.len());
    let out = write_system(root, &opts.name, opts.stacked, &texts, &all, &entry)?;
    let _ = std::fs::remove_dir_all(&pdir);
    Ok(Outcome {
        file: out,
        rows: total,
        resumed,
        dims: d,
        entry,
    })
}

/// Writes the system `name` into the bundle at `root`: the matrix `all` (rows in [`Texts`]
/// order) as `embeddings/<name>.npz`, its invocation-table `entry`, and `SHA256SUMS`, each
/// atomically, after everything is computed. Returns the npz path.
pub(crate) fn write_system(
    root: &Path,
    name: &str,
    stacked: bool,
    texts: &Texts,
    all: &Array2<f32>,
    entry: &Value,
) -> anyhow::Result<PathBuf> {
    let (nq, nc) = (texts.query_ids.len(), texts.corpus_ids.len());
    let q = all.slice(s![..nq, ..]).to_owned();
    let c = all.slice(s![nq..nq + nc, ..]).to_owned();
    let st = all.slice(s![nq + nc.., ..]).to_owned();
    let mut items = vec![
        ("queries", NpzItem::F32(&q)),
        ("corpus", NpzItem::F32(&c)),
        ("query_ids", NpzItem::Strings(&texts.query_ids)),
        ("corpus_ids", NpzItem::Strings(&texts.corpus_ids)),
    ];
    if stacked {
        items.push(("stacked", NpzItem::F32(&st)));
        items.push(("stacked_ids", NpzItem::Strings(&texts.stacked_ids)));
    }
    let mut npz = std::io::Cursor::new(Vec::new());
    write_npz(&mut npz, &items).map_err(|e| anyhow::anyhow!("writing the npz: {e}"))?;
    let table_path = root.join("results/invocation_table.json");
    let table = merged_table(&table_path, entry)?;
    // Everything is computed: now the three writes, each atomic.
    let rel = format!("embeddings/{name}.npz");
    let out = root.join(&rel);
    execscope_record::atomic::write_atomic(&out, &npz.into_inner())
        .with_context(|| format!("writing {}", out.display()))?;
    execscope_record::atomic::write_atomic(&table_path, table.as_bytes())
        .with_context(|| format!("writing {}", table_path.display()))?;
    bundle::files::refresh_sum(root, &rel)?;
    bundle::files::refresh_sum(root, "results/invocation_table.json")?;
    Ok(out)
}

pub(crate) fn invocation_entry(
    opts: &EmbedOptions,
    info: &ModelInfo,
    d: usize,
    n_stacked: usize,
) -> Value {
    let e5 = adds_own_prefixes(&opts.spec.model);
    let (qp, pp) = if e5 {
        ("query: ".to_string(), "passage: ".to_string())
    } else {
        (
            opts.spec.query_prefix.clone(),
            opts.spec.passage_prefix.clone(),
        )
    };
    let origin = if info.origin.is_empty() {
        format!("sentence-transformers folder {}", info.folder)
    } else {
        info.origin.clone()
    };
    let packages: Vec<String> = info
        .packages
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect();
    let mut notes = format!(
        "{MODEL_MARKER}{}; batch_size {}; device {}; max_seq_length {}; L2-normalised float32 rows; \
         weights sha256 {}",
        opts.spec.model,
        opts.spec.batch_size,
        opts.spec.device,
        info.max_seq_length
            .map_or("model default".to_string(), |m| m.to_string()),
        info.weights_sha256,
    );
    if !packages.is_empty() {
        notes.push_str(&format!("; packages {}", packages.join(", ")));
    }
    if n_stacked > 0 {
        notes.push_str(&format!(
            "; {n_stacked} stacked variants embedded as arrays stacked/stacked_ids"
        ));
    }
    json!({
        "id": opts.name,
        "file": format!("embeddings/{}.npz", opts.name),
        "dims": d,
        "similarity": "cos",
        "query_prefix": qp,
        "passage_prefix": pp,
        "dtype": "float32",
        "source": format!("{origin}; {}", info.runtime),
        "notes": notes,
        "provenance": serde_json::to_value(execscope_core::bundle::model::Provenance::Embedded {
            model: Some(opts.spec.model.clone()),
        })
        .unwrap_or(Value::Null),
    })
}

/// The invocation table with `entry` replacing the one of the same id (in place) or appended;
/// other entries and keys are kept as they are.
fn merged_table(path: &Path, entry: &Value) -> anyhow::Result<String> {
    let mut table = match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<Value>(&bytes)
            .map_err(|e| anyhow::anyhow!("{}:{}: invalid JSON ({e})", path.display(), e.line()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({"systems": []}),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let Some(systems) = table.get_mut("systems").and_then(Value::as_array_mut) else {
        bail!(
            "{}: expected an object with a `systems` list",
            path.display()
        );
    };
    match systems.iter_mut().find(|s| s.get("id") == entry.get("id")) {
        Some(old) => *old = entry.clone(),
        None => systems.push(entry.clone()),
    }
    Ok(serde_json::to_string_pretty(&table)? + "\n")
}
