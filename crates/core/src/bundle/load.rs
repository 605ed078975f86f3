//! `load`: read a bundle directory into a [`Bundle`], stopping at the first integrity error.

use execscope_record::keys::TestsEncoding;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::dense::{load_system, Expect};
use super::derive::{detect_tests_encoding, domain_from_entry_id, first_top_level_def};
use super::error::BundleError;
use super::files::{self, CACHE, CORPUS, DISTRACTORS, EMBEDDINGS, INVOCATION, QUERIES, SUMS};
use super::model::{
    sha256_hex, Bundle, DenseSystem, DistractorMeta, ExecRecord, Invocation, Query, Similarity,
    Snippet,
};
use super::parse;

/// What to load.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Verify `SHA256SUMS` when present (default true).
    pub verify_checksums: bool,
    /// Load only these system ids (file stems); `None` loads every npz.
    pub systems: Option<Vec<String>>,
    /// Skip the embeddings entirely (fast metadata-only load).
    pub skip_embeddings: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            verify_checksums: true,
            systems: None,
            skip_embeddings: false,
        }
    }
}

/// The parsed jsonl part of a bundle, shared by `load` and `check`.
pub(crate) struct Tables {
    pub queries: Vec<Query>,
    pub corpus: Vec<Snippet>,
    pub notes: Vec<String>,
}

fn read_rows(
    root: &Path,
    rel: &str,
    sha: &mut BTreeMap<String, String>,
) -> Result<Vec<files::Row>, BundleError> {
    let path = root.join(rel);
    let bytes = files::read_in(root, rel)?;
    sha.insert(rel.to_string(), sha256_hex(&bytes));
    files::jsonl(&path, &bytes)
}

/// Read an optional jsonl file: `Ok(None)` when absent.
pub(crate) fn optional_rows(
    root: &Path,
    rel: &str,
    sha: &mut BTreeMap<String, String>,
) -> Result<Option<Vec<files::Row>>, BundleError> {
    match read_rows(root, rel, sha) {
        Err(BundleError::Missing { .. }) => Ok(None),
        other => other.map(Some),
    }
}

/// Queries and corpus, resolved and validated; the first problem is returned as error.
pub(crate) fn tables(
    root: &Path,
    sha: &mut BTreeMap<String, String>,
) -> Result<Tables, BundleError> {
    let qpath = root.join(QUERIES);
    let cpath = root.join(CORPUS);
    let raw_q = parse::queries(&qpath, read_rows(root, QUERIES, sha)?)?;
    let corpus = parse::corpus(&cpath, read_rows(root, CORPUS, sha)?)?;
    let (index, dup_c) = parse::corpus_index(&cpath, &corpus);
    if let Some(e) = dup_c.into_iter().next() {
        return Err(e);
    }
    if let Some(e) = parse::duplicate_queries(&qpath, &raw_q).into_iter().next() {
        return Err(e);
    }
    let (mut queries, errs) = parse::resolve(&qpath, &raw_q, &corpus, &index);
    if let Some(e) = errs.into_iter().next() {
        return Err(e);
    }
    let corpus: Vec<Snippet> = corpus.into_iter().map(|(_, s)| s).collect();
    let notes = derive_fields(&mut queries, &corpus);
    Ok(Tables {
        queries,
        corpus,
        notes,
    })
}

/// Fill `domain` from `entry_id` and `function_name` from the canonical where absent.
pub(crate) fn derive_fields(queries: &mut [Query], corpus: &[Snippet]) -> Vec<String> {
    let (mut domains, mut names) = (0, 0);
    for q in queries.iter_mut() {
        if q.domain.is_empty() {
            q.domain = domain_from_entry_id(&q.entry_id);
            domains += usize::from(!q.domain.is_empty());
        }
        if q.function_name.is_empty() {
            if let Some(&c) = q.correct.first() {
                q.function_name = first_top_level_def(&corpus[c].code);
                names += usize::from(!q.function_name.is_empty());
            }
        }
    }
    let mut notes = Vec::new();
    if domains > 0 {
        notes.push(format!(
            "{QUERIES}: domain derived from entry_id for {domains} queries"
        ));
    }
    if names > 0 {
        notes.push(format!("{QUERIES}: function_name derived from the canonical's first top-level def for {names} queries"));
    }
    notes
}

