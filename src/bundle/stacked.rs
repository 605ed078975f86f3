//! Stacked variants (paper Appendix G.2): `data/stacked_distractors.jsonl`, written by
//! `execscope build --stacked`, and their passage vectors, stored as the array `stacked` (rows in
//! file order, optional `stacked_ids`) inside each system's npz by `assets/embed.py`.

use super::error::BundleError;
use super::files;
use super::model::{sha256_hex, Bundle, StackedVariant};
use super::npy::{Dtype, Npz};
use std::collections::{BTreeMap, HashMap};

pub const STACKED: &str = "data/stacked_distractors.jsonl";

/// Read the stacked variants and their vectors into `bundle`, when the file exists.
pub fn load_stacked(
    bundle: &mut Bundle,
    sha256: &mut BTreeMap<String, String>,
) -> Result<(), BundleError> {
    let path = bundle.root.join(STACKED);
    if !path.exists() {
        return Ok(());
    }
    let bytes = files::read(&path)?;
    sha256.insert(STACKED.to_string(), sha256_hex(&bytes));
    let rows = files::jsonl(&path, &bytes)?;
    let q_of: HashMap<&str, usize> = bundle
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    let c_of: HashMap<&str, usize> = bundle
        .corpus
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut out = Vec::with_capacity(rows.len());
    for mut row in rows {
        let line = row.line;
        let mut f = files::Fields {
            path: &path,
            row: &mut row,
        };
        let id = f.string("stacked_id")?;
        let qid = f.string("query_id")?;
        let parts = f.strings("parts")?;
        let bug_types = f.strings("bug_types")?;
        let code = f.string("code")?;
        let dangling = |what: &str, id: &str| BundleError::Invalid {
            path: path.clone(),
            detail: format!("line {line}: stacked variant refers to unknown {what} `{id}`"),
        };
        let query = *q_of
            .get(qid.as_str())
            .ok_or_else(|| dangling("query", &qid))?;
        let parts = parts
            .iter()
            .map(|p| {
                c_of.get(p.as_str())
                    .copied()
                    .ok_or_else(|| dangling("corpus id", p))
            })
            .collect::<Result<Vec<_>, _>>()?;
        out.push(StackedVariant {
            id,
            query,
            n_edits: parts.len(),
            parts,
            bug_types,
            code,
        });
    }
    bundle.stacked = out;
    let ids: Vec<String> = bundle.stacked.iter().map(|v| v.id.clone()).collect();
    for sys in &bundle.systems {
        let npz_path = bundle
            .root
            .join("embeddings")
            .join(format!("{}.npz", sys.id));
        let Ok(bytes) = std::fs::read(&npz_path) else {
            continue;
        };
        let mut npz = Npz::open(&npz_path, &bytes)?;
        let headers = npz.headers()?;
        if !headers.iter().any(|h| h.name == "stacked") {
            continue;
        }
        let m = npz.matrix("stacked")?;
        if m.nrows() != ids.len() || m.ncols() != sys.corpus.ncols() {
            return Err(BundleError::npz(
                &npz_path,
                format!(
                    "array `stacked` is {} × {}, expected {} × {} ({STACKED} rows × system width)",
                    m.nrows(),
                    m.ncols(),
                    ids.len(),
                    sys.corpus.ncols()
                ),
            ));
        }
        if headers
            .iter()
            .any(|h| h.name == "stacked_ids" && matches!(h.dtype, Dtype::Unicode { .. }))
        {
            let got = npz.strings("stacked_ids")?;
            if let Some(i) = (0..ids.len()).find(|&i| got.get(i) != Some(&ids[i])) {
                return Err(BundleError::npz(
                    &npz_path,
                    format!(
                        "array `stacked_ids` row {i} is {:?}, {STACKED} has {:?}",
                        got.get(i),
                        ids[i]
                    ),
                ));
            }
        }
        bundle.stacked_vectors.insert(sys.id.clone(), m);
    }
    Ok(())
}
