//! `embed --shard i/n` and the merge of embedding shards (docs/scale.md).
//!
//! The unit of work is a batch of the one-machine run (`batches` in `run`): a row's vector
//! depends in its last bits on the other texts of its batch (padding), so a shard must encode
//! exactly the batches one machine would. Shard *i* of *n* owns a batch when the stable hash of
//! its first row's key (section and id, e.g. `corpus` and the snippet id) falls in it, by the
//! formula of pairs ([`Shard::of_key`]). Each shard appends its rows to `embed-rows.jsonl` (one JSON line
//! per row: row number, section, id, the text's SHA-256 and the float32 vector as
//! little-endian hex, exact), synced after every batch, so a killed shard resumes by batches; it
//! writes the system's invocation-table entry to `entry.json` and a manifest (`shard.json`).
//! [`merge`] checks the shards, takes every row once, checks each row's text against the bundle
//! it writes into, and writes the npz, the entry and `SHA256SUMS` as `embed` does.

use super::run::{batches, invocation_entry, settings_json, texts_of, write_system, EmbedOptions};
use super::Worker;
use anyhow::{bail, Context};
use execscope_build::shard::{Manifest, Shard, MANIFEST_FILE};
use execscope_core::bundle::sha256_hex;
use ndarray::Array2;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A shard's rows, relative to its directory.
pub const ROWS_FILE: &str = "embed-rows.jsonl";
/// A shard's invocation-table entry for the system, relative to its directory.
pub const ENTRY_FILE: &str = "entry.json";

/// One embedded row of a shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RowLine {
    /// Row number in the npz order (queries, corpus, stacked variants).
    pub row: usize,
    pub section: String,
    pub id: String,
    pub text_sha256: String,
    /// The float32 vector, little-endian bytes in hex (exact).
    pub f32le_hex: String,
}

fn hex(v: &[f32]) -> String {
    let mut s = String::with_capacity(v.len() * 8);
    for x in v {
        for b in x.to_le_bytes() {
            s.push_str(&format!("{b:02x}"));
        }
    }
    s
}

fn unhex(s: &str) -> Option<Vec<f32>> {
    if !s.len().is_multiple_of(8) || !s.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).ok())
        .collect();
    Some(
        bytes?
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// Reads a shard's rows, cutting a torn last line off the file when `repair` is set. A line
/// that does not parse is an error naming the file and line.
pub fn read_rows(path: &Path, repair: bool) -> anyhow::Result<Vec<RowLine>> {
    let bytes = execscope_record::atomic::read_journal(path, repair)
        .with_context(|| format!("reading {}", path.display()))?;
    let text =
        String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8", path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: bad row", path.display(), i + 1))
        })
        .collect()
}

/// What [`embed_shard`] did.
#[derive(Clone, Debug)]
pub struct ShardOutcome {
    pub manifest: Manifest,
    /// Rows this shard owns.
    pub rows: usize,
}

fn write_json(path: &Path, v: &impl Serialize) -> anyhow::Result<()> {
    let mut json = serde_json::to_vec_pretty(v)?;
    json.push(b'\n');
    execscope_record::atomic::write_atomic(path, &json)
        .with_context(|| format!("writing {}", path.display()))
}

/// Embeds the batches of the bundle at `root` that `shard` owns into the partial result `out`.
/// A rerun into the same `out` with the same settings keeps the batches already there.
pub fn embed_shard(
    root: &Path,
    opts: &EmbedOptions,
    worker: &mut Worker,
    shard: Shard,
    out: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> anyhow::Result<ShardOutcome> {
    super::run::check_name(&opts.name)?;
    let texts = texts_of(root, opts.stacked)?;
    let info = worker
        .info(&opts.spec)
        .with_context(|| format!("loading model {}", opts.spec.model))?;
    let d = info.dims;
    let settings = settings_json(&opts.spec, &info, &texts);
    let mut inputs: BTreeMap<String, String> = settings
        .as_object()
        .map(|o| o.iter().map(|(k, v)| (k.clone(), v.to_string())).collect())
        .unwrap_or_default();
    inputs.insert("stacked".into(), opts.stacked.to_string());
    let mut m = Manifest {
        kind: "embed".into(),
        shard,
        state: "running".into(),
        inputs,
        source: opts.name.clone(),
        isolation: "none (no snippet is executed)".into(),
        privileges: String::new(),
        runner: info.runtime.clone(),
        budget_ms: 0,
        execscope: execscope_record::version().to_string(),
        pending: 0,
        phase: None,
        executed: 0,
        reused: 0,
    };
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let rows_path = out.join(ROWS_FILE);
    // Rows of an earlier run of this shard with the same inputs are kept; others are dropped.
    let same = execscope_build::shard::read_manifest(out)
        .is_ok_and(|old| old.inputs == m.inputs && old.shard == shard && old.kind == m.kind);
    if !same && rows_path.exists() {
        std::fs::remove_file(&rows_path)
            .with_context(|| format!("removing stale {}", rows_path.display()))?;
    }
    write_json(&out.join(MANIFEST_FILE), &m)?;
    let have: std::collections::BTreeSet<usize> =
        read_rows(&rows_path, true)?.iter().map(|r| r.row).collect();
    let mine: Vec<std::ops::Range<usize>> = batches(&texts.items, opts.spec.batch_size)
        .into_iter()
        .filter(|r| {
            let (section, id) = texts.key(r.start);
            Shard::of_key(section, id, shard.count) == shard.index
        })
        .collect();
    let total: usize = mine.iter().map(|r| r.len()).sum();
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&rows_path)
        .with_context(|| format!("opening {}", rows_path.display()))?;
    let mut done = 0;
    progress(done, total);
    for r in &mine {
        if r.clone().all(|i| have.contains(&i)) {
            m.reused += r.len();
            done += r.len();
            continue;
        }
        let role = texts.items[r.start].0;
        let batch: Vec<String> = texts.items[r.clone()]
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        let v = worker.encode(&opts.spec, role, &batch)?;
        if v.ncols() != d || v.nrows() != batch.len() {
            bail!(
                "model {} returned {}×{} for a batch of {} texts of {d} dimensions",
                opts.spec.model,
                v.nrows(),
                v.ncols(),
                batch.len()
            );
        }
        let mut buf = Vec::new();
        for (i, row) in r.clone().zip(v.rows()) {
            let (section, id) = texts.key(i);
            let line = RowLine {
                row: i,
                section: section.into(),
                id: id.into(),
                text_sha256: sha256_hex(texts.items[i].1.as_bytes()),
                f32le_hex: hex(&row.to_vec()),
            };
            serde_json::to_writer(&mut buf, &line)?;
            buf.push(b'\n');
        }
        file.write_all(&buf)?;
        file.sync_data()?;
        m.executed += r.len();
        done += r.len();
        progress(done, total);
    }
    drop(file);
    let entry = invocation_entry(opts, &info, d, texts.stacked_ids.len());
    write_json(&out.join(ENTRY_FILE), &entry)?;
    m.state = "done".into();
    write_json(&out.join(MANIFEST_FILE), &m)?;
    Ok(ShardOutcome {
        manifest: m,
        rows: total,
    })
}

