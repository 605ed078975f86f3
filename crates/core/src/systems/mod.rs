//! Systems from outside the embedding pipeline (`docs/systems.md`): import a TREC run or a
//! score matrix ([`import`]), fuse systems of a bundle into hybrids ([`fuse`]), and export
//! execscope's judgements and rankings in TREC form ([`export`]).
//!
//! An imported or fused system is stored like any other, as `embeddings/<name>.npz` with an
//! invocation-table entry, but its npz holds the query × snippet score matrix itself (array
//! `scores`, similarity `score`); the loader and the ranking read it as the system's scores, so
//! every table, statistic and pane treats it like a dense system. The entry's `provenance`
//! records where it came from.
//!
//! Adding a system touches three files (the npz, `results/invocation_table.json`,
//! `SHA256SUMS`). [`add_system`] validates everything before writing anything, writes each file
//! atomically, reloads the new system from disk, and puts every file back as it was when a step
//! fails, so a failed command leaves the bundle as it found it.

pub mod export;
pub mod fuse;
pub mod import;
pub mod table;

use crate::bundle::files::{self, EMBEDDINGS, INVOCATION, SUMS};
use crate::bundle::npy::{write_npz, NpzItem};
use crate::bundle::{self, Bundle, Invocation, Provenance};
use anyhow::{anyhow, bail, Context};
use ndarray::Array2;
use std::path::{Path, PathBuf};

/// Where a system of `bundle` came from, for lists and detail lines: a short mark (`emb`,
/// `run`, `mat`, `rrf`, `sum`, `mnz`) and one readable line. `None` for the BM25 baseline and for
/// a system embedded without a recorded model, which is what every list assumes by default.
pub fn origin(bundle: &Bundle, id: &str) -> Option<(&'static str, String)> {
    let p = bundle.systems.iter().find(|s| s.id == id)?.provenance();
    match p {
        Provenance::Embedded { model: None } => None,
        p => Some((p.mark(), p.describe())),
    }
}

/// How a new system is added.
#[derive(Clone, Debug)]
pub struct AddOptions {
    /// Replace a system of the same name (its npz and its table entry).
    pub replace: bool,
}

/// Check a new system's name: a plain file stem, not the built-in baseline's, and (unless
/// `replace`) not already taken.
pub fn check_name(root: &Path, bundle: &Bundle, name: &str, replace: bool) -> anyhow::Result<()> {
    if name.is_empty()
        || name.starts_with('.')
        || name.contains(['/', '\\', '\0'])
        || name.chars().any(char::is_whitespace)
    {
        bail!("system name {name:?}: use a plain file stem (no `/`, whitespace or leading `.`)");
    }
    if name.eq_ignore_ascii_case(crate::rank::BM25_ID) {
        bail!("system name {name:?} is the built-in BM25 baseline's");
    }
    let taken = root.join(EMBEDDINGS).join(format!("{name}.npz")).exists()
        || bundle.systems.iter().any(|s| s.id == name);
    if taken && !replace {
        bail!(
            "the bundle already has a system {name:?} ({}/{name}.npz); pass --replace to overwrite it",
            EMBEDDINGS
        );
    }
    Ok(())
}

/// The invocation-table entry of a precomputed-score system.
pub fn score_invocation(name: &str, provenance: Provenance) -> Invocation {
    Invocation {
        id: name.to_string(),
        file: format!("{EMBEDDINGS}/{name}.npz"),
        dims: None,
        similarity: crate::bundle::model::Similarity::Score,
        dtype: "float32".to_string(),
        source: provenance.describe(),
        provenance: Some(provenance),
        ..Invocation::default()
    }
}

/// The npz of a precomputed-score system: `scores` (n_queries × n_corpus float32),
/// `query_ids`, `corpus_ids`.
pub fn score_npz(bundle: &Bundle, scores: &Array2<f32>) -> anyhow::Result<Vec<u8>> {
    let (nq, nc) = (bundle.queries.len(), bundle.corpus.len());
    if scores.dim() != (nq, nc) {
        bail!(
            "score matrix is {} × {}, the bundle has {nq} queries × {nc} snippets",
            scores.nrows(),
            scores.ncols()
        );
    }
    if let Some((i, v)) = scores.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        bail!(
            "score of query {} × snippet {} is {v}",
            bundle.queries[i / nc].id,
            bundle.corpus[i % nc].id
        );
    }
    let query_ids: Vec<String> = bundle.queries.iter().map(|q| q.id.clone()).collect();
    let corpus_ids: Vec<String> = bundle.corpus.iter().map(|s| s.id.clone()).collect();
    let standard = scores.as_standard_layout();
    let mut out = std::io::Cursor::new(Vec::new());
    write_npz(
        &mut out,
        &[
            ("scores", NpzItem::F32(&standard.to_owned())),
            ("query_ids", NpzItem::Strings(&query_ids)),
            ("corpus_ids", NpzItem::Strings(&corpus_ids)),
        ],
    )
    .map_err(|e| anyhow!("encoding the npz: {e}"))?;
    Ok(out.into_inner())
}

