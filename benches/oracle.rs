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
//! Prints pairs/s of both and the ratio, the CPU each spent per pair (the whole machine's, from
//! `/proc/stat`: the oracle's sandboxed processes are not this process's children), and where the
//! oracle's time went: the share of the pairs' wall time in pairs with a `HANG` or `TIMEOUT`, and
//! the median pair.
//!
//! A second workload: `EXECSCOPE_BENCH_POOL=samples.jsonl EXECSCOPE_BENCH_TASKS=HumanEval.jsonl.gz`
//! runs what `execscope audit --pool … --tasks …` executes (its first phase: the structural
//! screens and every candidate's suites, taken from the audit itself) against the naive runner on
//! each candidate's suite (what a user's script would run); it also prints candidates per second
//! of both. `EXECSCOPE_BENCH_TIMEOUT` sets the per-test budget (the audit's default is 5 s),
//! `EXECSCOPE_BENCH_WORKERS` the oracle's workers, and `EXECSCOPE_BENCH_DUMP=FILE` writes the
//! workload's jobs as JSON lines (with the cached outcomes, for a bundle) and runs nothing.
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

#[path = "support/machine.rs"]
mod machine;
use machine::machine_cpu;

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

/// What the bench runs: the jobs, and for each the verdicts it must give (the cache's, or
/// none for an audit pool, whose verdicts are compared with the naive runner's).
struct Workload {
    label: String,
    jobs: Vec<Job>,
    cached: Option<Vec<Vec<String>>>,
    /// Indices of the jobs the naive runner runs (every job; for an audit pool, each
    /// candidate's suite: what a user's script would run, without the audit's screen).
    naive: Vec<usize>,
    /// Candidates behind the jobs (an audit pool), for the per-candidate rates.
    candidates: Option<usize>,
}

/// A seeded sample of a bundle's cache rows.
fn cache_workload() -> Workload {
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
    Workload {
        label: format!("{} (seed {seed})", root.display()),
        naive: (0..jobs.len()).collect(),
        jobs,
        cached: Some(cached),
        candidates: None,
    }
}

/// The jobs `execscope audit --pool POOL --tasks TASKS` executes (its first phase: each
/// candidate's structural screen and its suites), taken from the audit itself.
fn audit_workload(pool: &str, tasks: &str) -> Workload {
    let mut read_run =
        |_: &str, _: &[Job]| -> Vec<Result<execscope::oracle::SuiteResult, String>> {
            panic!("the bench's task file needs no execution to read (HumanEval, MBPP)")
        };
    let input = execscope::build::formats::audit::read_inputs(
        std::path::Path::new(tasks),
        None,
        std::path::Path::new(pool),
        None,
        &mut read_run,
    )
    .unwrap_or_else(|e| panic!("{pool} / {tasks}: {e}"));
    let seen: Mutex<Vec<Job>> = Mutex::new(Vec::new());
    let capture: &execscope::audit::generated::Runner<'_> = &|jobs: &[Job]| {
        let mut s = seen.lock().unwrap();
        if s.is_empty() {
            s.extend_from_slice(jobs);
        }
        Err(execscope::record::BatchError::Start("captured".into()))
    };
    let _ = execscope::audit::generated::build(
        &input.specs,
        &input.rows,
        capture,
        execscope::audit::Mode::Generated {
            pool: pool.into(),
            tasks: tasks.into(),
        },
    );
    let jobs = seen.into_inner().unwrap();
    let naive = (0..jobs.len())
        .filter(|&i| jobs[i].selftest.is_none() && jobs[i].entry.iter().all(|e| e != "__es_screen"))
        .collect();
    Workload {
        label: format!("audit --pool {pool} --tasks {tasks}"),
        jobs,
        cached: None,
        naive,
        candidates: Some(input.rows.len()),
    }
}

