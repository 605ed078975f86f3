//! `execscope exec verify`: re-execute a bundle's cached pairs. The cache stores only hashes, so
//! the texts are recovered from the bundle: every query's tests × every corpus snippet (which
//! covers own pairs and cross-query pairs) and the stacked file's rows. Rows whose texts are
//! nowhere in the bundle (e.g. mutants the builder dropped) cannot be re-run and are counted.

use super::STACKED_FILE;
use execscope_core::bundle::model::{code_sha256, tests_key_fn, tests_sha256, Bundle, Query};
use execscope_core::bundle::{load, LoadOptions};
use execscope_oracle::{verify, ExecCache, Job, Oracle, VerifyReport, VerifySelection};
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// What `verify_bundle` found.
#[derive(Debug)]
pub struct BundleVerify {
    pub report: VerifyReport,
    /// Per pair given to the oracle (`Disagreement::pair` indexes this): "query × snippet".
    pub labels: Vec<String>,
    pub cache_rows: usize,
    /// Cache rows whose (code, tests) texts the bundle does not contain.
    pub unrecoverable: usize,
    /// The `tests_sha256` encoding the bundle's cache uses.
    pub encoding: Option<String>,
}

/// The cached pairs of a bundle whose texts it holds.
pub struct CachedPairs {
    pub pairs: Vec<Job>,
    /// Per pair, "query × snippet".
    pub labels: Vec<String>,
    /// The matched rows re-keyed to execscope's `tests_sha256` (what `oracle::verify` looks up).
    pub cache: ExecCache,
    /// Cache rows matched by no pair of texts.
    pub unrecoverable: usize,
}

/// Pairs whose texts the bundle holds and whose key is in its cache (any encoding the loader
/// detected), with a label each.
pub fn cached_pairs(b: &Bundle, stacked: &[(String, String, String)]) -> CachedPairs {
    let key = tests_key_fn(b.tests_key_encoding);
    let rows: HashMap<(&str, &str), usize> = b
        .cache
        .iter()
        .enumerate()
        .map(|(i, r)| ((r.code_sha256.as_str(), r.tests_sha256.as_str()), i))
        .collect();
    let code_keys: Vec<String> = b.corpus.iter().map(|s| code_sha256(&s.code)).collect();
    let qindex: HashMap<&str, usize> = b
        .queries
        .iter()
        .enumerate()
        .map(|(i, q)| (q.id.as_str(), i))
        .collect();
    let mut pairs = Vec::new();
    let mut labels = Vec::new();
    let mut rekeyed = ExecCache::new();
    let mut used: HashSet<usize> = HashSet::new();
    let mut push = |row: usize, code: &str, q: &Query, label: String| {
        if used.insert(row) {
            let mut rec = b.cache[row].clone();
            rec.tests_sha256 = tests_sha256(&q.tests);
            rekeyed.insert(rec);
            pairs.push(
                Job::new(code, q.tests.clone())
                    .entry(&q.function_name)
                    .language(q.language),
            );
            labels.push(label);
        }
    };
    for q in &b.queries {
        let tkey = key(&q.tests);
        for (s, ckey) in b.corpus.iter().zip(&code_keys) {
            if let Some(&row) = rows.get(&(ckey.as_str(), tkey.as_str())) {
                push(row, &s.code, q, format!("{} × {}", q.id, s.id));
            }
        }
    }
    for (sid, qid, code) in stacked {
        if let Some(&qi) = qindex.get(qid.as_str()) {
            let q = &b.queries[qi];
            if let Some(&row) = rows.get(&(code_sha256(code).as_str(), key(&q.tests).as_str())) {
                push(row, code, q, format!("{qid} × {sid}"));
            }
        }
    }
    let unrecoverable = b.cache.len() - used.len();
    CachedPairs {
        pairs,
        labels,
        cache: rekeyed,
        unrecoverable,
    }
}

/// (stacked_id, query_id, code) of `data/stacked_distractors.jsonl`, if present.
pub fn stacked_rows(root: &Path) -> Result<Vec<(String, String, String)>, String> {
    let path = root.join(STACKED_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        let field = |k: &str| {
            v.get(k)
                .and_then(|x| x.as_str())
                .map(str::to_string)
                .ok_or_else(|| format!("{}:{}: missing string `{k}`", path.display(), i + 1))
        };
        out.push((field("stacked_id")?, field("query_id")?, field("code")?));
    }
    Ok(out)
}

/// Loads the bundle at `root` (checksums are `check`'s business, not verified here) and
/// re-executes its recoverable cached pairs.
pub fn verify_bundle(
    root: &Path,
    oracle: &Oracle,
    selection: VerifySelection,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<BundleVerify, String> {
    let opts = LoadOptions {
        verify_checksums: false,
        systems: None,
        skip_embeddings: true,
    };
    let b = load(root, &opts).map_err(|e| e.to_string())?;
    let stacked = stacked_rows(root)?;
    let c = cached_pairs(&b, &stacked);
    let report = verify(oracle, &c.cache, &c.pairs, selection, progress);
    Ok(BundleVerify {
        report,
        labels: c.labels,
        cache_rows: b.cache.len(),
        unrecoverable: c.unrecoverable,
        encoding: b.tests_key_encoding.map(|e| e.name().to_string()),
    })
}