/// The invocation table with `entry` put in place of any entry of the same id (appended
/// otherwise). Other entries and any other top-level keys are kept as they are.
fn table_with(root: &Path, entry: &Invocation) -> anyhow::Result<Vec<u8>> {
    let path = root.join(INVOCATION);
    let mut table = match files::read_in(root, INVOCATION) {
        Ok(bytes) => {
            // Parse with the loader first: a table it refuses is not silently rewritten.
            bundle::load::parse_invocation_table(root, &path, &bytes)?;
            let text = files::json_text(&path, &bytes)?;
            serde_json::from_str::<serde_json::Value>(text)
                .with_context(|| format!("parsing {}", path.display()))?
        }
        Err(bundle::BundleError::Missing { .. }) => serde_json::json!({ "systems": [] }),
        Err(e) => return Err(e.into()),
    };
    let systems = table
        .get_mut("systems")
        .and_then(|s| s.as_array_mut())
        .ok_or_else(|| anyhow!("{}: no `systems` array", path.display()))?;
    let value = serde_json::to_value(entry)?;
    match systems
        .iter_mut()
        .find(|s| s.get("id").and_then(|v| v.as_str()) == Some(entry.id.as_str()))
    {
        Some(slot) => *slot = value,
        None => systems.push(value),
    }
    let mut text = serde_json::to_string_pretty(&table)?;
    text.push('\n');
    Ok(text.into_bytes())
}

/// A file's content before a change: `None` when it did not exist.
struct Saved {
    path: PathBuf,
    before: Option<Vec<u8>>,
}

impl Saved {
    fn take(path: PathBuf) -> anyhow::Result<Saved> {
        let before = match std::fs::read(&path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(anyhow!("reading {}: {e}", path.display())),
        };
        Ok(Saved { path, before })
    }

    fn restore(&self) {
        // Best effort: the error that made us restore is the one reported.
        let _ = match &self.before {
            Some(b) => execscope_record::atomic::write_atomic(&self.path, b),
            None => std::fs::remove_file(&self.path).or(Ok(())),
        };
    }
}

/// Add (or with `replace`, overwrite) a precomputed-score system: write its npz, its
/// invocation-table entry and the two files' digests in `SHA256SUMS` (when the bundle has one),
/// then load it back. On any failure every file is put back as it was. Returns the npz path.
pub fn add_system(
    root: &Path,
    bundle: &Bundle,
    name: &str,
    scores: &Array2<f32>,
    provenance: Provenance,
    opts: &AddOptions,
) -> anyhow::Result<PathBuf> {
    check_name(root, bundle, name, opts.replace)?;
    let rel = format!("{EMBEDDINGS}/{name}.npz");
    let npz = score_npz(bundle, scores)?;
    let table = table_with(root, &score_invocation(name, provenance))?;
    let sums_path = root.join(SUMS);
    let saved = [
        Saved::take(root.join(&rel))?,
        Saved::take(root.join(INVOCATION))?,
        Saved::take(sums_path.clone())?,
    ];
    let result = (|| -> anyhow::Result<()> {
        execscope_record::atomic::write_atomic(&root.join(&rel), &npz)
            .with_context(|| format!("writing {}", root.join(&rel).display()))?;
        fault::point(1)?;
        execscope_record::atomic::write_atomic(&root.join(INVOCATION), &table)
            .with_context(|| format!("writing {}", root.join(INVOCATION).display()))?;
        fault::point(2)?;
        if saved[2].before.is_some() {
            let mut entries: Vec<(String, String)> =
                files::parse_sums(&sums_path, saved[2].before.as_deref().unwrap_or(&[]))?
                    .into_iter()
                    .map(|(n, h, _)| (n, h))
                    .filter(|(n, _)| n != &rel && n != INVOCATION)
                    .collect();
            entries.push((rel.clone(), bundle::sha256_hex(&npz)));
            entries.push((INVOCATION.to_string(), bundle::sha256_hex(&table)));
            files::write_sums(root, &entries)?;
        }
        fault::point(3)?;
        // The proof: the bundle loads with the new system, checksums verified.
        let opts = bundle::LoadOptions {
            systems: Some(vec![name.to_string()]),
            ..bundle::LoadOptions::default()
        };
        bundle::load(root, &opts).with_context(|| {
            format!("the bundle did not load with the new system {name:?}; nothing was changed")
        })?;
        Ok(())
    })();
    if let Err(e) = result {
        for s in saved.iter().rev() {
            s.restore();
        }
        return Err(e);
    }
    Ok(root.join(rel))
}

