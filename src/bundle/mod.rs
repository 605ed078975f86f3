//! Bundle: the on-disk benchmark format, its in-memory model, loading, validation and writing.

pub mod check;
pub mod derive;
pub mod embed;
pub mod error;
pub mod files;
pub mod load;
pub mod model;
pub mod npy;
pub mod parse;
pub mod synth;
pub mod write;

pub use check::{check, CheckItem, CheckReport, CheckStatus};
pub use error::BundleError;
pub use load::{load, LoadOptions};
pub use model::*;
pub use synth::{synthetic, SynthSpec};
pub use write::write;
