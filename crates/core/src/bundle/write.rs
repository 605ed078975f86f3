//! `write`: a bundle to disk in the spec's layout, every file atomically (a temp file in the same
//! directory, then rename), so a crash never leaves a half-written file under a real name.

use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::Path;

use super::error::BundleError;
use super::files::{self, CACHE, CORPUS, DISTRACTORS, INVOCATION, QUERIES, SUMS};
use super::model::{sha256_hex, Bundle, Invocation};
use super::npy::{write_npz, NpzItem};

/// Write `bytes` to `root/rel` via a temp file in the same directory and a rename.
fn atomic(
    root: &Path,
    rel: &str,
    fill: impl FnOnce(&mut std::fs::File) -> Result<(), String>,
) -> Result<(), BundleError> {
    let path = root.join(rel);
    let dir = path.parent().unwrap_or(root);
    std::fs::create_dir_all(dir).map_err(|e| BundleError::io(dir, e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| BundleError::io(dir, e))?;
    fill(tmp.as_file_mut()).map_err(|d| BundleError::Invalid {
        path: path.clone(),
        detail: format!("cannot write: {d}"),
    })?;
    tmp.as_file_mut()
        .sync_all()
        .map_err(|e| BundleError::io(&path, e))?;
    tmp.persist(&path)
        .map_err(|e| BundleError::io(&path, e.error))?;
    Ok(())
}

fn jsonl(root: &Path, rel: &str, rows: impl Iterator<Item = Value>) -> Result<(), BundleError> {
    let mut buf = Vec::new();
    for row in rows {
        serde_json::to_writer(&mut buf, &row).map_err(|e| BundleError::Invalid {
            path: root.join(rel),
            detail: e.to_string(),
        })?;
        buf.push(b'\n');
    }
    atomic(root, rel, |f| f.write_all(&buf).map_err(|e| e.to_string()))
}

fn ids(bundle: &Bundle, rows: &[usize]) -> Value {
    Value::Array(
        rows.iter()
            .map(|&r| Value::String(bundle.corpus[r].id.clone()))
            .collect(),
    )
}

/// Write the bundle under `root` (created if needed). Existing files of the same names are
/// replaced; `SHA256SUMS` is rewritten over every file under `root`.
pub fn write(bundle: &Bundle, root: &Path) -> Result<(), BundleError> {
    jsonl(
        root,
        QUERIES,
        bundle.queries.iter().map(|q| {
            let mut m = Map::new();
            m.insert("query_id".into(), json!(q.id));
            m.insert("query".into(), json!(q.text));
            m.insert("test_suite".into(), json!(q.tests));
            m.insert("correct_corpus_ids".into(), ids(bundle, &q.correct));
            m.insert(
                "paired_distractor_corpus_ids".into(),
                ids(bundle, &q.paired),
            );
            m.insert("entry_id".into(), json!(q.entry_id));
            m.insert("domain".into(), json!(q.domain));
            m.insert("function_name".into(), json!(q.function_name));
            // Absent means Python, so a Python bundle's bytes are what they were.
            if !q.language.is_python() {
                m.insert("language".into(), json!(q.language));
            }
            // The format says `metadata` is an object; a query read without one gets `{}`.
            let meta = match &q.metadata {
                Value::Null => Value::Object(Map::new()),
                v => v.clone(),
            };
            m.insert("metadata".into(), meta);
            for (k, v) in &q.extra {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
            Value::Object(m)
        }),
    )?;
    jsonl(
        root,
        CORPUS,
        bundle.corpus.iter().map(|s| {
            let mut m = Map::new();
            m.insert("corpus_id".into(), json!(s.id));
            m.insert("code".into(), json!(s.code));
            m.insert("label".into(), json!(s.label.as_str()));
            if let Some(b) = &s.bug_type {
                m.insert("bug_type".into(), json!(b));
            }
            m.insert("source_entry_id".into(), json!(s.source_entry_id));
            if !s.language.is_python() {
                m.insert("language".into(), json!(s.language));
            }
            for (k, v) in &s.extra {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
            Value::Object(m)
        }),
    )?;
    let to_value = |v: serde_json::Result<Value>| v.unwrap_or(Value::Null);
    jsonl(
        root,
        DISTRACTORS,
        bundle
            .distractors
            .iter()
            .map(|d| to_value(serde_json::to_value(d))),
    )?;
    jsonl(
        root,
        CACHE,
        bundle
            .cache
            .iter()
            .map(|c| to_value(serde_json::to_value(c))),
    )?;

    let query_ids: Vec<String> = bundle.queries.iter().map(|q| q.id.clone()).collect();
    let corpus_ids: Vec<String> = bundle.corpus.iter().map(|s| s.id.clone()).collect();
    let mut table = Vec::new();
    for sys in &bundle.systems {
        let rel = format!("embeddings/{}.npz", sys.id);
        let score = sys.similarity == super::model::Similarity::Score;
        // A precomputed-score system is stored as its score matrix (see `Similarity::Score`).
        let scores = score.then(|| sys.corpus.t().as_standard_layout().into_owned());
        let matrices = match &scores {
            Some(s) => vec![("scores", NpzItem::F32(s))],
            None => vec![
                ("queries", NpzItem::F32(&sys.queries)),
                ("corpus", NpzItem::F32(&sys.corpus)),
            ],
        };
        atomic(root, &rel, |f| {
            let mut items = matrices;
            items.push(("query_ids", NpzItem::Strings(&query_ids)));
            items.push(("corpus_ids", NpzItem::Strings(&corpus_ids)));
            write_npz(std::io::BufWriter::new(f), &items)
        })?;
        let mut inv = sys.invocation.clone().unwrap_or_else(|| Invocation {
            id: sys.id.clone(),
            dtype: "float32".into(),
            ..Invocation::default()
        });
        inv.id = sys.id.clone();
        inv.file = rel;
        inv.dims = (!score).then(|| sys.queries.ncols());
        inv.similarity = sys.similarity;
        inv.dtype = "float32".into(); // what the npz now holds, whatever the source was
        table.push(inv);
    }
    let text = serde_json::to_string_pretty(&json!({ "systems": table })).unwrap_or_default();
    atomic(root, INVOCATION, |f| {
        f.write_all(text.as_bytes()).map_err(|e| e.to_string())
    })?;

    let mut sums = Vec::new();
    for rel in files::list_files(root)? {
        if rel == SUMS {
            continue;
        }
        let path = root.join(&rel);
        let bytes = std::fs::read(&path).map_err(|e| BundleError::io(&path, e))?;
        sums.push((rel, sha256_hex(&bytes)));
    }
    files::write_sums(root, &sums)
}
