//! Bundle: the on-disk benchmark format, its in-memory model, loading, validation and writing.

pub mod model;

pub use model::*;