/// Detect the cache's `tests_sha256` encoding from the query suites.
pub(crate) fn detect_encoding(
    queries: &[Query],
    cache: &[ExecRecord],
) -> (Option<TestsEncoding>, Option<String>) {
    if cache.is_empty() {
        return (None, None);
    }
    let keys: HashSet<&str> = cache.iter().map(|r| r.tests_sha256.as_str()).collect();
    match detect_tests_encoding(queries.iter().map(|q| q.tests.as_slice()), &keys) {
        Some((name, hits, total)) => (
            Some(name),
            Some(format!(
                "{CACHE}: tests_sha256 encoding is {name} ({hits} of {total} query suites found in the cache)"
            )),
        ),
        None => (
            None,
            Some(format!(
                "{CACHE}: no query suite matched any known tests_sha256 encoding; the cache is unusable"
            )),
        ),
    }
}

/// Parse `results/invocation_table.json` into a map by system id.
pub(crate) fn invocation_table(
    root: &Path,
    sha: &mut BTreeMap<String, String>,
) -> Result<HashMap<String, Invocation>, BundleError> {
    let path = root.join(INVOCATION);
    let bytes = match files::read_in(root, INVOCATION) {
        Err(BundleError::Missing { .. }) => return Ok(HashMap::new()),
        other => other?,
    };
    sha.insert(INVOCATION.to_string(), sha256_hex(&bytes));
    parse_invocation_table(root, &path, &bytes)
}

/// Parse the invocation table's bytes (`path` names it in messages); every `file` it names is
/// confined to `root` (see [`files::confine`]) and must be the system's own npz.
pub fn parse_invocation_table(
    root: &Path,
    path: &Path,
    bytes: &[u8],
) -> Result<HashMap<String, Invocation>, BundleError> {
    let path = path.to_path_buf();
    #[derive(serde::Deserialize)]
    struct Table {
        systems: Vec<Invocation>,
    }
    let text = files::json_text(&path, bytes)?;
    let table: Table = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            BundleError::Truncated {
                path: path.clone(),
                line: e.line(),
                detail: e.to_string(),
            }
        } else {
            BundleError::InvalidJson {
                path: path.clone(),
                line: e.line(),
                column: e.column(),
                detail: e.to_string(),
            }
        }
    })?;
    let mut map = HashMap::new();
    let mut from = 0;
    for (i, inv) in table.systems.into_iter().enumerate() {
        // The line of the entry: where its id first appears after the previous entry.
        let (line, at) = line_of(text, &format!("\"{}\"", json_escape(&inv.id)), from);
        from = at;
        let entry = |detail: String| BundleError::Field {
            path: path.clone(),
            line,
            detail: format!("system `{}` (entry {}): {detail}", inv.id, i + 1),
        };
        if !is_system_id(&inv.id) {
            return Err(entry(
                "the id must be a plain file stem (no `/`, no leading `.`)".to_string(),
            ));
        }
        if map.contains_key(&inv.id) {
            return Err(entry("listed twice".to_string()));
        }
        if !inv.file.is_empty() {
            match files::confine(root, &inv.file) {
                Ok(_) | Err(files::ConfineError::Missing) => {}
                Err(files::ConfineError::Refused(why)) => {
                    return Err(entry(format!("`file` refused: {why}")))
                }
            }
            let own = format!("{EMBEDDINGS}/{}.npz", inv.id);
            if inv.file.trim_start_matches("./") != own {
                return Err(entry(format!(
                    "`file` is {:?}, but the system's vectors are {own}",
                    inv.file
                )));
            }
        }
        map.insert(inv.id.clone(), inv);
    }
    Ok(map)
}

