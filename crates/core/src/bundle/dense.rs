//! Loading one dense system from `embeddings/<system>.npz`: picking the query and corpus
//! matrices (by name, else by shape), converting to f32, and refusing unusable matrices.

use ndarray::{Array2, Axis};
use std::collections::HashMap;
use std::path::Path;

use super::error::BundleError;
use super::model::{sha256_hex, DenseSystem, Invocation, Similarity};
use super::npy::{Dtype, NpyHeader, Npz};

/// What a system load needs to know about the jsonl files.
pub struct Expect<'a> {
    pub query_ids: &'a [String],
    pub corpus_ids: &'a [String],
}

/// A loaded system with the file's digest and the loader's notes about it.
pub struct Loaded {
    pub system: DenseSystem,
    pub sha256: String,
    pub notes: Vec<String>,
    /// Row-id arrays the archive lacks (`query_ids`, `corpus_ids`): its rows are taken in jsonl
    /// order unverified. Allowed (docs/bundle-format.md); `check` reports it as a warning.
    pub unverified: Vec<&'static str>,
}

/// Parse a similarity name from the invocation table.
pub fn parse_similarity(s: Option<&str>) -> Result<Similarity, String> {
    match s.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
        None | Some("") | Some("cos") | Some("cosine") => Ok(Similarity::Cos),
        Some("dot") | Some("ip") | Some("inner_product") => Ok(Similarity::Dot),
        Some("score") | Some("scores") => Ok(Similarity::Score),
        Some(other) => Err(format!(
            "unknown similarity {other:?} (expected \"cos\", \"dot\" or \"score\")"
        )),
    }
}

fn describe(h: &NpyHeader) -> String {
    format!("`{}` {} {:?}", h.name, h.descr, h.shape)
}

