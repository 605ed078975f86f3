//! Live-query latency per system, as a ratio against scoring one stored query in the same run.
//!
//! For each dense system of the embedded bundle: the baseline is the time to score one stored
//! query vector against the corpus matrix and take its top 10 (for BM25: one stored query's text
//! against the index); *cold* is a fresh embedding worker's first live query (process start, model load,
//! encode, score); *warm* is the median of later live queries through [`execscope::probe::probe`]
//! (encode + score + top-k, as the dashboard does on Enter). BM25's live query is measured the
//! same way. A last row measures what Enter in the dashboard does: one probe ranking under every
//! system at once (its baseline: the per-system baselines summed). Each warm time is checked
//! against the 300 ms target, and the load average is printed before and after (the figures mean
//! little on a busy machine). Needs the embedding environment (`$EXECSCOPE_EMBED_ENV` or the platform cache);
//! without it the bench says so and measures nothing. Run: `cargo bench --bench probe`.

#[path = "../tests/common/shared.rs"]
mod shared;

use execscope::cli::{open_engine, EvalArgs};
use execscope::embed::{EmbedEnv, Worker};
use execscope::probe::{probe, Encode, ProbeQuery, ProbeRequest, Prober};
use std::time::{Duration, Instant};

const TEXTS: [&str; 8] = [
    "sort a list of pairs by the second item",
    "count the vowels in a string",
    "check whether a number is prime",
    "merge two sorted lists",
    "parse a date string into day month year",
    "rotate a matrix by ninety degrees",
    "validate an email address",
    "compute the area of a polygon",
];

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The warm-latency target of a live query (issue 16), on 2 cores.
const TARGET: Duration = Duration::from_millis(300);

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn verdict(warm: Duration) -> &'static str {
    if warm <= TARGET {
        "met"
    } else {
        "MISSED"
    }
}

fn main() {
    let env = match EmbedEnv::locate() {
        Ok(e) if e.is_ready() => e,
        Ok(e) => return shared::skip("benches/probe", &e.absence()),
        Err(e) => return shared::skip("benches/probe", &e.to_string()),
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bundle");
    let args = EvalArgs {
        no_cache: true,
        ..EvalArgs::default()
    };
    let engine = open_engine(Some(&root), &args).expect("embedded bundle loads");
    let prober = Prober::new(&engine).expect("corpus matrices");
    println!("load average before: {}", load());
    println!(
        "{:<26} {:>12} {:>12} {:>8} {:>12} {:>8} {:>8}",
        "system", "stored (ms)", "cold (ms)", "×", "warm (ms)", "×", "≤300 ms"
    );
    let mut base_sum = Duration::ZERO;
    for s in engine.scores() {
        let req = |t: &str| ProbeRequest {
            query: ProbeQuery::Text(t.to_string()),
            replace: Vec::new(),
            systems: Some(vec![s.id.clone()]),
            k: 10,
            depth: 10,
        };
        // Baseline: one stored query scored and ranked.
        let base = if let Some(live) = prober.systems.iter().find(|l| l.id == s.id) {
            let sys = engine
                .bundle()
                .systems
                .iter()
                .find(|d| d.id == s.id)
                .unwrap();
            median(
                (0..30)
                    .map(|i| {
                        let t0 = Instant::now();
                        let row = live.score_vector(sys.queries.row(i));
                        let _ = execscope::rank::top_k(&row, 10);
                        t0.elapsed()
                    })
                    .collect(),
            )
        } else {
            // BM25: one stored query's text scored against the index, then ranked.
            let index = execscope::rank::bm25::Bm25Index::new(
                &engine
                    .bundle()
                    .corpus
                    .iter()
                    .map(|c| c.code.as_str())
                    .collect::<Vec<_>>(),
            );
            median(
                (0..30)
                    .map(|i| {
                        let t0 = Instant::now();
                        let row: Vec<f32> = index
                            .score_text(&engine.bundle().queries[i].text)
                            .into_iter()
                            .map(|x| x as f32)
                            .collect();
                        let _ = execscope::rank::top_k(&row, 10);
                        t0.elapsed()
                    })
                    .collect(),
            )
        };
        // Cold: a fresh worker, first query (model load included).
        let t0 = Instant::now();
        // BM25 needs no model: its cold run is its first live query.
        let mut worker = s
            .is_dense()
            .then(|| Worker::spawn(&env).expect("worker starts"));
        let r = probe(
            &engine,
            &prober,
            worker.as_mut().map(|w| w as &mut dyn Encode),
            None,
            &req(TEXTS[0]),
        )
        .expect("probe");
        let cold = t0.elapsed();
        assert_eq!(r.systems[0].status, "ok", "{:?}", r.systems[0].reason);
        let warm = median(
            TEXTS[1..]
                .iter()
                .map(|t| {
                    let t0 = Instant::now();
                    let _ = probe(
                        &engine,
                        &prober,
                        worker.as_mut().map(|w| w as &mut dyn Encode),
                        None,
                        &req(t),
                    )
                    .expect("probe");
                    t0.elapsed()
                })
                .collect(),
        );
        let b = base.as_secs_f64().max(1e-9);
        base_sum += base;
        println!(
            "{:<26} {:>12.3} {:>12.1} {:>8.0} {:>12.1} {:>8.0} {:>8}",
            s.id,
            ms(base),
            ms(cold),
            cold.as_secs_f64() / b,
            ms(warm),
            warm.as_secs_f64() / b,
            verdict(warm)
        );
    }
    // Enter in the dashboard: every system in one probe, one worker for the dense models.
    let all = |t: &str| ProbeRequest {
        query: ProbeQuery::Text(t.to_string()),
        replace: Vec::new(),
        systems: None,
        k: 10,
        depth: 10,
    };
    let t0 = Instant::now();
    let mut worker = Worker::spawn(&env).expect("worker starts");
    let r = probe(
        &engine,
        &prober,
        Some(&mut worker as &mut dyn Encode),
        None,
        &all(TEXTS[0]),
    )
    .expect("probe");
    let cold = t0.elapsed();
    for sp in &r.systems {
        assert_eq!(sp.status, "ok", "{}: {:?}", sp.id, sp.reason);
    }
    let warm = median(
        TEXTS[1..]
            .iter()
            .map(|t| {
                let t0 = Instant::now();
                let _ = probe(
                    &engine,
                    &prober,
                    Some(&mut worker as &mut dyn Encode),
                    None,
                    &all(t),
                )
                .expect("probe");
                t0.elapsed()
            })
            .collect(),
    );
    let b = base_sum.as_secs_f64().max(1e-9);
    println!(
        "{:<26} {:>12.3} {:>12.1} {:>8.0} {:>12.1} {:>8.0} {:>8}",
        "every system (Enter)",
        ms(base_sum),
        ms(cold),
        cold.as_secs_f64() / b,
        ms(warm),
        warm.as_secs_f64() / b,
        verdict(warm)
    );
    println!("load average after: {}", load());
}
