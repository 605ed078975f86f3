//! Write a synthetic bundle of the paper's shape (939 queries × 4,695 snippets, 23 dense systems
//! of d 384–4,096, 658 MB of float32) to a directory, for measuring `execscope report` and the
//! dashboard at that scale (README, Speed). Nothing of it belongs in the repository.
//!
//! Run: `cargo run --release --example paper_bundle -- <dir> [n_systems]`.

use execscope::bundle::{synthetic, write, SynthSpec};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("usage: paper_bundle <dir> [n_systems ≤ 23]"))?;
    let n: usize = args.next().map_or(Ok(23), |s| s.parse())?;
    let mut spec = SynthSpec::paper_scale(7);
    spec.dims.truncate(n);
    write(&synthetic(&spec), std::path::Path::new(&dir))?;
    Ok(())
}
