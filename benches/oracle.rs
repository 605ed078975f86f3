//! Throughput of the pre-warmed pool against the naive runner (one fresh `python3 -I` per pair),
//! same pairs, same isolation level, same number of workers, in one run.
//!
//! Pairs: the HumanEval canonicals of the external data (`../shared/data/humaneval-tasks.jsonl`, or
//! the directory named by `EXECSCOPE_SHARED_DATA`) with their tests,
//! plus a one-character variant of each to reach 200 (override the file with
//! `EXECSCOPE_BENCH_TASKS`, the count with `EXECSCOPE_BENCH_PAIRS`, the level with
//! `EXECSCOPE_ORACLE_LEVEL=rlimits|netns|bubblewrap|userns`).
//! Run: `cargo bench --bench oracle`. Without the data it says so and measures nothing.

#[path = "../tests/common/shared.rs"]
mod shared;

use execscope::oracle::{Oracle, OracleConfig};
use std::time::Instant;

fn pairs(path: &str, n: usize) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut base = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1));
        let code = v["canonical"].as_str().unwrap_or_default().to_string();
        let tests: Vec<String> = v["tests"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|t| t.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        base.push((code, tests));
    }
    let mut out = base.clone();
    // A variant per task (an extra blank line: same behaviour, different cache key).
    out.extend(base.iter().map(|(c, t)| (format!("{c}\n"), t.clone())));
    out.truncate(n);
    out
}

fn main() {
    let path = match std::env::var("EXECSCOPE_BENCH_TASKS") {
        Ok(p) => p,
        Err(_) => match shared::require_data("benches/oracle", "humaneval-tasks.jsonl") {
            Some(p) => p.display().to_string(),
            None => return,
        },
    };
    let n: usize = std::env::var("EXECSCOPE_BENCH_PAIRS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let jobs = pairs(&path, n);
    let isolation = std::env::var("EXECSCOPE_ORACLE_LEVEL")
        .unwrap_or_else(|_| "auto".into())
        .parse()
        .expect("EXECSCOPE_ORACLE_LEVEL");
    let cfg = OracleConfig {
        isolation,
        ..OracleConfig::default()
    };
    let oracle = Oracle::new(cfg).expect("oracle");
    let jobs: Vec<execscope::oracle::Job> = jobs.into_iter().map(Into::into).collect();
    let tests: usize = jobs.iter().map(|j| j.tests.len()).sum();
    println!(
        "oracle bench: {} pairs ({tests} tests), isolation {}, {} workers, {}",
        jobs.len(),
        oracle.isolation(),
        oracle.config().workers,
        oracle.runner_string()
    );
    // Warm every pool server once so start-up is not billed to the pool.
    let warm: Vec<_> = jobs.iter().take(oracle.config().workers).cloned().collect();
    oracle.run_batch(&warm, &|_| {});

    let t = Instant::now();
    let naive = oracle.run_batch_naive(&jobs, &|_| {});
    let naive_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let pool = oracle.run_batch(&jobs, &|_| {});
    let pool_s = t.elapsed().as_secs_f64();

    let mut same = 0;
    let mut passing = 0;
    for (a, b) in naive.iter().zip(&pool) {
        if let (Ok(a), Ok(b)) = (a, b) {
            same += (a.outcomes == b.outcomes) as usize;
            passing += b.passes_all() as usize;
        }
    }
    let (naive_rate, pool_rate) = (jobs.len() as f64 / naive_s, jobs.len() as f64 / pool_s);
    println!("naive (fresh interpreter per pair): {naive_s:.2} s, {naive_rate:.1} pairs/s");
    println!("pool  (pre-warmed, fork per pair):  {pool_s:.2} s, {pool_rate:.1} pairs/s");
    println!("speed-up pool / naive: {:.1}x", pool_rate / naive_rate);
    println!(
        "agreement: {same}/{} pairs identical outcomes; {passing} pass all tests",
        jobs.len()
    );
}