/// What [`merge`] wrote.
#[derive(Clone, Debug)]
pub struct MergeOutcome {
    pub file: PathBuf,
    pub rows: usize,
    pub dims: usize,
}

/// Merges the embedding shards `parts` into the bundle at `root`: refuses what
/// [`execscope_build::shard::check_parts`] refuses (missing shards by number, other inputs, kinds,
/// counts), different entries, conflicting vectors for one row, rows missing, and rows whose
/// text differs from the bundle's; then writes the system as a one-machine `embed` does.
pub fn merge(parts: &[PathBuf], root: &Path) -> anyhow::Result<MergeOutcome> {
    let ms = execscope_build::shard::check_parts(parts)?;
    let m0 = &ms[0].1;
    let name = m0.source.clone();
    super::run::check_name(&name)?;
    let stacked = m0.inputs.get("stacked").is_some_and(|s| s == "true");
    let texts = texts_of(root, stacked)?;
    let mut entry: Option<(serde_json::Value, PathBuf)> = None;
    let mut rows: BTreeMap<usize, (Vec<f32>, String)> = BTreeMap::new();
    for (p, m) in &ms {
        let ep = p.join(ENTRY_FILE);
        let e: serde_json::Value = serde_json::from_slice(
            &std::fs::read(&ep).with_context(|| format!("reading {}", ep.display()))?,
        )
        .with_context(|| format!("{}: invalid JSON", ep.display()))?;
        match &entry {
            Some((first, at)) if *first != e => bail!(
                "shards describe the system differently: {} and {} differ",
                at.join(ENTRY_FILE).display(),
                ep.display()
            ),
            Some(_) => {}
            None => entry = Some((e, p.clone())),
        }
        let rp = p.join(ROWS_FILE);
        for (n, r) in read_rows(&rp, false)?.into_iter().enumerate() {
            let at = format!("{}:{}", rp.display(), n + 1);
            let v = unhex(&r.f32le_hex).with_context(|| format!("{at}: bad f32le_hex"))?;
            if r.row >= texts.items.len() {
                bail!(
                    "{at}: row {} but {} has {} rows to embed",
                    r.row,
                    root.display(),
                    texts.items.len()
                );
            }
            let (section, id) = texts.key(r.row);
            if (section, id) != (r.section.as_str(), r.id.as_str())
                || sha256_hex(texts.items[r.row].1.as_bytes()) != r.text_sha256
            {
                bail!(
                    "{at}: row {} is {} {} in the shard, but {} {} (or another text) in {}",
                    r.row,
                    r.section,
                    r.id,
                    section,
                    id,
                    root.display()
                );
            }
            match rows.get(&r.row) {
                Some((old, from)) if *old != v => bail!(
                    "conflicting vectors for row {} ({} {}): {from} and shard {} ({at})",
                    r.row,
                    r.section,
                    r.id,
                    m.shard
                ),
                Some(_) => {}
                None => {
                    rows.insert(r.row, (v, format!("shard {} ({at})", m.shard)));
                }
            }
        }
    }
    let (entry, _) = entry.context("no shard")?;
    let d = entry
        .get("dims")
        .and_then(serde_json::Value::as_u64)
        .context("the shards' entry.json has no dims")? as usize;
    let missing: Vec<String> = (0..texts.items.len())
        .filter(|i| !rows.contains_key(i))
        .map(|i| {
            let (s, id) = texts.key(i);
            format!("{i} ({s} {id})")
        })
        .collect();
    if !missing.is_empty() {
        bail!(
            "{} row(s) embedded by no shard: {}{}",
            missing.len(),
            missing[..missing.len().min(5)].join(", "),
            if missing.len() > 5 { ", …" } else { "" }
        );
    }
    let mut all = Vec::with_capacity(texts.items.len() * d);
    for (i, (v, from)) in &rows {
        if v.len() != d {
            bail!("row {i}: {} dimensions in {from}, {d} announced", v.len());
        }
        all.extend_from_slice(v);
    }
    let all = Array2::from_shape_vec((texts.items.len(), d), all)?;
    let file = write_system(root, &name, stacked, &texts, &all, &entry)?;
    Ok(MergeOutcome {
        file,
        rows: texts.items.len(),
        dims: d,
    })
}
