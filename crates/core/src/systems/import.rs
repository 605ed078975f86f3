//! Reading a system from outside: a TREC run file or a dense score matrix (`.npy`), into a
//! query × snippet score matrix of the bundle (`docs/systems.md`).
//!
//! Snippets a run does not list for a query all get one score below every listed score of that
//! query (see [`floor_below`]), so they rank after every listed snippet as one tie group and
//! every tie policy stays well defined.

use crate::bundle::npy::{parse_header, Dtype};
use crate::bundle::{Bundle, Provenance};
use ndarray::Array2;
use std::collections::HashMap;
use std::path::Path;

/// A bad input, naming the file and (where there is one) the line.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}:{line}: {detail}")]
    Line {
        path: String,
        line: usize,
        detail: String,
    },
    #[error("{path}: {detail}")]
    File { path: String, detail: String },
}

fn line_err(path: &Path, line: usize, detail: impl Into<String>) -> ImportError {
    ImportError::Line {
        path: path.display().to_string(),
        line,
        detail: detail.into(),
    }
}

fn file_err(path: &Path, detail: impl Into<String>) -> ImportError {
    ImportError::File {
        path: path.display().to_string(),
        detail: detail.into(),
    }
}

/// The formats a system is imported from: a new format is a variant here, its parser below and
/// its [`Provenance`] (the invocation table's record of where the system came from).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportFormat {
    /// A TREC run (`qid Q0 docid rank score tag`, top-N per query; [`parse_run`]).
    TrecRun,
    /// A dense query × snippet score matrix (`.npy`; [`parse_scores_npy`]).
    ScoreMatrix,
}

/// A system read from outside: its score matrix, its provenance and one line saying what was
/// read (the CLI prints it).
#[derive(Clone, Debug)]
pub struct Imported {
    pub scores: Array2<f32>,
    pub provenance: Provenance,
    pub summary: String,
}

impl ImportFormat {
    /// Read the file at `path` (its `bytes`) in this format against `bundle`.
    pub fn read(self, path: &Path, bytes: &[u8], bundle: &Bundle) -> Result<Imported, ImportError> {
        let file = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let sha256 = execscope_record::keys::sha256_hex(bytes);
        match self {
            ImportFormat::TrecRun => {
                let r = parse_run(path, bytes, bundle)?;
                let empty = if r.empty_queries.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; {} queries without lines (all their snippets tie): {}",
                        r.empty_queries.len(),
                        r.empty_queries.join(", ")
                    )
                };
                Ok(Imported {
                    summary: format!(
                        "{} run lines, up to {} snippets per query{empty}",
                        r.lines, r.depth
                    ),
                    provenance: Provenance::ImportedRun {
                        file,
                        sha256,
                        lines: r.lines,
                        depth: r.depth,
                        tag: r.tag,
                    },
                    scores: r.scores,
                })
            }
            ImportFormat::ScoreMatrix => {
                let m = parse_scores_npy(path, bytes, bundle)?;
                Ok(Imported {
                    summary: format!("{} × {} scores", m.nrows(), m.ncols()),
                    provenance: Provenance::ImportedScores { file, sha256 },
                    scores: m,
                })
            }
        }
    }
}

/// What a run import read.
#[derive(Clone, Debug)]
pub struct RunImport {
    /// n_queries × n_corpus.
    pub scores: Array2<f32>,
    /// Run lines read (blank lines not counted).
    pub lines: usize,
    /// The most snippets listed for one query.
    pub depth: usize,
    /// Query ids the run lists nothing for (every snippet of theirs ties).
    pub empty_queries: Vec<String>,
    /// The tag when every line has the same one, else "".
    pub tag: String,
}

/// A score strictly below `min` (the lowest listed score of a query) and below it by at least
/// the spread of the listed scores (`max − min`, at least 1), so that a near-tie tolerance
/// smaller than that spread never joins the unlisted group to a listed one.
pub fn floor_below(min: f32, max: f32) -> Option<f32> {
    let gap = (f64::from(max) - f64::from(min)).max(1.0);
    let f = (f64::from(min) - gap) as f32;
    if f.is_finite() && f < min {
        return Some(f);
    }
    let f = min.next_down();
    f.is_finite().then_some(f)
}

