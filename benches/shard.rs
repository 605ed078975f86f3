//! Oracle throughput of 1, 2 and 4 shards on this machine, as ratios against one shard measured
//! in the same run (before and after the sharded runs, to bracket drifting load).
//!
//! A shard is what `--shard i/n` gives: its own oracle (default workers, i.e. one per core) over
//! the pairs whose key hashes into it, started and run concurrently with the other shards, as n
//! shard processes on one node would. Start-up is billed (a shard pays it). The pairs: each
//! embedded task's canonical and independent implementation with its tests (data/tasks.jsonl),
//! the first `EXECSCOPE_BENCH_PAIRS` (default 240). Every sharded run must give the outcomes the
//! single run gave.
//! Run: `cargo bench --bench shard`.

use execscope::bundle::model::{code_sha256, tests_sha256};
use execscope::oracle::{Oracle, OracleConfig};
use execscope::shard::Shard;
use std::collections::BTreeMap;
use std::time::Instant;

type Pair = (String, Vec<String>);
/// (code_sha256, tests_sha256) → outcomes.
type Rows = Vec<((String, String), Vec<String>)>;

fn pairs(n: usize) -> Vec<Pair> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/tasks.jsonl");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1));
        let tests: Vec<String> = v["tests"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        for k in ["canonical", "independent"] {
            if let Some(code) = v[k].as_str() {
                out.push((code.to_string(), tests.clone()));
            }
        }
    }
    out.truncate(n);
    out
}

/// Runs `jobs` as `n` concurrent shards; (seconds, outcomes by key, isolation).
fn run_sharded(jobs: &[Pair], n: u32) -> (f64, BTreeMap<(String, String), Vec<String>>, String) {
    let t = Instant::now();
    let results: Vec<(Rows, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|i| {
                s.spawn(move || {
                    let shard = Shard { index: i, count: n };
                    let mine: Vec<(Pair, (String, String))> = jobs
                        .iter()
                        .map(|j| (j.clone(), (code_sha256(&j.0), tests_sha256(&j.1))))
                        .filter(|(_, k)| shard.owns(&k.0, &k.1))
                        .collect();
                    let oracle = Oracle::new(OracleConfig::default()).expect("oracle");
                    let batch: Vec<execscope::oracle::Job> =
                        mine.iter().map(|(j, _)| j.clone().into()).collect();
                    let out = oracle.run_batch(&batch, &|_| {});
                    let rows = mine
                        .into_iter()
                        .zip(out)
                        .map(|((_, k), r)| {
                            let o = match r {
                                Ok(r) => r.outcomes.iter().map(|o| o.to_string()).collect(),
                                Err(e) => vec![format!("error: {e}")],
                            };
                            (k, o)
                        })
                        .collect();
                    (rows, oracle.isolation().to_string())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let secs = t.elapsed().as_secs_f64();
    let iso = results[0].1.clone();
    let all = results.into_iter().flat_map(|(r, _)| r).collect();
    (secs, all, iso)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn main() {
    let n: usize = std::env::var("EXECSCOPE_BENCH_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(240);
    let jobs = pairs(n);
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "shard bench: {} pairs, {cores} cores, load average {} at start",
        jobs.len(),
        load()
    );
    let (base1, reference, iso) = run_sharded(&jobs, 1);
    println!("isolation {iso}");
    let mut rows = Vec::new();
    for shards in [2u32, 4] {
        let (secs, got, _) = run_sharded(&jobs, shards);
        assert_eq!(got, reference, "{shards} shards changed an outcome");
        rows.push((shards, secs));
    }
    let (base2, again, _) = run_sharded(&jobs, 1);
    assert_eq!(again, reference, "the second single run changed an outcome");
    let base = (base1 + base2) / 2.0;
    println!(
        "1 shard : {base:.2} s ({base1:.2} s before, {base2:.2} s after), {:.1} pairs/s = 1.00x",
        jobs.len() as f64 / base
    );
    for (shards, secs) in rows {
        println!(
            "{shards} shards: {secs:.2} s, {:.1} pairs/s = {:.2}x the single shard's throughput",
            jobs.len() as f64 / secs,
            base / secs
        );
    }
    println!("load average {} at end", load());
}
