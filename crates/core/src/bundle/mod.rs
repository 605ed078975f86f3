//! Bundle: the on-disk benchmark format, its in-memory model, loading, validation and writing.
//!
//! - [`load()`] reads a bundle directory (the ExecRetrieval release's layout or execscope's own) into
//!   a [`Bundle`], stopping at the first integrity error ([`BundleError`] names file and line/row/id).
//! - [`check()`] runs every validation and records each as pass / warn / fail ([`CheckReport`]).
//! - [`write()`] writes a bundle in execscope's layout, atomically, with `SHA256SUMS`.
//! - [`synthetic`] generates a seeded bundle of any size for benchmarks and property tests.
//!
//! Beneath them: [`model`] (the types), [`files`] (the layout, checksums and confined reads),
//! [`parse`] (the JSON-lines files), [`dense`] (one dense system from its `.npz`), [`npy`] (the
//! array format), [`derive`](mod@derive) (what the release leaves implicit: domains, function names, the
//! tests key encoding), [`stacked`] (stacked-mutation variants), [`cache_index`] (execution-cache
//! lookups by row).

pub mod cache_index;
pub mod check;
mod check_items;
pub mod dense;
pub mod derive;
pub mod error;
pub mod files;
pub mod load;
pub mod model;
pub mod npy;
pub mod parse;
pub mod stacked;
pub mod synth;
pub mod write;

pub use cache_index::CacheIndex;
pub use check::{check, CheckItem, CheckReport, CheckStatus};
pub use error::BundleError;
pub use load::{load, LoadOptions};
pub use model::*;
pub use synth::{synthetic, SynthSpec};
pub use write::write;
