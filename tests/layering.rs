//! Layering: the core (load → rank → score/analyse) knows nothing of the front ends, and no two
//! modules depend on each other.
//!
//! The test reads every source file under `src/`. Every top-level module that is not a front end
//! (`report`, `tui`, `cli`, `plot`, and the binary's `main.rs`) is core, so a module added later
//! (`systems`, `embed`, `probe`, …) is held to the rule without editing this file. A core file
//! fails when a line of code names the report, the dashboard, the CLI, the plots or a terminal crate
//! (ratatui, crossterm, indicatif). Separately, the graph of `crate::<module>` references between
//! top-level modules must have no cycle (as `bundle` ↔ `oracle` once had: shared types belong in
//! a lower module, here `record`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules that present results; everything else under `src/` is core.
const FRONT_MODULES: [&str; 5] = ["report", "tui", "cli", "plot", "main"];
/// What a core line must not name.
const FRONT: [&str; 7] = [
    "crate::report",
    "crate::tui",
    "crate::cli",
    "crate::plot",
    "ratatui",
    "crossterm",
    "indicatif",
];
/// Modules every core module is expected to contain (the test fails if the tree moved away).
const KNOWN_CORE: [&str; 12] = [
    "analysis", "atomic", "audit", "build", "bundle", "engine", "metrics", "mutate", "oracle",
    "rank", "record", "stats",
];

fn rust_files(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for e in entries {
            rust_files(&e, out);
        }
    } else if p.extension().is_some_and(|e| e == "rs") {
        out.push(p.to_path_buf());
    }
}

/// The code of a line: comments and doc comments are prose, not imports.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The forbidden paths a line of code names.
fn offences(line: &str) -> Vec<&'static str> {
    let code = code(line);
    FRONT
        .iter()
        .copied()
        .filter(|f| {
            code.match_indices(f).any(|(i, _)| {
                let before = code[..i].chars().next_back();
                let after = code[i + f.len()..].chars().next();
                !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
            })
        })
        .collect()
}

/// Top-level modules a line of code refers to: `crate::m…` and `crate::{m, n::…}`.
fn references(line: &str) -> BTreeSet<String> {
    let code = code(line);
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        if code[..i].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // One level of grouping is what rustfmt writes at the top of a `use`.
            let group = group.split('}').next().unwrap_or("");
            for item in group.split(',') {
                let name: String = item.trim().chars().take_while(|&c| is_ident(c)).collect();
                if !name.is_empty() && name != "self" {
                    out.insert(name);
                }
            }
        } else {
            let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// The top-level module a file under `src/` belongs to (`bundle/load.rs` → `bundle`).
fn module_of(rel: &Path) -> String {
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every top-level module's source files.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut by: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        let m = module_of(f.strip_prefix(&src).unwrap());
        if m != "lib" {
            by.entry(m).or_default().push(f);
        }
    }
    by
}

