//! The mutants of every HumanEval-X canonical (and MBXP's TypeScript ones) compiled with the
//! language's real toolchain outside any sandbox, against the canonicals it compiles; the share
//! that compiles is printed per language and family (split from `mutate_languages.rs`, whose
//! module comment says what is run and how `EXECSCOPE_COMPILE_SAMPLE` sets the sample).

use super::mutate_languages::{humaneval_x, tasks, LANGS};
use crate::common;
use execscope::build::formats::file_text;
use execscope::mutate::{mutants_of, Canonical, Family, Language, Mutant, Operators};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::Command;

pub(crate) fn print_table(
    table: &BTreeMap<Family, BTreeMap<Language, usize>>,
    totals: &BTreeMap<Language, (usize, usize, usize)>,
) {
    let langs: Vec<Language> = LANGS.iter().map(|(l, _)| *l).collect();
    let mut out = String::from("| family |");
    for l in &langs {
        out.push_str(&format!(" {} |", l.display_name()));
    }
    out.push('\n');
    for f in Family::ALL {
        out.push_str(&format!("| {f} |"));
        for l in &langs {
            let n = table.get(&f).and_then(|m| m.get(l)).copied().unwrap_or(0);
            out.push_str(&format!(" {n} |"));
        }
        out.push('\n');
    }
    out.push_str("| all (tasks; tasks without a mutant) |");
    for l in &langs {
        let (tasks, n, none) = totals.get(l).copied().unwrap_or_default();
        out.push_str(&format!(" {n} ({tasks}; {none}) |"));
    }
    println!("{out}");
}

/// A toolchain's check of one source file: `Ok(())` when it compiles.
type Check = fn(&Path, &str) -> Result<(), String>;

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr)
            .chars()
            .take(600)
            .collect())
    }
}

fn cpp(dir: &Path, code: &str) -> Result<(), String> {
    let f = dir.join("m.cpp");
    std::fs::write(&f, code).map_err(|e| e.to_string())?;
    run(Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-w"])
        .arg(&f))
}

fn java(dir: &Path, code: &str) -> Result<(), String> {
    let f = dir.join("Solution.java");
    std::fs::write(&f, code).map_err(|e| e.to_string())?;
    run(Command::new("javac")
        .args(["-nowarn", "-proc:none", "-d"])
        .arg(dir)
        .arg(&f))
}

fn rust(dir: &Path, code: &str) -> Result<(), String> {
    // The declarations `use` crates a bare rustc does not have (rand, regex, md5); a task that
    // needs them is left out by its canonical not compiling.
    let code: String = code
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("use rand") || t.starts_with("use regex") || t.starts_with("use md5"))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    let f = dir.join("m.rs");
    std::fs::write(&f, code).map_err(|e| e.to_string())?;
    run(Command::new("rustc")
        .args([
            "--edition",
            "2021",
            "--crate-type",
            "lib",
            "--emit=metadata",
            "-A",
            "warnings",
        ])
        .arg("--out-dir")
        .arg(dir)
        .arg(&f))
}

fn js(dir: &Path, code: &str) -> Result<(), String> {
    let f = dir.join("m.js");
    std::fs::write(&f, code).map_err(|e| e.to_string())?;
    run(Command::new("node").arg("--check").arg(&f))
}

fn go(dir: &Path, code: &str) -> Result<(), String> {
    // The compiler alone (no vet, no link): what `go build` refuses, at 15 ms a file.
    let f = dir.join("m.go");
    std::fs::write(&f, code).map_err(|e| e.to_string())?;
    run(Command::new("go")
        .args(["tool", "compile", "-p", "main", "-o"])
        .arg(dir.join("m.o"))
        .arg(&f))
}