/// The bundle's queries and corpus (no vectors) for commands that add a system; checksums are
/// verified, so a damaged bundle is refused before anything is written.
pub fn load_meta(root: &Path) -> anyhow::Result<Bundle> {
    let opts = bundle::LoadOptions {
        skip_embeddings: true,
        ..bundle::LoadOptions::default()
    };
    bundle::load(root, &opts).with_context(|| format!("loading bundle {}", root.display()))
}

/// Failure injection for the tests of [`add_system`]'s roll-back (a no-op outside tests).
mod fault {
    #[cfg(test)]
    thread_local! {
        pub static FAIL_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[cfg(test)]
    pub fn point(step: usize) -> anyhow::Result<()> {
        if FAIL_AT.with(|f| f.get()) == step {
            anyhow::bail!("injected failure after step {step}");
        }
        Ok(())
    }

    #[cfg(not(test))]
    #[inline(always)]
    pub fn point(_step: usize) -> anyhow::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
        files::list_files(root)
            .unwrap()
            .into_iter()
            .map(|rel| {
                let b = std::fs::read(root.join(&rel)).unwrap();
                (rel, b)
            })
            .collect()
    }

    fn tiny_copy() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tiny");
        for rel in files::list_files(&src).unwrap() {
            let to = dir.path().join(&rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(src.join(&rel), to).unwrap();
        }
        let root = dir.path().to_path_buf();
        (dir, root)
    }

    /// A failure after any of the three writes leaves every file of the bundle as it was; with
    /// no failure the system loads and the checksums verify.
    #[test]
    fn a_failure_half_way_changes_nothing() {
        let (_d, root) = tiny_copy();
        assert!(root.join(SUMS).is_file());
        let bundle = load_meta(&root).unwrap();
        let scores = Array2::from_shape_fn((3, 12), |(q, c)| (q * 12 + c) as f32);
        let before = snapshot(&root);
        let prov = Provenance::ImportedScores {
            file: "s.npy".into(),
            sha256: "0".repeat(64),
        };
        let opts = AddOptions { replace: false };
        for step in 1..=3 {
            fault::FAIL_AT.with(|f| f.set(step));
            let e = add_system(&root, &bundle, "new", &scores, prov.clone(), &opts).unwrap_err();
            assert!(e.to_string().contains("injected failure"), "{e}");
            assert_eq!(snapshot(&root), before, "step {step} left changes");
        }
        fault::FAIL_AT.with(|f| f.set(0));
        add_system(&root, &bundle, "new", &scores, prov, &opts).unwrap();
        let after = snapshot(&root);
        assert!(after.contains_key("embeddings/new.npz"));
        let b = bundle::load(&root, &bundle::LoadOptions::default()).unwrap();
        let sys = b.systems.iter().find(|s| s.id == "new").unwrap();
        assert_eq!(sys.similarity, bundle::Similarity::Score);
        assert_eq!(sys.corpus.t(), scores);
        // The bundle writer keeps it a score system.
        let out = tempfile::tempdir().unwrap();
        bundle::write(&b, out.path()).unwrap();
        let again = bundle::load(out.path(), &bundle::LoadOptions::default()).unwrap();
        let sys2 = again.systems.iter().find(|s| s.id == "new").unwrap();
        assert_eq!(sys2.similarity, bundle::Similarity::Score);
        assert_eq!(sys2.corpus, sys.corpus);
        assert_eq!(sys2.provenance(), sys.provenance());
        // The name is taken now.
        let e = add_system(&root, &bundle, "new", &scores, sys.provenance(), &opts).unwrap_err();
        assert!(e.to_string().contains("--replace"), "{e}");
    }
}
