//! The oracle side by side with the runner a user would script, on the same pairs in one run.
//!
//! Workload: a seeded sample of the embedded bundle's cache rows (`data/bundle`, the pairs
//! `execscope exec verify data/bundle --sample N --seed S` re-executes; `EXECSCOPE_BENCH_PAIRS`,
//! default 400, and `EXECSCOPE_BENCH_SEED`, default 7; `EXECSCOPE_BENCH_BUNDLE` names another
//! bundle, e.g. `../shared/data/mbpp-bundle`). The level is `EXECSCOPE_ORACLE_LEVEL` (default
//! `auto`: the strongest that works).
//!
//! - **the oracle**: `Oracle::run_batch`, its default workers, every verdict checked against the
//!   cache row (the bench fails on a disagreement);
//! - **the naive runner** a user would write in ten lines: a fresh `python3 -I` per pair, no
//!   sandbox, one process per core; it executes the code once and each test in a copy of its
//!   namespace under an alarm of the same budget per test (`TIMEOUT`, and on to the next test).
//!   Its verdicts are only compared as pass / not pass (it has no judge, no hang detector and no
//!   isolation).
//!
//! Prints pairs/s of both and the ratio, and where the oracle's time went: the share of the
//! pairs' wall time in pairs with a `HANG` or `TIMEOUT`, and the median pair.
//! Run: `cargo bench --bench oracle`.

use execscope::build::verify::{cached_pairs, stacked_rows};
use execscope::bundle::{load, LoadOptions};
use execscope::oracle::{selected, Job, Oracle, OracleConfig, VerifySelection};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The naive runner's program: the pair arrives as JSON on stdin, one outcome word per test on
/// stdout.
const NAIVE: &str = r#"
import sys, json, signal
class Late(BaseException):
    pass
def late(*_):
    raise Late()
signal.signal(signal.SIGALRM, late)
p = json.loads(sys.stdin.read())
ns, out = {}, []
try:
    exec(compile(p["code"], "<code>", "exec"), ns)
    for t in p["tests"]:
        signal.setitimer(signal.ITIMER_REAL, p["budget"])
        try:
            exec(t, dict(ns))
            out.append("pass")
        except Late:
            out.append("TIMEOUT")
        except AssertionError:
            out.append("FAIL")
        except BaseException as e:
            out.append("FAIL:" + type(e).__name__)
        signal.setitimer(signal.ITIMER_REAL, 0)
except BaseException as e:
    out = ["ERROR:" + type(e).__name__] * len(p["tests"])
print(json.dumps(out))
"#;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The interpreter's real executable (a pyenv shim is a shell script: not what a runner pays).
fn python() -> PathBuf {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 on PATH");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// One pair through a fresh interpreter: its outcome words, `TIMEOUT` for every test when it
/// overran `budget` per test.
fn naive_pair(py: &PathBuf, job: &Job, budget: Duration) -> Vec<String> {
    let n = job.tests.len();
    let timeout = || vec!["TIMEOUT".to_string(); n];
    let mut child = Command::new(py)
        .args(["-I", "-c", NAIVE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 starts");
    let input = serde_json::json!({
        "code": job.code, "tests": job.tests, "budget": budget.as_secs_f64(),
    })
    .to_string();
    let mut stdin = child.stdin.take().expect("piped");
    std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    // Each test has its own alarm; this only ends a process whose test caught it.
    let deadline = Instant::now() + budget * (n as u32 + 1);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return timeout();
            }
        }
    }
    let mut text = String::new();
    let _ = child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut text);
    serde_json::from_str(text.trim()).unwrap_or_else(|_| vec!["ERROR:Other".to_string(); n])
}

/// Every pair through the naive runner, one process per core; (outcomes, seconds).
fn naive(jobs: &[Job], budget: Duration) -> (Vec<Vec<String>>, f64) {
    let py = python();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let out: Vec<Mutex<Vec<String>>> = jobs.iter().map(|_| Mutex::new(Vec::new())).collect();
    let t = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..cores {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                *out[i].lock().unwrap() = naive_pair(&py, job, budget);
            });
        }
    });
    let secs = t.elapsed().as_secs_f64();
    (
        out.into_iter().map(|m| m.into_inner().unwrap()).collect(),
        secs,
    )
}