/// A system id usable as a file stem under `embeddings/`.
fn is_system_id(id: &str) -> bool {
    !id.is_empty() && !id.starts_with('.') && !id.contains(['/', '\\', '\0'])
}

fn json_escape(s: &str) -> String {
    let q = serde_json::to_string(s).unwrap_or_default();
    q.get(1..q.len().saturating_sub(1))
        .unwrap_or("")
        .to_string()
}

/// 1-based line of the first `needle` at or after byte `from` (the last line searched when
/// absent), and the byte just after it.
fn line_of(text: &str, needle: &str, from: usize) -> (usize, usize) {
    let from = from.min(text.len());
    let at = text
        .get(from..)
        .and_then(|t| t.find(needle))
        .map_or(from, |i| from + i);
    let line = text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    (line, at + needle.len().min(text.len() - at))
}

/// The npz files under `embeddings/`, as (id, path), sorted by id. An entry that leaves the
/// bundle (a symbolic link out) or is not a regular file is an error naming it.
pub(crate) fn npz_files(root: &Path) -> Result<Vec<(String, PathBuf)>, BundleError> {
    let (ok, mut refused) = npz_entries(root)?;
    match refused.is_empty() {
        true => Ok(ok),
        false => Err(refused.remove(0)),
    }
}

/// One usable `embeddings/*.npz`: system id (the file stem) and path.
pub(crate) type NpzEntry = (String, PathBuf);

/// As [`npz_files`], with every refused entry returned beside the usable ones.
pub(crate) fn npz_entries(root: &Path) -> Result<(Vec<NpzEntry>, Vec<BundleError>), BundleError> {
    let dir = root.join(EMBEDDINGS);
    let rd = match std::fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Default::default()),
        Err(e) => return Err(BundleError::io(&dir, e)),
    };
    let mut names = Vec::new();
    for entry in rd {
        let name = entry.map_err(|e| BundleError::io(&dir, e))?.file_name();
        let name = name.to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".npz") {
            if !stem.is_empty() && !name.starts_with('.') {
                names.push((stem.to_string(), name));
            }
        }
    }
    names.sort();
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    for (stem, name) in names {
        let rel = format!("{EMBEDDINGS}/{name}");
        match files::confine(root, &rel) {
            Ok(_) => ok.push((stem, root.join(&rel))),
            Err(files::ConfineError::Missing) => refused.push(BundleError::Refused {
                path: root.join(&rel),
                detail: "a symbolic link to nothing".into(),
            }),
            Err(files::ConfineError::Refused(detail)) => refused.push(BundleError::Refused {
                path: root.join(&rel),
                detail,
            }),
        }
    }
    Ok((ok, refused))
}

/// Load a bundle directory.
pub fn load(root: &Path, opts: &LoadOptions) -> Result<Bundle, BundleError> {
    // Every file is hashed once, while it is read; `SHA256SUMS` is compared afterwards (and files
    // the load did not read are hashed then). A checksum failure takes precedence over any load
    // error, since a corrupt file explains the error.
    let mut sha256 = BTreeMap::new();
    let result = load_inner(root, opts, &mut sha256);
    verify_sums(root, opts, &sha256)?;
    let mut bundle = result?;
    bundle.sha256 = sha256;
    Ok(bundle)
}

