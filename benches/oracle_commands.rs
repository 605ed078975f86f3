//! Whole oracle-backed commands of this tree against another execscope binary, side by side in
//! one run: `exec verify` of the embedded bundle's cache and a from-scratch `build` of the
//! embedded tasks.
//!
//! The other binary is the baseline a change is measured against (the starting commit's, built
//! in a worktree: `git worktree add ../base <commit> && cargo build --release` there), named by
//! `EXECSCOPE_BENCH_BASELINE`; without it the bench says so and measures nothing.
//! `EXECSCOPE_BENCH_COMMANDS` picks `verify`, `build` or both (the default, `verify,build`);
//! `EXECSCOPE_BENCH_VERIFY_SAMPLE=N` verifies a seeded sample instead of the whole cache and
//! `EXECSCOPE_BENCH_TASKS_LIMIT=N` builds the first N tasks only (quick runs). Each command runs
//! once per binary, the baseline first; the bench prints wall seconds, machine-wide CPU seconds
//! (every process's, `/proc/stat`: run it on an otherwise quiet machine) and the ratios, and fails
//! when either verify reports a disagreement or the two builds' bundles differ in anything but
//! the runner string and the timing fields. Run: `cargo bench --bench oracle_commands`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

#[path = "support/machine.rs"]
mod machine;
use machine::machine_cpu;

/// One command's run: wall and machine-wide CPU seconds, and what it printed.
struct Timed {
    wall: f64,
    cpu: f64,
    stdout: String,
    stderr: String,
}

fn run(bin: &Path, args: &[&str]) -> Timed {
    let (c0, t0) = (machine_cpu(), Instant::now());
    let out = Command::new(bin)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", bin.display()));
    let t = Timed {
        wall: t0.elapsed().as_secs_f64(),
        cpu: machine_cpu() - c0,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        out.status.success(),
        "{} {args:?} failed ({}):\n{}{}",
        bin.display(),
        out.status,
        t.stdout,
        t.stderr
    );
    t
}

fn side_by_side(what: &str, base: &Timed, new: &Timed) {
    println!(
        "{what}: baseline {:.1} s wall, {:.1} s CPU; this tree {:.1} s wall, {:.1} s CPU: {:.2}x faster, {:.2}x less CPU",
        base.wall,
        base.cpu,
        new.wall,
        new.cpu,
        base.wall / new.wall,
        base.cpu / new.cpu.max(1e-9)
    );
}

fn verify(base: &Path, new: &Path) {
    let sample = std::env::var("EXECSCOPE_BENCH_VERIFY_SAMPLE").ok();
    let mut args = vec!["exec", "verify", "data/bundle"];
    if let Some(n) = &sample {
        args.extend(["--sample", n.as_str(), "--seed", "7"]);
    }
    let b = run(base, &args);
    let n = run(new, &args);
    for (who, t) in [("baseline", &b), ("this tree", &n)] {
        let line = t
            .stdout
            .lines()
            .chain(t.stderr.lines())
            .find(|l| l.contains("re-executed"))
            .unwrap_or_else(|| panic!("{who}: no summary line:\n{}{}", t.stdout, t.stderr));
        println!("  {who}: {line}");
        assert!(line.contains(" 0 disagree"), "{who}: {line}");
    }
    side_by_side(
        &format!(
            "exec verify data/bundle{}",
            sample.map_or(String::new(), |n| format!(" --sample {n}"))
        ),
        &b,
        &n,
    );
}

/// A bundle's files, with what legitimately differs between two builds of the same tasks taken
/// out: the oracle's runner string (it names the contract) and the build's own timing.
fn bundle_text(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for name in ["execution_cache.jsonl", "corpus.jsonl", "queries.jsonl"] {
        let text = std::fs::read_to_string(root.join("data").join(name)).unwrap_or_default();
        let rows: Vec<String> = text
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
                if let Some(o) = v.as_object_mut() {
                    o.remove("runner");
                }
                v.to_string()
            })
            .collect();
        out.push((name.to_string(), rows.join("\n")));
    }
    let mut report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("build_report.json")).expect("a build report"),
    )
    .expect("JSON");
    if let Some(o) = report.as_object_mut() {
        for k in ["oracle_seconds", "pairs_per_second", "runner"] {
            o.remove(k);
        }
    }
    out.push(("build_report.json".into(), report.to_string()));
    out
}

fn build(base: &Path, new: &Path) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tasks = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/tasks.jsonl");
    let tasks = match std::env::var("EXECSCOPE_BENCH_TASKS_LIMIT")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        Some(n) => {
            let text = std::fs::read_to_string(&tasks).expect("the embedded tasks");
            let first: String = text.lines().take(n).map(|l| format!("{l}\n")).collect();
            let p = dir.path().join("tasks.jsonl");
            std::fs::write(&p, first).expect("writing the tasks");
            p
        }
        None => tasks,
    };
    let tasks = tasks.to_string_lossy().into_owned();
    let out = |who: &str| dir.path().join(who).to_string_lossy().into_owned();
    let (ob, on) = (out("base"), out("new"));
    let b = run(base, &["build", &tasks, "--out", &ob]);
    let n = run(new, &["build", &tasks, "--out", &on]);
    let (tb, tn) = (bundle_text(Path::new(&ob)), bundle_text(Path::new(&on)));
    for ((name, x), (_, y)) in tb.iter().zip(&tn) {
        assert!(
            x == y,
            "{name} differs between the two builds (beyond runner and timing)"
        );
    }
    println!("  the two bundles are the same but for the runner string and the build's timing");
    side_by_side(&format!("build {tasks}"), &b, &n);
}

fn main() {
    let Ok(base) = std::env::var("EXECSCOPE_BENCH_BASELINE") else {
        println!(
            "oracle_commands: skipped, no baseline binary (set EXECSCOPE_BENCH_BASELINE to another \
             commit's execscope, e.g. a release build of the starting commit in a worktree)"
        );
        return;
    };
    let base = PathBuf::from(base);
    let new = PathBuf::from(env!("CARGO_BIN_EXE_execscope"));
    let commands =
        std::env::var("EXECSCOPE_BENCH_COMMANDS").unwrap_or_else(|_| "verify,build".into());
    println!(
        "oracle commands: baseline {} against this tree's {}",
        base.display(),
        new.display()
    );
    for c in commands.split(',') {
        match c.trim() {
            "verify" => verify(&base, &new),
            "build" => build(&base, &new),
            other => {
                panic!("unknown command {other:?} in EXECSCOPE_BENCH_COMMANDS (verify, build)")
            }
        }
    }
}
