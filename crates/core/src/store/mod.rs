//! The store: every on-disk cache of the core, under one directory ([`Store`]) and one binary
//! codec ([`codec`]): the score matrices (here), the evaluations ([`crate::metrics::cache`], which encodes the metrics' types), the significance
//! tables and the load notes (blobs and notes, here) and the stat memo ([`memo`]).
//!
//! The score matrices: a system's score matrix, stored on disk and keyed by the content of
//! everything that determines it, so reopening an unchanged bundle does no GEMM and no BM25.
//!
//! Key (SHA-256 over, in order): the cache format and scoring-code version, the arithmetic kernel
//! this CPU runs (the GEMM's results depend on which SIMD path it takes), the query and corpus ids,
//! and then for a dense system its similarity and the SHA-256 of its `.npz` file (as the loader
//! hashed it while decoding it, or as the stat memo remembers it, see [`memo`]: the file's
//! content fixes the matrices and their shapes) or, for a bundle built in memory, its shapes and
//! the matrices' bytes; for BM25 its parameters and every query text and snippet code.
//!
//! Beside the scores, `<dir>/notes/<key>.json` keeps the notes a full load of a bundle printed,
//! keyed by the SHA-256 of every file the load read ([`notes_key`]), so a warm open that skips
//! the matrices still reports them.
//!
//! Results derived from every system's evaluation (the significance tables) are kept as blobs
//! (`<dir>/<kind>/<key>.bin`: the magic `EXBLOB01`, the payload's length as u64 LE, its SHA-256,
//! the payload), checked the same way.
//!
//! File (`<dir>/scores/<key>.bin`): the magic `EXSCORE1`, the number of queries and of snippets
//! (u64 LE each), the SHA-256 of the payload, then the payload (row-major f32 LE). A file whose
//! length, magic, shape or checksum is wrong is ignored (the scores are recomputed and the file
//! rewritten); files are written atomically.

pub mod codec;
pub mod memo;

use crate::bundle::{Bundle, DenseSystem, Similarity};
use ndarray::Array2;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"EXSCORE1";
const HEADER: usize = 8 + 8 + 8 + 32;
const BLOB_MAGIC: &[u8; 8] = b"EXBLOB01";
const BLOB_HEADER: usize = 8 + 8 + 32;
/// Bump when the arithmetic of `dense_scores` or BM25 changes. 3: AVX-512F CPUs score with the
/// project's kernel, which stores a block sum that underflows to −0 as +0 (as the AVX2/FMA path
/// does), where `matrixmultiply`'s AVX-512 kernel, used there before, kept −0.
const SCORE_VERSION: &str = "execscope-scores-3";

/// Where rank-cache files live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    pub dir: PathBuf,
}

/// What a lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    Hit,
    /// No file for the key.
    Miss,
    /// A file for the key that failed its checks (truncated, wrong shape or checksum).
    Corrupt,
}