/// Read every dense system (or those `opts.systems` names), in parallel, handing each to `each`
/// (with its index in file order and its file's SHA-256) as soon as it is read, and keeping what
/// `each` returns. Digests and notes are recorded, and the first error (in file order) returned,
/// exactly as when the systems are kept whole.
#[allow(clippy::type_complexity)]
fn read_systems(
    root: &Path,
    opts: &LoadOptions,
    (queries, corpus): (&[Query], &[Snippet]),
    table: &HashMap<String, Invocation>,
    sha256: &mut BTreeMap<String, String>,
    notes: &mut Vec<String>,
    each: &(dyn Fn(usize, DenseSystem, &str) -> DenseSystem + Sync),
) -> Result<Vec<DenseSystem>, BundleError> {
    let mut files = npz_files(root)?;
    if let Some(want) = &opts.systems {
        for id in want {
            if !files.iter().any(|(f, _)| f == id) {
                return Err(BundleError::Missing {
                    path: root.join(EMBEDDINGS).join(format!("{id}.npz")),
                });
            }
        }
        files.retain(|(id, _)| want.contains(id));
    }
    let query_ids: Vec<String> = queries.iter().map(|q| q.id.clone()).collect();
    let corpus_ids: Vec<String> = corpus.iter().map(|s| s.id.clone()).collect();
    let expect = Expect {
        query_ids: &query_ids,
        corpus_ids: &corpus_ids,
    };
    let loaded: Vec<_> = files
        .par_iter()
        .enumerate()
        .map(|(i, (id, path))| {
            let inv = table.get(id);
            let sim = match inv {
                Some(i) => i.similarity,
                None => Similarity::Cos,
            };
            let mut l = load_system(path, id, inv, sim, &expect)?;
            l.system = each(i, l.system, &l.sha256);
            Ok::<_, BundleError>(l)
        })
        .collect();
    let mut systems = Vec::with_capacity(files.len());
    for (l, (id, _)) in loaded.into_iter().zip(&files) {
        let l = l?;
        sha256.insert(format!("{EMBEDDINGS}/{id}.npz"), l.sha256);
        notes.extend(l.notes);
        if !table.is_empty() && !table.contains_key(id) {
            notes.push(format!(
                "{INVOCATION}: no entry for system `{id}`; using cosine"
            ));
        }
        systems.push(l.system);
    }
    Ok(systems)
}

/// [`load`], handing each dense system to `each` as soon as it is read (in parallel, in no
/// particular order) together with the context `prepare` made from the bundle's tables, and
/// keeping the system `each` returns in its place; what else `each` yields is returned by system
/// index (file order). So a caller can score a system and drop its matrices before the next ones
/// are read: at most a few systems' matrices are ever in memory at once. Errors, notes, digests
/// and the `SHA256SUMS` check are those of [`load`]. A bundle with stacked variants (whose
/// loading reads the systems' query vectors) is loaded whole first, then handed over system by
/// system.
#[allow(clippy::type_complexity)]
pub fn load_streaming<C: Sync, T: Send>(
    root: &Path,
    opts: &LoadOptions,
    prepare: impl FnOnce(&Bundle) -> C,
    each: &(dyn Fn(&C, usize, DenseSystem, &str) -> (DenseSystem, T) + Sync),
) -> Result<(Bundle, Vec<T>), BundleError> {
    if opts.skip_embeddings || root.join(super::stacked::STACKED).exists() {
        let mut b = load(root, opts)?;
        let systems = std::mem::take(&mut b.systems);
        let ctx = prepare(&b);
        let mut out = Vec::with_capacity(systems.len());
        for (i, s) in systems.into_iter().enumerate() {
            let sha = b
                .sha256
                .get(&format!("{EMBEDDINGS}/{}.npz", s.id))
                .cloned()
                .unwrap_or_default();
            let (s, t) = each(&ctx, i, s, &sha);
            b.systems.push(s);
            out.push(t);
        }
        return Ok((b, out));
    }
    let mut sha256 = BTreeMap::new();
    let slots: std::sync::Mutex<Vec<(usize, T)>> = std::sync::Mutex::new(Vec::new());
    let result = (|| {
        let meta = LoadOptions {
            skip_embeddings: true,
            ..opts.clone()
        };
        let mut bundle = load_inner(root, &meta, &mut sha256)?;
        let ctx = prepare(&bundle);
        let table = invocation_table(root, &mut BTreeMap::new())?;
        let mut notes = std::mem::take(&mut bundle.notes);
        bundle.systems = read_systems(
            root,
            opts,
            (&bundle.queries, &bundle.corpus),
            &table,
            &mut sha256,
            &mut notes,
            &|i, s, sha| {
                let (s, t) = each(&ctx, i, s, sha);
                slots.lock().unwrap_or_else(|e| e.into_inner()).push((i, t));
                s
            },
        )?;
        bundle.notes = notes;
        Ok(bundle)
    })();
    verify_sums(root, opts, &sha256)?;
    let mut bundle = result?;
    bundle.sha256 = sha256;
    let mut slots = slots.into_inner().unwrap_or_else(|e| e.into_inner());
    slots.sort_by_key(|x| x.0);
    Ok((bundle, slots.into_iter().map(|x| x.1).collect()))
}