/// Choose the array for one role among 2-D float arrays with the right row count.
fn pick<'h>(
    path: &Path,
    role: &str,
    rows: usize,
    floats: &[&'h NpyHeader],
    hints: &[&str],
) -> Result<&'h NpyHeader, BundleError> {
    let cands: Vec<&NpyHeader> = floats
        .iter()
        .copied()
        .filter(|h| h.shape[0] == rows)
        .collect();
    match cands.len() {
        0 => Err(BundleError::npz(
            path,
            format!(
                "no 2-D float array with {rows} rows for the {role} (arrays: {})",
                floats
                    .iter()
                    .map(|h| describe(h))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
        1 => Ok(cands[0]),
        _ => {
            let hinted: Vec<&NpyHeader> = cands
                .iter()
                .copied()
                .filter(|h| {
                    hints
                        .iter()
                        .any(|k| h.name.to_ascii_lowercase().contains(k))
                })
                .collect();
            if hinted.len() == 1 {
                Ok(hinted[0])
            } else {
                Err(BundleError::npz(
                    path,
                    format!(
                        "ambiguous: several arrays could be the {role} ({}); name them `queries` and `corpus`",
                        cands.iter().map(|h| describe(h)).collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        }
    }
}

/// Refuse non-finite values anywhere and zero-norm rows under cosine.
pub fn validate_matrix(
    path: &Path,
    array: &str,
    m: &Array2<f32>,
    similarity: Similarity,
) -> Result<(), BundleError> {
    for (row, r) in m.axis_iter(Axis(0)).enumerate() {
        // One branch-free pass over the row (it vectorises); the position only on a failure.
        let (finite, nonzero) = match r.as_slice() {
            Some(s) => s.iter().fold((true, false), |(ok, any), &v| {
                (ok & v.is_finite(), any | (v != 0.0))
            }),
            None => r.fold((true, false), |(ok, any), &v| {
                (ok & v.is_finite(), any | (v != 0.0))
            }),
        };
        if !finite {
            let column = r.iter().position(|v| !v.is_finite()).unwrap_or(0);
            return Err(BundleError::NonFinite {
                path: path.to_path_buf(),
                array: array.to_string(),
                row,
                column,
                value: r[column],
            });
        }
        // A finite row has norm 0 exactly when every value is 0 (the square of the smallest
        // f32 is still positive in f64).
        if similarity == Similarity::Cos && !nonzero {
            return Err(BundleError::ZeroNorm {
                path: path.to_path_buf(),
                array: array.to_string(),
                row,
            });
        }
    }
    Ok(())
}

fn check_ids(
    path: &Path,
    npz: &mut Npz<'_>,
    array: &str,
    want: &[String],
) -> Result<(), BundleError> {
    let got = npz.strings(array)?;
    if got.len() != want.len() {
        return Err(BundleError::RowCount {
            path: path.to_path_buf(),
            array: array.to_string(),
            rows: got.len(),
            expected: want.len(),
            what: "the jsonl file".to_string(),
        });
    }
    for (row, (g, w)) in got.iter().zip(want).enumerate() {
        if g != w {
            return Err(BundleError::IdOrder {
                path: path.to_path_buf(),
                array: array.to_string(),
                row,
                found: g.clone(),
                expected: w.clone(),
            });
        }
    }
    Ok(())
}

/// A precomputed-score system (`docs/systems.md`): array `scores` (n_queries × n_corpus floats)
/// with `query_ids` and `corpus_ids` naming its rows and columns, both required.
fn score_system(
    path: &Path,
    id: &str,
    invocation: Option<&Invocation>,
    npz: &mut Npz<'_>,
    by_name: &HashMap<&str, &NpyHeader>,
    expect: &Expect<'_>,
) -> Result<DenseSystem, BundleError> {
    if !by_name.contains_key("scores") {
        return Err(BundleError::npz(
            path,
            "the invocation table says similarity \"score\", but there is no array `scores`",
        ));
    }
    let scores = npz.matrix("scores")?;
    let (nq, nc) = (expect.query_ids.len(), expect.corpus_ids.len());
    if scores.nrows() != nq {
        return Err(BundleError::RowCount {
            path: path.to_path_buf(),
            array: "scores".into(),
            rows: scores.nrows(),
            expected: nq,
            what: "data/queries.jsonl".into(),
        });
    }
    if scores.ncols() != nc {
        return Err(BundleError::npz(
            path,
            format!(
                "array `scores` has {} columns, data/corpus.jsonl has {nc} snippets",
                scores.ncols()
            ),
        ));
    }
    validate_matrix(path, "scores", &scores, Similarity::Score)?;
    for (array, want) in [
        ("query_ids", expect.query_ids),
        ("corpus_ids", expect.corpus_ids),
    ] {
        match by_name.get(array) {
            Some(h) if matches!(h.dtype, Dtype::Unicode { .. }) && h.shape.len() == 1 => {
                check_ids(path, npz, array, want)?
            }
            _ => {
                return Err(BundleError::npz(
                    path,
                    format!("a score matrix needs its row ids: no 1-D string array `{array}`"),
                ))
            }
        }
    }
    Ok(DenseSystem {
        id: id.to_string(),
        similarity: Similarity::Score,
        queries: Array2::zeros((nq, 0)),
        corpus: scores.reversed_axes().as_standard_layout().into_owned(),
        invocation: invocation.cloned(),
    })
}

/// Load one system. `id` is the file stem.
pub fn load_system(
    path: &Path,
    id: &str,
    invocation: Option<&Invocation>,
    similarity: Similarity,
    expect: &Expect<'_>,
) -> Result<Loaded, BundleError> {
    let bytes = super::files::map(path)?;
    let sha256 = sha256_hex(&bytes);
    let mut npz = Npz::open(path, &bytes)?;
    let headers = npz.headers()?;
    let by_name: HashMap<&str, &NpyHeader> = headers.iter().map(|h| (h.name.as_str(), h)).collect();
    let (nq, nc) = (expect.query_ids.len(), expect.corpus_ids.len());
    let mut notes = Vec::new();
    let mut unverified = Vec::new();
    let rel = format!("embeddings/{id}.npz");
    if similarity == Similarity::Score
        || (by_name.contains_key("scores") && !by_name.contains_key("queries"))
    {
        let system = score_system(path, id, invocation, &mut npz, &by_name, expect)?;
        // A score system's ids are required (`score_system` refuses a file without them).
        return Ok(Loaded {
            system,
            sha256,
            notes,
            unverified,
        });
    }
    let (qh, ch) = match (by_name.get("queries"), by_name.get("corpus")) {
        (Some(q), Some(c)) => (*q, *c),
        _ => {
            let floats: Vec<&NpyHeader> = headers
                .iter()
                .filter(|h| matches!(h.dtype, Dtype::Float { .. }) && h.shape.len() == 2)
                .collect();
            let q = pick(path, "queries", nq, &floats, &["quer"])?;
            let c = pick(
                path,
                "corpus",
                nc,
                &floats,
                &["corp", "doc", "passage", "code"],
            )?;
            if q.name == c.name {
                return Err(BundleError::npz(
                    path,
                    format!(
                        "ambiguous: array `{}` fits both the queries and the corpus",
                        q.name
                    ),
                ));
            }
            notes.push(format!(
                "{rel}: no `queries`/`corpus` arrays; picked by shape: `{}` as queries, `{}` as corpus",
                q.name,
                c.name
            ));
            (q, c)
        }
    };
    for h in [qh, ch] {
        if let Dtype::Float { bytes: w, .. } = h.dtype {
            if w != 4 {
                notes.push(format!(
                    "{rel}: array `{}` is float{} (converted to float32)",
                    h.name,
                    w * 8
                ));
            }
        }
    }
    let (qname, cname) = (qh.name.clone(), ch.name.clone());
    let queries = npz.matrix(&qname)?;
    let corpus = npz.matrix(&cname)?;
    for (name, m, want, what) in [
        (&qname, &queries, nq, "data/queries.jsonl"),
        (&cname, &corpus, nc, "data/corpus.jsonl"),
    ] {
        if m.nrows() != want {
            return Err(BundleError::RowCount {
                path: path.to_path_buf(),
                array: name.clone(),
                rows: m.nrows(),
                expected: want,
                what: what.to_string(),
            });
        }
    }
    if queries.ncols() != corpus.ncols() {
        return Err(BundleError::npz(
            path,
            format!(
                "arrays `{qname}` and `{cname}` differ in width ({} vs {})",
                queries.ncols(),
                corpus.ncols()
            ),
        ));
    }
    validate_matrix(path, &qname, &queries, similarity)?;
    validate_matrix(path, &cname, &corpus, similarity)?;
    for (array, want) in [
        ("query_ids", expect.query_ids),
        ("corpus_ids", expect.corpus_ids),
    ] {
        match by_name.get(array) {
            Some(h) if matches!(h.dtype, Dtype::Unicode { .. }) && h.shape.len() == 1 => {
                check_ids(path, &mut npz, array, want)?
            }
            Some(h) => {
                return Err(BundleError::npz(
                    path,
                    format!(
                        "array `{array}` is {} of shape {:?}; row ids must be a 1-D array of strings (numpy `U`), one per row",
                        h.descr, h.shape
                    ),
                ))
            }
            None => {
                unverified.push(array);
                notes.push(format!(
                    "{rel}: no array `{array}`; the row order cannot be checked against the jsonl"
                ))
            }
        }
    }
    Ok(Loaded {
        system: DenseSystem {
            id: id.to_string(),
            similarity,
            queries,
            corpus,
            invocation: invocation.cloned(),
        },
        sha256,
        notes,
        unverified,
    })
}
