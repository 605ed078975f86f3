//! Stacked variants (paper Appendix G.2): `data/stacked_distractors.jsonl`, written by
//! `execscope build --stacked`, and their passage vectors, stored as the array `stacked` (rows in
//! file order, optional `stacked_ids`) inside each system's npz by `crates/embed/assets/embed.py`.
//!
//! Every row is checked with the rules the stacked-variant analysis relies on ([`rows`]); `load`
//! stops at the first bad row and `check` lists them all, so no report number comes from a row
//! `check` rejects.

use super::error::BundleError;
use super::files;
use super::model::{sha256_hex, Bundle, Query, Snippet, StackedVariant};
use super::npy::{Dtype, Npz};
use execscope_record::Outcome;
use ndarray::Array2;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

pub const STACKED: &str = "data/stacked_distractors.jsonl";

/// Fewest and most single edits a stacked variant composes.
pub const EDITS: std::ops::RangeInclusive<usize> = 2..=4;

/// Parse and check every row of the stacked file against queries and corpus. Returns the
/// variants of the good rows and one error (naming file, line and id) per bad row.
pub fn rows(
    path: &Path,
    bytes: &[u8],
    queries: &[Query],
    corpus: &[Snippet],
) -> Result<(Vec<StackedVariant>, Vec<BundleError>), BundleError> {
    let rows = files::jsonl(path, bytes)?;
    let q_of: HashMap<&str, usize> = queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    let c_of: HashMap<&str, usize> = corpus
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    for mut row in rows {
        let line = row.line;
        match one(path, &mut row, queries, &q_of, &c_of) {
            Ok(v) => {
                if let Some(&first) = seen.get(&v.id) {
                    errors.push(BundleError::DuplicateId {
                        path: path.to_path_buf(),
                        line,
                        id: v.id,
                        first_line: first,
                    });
                } else {
                    seen.insert(v.id.clone(), line);
                    out.push(v);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    Ok((out, errors))
}

fn one(
    path: &Path,
    row: &mut files::Row,
    queries: &[Query],
    q_of: &HashMap<&str, usize>,
    c_of: &HashMap<&str, usize>,
) -> Result<StackedVariant, BundleError> {
    let line = row.line;
    let mut f = files::Fields { path, row };
    let id = f.string("stacked_id")?;
    let bad = |detail: String| BundleError::field(path, line, format!("stacked `{id}`: {detail}"));
    let qid = f.string("query_id")?;
    let canonical_id = f.string("canonical_id")?;
    let parts = f.strings("parts")?;
    let bug_types = f.strings("bug_types")?;
    let code = f.string("code")?;
    let outcomes = f.strings("outcomes")?;
    let n_edits = match f.take("n_edits") {
        Some(serde_json::Value::Number(n)) => n.as_u64(),
        None => return Err(bad("missing field `n_edits`".into())),
        Some(_) => None,
    }
    .ok_or_else(|| bad("`n_edits` must be a whole number".into()))?;
    let passes_all = match f.take("passes_all_tests") {
        Some(serde_json::Value::Bool(b)) => b,
        None => return Err(bad("missing field `passes_all_tests`".into())),
        Some(_) => return Err(bad("`passes_all_tests` must be true or false".into())),
    };
    let query = *q_of
        .get(qid.as_str())
        .ok_or_else(|| bad(format!("unknown query_id `{qid}`")))?;
    let q = &queries[query];
    let canon = *c_of
        .get(canonical_id.as_str())
        .ok_or_else(|| bad(format!("unknown canonical_id `{canonical_id}`")))?;
    if q.correct.first() != Some(&canon) {
        return Err(bad(format!(
            "canonical_id `{canonical_id}` is not the canonical of query `{qid}`"
        )));
    }
    if !EDITS.contains(&(n_edits as usize)) {
        return Err(bad(format!(
            "n_edits is {n_edits}, outside {}..={}",
            EDITS.start(),
            EDITS.end()
        )));
    }
    if parts.len() as u64 != n_edits || bug_types.len() as u64 != n_edits {
        return Err(bad(format!(
            "n_edits is {n_edits}, but it lists {} parts and {} bug types",
            parts.len(),
            bug_types.len()
        )));
    }
    let mut rows = Vec::with_capacity(parts.len());
    for p in &parts {
        let r = *c_of
            .get(p.as_str())
            .ok_or_else(|| bad(format!("unknown corpus id `{p}` in `parts`")))?;
        if !q.paired.contains(&r) {
            return Err(bad(format!(
                "part `{p}` is not a paired distractor of query `{qid}`"
            )));
        }
        rows.push(r);
    }
    for (i, o) in outcomes.iter().enumerate() {
        o.parse::<Outcome>()
            .map_err(|e| bad(format!("outcome {}: {e}", i + 1)))?;
    }
    if outcomes.len() != q.tests.len() {
        return Err(bad(format!(
            "{} outcomes, but query `{qid}` has {} tests",
            outcomes.len(),
            q.tests.len()
        )));
    }
    let all = outcomes.iter().all(|o| o == "pass");
    if all != passes_all {
        return Err(bad(format!(
            "passes_all_tests is {passes_all}, but the outcomes say {all}"
        )));
    }
    if passes_all {
        return Err(bad(
            "passes every test; a stacked variant must still fail the suite".into(),
        ));
    }
    Ok(StackedVariant {
        id,
        query,
        n_edits: rows.len(),
        parts: rows,
        bug_types,
        code,
    })
}

/// The `stacked` matrix of one system's npz, checked against the variants (`ids`, in file order)
/// and the system's width; `None` when the npz holds no `stacked` array.
pub fn vectors(
    npz_path: &Path,
    ids: &[String],
    width: usize,
) -> Result<Option<Array2<f32>>, BundleError> {
    let bytes = files::read(npz_path)?;
    let mut npz = Npz::open(npz_path, &bytes)?;
    let headers = npz.headers()?;
    if !headers.iter().any(|h| h.name == "stacked") {
        if let Some(h) = headers.iter().find(|h| h.name == "stacked_ids") {
            return Err(BundleError::npz(
                npz_path,
                format!("array `{}` without an array `stacked`", h.name),
            ));
        }
        return Ok(None);
    }
    let m = npz.matrix("stacked")?;
    if m.nrows() != ids.len() || m.ncols() != width {
        return Err(BundleError::npz(
            npz_path,
            format!(
                "array `stacked` is {} × {}, expected {} × {width} ({STACKED} rows × system width)",
                m.nrows(),
                m.ncols(),
                ids.len(),
            ),
        ));
    }
    if let Some(h) = headers.iter().find(|h| h.name == "stacked_ids") {
        if !matches!(h.dtype, Dtype::Unicode { .. }) {
            return Err(BundleError::npz(
                npz_path,
                format!(
                    "array `stacked_ids` has dtype {}, expected strings (numpy `U`)",
                    h.descr
                ),
            ));
        }
        let got = npz.strings("stacked_ids")?;
        if got.len() != ids.len() {
            return Err(BundleError::RowCount {
                path: npz_path.to_path_buf(),
                array: "stacked_ids".into(),
                rows: got.len(),
                expected: ids.len(),
                what: STACKED.into(),
            });
        }
        if let Some(i) = (0..ids.len()).find(|&i| got[i] != ids[i]) {
            return Err(BundleError::IdOrder {
                path: npz_path.to_path_buf(),
                array: "stacked_ids".into(),
                row: i,
                found: got[i].clone(),
                expected: ids[i].clone(),
            });
        }
    }
    Ok(Some(m))
}

/// Read the stacked variants and their vectors into `bundle`, when the file exists; the first
/// bad row or array is the error.
pub fn load_stacked(
    bundle: &mut Bundle,
    sha256: &mut BTreeMap<String, String>,
) -> Result<(), BundleError> {
    let path = bundle.root.join(STACKED);
    let bytes = match files::read_in(&bundle.root, STACKED) {
        Err(BundleError::Missing { .. }) => return Ok(()),
        other => other?,
    };
    sha256.insert(STACKED.to_string(), sha256_hex(&bytes));
    let (variants, mut errors) = rows(&path, &bytes, &bundle.queries, &bundle.corpus)?;
    if !errors.is_empty() {
        return Err(errors.remove(0));
    }
    bundle.stacked = variants;
    let ids: Vec<String> = bundle.stacked.iter().map(|v| v.id.clone()).collect();
    for sys in &bundle.systems {
        let npz_path = bundle
            .root
            .join("embeddings")
            .join(format!("{}.npz", sys.id));
        if let Some(m) = vectors(&npz_path, &ids, sys.corpus.ncols())? {
            bundle.stacked_vectors.insert(sys.id.clone(), m);
        }
    }
    Ok(())
}