fn load_inner(
    root: &Path,
    opts: &LoadOptions,
    sha256: &mut BTreeMap<String, String>,
) -> Result<Bundle, BundleError> {
    let Tables {
        queries,
        corpus,
        mut notes,
    } = tables(root, sha256)?;
    let distractors: Vec<DistractorMeta> = match optional_rows(root, DISTRACTORS, sha256)? {
        Some(rows) => parse::typed(&root.join(DISTRACTORS), rows)?,
        None => Vec::new(),
    };
    let cache_lines: Vec<(usize, ExecRecord)> = match optional_rows(root, CACHE, sha256)? {
        Some(rows) => {
            let rows = parse::typed_lines(&root.join(CACHE), rows)?;
            if let Some(e) = parse::cache_problems(&root.join(CACHE), &rows)
                .into_iter()
                .next()
            {
                return Err(e);
            }
            rows
        }
        None => Vec::new(),
    };
    let cache: Vec<ExecRecord> = cache_lines.iter().map(|(_, r)| r.clone()).collect();
    let (tests_key_encoding, note) = detect_encoding(&queries, &cache);
    notes.extend(note);
    // A row keyed by a query's suite must hold one outcome per test of that suite: outcomes of
    // another length belong to another suite, and every number computed from them is wrong.
    if let Some(enc) = tests_key_encoding {
        let key = super::model::tests_key_fn(Some(enc));
        let suites: HashMap<String, &Query> = queries.iter().map(|q| (key(&q.tests), q)).collect();
        for (line, r) in &cache_lines {
            if let Some(q) = suites.get(&r.tests_sha256) {
                if r.outcomes.len() != q.tests.len() {
                    return Err(BundleError::field(
                        root.join(CACHE),
                        *line,
                        format!(
                            "{} outcomes for the suite of query `{}`, which has {} tests",
                            r.outcomes.len(),
                            q.id,
                            q.tests.len()
                        ),
                    ));
                }
            }
        }
    }
    let table = invocation_table(root, sha256)?;

    let systems = match opts.skip_embeddings {
        true => Vec::new(),
        false => read_systems(
            root,
            opts,
            (&queries, &corpus),
            &table,
            sha256,
            &mut notes,
            &|_, s, _| s,
        )?,
    };
    let mut bundle = Bundle {
        root: root.to_path_buf(),
        queries,
        corpus,
        distractors,
        cache,
        systems,
        sha256: BTreeMap::new(),
        tests_key_encoding,
        notes,
        ..Bundle::default()
    };
    super::stacked::load_stacked(&mut bundle, sha256)?;
    Ok(bundle)
}

/// Compares the hashes taken while loading with `SHA256SUMS` (when asked and present). A
/// checksum failure takes precedence over any load error: a corrupt file explains the error.
fn verify_sums(
    root: &Path,
    opts: &LoadOptions,
    sha256: &BTreeMap<String, String>,
) -> Result<(), BundleError> {
    if opts.verify_checksums && root.join(SUMS).exists() {
        let problems = files::verify_sums_with(root, sha256)?;
        if !problems.is_empty() {
            return Err(BundleError::Checksum {
                path: root.join(SUMS),
                problems,
            });
        }
    }
    Ok(())
}
