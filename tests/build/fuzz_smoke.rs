//! The fuzz targets' stable path: every parser of untrusted input (the entry points in
//! `execscope::fuzz`, the same ones the cargo-fuzz targets in `fuzz/` call) is fed its
//! seed corpus and a few thousand deterministic mutations of it (bit flips, interesting bytes,
//! truncations, deleted and duplicated ranges, splices of two seeds, inserted JSON tokens).
//! A panic anywhere fails the test and names the target, the seed and the mutation number; the
//! input is written under `target/fuzz-smoke-crashes/` so it can become a regression test.
//!
//! This is not coverage-guided: it is the seconds-long check CI runs on the stable toolchain.
//! Long coverage-guided runs are `cargo fuzz run <target>` in `fuzz/` (see the README).

use execscope::bundle::{self, LoadOptions};
use execscope::fuzz;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Mutations per seed file (spread over the target's seeds).
const PER_TARGET: usize = 3000;

/// xorshift64*: deterministic, no dependency on a rand version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

const TOKENS: &[&[u8]] = &[
    b"null",
    b"[]",
    b"{}",
    b"\"\"",
    b"1e999",
    b"-1",
    b"18446744073709551616",
    b"\"\\ud800\"",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\n",
    b"\r\n",
    b"../",
    b"/",
    b"PK\x03\x04",
    b"PK\x01\x02",
    b"\x93NUMPY",
    b"'shape': (99999999999, 99999999999), ",
    b"'descr': '<U99999999', ",
];

const BYTES: &[u8] = b"\x00\xff\x80\xc3\"{}[],:0919\n\\ ";

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut d = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let n = d.len();
        match rng.below(8) {
            0 if n > 0 => {
                let i = rng.below(n);
                d[i] ^= 1 << rng.below(8);
            }
            1 if n > 0 => {
                let i = rng.below(n);
                d[i] = BYTES[rng.below(BYTES.len())];
            }
            2 => d.truncate(rng.below(n + 1)),
            3 if n > 0 => {
                let a = rng.below(n);
                let b = (a + 1 + rng.below(64)).min(n);
                d.drain(a..b);
            }
            4 if n > 0 => {
                let a = rng.below(n);
                let b = (a + 1 + rng.below(256)).min(n);
                let chunk = d[a..b].to_vec();
                let at = rng.below(n + 1);
                d.splice(at..at, chunk);
            }
            5 => {
                let cut = rng.below(n + 1);
                let from = rng.below(other.len() + 1);
                d.truncate(cut);
                d.extend_from_slice(&other[from..]);
            }
            6 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                let at = rng.below(n + 1);
                d.splice(at..at, t.iter().copied());
            }
            _ if n > 0 => {
                // Overwrite a little-endian u16/u32 field (zip and npy lengths, counts).
                let i = rng.below(n);
                let v = [0u8, 0xff, 0x7f, 0x80][rng.below(4)];
                for b in d.iter_mut().skip(i).take(1 + rng.below(4)) {
                    *b = v;
                }
            }
            _ => d.push(BYTES[rng.below(BYTES.len())]),
        }
    }
    d
}

/// The first `n` lines of a file (whole small files; large jsonl files are cut to a sample).
fn head(path: &Path, n: usize) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            lines += 1;
            if lines == n {
                return bytes[..=i].to_vec();
            }
        }
    }
    bytes
}

fn p(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

/// Run `target` on every seed and on `PER_TARGET` mutations; returns the number of executions.
fn drive(name: &str, seeds: &[Vec<u8>], target: &dyn Fn(&[u8])) -> usize {
    assert!(!seeds.is_empty(), "{name}: no seeds");
    let started = std::time::Instant::now();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let mut crashes = Vec::new();
    let mut run = |label: String, input: &[u8]| {
        if catch_unwind(AssertUnwindSafe(|| target(input))).is_err() {
            let dir = p("target/fuzz-smoke-crashes").join(name);
            let _ = std::fs::create_dir_all(&dir);
            let file = dir.join(label.replace(' ', "_"));
            let _ = std::fs::write(&file, input);
            crashes.push(format!("{label} (input saved to {})", file.display()));
        }
    };
    for (i, s) in seeds.iter().enumerate() {
        run(format!("seed {i}"), s);
    }
    for m in 0..PER_TARGET {
        let s = rng.below(seeds.len());
        let o = rng.below(seeds.len());
        let input = mutate(&mut rng, &seeds[s], &seeds[o]);
        run(format!("seed {s} mutation {m}"), &input);
    }
    assert!(crashes.is_empty(), "{name}: panics on {crashes:#?}");
    let n = seeds.len() + PER_TARGET;
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "fuzz smoke {name}: {n} inputs in {secs:.2} s ({:.0}/s)",
        n as f64 / secs
    );
    n
}

fn quiet() {
    // Panics are caught and reported together; keep the log readable.
    std::panic::set_hook(Box::new(|info| eprintln!("panic: {info}")));
}