fn toolchain(lang: Language) -> (&'static str, &'static [&'static str], Check) {
    match lang {
        Language::Cpp => ("g++", &["--version"], cpp),
        Language::Java => ("javac", &["-version"], java),
        Language::Rust => ("rustc", &["--version"], rust),
        Language::JavaScript => ("node", &["--version"], js),
        _ => ("go", &["version"], go),
    }
}

/// Every `n`-th of `items` so at most `k` are taken, evenly over the list.
fn sample<T: Clone>(items: &[T], k: usize) -> Vec<T> {
    if items.len() <= k {
        return items.to_vec();
    }
    (0..k).map(|i| items[i * items.len() / k].clone()).collect()
}

#[test]
fn humaneval_x_mutants_compile() {
    let test = "humaneval_x_mutants_compile";
    let Some(dir) = humaneval_x(test) else {
        return;
    };
    let k: usize = std::env::var("EXECSCOPE_COMPILE_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let ops = Operators::all();
    let mut report = String::new();
    for (lang, suffix) in LANGS {
        let (tool, probe, check) = toolchain(lang);
        if !Command::new(tool)
            .args(probe)
            .output()
            .is_ok_and(|o| o.status.success())
        {
            common::skip(test, &format!("{lang}: `{tool}` is not installed"));
            continue;
        }
        let tasks = tasks(&dir, lang, suffix);
        let mut by_family: BTreeMap<Family, Vec<(usize, Mutant)>> = BTreeMap::new();
        for (i, t) in tasks.iter().enumerate() {
            let c = Canonical {
                language: lang,
                source: &t.source,
                entry_point: &t.entry,
            };
            // A canonical the grammar cannot read as a function has no mutants.
            for m in mutants_of(&c, &ops).unwrap_or_default() {
                let f = Family::from_name(&m.bug_type).expect("family");
                by_family.entry(f).or_default().push((i, m));
            }
        }
        let picked: Vec<(Family, usize, usize, Mutant)> = by_family
            .iter()
            .flat_map(|(f, ms)| {
                sample(ms, k)
                    .into_iter()
                    .map(move |(i, m)| (*f, ms.len(), i, m))
            })
            .collect();
        // Only mutants of a canonical that compiles count.
        let mut involved: Vec<usize> = picked.iter().map(|p| p.2).collect();
        involved.sort_unstable();
        involved.dedup();
        let canon_ok: BTreeMap<usize, bool> = involved
            .iter()
            .copied()
            .zip(compile_all(
                check,
                involved.iter().map(|&i| tasks[i].source.as_str()),
            ))
            .map(|(i, r)| (i, r.is_ok()))
            .collect();
        let counted: Vec<&(Family, usize, usize, Mutant)> =
            picked.iter().filter(|p| canon_ok[&p.2]).collect();
        let results = compile_all(check, counted.iter().map(|p| p.3.code.as_str()));
        let canon_compiled = canon_ok.values().filter(|ok| **ok).count();
        report.push_str(&format!(
            "{}: {canon_compiled} of the {} canonicals sampled compile\n",
            lang.display_name(),
            canon_ok.len()
        ));
        let mut per_family: BTreeMap<Family, (usize, usize, usize, String)> = BTreeMap::new();
        for (p, r) in counted.iter().zip(&results) {
            let (f, total, i, m) = p;
            let e = per_family
                .entry(*f)
                .or_insert((0, 0, *total, String::new()));
            e.1 += 1;
            match r {
                Ok(()) => e.0 += 1,
                Err(err) if e.3.is_empty() => {
                    // The compiler's first error: its first line saying "error", else (Go's
                    // messages do not) the first line of the form `place: message`.
                    let first = err
                        .lines()
                        .find(|l| l.contains("error"))
                        .or_else(|| err.lines().find(|l| l.contains(": ")))
                        .unwrap_or("");
                    e.3 = format!(
                        "; e.g. {} {} `{}`→`{}`: {}",
                        tasks[*i].id,
                        m.operator,
                        m.edit.before.trim(),
                        m.edit.after.trim(),
                        first.trim()
                    );
                }
                Err(_) => {}
            }
        }
        let (mut ok_all, mut n_all) = (0, 0);
        for (f, (ok, n, total, example)) in &per_family {
            ok_all += ok;
            n_all += n;
            report.push_str(&format!(
                "  {f}: {ok}/{n} compile (of {total} mutants){example}\n"
            ));
        }
        report.push_str(&format!("  all: {ok_all}/{n_all}\n"));
        assert!(
            canon_compiled * 10 >= canon_ok.len() * 8,
            "{lang}: only {canon_compiled} of {} canonicals compile with {tool}\n{report}",
            canon_ok.len()
        );
        // Typed languages refuse some mutants the grammar accepts; the floor says the dialect
        // keeps them rare (docs/bundle-format.md has the measured shares).
        assert!(
            ok_all * 100 >= n_all * 85,
            "{lang}: only {ok_all} of {n_all} sampled mutants compile\n{report}"
        );
    }
    println!("{report}");
}

/// `check` on every source, two at a time (each in its own directory), results in order.
fn compile_all<'a>(
    check: Check,
    sources: impl Iterator<Item = &'a str>,
) -> Vec<Result<(), String>> {
    let sources: Vec<&str> = sources.collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<Option<Result<(), String>>>> = sources
        .iter()
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let tmp = tempfile::tempdir().expect("temp dir");
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(src) = sources.get(i) else {
                        break;
                    };
                    let r = check(tmp.path(), src);
                    *results[i].lock().expect("lock") = Some(r);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|m| m.into_inner().expect("lock").expect("checked"))
        .collect()
}