/// The platform cache directory's `execscope` folder (`$XDG_CACHE_HOME` or `~/.cache` on Linux,
/// `~/Library/Caches` on macOS, `%LOCALAPPDATA%` on Windows); None when none can be named. The
/// rank cache and the embedding environment both live under it.
pub fn platform_cache_dir() -> Option<PathBuf> {
    let home = || {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(target_os = "macos") {
        home().map(|h| h.join("Library/Caches"))
    } else if cfg!(windows) {
        std::env::var_os("LOCALAPPDATA").map(PathBuf::from)
    } else {
        std::env::var_os("XDG_CACHE_HOME")
            .filter(|d| Path::new(d).is_absolute())
            .map(PathBuf::from)
            .or_else(|| home().map(|h| h.join(".cache")))
    };
    base.map(|b| b.join("execscope"))
}

impl Store {
    pub fn new(dir: impl Into<PathBuf>) -> Store {
        Store { dir: dir.into() }
    }

    /// `EXECSCOPE_CACHE_DIR` if set, else the platform cache directory's `execscope`
    /// (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
    /// on Windows). None when no such directory can be named.
    pub fn platform() -> Option<Store> {
        if let Some(d) = std::env::var_os("EXECSCOPE_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(Store::new(d));
        }
        platform_cache_dir().map(Store::new)
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join("scores").join(format!("{key}.bin"))
    }

    /// Whether a file of the right length for a `shape` matrix is stored under `key` (its
    /// content is checked when it is read, by [`Store::get`]).
    pub fn has(&self, key: &str, shape: (usize, usize)) -> bool {
        let Some(n) = shape.0.checked_mul(shape.1) else {
            return false;
        };
        std::fs::metadata(self.path(key)).is_ok_and(|m| m.len() == (HEADER + n * 4) as u64)
    }

    /// The stored matrix for `key` if a file exists, has the expected shape and passes its
    /// checksum. The payload is read straight into the matrix's buffer (no second copy).
    pub fn get(&self, key: &str, shape: (usize, usize)) -> (Lookup, Option<Array2<f32>>) {
        use std::io::Read;
        let Ok(mut f) = std::fs::File::open(self.path(key)) else {
            return (Lookup::Miss, None);
        };
        let corrupt = (Lookup::Corrupt, None);
        let (nq, nc) = shape;
        let Some(n) = nq.checked_mul(nc) else {
            return corrupt;
        };
        let len = f.metadata().map(|m| m.len()).unwrap_or(0);
        if len != (HEADER + n * 4) as u64 {
            return corrupt;
        }
        let mut head = [0u8; HEADER];
        if f.read_exact(&mut head).is_err() || &head[..8] != MAGIC {
            return corrupt;
        }
        let u = |i: usize| u64::from_le_bytes(head[i..i + 8].try_into().expect("8 bytes"));
        if u(8) != nq as u64 || u(16) != nc as u64 {
            return corrupt;
        }
        let mut data = vec![0f32; n];
        // SAFETY: any byte pattern is a valid f32, and the byte view covers exactly `data`.
        let bytes: &mut [u8] =
            unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u8>(), n * 4) };
        if f.read_exact(bytes).is_err() || Sha256::digest(&*bytes).as_slice() != &head[24..56] {
            return corrupt;
        }
        if cfg!(target_endian = "big") {
            for v in &mut data {
                *v = f32::from_bits(u32::from_le(v.to_bits()));
            }
        }
        match Array2::from_shape_vec((nq, nc), data) {
            Ok(m) => (Lookup::Hit, Some(m)),
            Err(_) => corrupt,
        }
    }

    fn blob_path(&self, kind: &str, key: &str) -> PathBuf {
        self.dir.join(kind).join(format!("{key}.bin"))
    }

    /// A stored result of kind `kind` (a folder name) for `key`: its payload if the file exists
    /// and passes its checks (magic, length, SHA-256 of the payload).
    pub fn get_blob(&self, kind: &str, key: &str) -> (Lookup, Option<Vec<u8>>) {
        let Ok(bytes) = std::fs::read(self.blob_path(kind, key)) else {
            return (Lookup::Miss, None);
        };
        let ok = bytes.len() >= BLOB_HEADER
            && &bytes[..8] == BLOB_MAGIC
            && u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"))
                == (bytes.len() - BLOB_HEADER) as u64
            && Sha256::digest(&bytes[BLOB_HEADER..]).as_slice() == &bytes[16..BLOB_HEADER];
        match ok {
            true => (Lookup::Hit, Some(bytes[BLOB_HEADER..].to_vec())),
            false => (Lookup::Corrupt, None),
        }
    }

    /// Store a result for [`Store::get_blob`] (atomically: a temporary file renamed into
    /// place; errors are for the caller to ignore).
    pub fn put_blob(&self, kind: &str, key: &str, payload: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let path = self.blob_path(kind, key);
        let dir = path.parent().expect("cache files live in a directory");
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(BLOB_MAGIC)?;
        tmp.write_all(&(payload.len() as u64).to_le_bytes())?;
        tmp.write_all(&Sha256::digest(payload))?;
        tmp.write_all(payload)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    fn notes_path(&self, key: &str) -> PathBuf {
        self.dir.join("notes").join(format!("{key}.json"))
    }

    /// The notes stored under `key` ([`notes_key`]), if a readable entry exists.
    pub fn get_notes(&self, key: &str) -> Option<Vec<String>> {
        let bytes = std::fs::read(self.notes_path(key)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Store a load's notes under `key` (atomically; errors are for the caller to ignore).
    pub fn put_notes(&self, key: &str, notes: &[String]) -> std::io::Result<()> {
        use std::io::Write;
        let path = self.notes_path(key);
        let dir = path.parent().expect("notes live in a directory");
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&serde_json::to_vec(notes)?)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Store a matrix: written to a temporary file beside it and renamed into place, so a reader
    /// never sees half a file under the key. Not fsynced (the cache is disposable: a file a crash
    /// damaged fails its checksum and is recomputed). Errors are returned for the caller to
    /// ignore; a failed write never affects the scores.
    pub fn put(&self, key: &str, m: ndarray::ArrayView2<f32>) -> std::io::Result<()> {
        use std::io::Write;
        let path = self.path(key);
        let dir = path.parent().expect("cache files live in a directory");
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        // Written straight from the matrix's buffer (no encoded copy of the 4·Q·N bytes).
        let standard;
        let data = match m.as_slice() {
            Some(d) => d,
            None => {
                standard = m.as_standard_layout().into_owned();
                standard.as_slice().expect("standard layout")
            }
        };
        let le;
        let bytes = match cfg!(target_endian = "little") {
            true => f32_bytes(data),
            false => {
                le = data
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect::<Vec<u8>>();
                &le[..]
            }
        };
        let (nq, nc) = m.dim();
        let mut head = Vec::with_capacity(HEADER);
        head.extend_from_slice(MAGIC);
        head.extend_from_slice(&(nq as u64).to_le_bytes());
        head.extend_from_slice(&(nc as u64).to_le_bytes());
        head.extend_from_slice(&Sha256::digest(bytes));
        tmp.write_all(&head)?;
        tmp.write_all(bytes)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// The bytes of an f32 slice in memory order.
fn f32_bytes(data: &[f32]) -> &[u8] {
    // SAFETY: f32 has no padding and u8 has alignment 1; the view covers exactly `data`.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}

/// The SIMD path the GEMM takes on this machine (its results differ in the last bits between
/// paths, so it is part of the key).
fn kernel() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return "x86_64-avx2-fma";
        }
        if is_x86_feature_detected!("avx") {
            return "x86_64-avx";
        }
        "x86_64-sse2"
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::env::consts::ARCH
    }
}

fn put_str(h: &mut Sha256, s: &str) {
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

fn base_hasher(bundle: &Bundle, kind: &str) -> Sha256 {
    let mut h = Sha256::new();
    put_str(&mut h, SCORE_VERSION);
    put_str(&mut h, kernel());
    put_str(&mut h, kind);
    h.update((bundle.queries.len() as u64).to_le_bytes());
    for q in &bundle.queries {
        put_str(&mut h, &q.id);
    }
    h.update((bundle.corpus.len() as u64).to_le_bytes());
    for c in &bundle.corpus {
        put_str(&mut h, &c.id);
    }
    h
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cache key of a dense system of `bundle`.
pub fn dense_key(bundle: &Bundle, sys: &DenseSystem) -> String {
    if let Some(file) = npz_sha256(bundle, &sys.id) {
        return dense_file_key(bundle, sys.similarity, file);
    }
    let mut h = base_hasher(bundle, "dense");
    put_str(&mut h, sys.similarity.as_str());
    for d in [sys.queries.dim(), sys.corpus.dim()] {
        h.update((d.0 as u64).to_le_bytes());
        h.update((d.1 as u64).to_le_bytes());
    }
    put_str(&mut h, "matrix-bytes");
    for m in [&sys.queries, &sys.corpus] {
        for v in m.iter() {
            h.update(v.to_le_bytes());
        }
    }
    hex(&h.finalize())
}

/// The SHA-256 of system `id`'s npz file, for a bundle loaded from disk.
fn npz_sha256<'b>(bundle: &'b Bundle, id: &str) -> Option<&'b str> {
    bundle
        .sha256
        .get(&format!("embeddings/{id}.npz"))
        .filter(|_| !bundle.root.as_os_str().is_empty())
        .map(String::as_str)
}

/// The cache key of a dense system read from an npz file whose SHA-256 is `npz_sha256` (the
/// file fixes both matrices, so neither needs to be in memory to name the key).
pub fn dense_file_key(bundle: &Bundle, similarity: Similarity, npz_sha256: &str) -> String {
    let mut h = base_hasher(bundle, "dense");
    put_str(&mut h, similarity.as_str());
    put_str(&mut h, "npz-sha256");
    put_str(&mut h, npz_sha256);
    hex(&h.finalize())
}

/// The key of a load's notes: the SHA-256 of every file it read (bundle-relative path and
/// digest, in path order).
pub fn notes_key(sha256: &BTreeMap<String, String>) -> String {
    let mut h = Sha256::new();
    put_str(&mut h, SCORE_VERSION);
    for (path, digest) in sha256 {
        put_str(&mut h, path);
        put_str(&mut h, digest);
    }
    hex(&h.finalize())
}

/// The cache key of the BM25 baseline over `bundle` with its parameters `params` (as the
/// ranking names them: `k1=… b=…`).
pub fn bm25_key(bundle: &Bundle, params: &str) -> String {
    let mut h = base_hasher(bundle, "bm25");
    put_str(&mut h, params);
    for q in &bundle.queries {
        put_str(&mut h, &q.text);
    }
    for c in &bundle.corpus {
        put_str(&mut h, &c.code);
    }
    // Code in another language is read by its own rules: its scores are other scores. Only
    // then is the language part of the key, so an all-Python bundle keeps its key.
    if bundle.corpus.iter().any(|c| !c.language.is_python()) {
        put_str(&mut h, "languages");
        for c in &bundle.corpus {
            put_str(&mut h, c.language.as_str());
        }
    }
    hex(&h.finalize())
}

/// Look `key` up, or compute the scores and store them. Returns what the lookup found.
pub fn get_or_compute(
    cache: &Store,
    key: &str,
    shape: (usize, usize),
    compute: impl FnOnce() -> Array2<f32>,
) -> (Lookup, Array2<f32>) {
    let (found, m) = cache.get(key, shape);
    if let Some(m) = m {
        return (found, m);
    }
    let m = compute();
    // A cache that cannot be written (read-only home, full disk) only costs the next run time.
    let _ = cache.put(key, m.view());
    (found, m)
}
