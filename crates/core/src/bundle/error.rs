//! Errors of loading and writing bundles.
//!
//! Every variant carries the file it concerns and, where there is one, the line (1-based), the
//! matrix row (0-based, as numpy indexes it) or the id, so a user can open the file at the spot.

use std::path::PathBuf;

/// A loading, validation or writing failure. `Display` always names the file.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{}: cannot read", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: required file is missing", path.display())]
    Missing { path: PathBuf },
    #[error(
        "{}: this is a Git LFS pointer file, not the data (fetch it with `git lfs pull` or download the file itself)",
        path.display()
    )]
    GitLfsPointer { path: PathBuf },
    #[error("{}:{line}: file is truncated (the last line is cut off: {detail})", path.display())]
    Truncated {
        path: PathBuf,
        line: usize,
        detail: String,
    },
    #[error("{}: truncated or corrupt archive: {detail}", path.display())]
    BadArchive { path: PathBuf, detail: String },
    #[error("{}:{line}:{column}: invalid JSON: {detail}", path.display())]
    InvalidJson {
        path: PathBuf,
        line: usize,
        column: usize,
        detail: String,
    },
    /// A missing or wrongly typed field, or an unusable value.
    #[error("{}:{line}: {detail}", path.display())]
    Field {
        path: PathBuf,
        line: usize,
        detail: String,
    },
    #[error("{}:{line}: duplicate id `{id}` (first seen on line {first_line})", path.display())]
    DuplicateId {
        path: PathBuf,
        line: usize,
        id: String,
        first_line: usize,
    },
    #[error(
        "{}:{line}: query `{query_id}` lists `{id}` in `{list}`, but no corpus snippet has that id",
        path.display()
    )]
    DanglingId {
        path: PathBuf,
        line: usize,
        query_id: String,
        id: String,
        list: &'static str,
    },
    #[error("{}:{line}: query `{query_id}`: {detail}", path.display())]
    LabelMismatch {
        path: PathBuf,
        line: usize,
        query_id: String,
        detail: String,
    },
    #[error(
        "{}: array `{array}` has {rows} rows but {what} has {expected}",
        path.display()
    )]
    RowCount {
        path: PathBuf,
        array: String,
        rows: usize,
        expected: usize,
        what: String,
    },
    #[error("{}: array `{array}` row {row} column {column} is not finite ({value})", path.display())]
    NonFinite {
        path: PathBuf,
        array: String,
        row: usize,
        column: usize,
        value: f32,
    },
    #[error(
        "{}: array `{array}` row {row} has zero norm, which cosine similarity cannot normalise",
        path.display()
    )]
    ZeroNorm {
        path: PathBuf,
        array: String,
        row: usize,
    },
    #[error("{}: array `{array}` row {row} is id `{found}`, but the jsonl has `{expected}` there", path.display())]
    IdOrder {
        path: PathBuf,
        array: String,
        row: usize,
        found: String,
        expected: String,
    },
    /// Unusable arrays: wrong dtype, shape, no or ambiguous candidates.
    #[error("{}: {detail}", path.display())]
    Npz { path: PathBuf, detail: String },
    #[error("{}: checksum verification failed: {}", path.display(), problems.join("; "))]
    Checksum {
        path: PathBuf,
        problems: Vec<String>,
    },
    #[error("{}: {detail}", path.display())]
    Invalid { path: PathBuf, detail: String },
    /// A path the bundle names leaves the bundle, or is not a regular file; nothing was read.
    #[error("{}: refused: {detail}", path.display())]
    Refused { path: PathBuf, detail: String },
}

impl BundleError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        BundleError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn npz(path: impl Into<PathBuf>, detail: impl Into<String>) -> Self {
        BundleError::Npz {
            path: path.into(),
            detail: detail.into(),
        }
    }

    pub(crate) fn field(path: impl Into<PathBuf>, line: usize, detail: impl Into<String>) -> Self {
        BundleError::Field {
            path: path.into(),
            line,
            detail: detail.into(),
        }
    }
}
