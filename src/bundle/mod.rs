//! Bundle: the on-disk benchmark format, its in-memory model, loading, validation and writing.

pub mod model;

pub use model::*;

// Temporary until the loader lands: the loader branch replaces this.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {}
pub fn load(_root: &std::path::Path, _o: &LoadOptions) -> anyhow::Result<Bundle> {
    anyhow::bail!("loader not merged yet")
}
