//! Entry points for fuzzing every parser of untrusted input (bundle files and build reports, task
//! files, pools, and
//! the mutator, which parses a task's canonical): each takes arbitrary bytes and must
//! return (an error is fine) without panicking, hanging or allocating without bound. The
//! coverage-guided targets in `fuzz/` (cargo-fuzz) and the stable replay test
//! `tests/build/fuzz_smoke.rs` call exactly these, so both exercise the same code.

use std::path::Path;

use execscope_core::bundle::model::{DistractorMeta, ExecRecord, Query, Snippet};
use execscope_core::bundle::npy::{parse_header, Npz};
use execscope_core::bundle::{files, parse, stacked};

fn path(name: &str) -> &Path {
    Path::new(name)
}

/// A JSON Lines file through the shared reader, then as queries, corpus, distractor metadata and
/// execution-cache rows (each with its own field rules).
pub fn jsonl(data: &[u8]) {
    let p = path("fuzz.jsonl");
    let Ok(rows) = files::jsonl(p, data) else {
        return;
    };
    let again = || files::jsonl(p, data).unwrap_or_default();
    let _ = parse::queries(p, rows);
    if let Ok(c) = parse::corpus(p, again()) {
        let _ = parse::corpus_index(p, &c);
    }
    let _ = parse::typed::<DistractorMeta>(p, again());
    if let Ok(rows) = parse::typed_lines::<ExecRecord>(p, again()) {
        let _ = parse::cache_problems(p, &rows);
    }
}

/// Stacked-variant rows checked against a small fixed set of queries and corpus.
pub fn stacked_rows(data: &[u8], queries: &[Query], corpus: &[Snippet]) {
    let _ = stacked::rows(path("stacked.jsonl"), data, queries, corpus);
}

/// An npz archive: open, every header, then every member as a matrix and as strings.
pub fn npz(data: &[u8]) {
    let p = path("fuzz.npz");
    let Ok(mut z) = Npz::open(p, data) else {
        return;
    };
    let Ok(headers) = z.headers() else {
        return;
    };
    for h in headers.iter().take(16) {
        // Decoding allocates what the header's shape asks for only after checking the member
        // holds that many bytes, so a lying header cannot exhaust memory.
        let _ = z.matrix(&h.name);
        let _ = z.strings(&h.name);
    }
}

/// One `.npy` member's header.
pub fn npy_header(data: &[u8]) {
    let _ = parse_header("fuzz", data);
}

/// A `SHA256SUMS` manifest.
pub fn sums(data: &[u8]) {
    let _ = files::parse_sums(path("SHA256SUMS"), data);
}

/// `results/invocation_table.json`. The root does not exist, so every `file` it names is either
/// refused by its shape (absolute, `..`) or absent; nothing is opened.
pub fn invocation_table(data: &[u8]) {
    let _ = execscope_core::bundle::load::parse_invocation_table(
        path("/nonexistent-execscope-fuzz-root"),
        path("invocation_table.json"),
        data,
    );
}

/// A build task file: gate 1 on every line, then gate 2 (one parse, no mutants) on the tasks
/// gate 1 admits.
pub fn task_file(data: &[u8]) {
    let Ok(text) = files::json_text(path("tasks.jsonl"), data) else {
        return;
    };
    let (tasks, _) = crate::task::read_tasks(text);
    for t in tasks.iter().take(4) {
        let _ = crate::task::ast_gate(t);
    }
}

/// An audit pool and an audit task file.
pub fn pool(data: &[u8]) {
    let Ok(text) = files::json_text(path("pool.jsonl"), data) else {
        return;
    };
    let _ = execscope_core::audit::generated::parse_pool(path("pool.jsonl"), text);
    let _ = execscope_core::audit::generated::parse_tasks(path("tasks.jsonl"), text);
}

/// A task's canonical through the mutator under the whole catalogue: when the bytes are UTF-8
/// Python that parses, every mutant's edit must match the source and splice back to its code,
/// which must parse; a violated invariant panics, so the fuzzer reports it.
pub fn mutate(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(ms) = crate::mutate::mutants_with(src, &crate::mutate::Operators::all()) else {
        return;
    };
    for m in ms {
        let e = &m.edit;
        assert_eq!(src.get(e.start..e.end), Some(e.before.as_str()), "{m:?}");
        assert_eq!(crate::mutate::splice(src, e.start, e.end, &e.after), m.code);
        assert!(crate::mutate::parses(&m.code), "{m:?}");
    }
}

/// A bundle's `build_report.json`, as suite strength reads it.
pub fn build_report(data: &[u8]) {
    let _ = execscope_core::analysis::suites::parse_report(path("build_report.json"), data);
}