/// MBXP's TypeScript mutants against `tsc` (every canonical the type checker accepts, and a
/// deterministic sample of `EXECSCOPE_COMPILE_SAMPLE` mutants per family of those canonicals):
/// each source is a module of its own in one `tsc --noEmit` run, and a file no error names
/// compiles. Skipped by name without the data or without `tsc`.
#[test]
fn mbxp_typescript_mutants_compile() {
    let test = "mbxp_typescript_mutants_compile";
    let Some(path) = common::require_data(test, "sources/mbxp/mbtsp_release_v1.2.jsonl") else {
        return;
    };
    if !Command::new("tsc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        common::skip(test, "TypeScript: `tsc` is not installed");
        return;
    }
    let k: usize = std::env::var("EXECSCOPE_COMPILE_SAMPLE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let text = file_text(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ops = Operators::all();
    let mut canon: Vec<(String, String, Vec<Mutant>)> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: serde_json::Value = serde_json::from_str(line).expect("json line");
        let s = |k: &str| row[k].as_str().unwrap_or("").to_string();
        let source = format!("{}{}", s("prompt"), s("canonical_solution"));
        let c = Canonical {
            language: Language::TypeScript,
            source: &source,
            entry_point: &s("entry_point"),
        };
        if let Ok(ms) = mutants_of(&c, &ops) {
            canon.push((s("task_id"), source, ms));
        }
    }
    let canon_ok = tsc_all(canon.iter().map(|c| c.1.as_str()));
    let mut by_family: BTreeMap<Family, Vec<(usize, &Mutant)>> = BTreeMap::new();
    for (i, c) in canon
        .iter()
        .enumerate()
        .filter(|(i, _)| canon_ok[*i].is_ok())
    {
        for m in &c.2 {
            let f = Family::from_name(&m.bug_type).expect("family");
            by_family.entry(f).or_default().push((i, m));
        }
    }
    let picked: Vec<(Family, usize, usize, &Mutant)> = by_family
        .iter()
        .flat_map(|(f, ms)| {
            sample(ms, k)
                .into_iter()
                .map(move |(i, m)| (*f, ms.len(), i, m))
        })
        .collect();
    let results = tsc_all(picked.iter().map(|p| p.3.code.as_str()));
    let compiled = canon_ok.iter().filter(|r| r.is_ok()).count();
    let mut report = format!(
        "TypeScript (MBTSP): {compiled} of the {} canonicals that mutate type-check\n",
        canon.len()
    );
    let mut per_family: BTreeMap<Family, (usize, usize, usize, String)> = BTreeMap::new();
    for ((f, total, i, m), r) in picked.iter().zip(&results) {
        let e = per_family
            .entry(*f)
            .or_insert((0, 0, *total, String::new()));
        e.1 += 1;
        match r {
            Ok(()) => e.0 += 1,
            Err(err) if e.3.is_empty() => {
                e.3 = format!(
                    "; e.g. {} {} `{}`→`{}`: {}",
                    canon[*i].0,
                    m.operator,
                    m.edit.before.trim(),
                    m.edit.after.trim(),
                    err.trim()
                );
            }
            Err(_) => {}
        }
    }
    let (mut ok_all, mut n_all) = (0, 0);
    for (f, (ok, n, total, example)) in &per_family {
        ok_all += ok;
        n_all += n;
        report.push_str(&format!(
            "  {f}: {ok}/{n} compile (of {total} mutants){example}\n"
        ));
    }
    report.push_str(&format!("  all: {ok_all}/{n_all}\n"));
    println!("{report}");
    assert!(compiled > 0, "no MBTSP canonical type-checks\n{report}");
    assert!(
        ok_all * 100 >= n_all * 85,
        "only {ok_all} of {n_all} sampled TypeScript mutants compile\n{report}"
    );
}

/// `tsc --noEmit` over every source (each written as `s<i>.ts`, a module of its own so their
/// names never clash); per source `Ok(())` or its first error. `tsc` reports no type error
/// while any file has a syntax error (TS1xxx), so the files with one are set aside and the rest
/// checked again until a run has none.
fn tsc_all<'a>(sources: impl Iterator<Item = &'a str>) -> Vec<Result<(), String>> {
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut files = Vec::new();
    for (i, src) in sources.enumerate() {
        let f = tmp.path().join(format!("s{i}.ts"));
        std::fs::write(&f, format!("{src}\nexport {{}};\n")).expect("write a source");
        files.push(f);
    }
    let mut errors: Vec<Option<String>> = vec![None; files.len()];
    let mut left: Vec<usize> = (0..files.len()).collect();
    while !left.is_empty() {
        let out = Command::new("tsc")
            .args([
                "--noEmit",
                "--pretty",
                "false",
                "--target",
                "es2022",
                "--skipLibCheck",
            ])
            .args(left.iter().map(|&i| &files[i]))
            .output()
            .expect("tsc runs");
        // `<dir>/s12.ts(3,5): error TS2322: ...`
        let mut named = Vec::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Some((file, rest)) = line.split_once('(') else {
                continue;
            };
            let Some(i) = file
                .rsplit('/')
                .next()
                .and_then(|n| n.strip_prefix('s'))
                .and_then(|n| n.strip_suffix(".ts"))
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|i| *i < files.len())
            else {
                continue;
            };
            let message = rest.split_once("): ").map_or(rest, |r| r.1);
            named.push((i, message.starts_with("error TS1")));
            if errors[i].is_none() {
                errors[i] = Some(message.to_string());
            }
        }
        assert!(
            out.status.success() || !named.is_empty(),
            "tsc failed without naming a source: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let syntax: HashSet<usize> = named.iter().filter(|n| n.1).map(|n| n.0).collect();
        if syntax.is_empty() {
            break;
        }
        left.retain(|i| !syntax.contains(i));
        // The others' errors are read again from the next run.
        for &i in &left {
            errors[i] = None;
        }
    }
    errors
        .into_iter()
        .map(|e| match e {
            None => Ok(()),
            Some(e) => Err(e),
        })
        .collect()
}