/// A cycle of the graph, as a path that starts and ends at the same module, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first search; 0 unseen, 1 on the stack, 2 done.
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(m.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    let mut stack = Vec::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn core_modules_import_no_front_end() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules();
    let core: Vec<&String> = mods
        .keys()
        .filter(|m| !FRONT_MODULES.contains(&m.as_str()))
        .collect();
    for k in KNOWN_CORE {
        assert!(core.iter().any(|m| *m == k), "core module {k} not found");
    }
    let mut bad = Vec::new();
    let mut n_files = 0;
    for m in &core {
        for f in &mods[*m] {
            n_files += 1;
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in text.lines().enumerate() {
                for o in offences(line) {
                    bad.push(format!(
                        "{}:{}: {o}: {}",
                        f.strip_prefix(&src).unwrap().display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    assert!(n_files > 40, "found only {n_files} core files");
    assert!(
        bad.is_empty(),
        "core modules import front ends:\n{}",
        bad.join("\n")
    );
}

/// Core modules whose errors are typed (thiserror enums the front ends add context to).
const TYPED_ERRORS: [&str; 13] = [
    "analysis", "atomic", "audit", "build", "bundle", "engine", "metrics", "mutate", "oracle",
    "rank", "record", "shard", "stats",
];

/// Lines of `text` that name `anyhow` in code.
fn anyhow_lines(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let c = code(l);
            c.match_indices("anyhow").any(|(i, _)| {
                !c[..i].chars().next_back().is_some_and(is_ident)
                    && !c[i + 6..].chars().next().is_some_and(is_ident)
            })
        })
        .map(|(n, _)| n + 1)
        .collect()
}

#[test]
fn core_errors_are_typed() {
    assert_eq!(
        anyhow_lines("use anyhow::bail;\n// anyhow in prose\nlet anyhow_x = 1;"),
        [1]
    );
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules();
    let mut bad = Vec::new();
    for m in TYPED_ERRORS {
        let files = mods
            .get(m)
            .unwrap_or_else(|| panic!("core module {m} not found"));
        for f in files {
            for n in anyhow_lines(&std::fs::read_to_string(f).unwrap()) {
                bad.push(format!("{}:{n}", f.strip_prefix(&src).unwrap().display()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "core modules use anyhow (use a typed error; context belongs to the CLI):\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_two_modules_depend_on_each_other() {
    let mods = modules();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Where each edge was seen, for the message.
    let mut seen_at: BTreeMap<(String, String), String> = BTreeMap::new();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (m, files) in &mods {
        let edges = graph.entry(m.clone()).or_default();
        for f in files {
            let text = std::fs::read_to_string(f).unwrap();
            for (n, line) in text.lines().enumerate() {
                for r in references(line) {
                    if &r != m && mods.contains_key(&r) {
                        edges.insert(r.clone());
                        seen_at.entry((m.clone(), r)).or_insert_with(|| {
                            format!("{}:{}", f.strip_prefix(&src).unwrap().display(), n + 1)
                        });
                    }
                }
            }
        }
    }
    assert!(
        graph.get("bundle").is_some_and(|e| e.contains("record")),
        "the reference scan found no bundle → record edge: {graph:?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        let hops: Vec<String> = cycle
            .windows(2)
            .map(|w| {
                format!(
                    "{} → {} ({})",
                    w[0],
                    w[1],
                    seen_at[&(w[0].clone(), w[1].clone())]
                )
            })
            .collect();
        panic!("module dependency cycle:\n{}", hops.join("\n"));
    }
}

#[test]
fn the_checks_bite() {
    assert_eq!(
        offences("use crate::report::table::Table;"),
        ["crate::report"]
    );
    assert_eq!(
        offences("    let b = indicatif::ProgressBar::hidden();"),
        ["indicatif"]
    );
    assert_eq!(offences("use ratatui::{Frame};"), ["ratatui"]);
    assert_eq!(offences("crate::plot::forest(&rows)"), ["crate::plot"]);
    assert!(offences("// see crate::report for the tables").is_empty());
    assert!(offences("use crate::reporting::x;").is_empty());
    assert!(offences("let tui_state = 1;").is_empty());

    let refs = |l: &str| references(l).into_iter().collect::<Vec<_>>();
    assert_eq!(
        refs("use crate::{bundle::Bundle, oracle, self};"),
        ["bundle", "oracle"]
    );
    assert_eq!(
        refs("let x = crate::oracle::outcome::Outcome::Pass; // crate::tui"),
        ["oracle"]
    );
    assert!(refs("use execscope_crate::bundle;").is_empty());

    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    assert_eq!(
        find_cycle(&graph(&[("bundle", "oracle"), ("oracle", "bundle")])),
        Some(vec!["bundle".into(), "oracle".into(), "bundle".into()])
    );
    let long = find_cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])).unwrap();
    assert_eq!(long.len(), 4);
    assert_eq!(long.first(), long.last());
    assert_eq!(
        find_cycle(&graph(&[
            ("bundle", "record"),
            ("oracle", "record"),
            ("engine", "bundle"),
            ("engine", "oracle"),
        ])),
        None
    );
}

/// Integration tests start the binary through `common::execscope()`, which points its rank cache
/// into `target/`; a test that names the binary itself would write into the user's `~/.cache`.
#[test]
fn tests_start_the_binary_only_through_common() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    rust_files(&tests, &mut files);
    let needle = concat!("CARGO_BIN_EXE_", "execscope");
    let bad: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(tests.join("common")))
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines()
                .enumerate()
                .filter(|(_, l)| code(l).contains(needle))
                .map(|(n, _)| format!("{}:{}", f.strip_prefix(&tests).unwrap().display(), n + 1))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        bad.is_empty(),
        "start the binary with common::execscope() (its rank cache stays under target/):\n{}",
        bad.join("\n")
    );
}