fn main() {
    let w = match (
        std::env::var("EXECSCOPE_BENCH_POOL"),
        std::env::var("EXECSCOPE_BENCH_TASKS"),
    ) {
        (Ok(pool), Ok(tasks)) => audit_workload(&pool, &tasks),
        _ => cache_workload(),
    };
    // The workload's jobs as JSON lines (the record's `Job`), for profiling the harness and the
    // judge outside execscope; nothing is run.
    if let Ok(path) = std::env::var("EXECSCOPE_BENCH_DUMP") {
        let text: String = w
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let mut v = serde_json::to_value(j).expect("a job serialises");
                if let Some(c) = &w.cached {
                    v["cached"] = serde_json::json!(c[i]);
                }
                v.to_string() + "\n"
            })
            .collect();
        std::fs::write(&path, text).expect("writing the dump");
        println!("wrote {} jobs to {path}", w.jobs.len());
        return;
    }
    let isolation = std::env::var("EXECSCOPE_ORACLE_LEVEL")
        .unwrap_or_else(|_| "auto".into())
        .parse()
        .expect("EXECSCOPE_ORACLE_LEVEL");
    let mut cfg = OracleConfig {
        isolation,
        ..OracleConfig::default()
    };
    if let Some(t) = std::env::var("EXECSCOPE_BENCH_TIMEOUT")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        cfg.timeout = Duration::from_secs_f64(t);
    }
    if let Some(n) = std::env::var("EXECSCOPE_BENCH_WORKERS")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        cfg.workers = n;
    }
    let oracle = Oracle::new(cfg).expect("oracle");
    let jobs = &w.jobs;
    let tests: usize = jobs.iter().map(|j| j.tests.len()).sum();
    println!(
        "oracle bench: {} pairs ({tests} tests) of {}, isolation {}, {} workers, budget {} s per test",
        jobs.len(),
        w.label,
        oracle.isolation(),
        oracle.config().workers,
        oracle.config().timeout.as_secs_f64()
    );
    // Start every worker once so start-up is not billed to the pool.
    let warm: Vec<Job> = jobs.iter().take(oracle.config().workers).cloned().collect();
    oracle.run_batch(&warm, &|_| {});

    let cpu0 = machine_cpu();
    let t = Instant::now();
    let pool = oracle.run_batch(jobs, &|_| {});
    let pool_s = t.elapsed().as_secs_f64();
    let pool_cpu = machine_cpu() - cpu0;
    let naive_jobs: Vec<Job> = w.naive.iter().map(|&i| jobs[i].clone()).collect();
    let cpu0 = machine_cpu();
    let (naive_out, naive_s) = naive(&naive_jobs, oracle.config().timeout);
    let naive_cpu = machine_cpu() - cpu0;

    let now: Vec<Vec<String>> = pool
        .iter()
        .map(|r| {
            let r = r.as_ref().expect("the oracle answers");
            r.outcomes.iter().map(|o| o.to_string()).collect()
        })
        .collect();
    let disagree = w
        .cached
        .as_ref()
        .map(|cached| now.iter().zip(cached).filter(|(a, b)| a != b).count());
    let (mut stuck_ms, mut all_ms, mut walls) = (0u64, 0u64, Vec::new());
    let count = |w: &str| now.iter().flatten().filter(|o| *o == w).count();
    let (hangs, timeouts) = (count("HANG"), count("TIMEOUT"));
    for (r, o) in pool.iter().zip(&now) {
        let r = r.as_ref().expect("the oracle answers");
        all_ms += r.wall_ms;
        if o.iter().any(|o| o == "HANG" || o == "TIMEOUT") {
            stuck_ms += r.wall_ms;
        }
        walls.push(r.wall_ms);
    }
    walls.sort_unstable();
    let passes = |o: &Vec<String>| o.iter().map(|w| w == "pass").collect::<Vec<_>>();
    let reference: Vec<&Vec<String>> = match &w.cached {
        Some(c) => w.naive.iter().map(|&i| &c[i]).collect(),
        None => w.naive.iter().map(|&i| &now[i]).collect(),
    };
    let naive_same = naive_out
        .iter()
        .zip(&reference)
        .filter(|(a, b)| passes(a) == passes(b))
        .count();
    let (pool_rate, naive_rate) = (
        jobs.len() as f64 / pool_s,
        naive_jobs.len() as f64 / naive_s,
    );
    let cpu = |c: f64, n: usize| {
        format!(
            "{:.1} ms CPU per pair (machine-wide)",
            1e3 * c / n.max(1) as f64
        )
    };
    println!(
        "oracle ({}): {pool_s:.2} s, {pool_rate:.1} pairs/s, {}{}",
        oracle.isolation(),
        cpu(pool_cpu, jobs.len()),
        match disagree {
            Some(d) => format!("; {d} disagree with the cache"),
            None => String::new(),
        }
    );
    println!(
        "naive (fresh python3 -I per pair, no sandbox, one per core): {naive_s:.2} s for {} pairs, {naive_rate:.1} pairs/s, {}; {naive_same}/{} pass/not-pass as {}",
        naive_jobs.len(),
        cpu(naive_cpu, naive_jobs.len()),
        naive_jobs.len(),
        if w.cached.is_some() { "cached" } else { "the oracle's" }
    );
    println!(
        "ratio oracle / naive, pairs/s: {:.2}x",
        pool_rate / naive_rate
    );
    if let Some(n) = w.candidates {
        println!(
            "per candidate: oracle {:.1}/s (the whole audit's executions), naive {:.1}/s (its suite only): {:.2}x",
            n as f64 / pool_s,
            n as f64 / naive_s,
            naive_s / pool_s
        );
    }
    println!(
        "oracle's pair time: {:.0}% in pairs with a HANG or TIMEOUT ({hangs} HANG and {timeouts} TIMEOUT tests); median pair {} ms",
        100.0 * stuck_ms as f64 / all_ms.max(1) as f64,
        walls.get(walls.len() / 2).copied().unwrap_or(0)
    );
    if let Some(d) = disagree {
        assert_eq!(d, 0, "the oracle must reproduce every cached verdict");
    }
}
