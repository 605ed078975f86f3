//! The persistent rank cache: a system's score matrix, stored on disk and keyed by the content of
//! everything that determines it, so reopening an unchanged bundle does no GEMM and no BM25.
//!
//! Key (SHA-256 over, in order): the cache format and scoring-code version, the arithmetic kernel
//! this CPU runs (the GEMM's results depend on which SIMD path it takes), the query and corpus ids,
//! and then for a dense system its similarity, shape and the SHA-256 of its `.npz` file (as the
//! loader hashed it while decoding it) or, for a bundle built in memory, of the matrices'
//! bytes; for BM25 its parameters and every query text and snippet code.
//!
//! File (`<dir>/scores/<key>.bin`): the magic `EXSCORE1`, the number of queries and of snippets
//! (u64 LE each), the SHA-256 of the payload, then the payload (row-major f32 LE). A file whose
//! length, magic, shape or checksum is wrong is ignored (the scores are recomputed and the file
//! rewritten); files are written atomically.

use crate::bundle::{Bundle, DenseSystem};
use ndarray::Array2;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"EXSCORE1";
const HEADER: usize = 8 + 8 + 8 + 32;
/// Bump when the arithmetic of `dense_scores` or BM25 changes.
const SCORE_VERSION: &str = "execscope-scores-1";

/// Where rank-cache files live.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankCache {
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

impl RankCache {
    pub fn new(dir: impl Into<PathBuf>) -> RankCache {
        RankCache { dir: dir.into() }
    }

    /// `EXECSCOPE_CACHE_DIR` if set, else the platform cache directory's `execscope`
    /// (`$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
    /// on Windows). None when no such directory can be named.
    pub fn platform() -> Option<RankCache> {
        if let Some(d) = std::env::var_os("EXECSCOPE_CACHE_DIR").filter(|d| !d.is_empty()) {
            return Some(RankCache::new(d));
        }
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
        base.map(|b| RankCache::new(b.join("execscope")))
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join("scores").join(format!("{key}.bin"))
    }

    /// The stored matrix for `key` if a file exists, has the expected shape and passes its
    /// checksum.
    pub fn get(&self, key: &str, shape: (usize, usize)) -> (Lookup, Option<Array2<f32>>) {
        let Ok(bytes) = std::fs::read(self.path(key)) else {
            return (Lookup::Miss, None);
        };
        match decode(&bytes, shape) {
            Some(m) => (Lookup::Hit, Some(m)),
            None => (Lookup::Corrupt, None),
        }
    }

    /// Store a matrix: written to a temporary file beside it and renamed into place, so a reader
    /// never sees half a file under the key. Not fsynced (the cache is disposable: a file a crash
    /// damaged fails its checksum and is recomputed). Errors are returned for the caller to
    /// ignore; a failed write never affects the scores.
    pub fn put(&self, key: &str, m: &Array2<f32>) -> std::io::Result<()> {
        use std::io::Write;
        let path = self.path(key);
        let dir = path.parent().expect("cache files live in a directory");
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&encode(m))?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

fn encode(m: &Array2<f32>) -> Vec<u8> {
    let (nq, nc) = m.dim();
    let mut out = Vec::with_capacity(HEADER + nq * nc * 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(nq as u64).to_le_bytes());
    out.extend_from_slice(&(nc as u64).to_le_bytes());
    out.resize(HEADER, 0);
    for v in m.iter() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let sum = Sha256::digest(&out[HEADER..]);
    out[24..HEADER].copy_from_slice(&sum);
    out
}

fn decode(bytes: &[u8], (nq, nc): (usize, usize)) -> Option<Array2<f32>> {
    let n = nq.checked_mul(nc)?;
    if bytes.len() != HEADER.checked_add(n.checked_mul(4)?)? || &bytes[..8] != MAGIC {
        return None;
    }
    let u = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
    if u(8) != nq as u64 || u(16) != nc as u64 {
        return None;
    }
    let payload = &bytes[HEADER..];
    if Sha256::digest(payload).as_slice() != &bytes[24..56] {
        return None;
    }
    let data: Vec<f32> = payload
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect();
    Array2::from_shape_vec((nq, nc), data).ok()
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
    let mut h = base_hasher(bundle, "dense");
    put_str(&mut h, sys.similarity.as_str());
    for d in [sys.queries.dim(), sys.corpus.dim()] {
        h.update((d.0 as u64).to_le_bytes());
        h.update((d.1 as u64).to_le_bytes());
    }
    match bundle
        .sha256
        .get(&format!("embeddings/{}.npz", sys.id))
        .filter(|_| !bundle.root.as_os_str().is_empty())
    {
        Some(file) => {
            put_str(&mut h, "npz-sha256");
            put_str(&mut h, file);
        }
        None => {
            put_str(&mut h, "matrix-bytes");
            for m in [&sys.queries, &sys.corpus] {
                for v in m.iter() {
                    h.update(v.to_le_bytes());
                }
            }
        }
    }
    hex(&h.finalize())
}

/// The cache key of the BM25 baseline over `bundle`.
pub fn bm25_key(bundle: &Bundle) -> String {
    let mut h = base_hasher(bundle, "bm25");
    put_str(
        &mut h,
        &format!("k1={} b={}", super::bm25::K1, super::bm25::B),
    );
    for q in &bundle.queries {
        put_str(&mut h, &q.text);
    }
    for c in &bundle.corpus {
        put_str(&mut h, &c.code);
    }
    hex(&h.finalize())
}

/// Look `key` up, or compute the scores and store them. Returns what the lookup found.
pub fn get_or_compute(
    cache: &RankCache,
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
    let _ = cache.put(key, &m);
    (found, m)
}