/// Parse a TREC run (`qid Q0 docid rank score tag`, whitespace-separated, one line per listed
/// snippet) against the bundle's ids. Unknown ids, duplicate (query, snippet) lines, a wrong
/// number of columns, a rank that is not a positive integer and a score that is not a finite
/// float32 are errors naming the line.
pub fn parse_run(path: &Path, bytes: &[u8], bundle: &Bundle) -> Result<RunImport, ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        line_err(path, line, "not UTF-8 text")
    })?;
    let qrow: HashMap<&str, usize> = bundle
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    let crow: HashMap<&str, usize> = bundle
        .corpus
        .iter()
        .enumerate()
        .map(|(i, s)| (s.id.as_str(), i))
        .collect();
    let (nq, nc) = (bundle.queries.len(), bundle.corpus.len());
    // Per query: (snippet row, score); where each pair was first listed.
    let mut listed: Vec<Vec<(usize, f32)>> = vec![Vec::new(); nq];
    let mut seen: HashMap<(usize, usize), usize> = HashMap::new();
    let mut lines = 0usize;
    let mut tag: Option<String> = None;
    let mut same_tag = true;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let cols: Vec<&str> = line.split_whitespace().collect();
        if cols.is_empty() {
            continue;
        }
        if cols.len() != 6 {
            return Err(line_err(
                path,
                n,
                format!(
                    "expected 6 columns `qid Q0 docid rank score tag`, found {}",
                    cols.len()
                ),
            ));
        }
        lines += 1;
        let (qid, docid, rank, score, t) = (cols[0], cols[2], cols[3], cols[4], cols[5]);
        let &q = qrow
            .get(qid)
            .ok_or_else(|| line_err(path, n, format!("unknown query id `{qid}`")))?;
        let &c = crow
            .get(docid)
            .ok_or_else(|| line_err(path, n, format!("unknown snippet id `{docid}`")))?;
        match rank.parse::<u64>() {
            Ok(r) if r > 0 => {}
            _ => {
                return Err(line_err(
                    path,
                    n,
                    format!("rank `{rank}` is not a positive integer"),
                ))
            }
        }
        let v: f32 = score
            .parse()
            .map_err(|_| line_err(path, n, format!("score `{score}` is not a number")))?;
        if !v.is_finite() {
            let why = if score.parse::<f64>().is_ok_and(f64::is_finite) {
                "is outside the float32 range"
            } else {
                "is not finite"
            };
            return Err(line_err(path, n, format!("score `{score}` {why}")));
        }
        if let Some(first) = seen.insert((q, c), n) {
            return Err(line_err(
                path,
                n,
                format!(
                    "duplicate: query `{qid}` snippet `{docid}` is already listed at line {first}"
                ),
            ));
        }
        match &tag {
            None => tag = Some(t.to_string()),
            Some(prev) if prev != t => same_tag = false,
            _ => {}
        }
        listed[q].push((c, v));
    }
    if lines == 0 {
        return Err(file_err(
            path,
            "no run lines (expected `qid Q0 docid rank score tag`)",
        ));
    }
    let mut scores = Array2::<f32>::zeros((nq, nc));
    let mut empty_queries = Vec::new();
    for (q, items) in listed.iter().enumerate() {
        if items.is_empty() {
            empty_queries.push(bundle.queries[q].id.clone());
            continue;
        }
        let min = items.iter().map(|x| x.1).fold(f32::INFINITY, f32::min);
        let max = items.iter().map(|x| x.1).fold(f32::NEG_INFINITY, f32::max);
        let floor = floor_below(min, max).ok_or_else(|| {
            file_err(
                path,
                format!(
                    "query `{}`: its lowest score {min} leaves no float32 below it for the unlisted snippets",
                    bundle.queries[q].id
                ),
            )
        })?;
        let mut row = scores.row_mut(q);
        if items.len() < nc {
            row.fill(floor);
        }
        for &(c, v) in items {
            row[c] = v;
        }
    }
    let depth = listed.iter().map(Vec::len).max().unwrap_or(0);
    Ok(RunImport {
        scores,
        lines,
        depth,
        empty_queries,
        tag: if same_tag {
            tag.unwrap_or_default()
        } else {
            String::new()
        },
    })
}

/// Read a dense score matrix from a `.npy` file: float32 or float64, 2-D, n_queries × n_corpus
/// in the bundle's row orders (`data/queries.jsonl`, `data/corpus.jsonl`), every value finite.
pub fn parse_scores_npy(
    path: &Path,
    bytes: &[u8],
    bundle: &Bundle,
) -> Result<Array2<f32>, ImportError> {
    use ndarray_npy::ReadNpyExt;
    let (h, _) = parse_header("scores", bytes).map_err(|d| file_err(path, d))?;
    let (nq, nc) = (bundle.queries.len(), bundle.corpus.len());
    if h.shape != [nq, nc] {
        return Err(file_err(
            path,
            format!(
                "shape {:?}, expected [{nq}, {nc}] (the bundle's queries × corpus snippets, in file order)",
                h.shape
            ),
        ));
    }
    let bad = |e: ndarray_npy::ReadNpyError| file_err(path, e.to_string());
    let m: Array2<f32> = match h.dtype {
        Dtype::Float { bytes: 4, .. } => {
            Array2::<f32>::read_npy(std::io::Cursor::new(bytes)).map_err(bad)?
        }
        Dtype::Float { bytes: 8, .. } => Array2::<f64>::read_npy(std::io::Cursor::new(bytes))
            .map_err(bad)?
            .mapv(|v| v as f32),
        _ => {
            return Err(file_err(
                path,
                format!("dtype {}, expected float32 or float64", h.descr),
            ))
        }
    };
    let m = m.as_standard_layout().into_owned();
    if let Some((i, v)) = m.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        let (q, c) = (i / nc.max(1), i % nc.max(1));
        return Err(file_err(
            path,
            format!(
                "row {q} (query `{}`), column {c} (snippet `{}`): {v} is not a finite float32",
                bundle.queries[q].id, bundle.corpus[c].id
            ),
        ));
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_below_and_clear_of_the_spread() {
        assert_eq!(floor_below(0.2, 0.9), Some(-0.8));
        assert_eq!(floor_below(5.0, 25.0), Some(-15.0));
        // Where subtracting the gap is lost to rounding, the next float down.
        let big = 1.0e30f32;
        assert_eq!(floor_below(big, big), Some(big.next_down()));
        assert_eq!(floor_below(f32::MIN, f32::MIN), None);
    }
}