fn main() {
    let root = std::env::var("EXECSCOPE_BENCH_BUNDLE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/bundle"));
    let n: usize = env_or("EXECSCOPE_BENCH_PAIRS", 400);
    let seed: u64 = env_or("EXECSCOPE_BENCH_SEED", 7);
    let opts = LoadOptions {
        verify_checksums: false,
        systems: None,
        skip_embeddings: true,
    };
    let b = load(&root, &opts).unwrap_or_else(|e| panic!("{}: {e}", root.display()));
    let stacked = stacked_rows(&root).expect("stacked rows");
    let c = cached_pairs(&b, &stacked);
    let (picked, _) = selected(&c.cache, &c.pairs, VerifySelection::Sample { n, seed });
    let jobs: Vec<Job> = picked.iter().map(|&i| c.pairs[i].clone()).collect();
    let cached: Vec<Vec<String>> = jobs
        .iter()
        .map(|j| {
            c.cache
                .get_pair(&j.code, &j.tests)
                .expect("cached")
                .outcomes
                .clone()
        })
        .collect();
    let isolation = std::env::var("EXECSCOPE_ORACLE_LEVEL")
        .unwrap_or_else(|_| "auto".into())
        .parse()
        .expect("EXECSCOPE_ORACLE_LEVEL");
    let oracle = Oracle::new(OracleConfig {
        isolation,
        ..OracleConfig::default()
    })
    .expect("oracle");
    let tests: usize = jobs.iter().map(|j| j.tests.len()).sum();
    println!(
        "oracle bench: {} pairs ({tests} tests) of {} (seed {seed}), isolation {}, {} workers",
        jobs.len(),
        root.display(),
        oracle.isolation(),
        oracle.config().workers
    );
    // Start every worker once so start-up is not billed to the pool.
    let warm: Vec<Job> = jobs.iter().take(oracle.config().workers).cloned().collect();
    oracle.run_batch(&warm, &|_| {});

    let t = Instant::now();
    let pool = oracle.run_batch(&jobs, &|_| {});
    let pool_s = t.elapsed().as_secs_f64();
    let (naive_out, naive_s) = naive(&jobs, oracle.config().timeout);

    let mut disagree = 0;
    let (mut stuck_ms, mut all_ms, mut walls) = (0u64, 0u64, Vec::new());
    for (r, want) in pool.iter().zip(&cached) {
        let r = r.as_ref().expect("the oracle answers");
        let now: Vec<String> = r.outcomes.iter().map(|o| o.to_string()).collect();
        disagree += (&now != want) as usize;
        all_ms += r.wall_ms;
        if now.iter().any(|o| o == "HANG" || o == "TIMEOUT") {
            stuck_ms += r.wall_ms;
        }
        walls.push(r.wall_ms);
    }
    walls.sort_unstable();
    let passes = |o: &Vec<String>| o.iter().map(|w| w == "pass").collect::<Vec<_>>();
    let naive_same = naive_out
        .iter()
        .zip(&cached)
        .filter(|(a, b)| passes(a) == passes(b))
        .count();
    let (pool_rate, naive_rate) = (jobs.len() as f64 / pool_s, jobs.len() as f64 / naive_s);
    println!(
        "oracle ({}): {pool_s:.2} s, {pool_rate:.1} pairs/s; {disagree} disagree with the cache",
        oracle.isolation()
    );
    println!("naive (fresh python3 -I per pair, no sandbox, one per core): {naive_s:.2} s, {naive_rate:.1} pairs/s; {naive_same}/{} pass/not-pass as cached", jobs.len());
    println!("ratio oracle / naive: {:.2}x", pool_rate / naive_rate);
    println!(
        "oracle's pair time: {:.0}% in pairs with a HANG or TIMEOUT; median pair {} ms",
        100.0 * stuck_ms as f64 / all_ms.max(1) as f64,
        walls.get(walls.len() / 2).copied().unwrap_or(0)
    );
    assert_eq!(
        disagree, 0,
        "the oracle must reproduce every cached verdict"
    );
}
