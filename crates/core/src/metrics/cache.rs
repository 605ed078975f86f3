//! The evaluation cache (the [`store`](crate::store)'s evaluations, kept here because it
//! encodes the metrics' own types): what the leaderboard reads of a system (its per-query metrics, tie
//! counts, exec@1 under the three tie orders and the label fallbacks in its top 10), stored on
//! disk beside the rank cache's score matrices, so reopening an unchanged bundle under the same
//! settings reads a few kilobytes per system instead of its score matrix, and sorts nothing.
//!
//! Key (SHA-256 over, in order): the format version, the system's rank-cache key (which fixes its
//! scores, see [`crate::store`]), the [`context_digest`] of the bundle's labels and PASS
//! verdicts, and every setting of [`EvalConfig`] (cutoffs, tie policy, the bits of the near-tie
//! tolerance). Any change to a matrix, the corpus, a verdict or a setting names another file.
//!
//! File (`<dir>/evals/<key>.bin`): the magic `EXEVAL01`, the payload's length (u64 LE) and its
//! SHA-256, then the payload: the number of queries and of cutoffs, per query every metric value
//! (f64 bits, so a hit gives the very numbers a computation gives) and its two tie flags, the tie
//! counts, the three exec@1 values and the fallback count. A file whose length, magic, checksum or
//! shape is wrong is reported as [`Lookup::Corrupt`], ignored and rewritten; files are written
//! atomically (a temporary file renamed into place).

use super::{EvalConfig, Metric, QueryEval, SystemEval, TieCounts, Truth, REGISTRY};
use crate::bundle::Bundle;
use crate::rank::Scoring;
use crate::store::codec::Reader;
use crate::store::{Lookup, Store};
use sha2::{Digest, Sha256};
use std::path::PathBuf;

const MAGIC: &[u8; 8] = b"EXEVAL01";
const HEADER: usize = 8 + 8 + 32;
/// Bump when the arithmetic of any metric, of the tie counts or of the fallback count changes.
const EVAL_VERSION: &str = "execscope-evals-1";

/// How deep [`Evaluated::label_fallbacks`] looks (the leaderboard's column).
pub const FALLBACK_DEPTH: usize = 10;

/// One system's evaluation with the leaderboard's extra columns.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluated {
    /// Per-query metrics and tie counts (id and similarity are the system's).
    pub per_query: Vec<QueryEval>,
    pub ties: TieCounts,
    /// Mean exec@1 under the pessimistic, expected and optimistic tie orders.
    pub exec1_bounds: [f64; 3],
    /// (query, snippet) pairs in the top [`FALLBACK_DEPTH`] whose PASS came from the labels.
    pub label_fallbacks: usize,
}

impl Evaluated {
    /// The evaluation under `cfg` of the system `id` / `similarity`.
    pub fn system_eval(&self, id: &str, similarity: Scoring, cfg: &EvalConfig) -> SystemEval {
        SystemEval {
            id: id.to_string(),
            similarity,
            config: cfg.clone(),
            per_query: self.per_query.clone(),
            ties: self.ties.clone(),
        }
    }
}

/// A SHA-256 over everything besides the scores that the evaluation reads of a bundle: the PASS
/// verdicts with their sources ([`Truth::digest`]) and, per query, its label rows and paired
/// distractors in bundle order (the tie counts compare a query's first canonical with them).
pub fn context_digest(bundle: &Bundle, truth: &Truth) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(truth.digest());
    h.update((bundle.queries.len() as u64).to_le_bytes());
    for q in &bundle.queries {
        for list in [&q.correct, &q.paired] {
            h.update((list.len() as u64).to_le_bytes());
            for &c in list {
                h.update((c as u64).to_le_bytes());
            }
        }
    }
    h.finalize().into()
}

/// The cache key of one system's evaluation.
pub fn key(score_key: &str, context: &[u8; 32], cfg: &EvalConfig) -> String {
    let mut h = Sha256::new();
    let mut put = |s: &[u8]| {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s);
    };
    put(EVAL_VERSION.as_bytes());
    put(score_key.as_bytes());
    put(context);
    let ks: Vec<u8> = cfg
        .ks
        .iter()
        .flat_map(|&k| (k as u64).to_le_bytes())
        .collect();
    put(&ks);
    put(cfg.policy.as_str().as_bytes());
    put(&cfg.tie_eps.to_bits().to_le_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn path(cache: &Store, key: &str) -> PathBuf {
    cache.dir.join("evals").join(format!("{key}.bin"))
}

/// Whether an entry is stored under `key` (its content is checked when read, by [`get`]).
pub fn has(cache: &Store, key: &str) -> bool {
    path(cache, key).is_file()
}

/// The stored evaluation for `key`, checked against its checksum and the expected shape
/// (`n_queries` queries, `n_ks` cutoffs).
pub fn get(cache: &Store, key: &str, n_queries: usize, n_ks: usize) -> (Lookup, Option<Evaluated>) {
    let Ok(bytes) = std::fs::read(path(cache, key)) else {
        return (Lookup::Miss, None);
    };
    match decode(&bytes, n_queries, n_ks) {
        Some(e) => (Lookup::Hit, Some(e)),
        None => (Lookup::Corrupt, None),
    }
}

/// Store an evaluation under `key` (atomically; errors are for the caller to ignore: a cache
/// that cannot be written only costs the next run time).
pub fn put(cache: &Store, key: &str, e: &Evaluated) -> std::io::Result<()> {
    use std::io::Write;
    let path = path(cache, key);
    let dir = path.parent().expect("cache files live in a directory");
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(&encode(e))?;
    tmp.persist(&path).map_err(|e| e.error)?;
    Ok(())
}

fn encode(e: &Evaluated) -> Vec<u8> {
    let n_ks = e.ties.at_cutoff.len();
    let mut p = Vec::with_capacity(64 + e.per_query.len() * (8 * (3 * n_ks + 1) + n_ks + 1));
    let u = |p: &mut Vec<u8>, v: u64| p.extend_from_slice(&v.to_le_bytes());
    u(&mut p, e.per_query.len() as u64);
    u(&mut p, n_ks as u64);
    for q in &e.per_query {
        // Every metric's values in registry order (exec, execp, ndcg at each cutoff, then MRR).
        for m in Metric::all() {
            for v in q.values(m) {
                u(&mut p, v.to_bits());
            }
        }
        p.extend(q.tie_at_cutoff.iter().map(|&t| u8::from(t)));
        p.push(u8::from(q.top1_tied));
    }
    u(&mut p, e.ties.tied_pairs as u64);
    u(&mut p, e.ties.pairs as u64);
    u(&mut p, e.ties.top1_tied as u64);
    for &c in &e.ties.at_cutoff {
        u(&mut p, c as u64);
    }
    for b in e.exec1_bounds {
        u(&mut p, b.to_bits());
    }
    u(&mut p, e.label_fallbacks as u64);
    let mut out = Vec::with_capacity(HEADER + p.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(p.len() as u64).to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&p));
    out.extend_from_slice(&p);
    out
}