#[test]
fn jsonl_readers() {
    quiet();
    let seeds: Vec<Vec<u8>> = [
        "data/bundle/data/queries.jsonl",
        "data/bundle/data/corpus.jsonl",
        "data/bundle/data/distractor_metadata.jsonl",
        "data/bundle/data/execution_cache.jsonl",
        "tests/fixtures/tiny/data/queries.jsonl",
        "tests/fixtures/tiny/data/execution_cache.jsonl",
    ]
    .iter()
    .map(|f| head(&p(f), 8))
    .collect();
    drive("jsonl", &seeds, &fuzz::jsonl);
}

#[test]
fn stacked_rows_against_the_embedded_bundle() {
    quiet();
    let b = bundle::load(
        &p("data/bundle"),
        &LoadOptions {
            verify_checksums: false,
            systems: None,
            skip_embeddings: true,
        },
    )
    .expect("the embedded bundle loads");
    let seeds = vec![head(&p("data/bundle/data/stacked_distractors.jsonl"), 6)];
    drive("stacked", &seeds, &|d| {
        fuzz::stacked_rows(d, &b.queries, &b.corpus)
    });
}

#[test]
fn npz_reader() {
    quiet();
    let mut seeds: Vec<Vec<u8>> = [
        "tests/fixtures/tiny/embeddings/toy-cos.npz",
        "tests/fixtures/tiny/embeddings/toy-dot.npz",
        "tests/fixtures/npy/variants.npz",
    ]
    .iter()
    .map(|f| std::fs::read(p(f)).unwrap())
    .collect();
    // A deflate-compressed archive (numpy's savez_compressed) of the same arrays.
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let ids = vec!["q_1".to_string(), "q_2".to_string()];
    z.start_file("ids.npy", opts).unwrap();
    std::io::Write::write_all(&mut z, &bundle::npy::unicode_npy(&ids)).unwrap();
    seeds.push(z.finish().unwrap().into_inner());
    drive("npz", &seeds, &fuzz::npz);
}

/// Inputs the coverage-guided fuzzer once crashed on, kept as regression tests: an npy header
/// whose dtype kind is a multi-byte character (`'descr': '´2'`) panicked slicing inside it.
#[test]
fn npz_regressions() {
    quiet();
    let crash = std::fs::read(p("tests/fixtures/npy/regress-descr-multibyte.npz")).unwrap();
    let r = catch_unwind(AssertUnwindSafe(|| fuzz::npz(&crash)));
    assert!(r.is_ok(), "fuzz::npz panics on its regression input");
}

#[test]
fn npy_header() {
    quiet();
    let seeds = vec![
        bundle::npy::unicode_npy(&["abc".to_string(), "d".to_string()]),
        b"\x93NUMPY\x02\x00\x20\x00\x00\x00{'descr': '<f4', 'shape': (3, 4), }\n".to_vec(),
    ];
    drive("npy_header", &seeds, &fuzz::npy_header);
}

#[test]
fn sha256sums() {
    quiet();
    let seeds = vec![
        std::fs::read(p("data/bundle/SHA256SUMS")).unwrap(),
        std::fs::read(p("tests/fixtures/tiny/SHA256SUMS")).unwrap(),
    ];
    drive("sums", &seeds, &fuzz::sums);
}

#[test]
fn invocation_table() {
    quiet();
    let seeds = vec![
        std::fs::read(p("data/bundle/results/invocation_table.json")).unwrap(),
        std::fs::read(p("tests/fixtures/tiny/results/invocation_table.json")).unwrap(),
    ];
    drive("invocation_table", &seeds, &fuzz::invocation_table);
}

#[test]
fn task_file() {
    quiet();
    let seeds = vec![
        head(&p("data/tasks.jsonl"), 3),
        std::fs::read(p("tests/fixtures/tasks_gates.jsonl")).unwrap(),
    ];
    drive("task_file", &seeds, &fuzz::task_file);
}

#[test]
fn audit_pool_and_tasks() {
    quiet();
    let seeds = vec![
        head(&p("tests/fixtures/audit/pool.jsonl"), 6),
        head(&p("tests/fixtures/audit/tasks.jsonl"), 4),
    ];
    drive("pool", &seeds, &fuzz::pool);
}

#[test]
fn mutator_on_python_sources() {
    quiet();
    use crate::mutate_catalogue as c;
    // Small sources: each input mutates under every family (the coverage-guided target in
    // fuzz/ also gets long ones).
    let seeds: Vec<Vec<u8>> = [
        c::NEGATE,
        c::LOOPS,
        c::EXCEPT,
        c::CONSTANTS,
        c::EVERY_FAMILY,
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    drive("mutate", &seeds, &fuzz::mutate);
}

#[test]
fn build_report_rows() {
    quiet();
    let seeds = vec![std::fs::read(p("tests/fixtures/build_report_small.json")).unwrap()];
    drive("build_report", &seeds, &fuzz::build_report);
}