fn decode(bytes: &[u8], n_queries: usize, n_ks: usize) -> Option<Evaluated> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().ok()?);
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len || Sha256::digest(payload).as_slice() != &bytes[16..48] {
        return None;
    }
    let mut r = Reader(payload);
    if r.usize()? != n_queries || r.usize()? != n_ks {
        return None;
    }
    let mut per_query = Vec::with_capacity(n_queries);
    for _ in 0..n_queries {
        let mut values: Vec<(Metric, Vec<f64>)> = Vec::with_capacity(REGISTRY.len());
        for d in &REGISTRY {
            values.push((d.metric, r.f64s(if d.at_k { n_ks } else { 1 })?));
        }
        let tie_at_cutoff = (0..n_ks).map(|_| r.flag()).collect::<Option<Vec<_>>>()?;
        let top1_tied = r.flag()?;
        let of = |m: Metric| {
            values
                .iter_mut()
                .find(|(x, _)| *x == m)
                .map_or_else(Vec::new, |(_, v)| std::mem::take(v))
        };
        per_query.push(QueryEval::from_values(of, tie_at_cutoff, top1_tied)?);
    }
    let ties = TieCounts {
        tied_pairs: r.usize()?,
        pairs: r.usize()?,
        top1_tied: r.usize()?,
        at_cutoff: (0..n_ks).map(|_| r.usize()).collect::<Option<Vec<_>>>()?,
    };
    let exec1_bounds = [r.f64()?, r.f64()?, r.f64()?];
    let label_fallbacks = r.usize()?;
    r.done().then_some(Evaluated {
        per_query,
        ties,
        exec1_bounds,
        label_fallbacks,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Evaluated {
        let q = |x: f64, t: bool| QueryEval {
            exec: vec![x, 1.0],
            execp: vec![x / 3.0, 0.5],
            ndcg: vec![0.1 + x, f64::MIN_POSITIVE],
            mrr: 1.0 / 3.0,
            tie_at_cutoff: vec![t, !t],
            top1_tied: t,
        };
        Evaluated {
            per_query: vec![q(0.0, false), q(1.0 / 7.0, true), q(1.0, false)],
            ties: TieCounts {
                tied_pairs: 2,
                pairs: 9,
                top1_tied: 1,
                at_cutoff: vec![1, 0],
            },
            exec1_bounds: [0.25, 1.0 / 3.0, 0.5],
            label_fallbacks: 17,
        }
    }

    #[test]
    fn round_trips_bit_for_bit_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Store::new(dir.path());
        let e = sample();
        assert_eq!(get(&cache, "k", 3, 2), (Lookup::Miss, None));
        put(&cache, "k", &e).unwrap();
        assert_eq!(get(&cache, "k", 3, 2), (Lookup::Hit, Some(e.clone())));
        // Another shape is not this entry.
        assert_eq!(get(&cache, "k", 4, 2).0, Lookup::Corrupt);
        assert_eq!(get(&cache, "k", 3, 1).0, Lookup::Corrupt);
        let file = path(&cache, "k");
        let good = std::fs::read(&file).unwrap();
        // Truncated, one flipped bit in the payload, garbage, empty.
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        for bad in [
            good[..good.len() - 3].to_vec(),
            flipped,
            b"not a cache file at all, just words".to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&file, &bad).unwrap();
            assert_eq!(get(&cache, "k", 3, 2), (Lookup::Corrupt, None));
        }
    }

    #[test]
    fn every_setting_names_another_key() {
        let ctx = [7u8; 32];
        let base = EvalConfig::default();
        let k0 = key("s", &ctx, &base);
        assert_eq!(k0, key("s", &ctx, &base.clone()));
        let others = [
            key("t", &ctx, &base),
            key("s", &[8u8; 32], &base),
            key("s", &ctx, &base.clone().with_ks(&[1, 3, 5])),
            key(
                "s",
                &ctx,
                &EvalConfig {
                    policy: crate::metrics::TiePolicy::Pessimistic,
                    ..base.clone()
                },
            ),
            key(
                "s",
                &ctx,
                &EvalConfig {
                    tie_eps: 1e-6,
                    ..base.clone()
                },
            ),
        ];
        for k in others {
            assert_ne!(k, k0);
        }
    }
}
