//! Layering: what the compiler cannot say about the workspace's layers.
//!
//! The crates are the layers (docs/architecture.md), so a cycle between layers cannot compile.
//! What remains to check here: that the core's whole dependency closure (read from `Cargo.lock`,
//! so a crate pulled in through another counts too) names no front-end, terminal, figure or
//! sandbox crate; that the record crate stays a leaf; that inside each crate no two top-level
//! modules depend on each other (as `bundle` ↔ `oracle` once did); that the lower layers' errors
//! are typed; and that integration tests start the binary only through `common::execscope()`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Crates the core must never build with: the front ends, terminals, figures, argument
/// parsing, progress bars and the sandbox (and the workspace's own upper layers).
const NOT_IN_CORE: [&str; 15] = [
    "execscope",
    "execscope-oracle",
    "execscope-build",
    "execscope-embed",
    "ratatui",
    "crossterm",
    "clap",
    "clap_complete",
    "clap_mangen",
    "plotters",
    "png",
    "syntect",
    "seccompiler",
    "landlock",
    "indicatif",
];
/// The workspace's source roots (a crate each), relative to the root package.
const CRATE_SOURCES: [&str; 6] = [
    "crates/record/src",
    "crates/oracle/src",
    "crates/core/src",
    "crates/build/src",
    "crates/embed/src",
    "src",
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

/// The workspace root (the root package's manifest directory).
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every top-level module's source files in one crate's source root.
fn modules(src: &Path) -> BTreeMap<String, Vec<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut by: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        let m = module_of(f.strip_prefix(src).unwrap());
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

/// Each package's dependencies as `Cargo.lock` records them (every target and feature, and
/// the workspace members' dev-dependencies too: a strict superset of what a build links).
fn lock_graph() -> BTreeMap<String, BTreeSet<String>> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for pkg in lock.split("[[package]]").skip(1) {
        let name = pkg
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .unwrap()
            .trim_matches('"')
            .to_string();
        let deps = graph.entry(name).or_default();
        if let Some(list) = pkg.split("dependencies = [").nth(1) {
            for d in list.split(']').next().unwrap().split(',') {
                // `"name"` or `"name version"` when several versions are locked.
                let d = d.trim().trim_matches('"');
                if let Some(n) = d.split(' ').next().filter(|n| !n.is_empty()) {
                    deps.insert(n.to_string());
                }
            }
        }
    }
    graph
}

/// Every package `from` reaches in `graph`, `from` excluded.
fn closure(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(n) = todo.pop() {
        for d in graph.get(&n).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn the_core_builds_with_no_front_end_or_sandbox_crate() {
    let graph = lock_graph();
    let core = closure(&graph, "execscope-core");
    assert!(
        core.contains("execscope-record") && core.contains("ndarray"),
        "the lock scan found no core dependencies: {core:?}"
    );
    let bad: Vec<&str> = NOT_IN_CORE
        .iter()
        .copied()
        .filter(|c| core.contains(*c))
        .collect();
    assert!(bad.is_empty(), "execscope-core builds with {bad:?}");
    let record = closure(&graph, "execscope-record");
    let upper: Vec<&String> = record
        .iter()
        .filter(|c| c.starts_with("execscope"))
        .collect();
    assert!(
        upper.is_empty(),
        "the record crate is not a leaf: {upper:?}"
    );
    // The binary is the only package with the terminal and figure crates.
    let bin = closure(&graph, "execscope");
    assert!(bin.contains("ratatui") && bin.contains("execscope-core"));
}

/// Crates, and the core's modules, whose errors are typed (thiserror enums the front ends add
/// context to).
const TYPED_CRATES: [&str; 3] = ["crates/record/src", "crates/oracle/src", "crates/build/src"];
const TYPED_CORE_MODULES: [&str; 7] = [
    "analysis", "audit", "bundle", "engine", "metrics", "rank", "stats",
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
    let mut files = Vec::new();
    for c in TYPED_CRATES {
        rust_files(&root().join(c), &mut files);
    }
    let core = modules(&root().join("crates/core/src"));
    for m in TYPED_CORE_MODULES {
        let f = core
            .get(m)
            .unwrap_or_else(|| panic!("core module {m} not found"));
        files.extend(f.iter().cloned());
    }
    assert!(files.len() > 60, "found only {} files", files.len());
    let mut bad = Vec::new();
    for f in &files {
        for n in anyhow_lines(&std::fs::read_to_string(f).unwrap()) {
            bad.push(format!("{}:{n}", f.strip_prefix(root()).unwrap().display()));
        }
    }
    assert!(
        bad.is_empty(),
        "core modules use anyhow (use a typed error; context belongs to the CLI):\n{}",
        bad.join("\n")
    );
}

#[test]
fn no_two_modules_of_a_crate_depend_on_each_other() {
    let mut checked_bundle_edge = false;
    for c in CRATE_SOURCES {
        let src = root().join(c);
        let mods = modules(&src);
        assert!(!mods.is_empty(), "no modules under {c}");
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        // Where each edge was seen, for the message.
        let mut seen_at: BTreeMap<(String, String), String> = BTreeMap::new();
        for (m, files) in &mods {
            let edges = graph.entry(m.clone()).or_default();
            for f in files {
                let text = std::fs::read_to_string(f).unwrap();
                for (n, line) in text.lines().enumerate() {
                    for r in references(line) {
                        if &r != m && mods.contains_key(&r) {
                            edges.insert(r.clone());
                            seen_at.entry((m.clone(), r)).or_insert_with(|| {
                                format!("{}:{}", f.strip_prefix(root()).unwrap().display(), n + 1)
                            });
                        }
                    }
                }
            }
        }
        if c == "crates/core/src" {
            assert!(
                graph.get("engine").is_some_and(|e| e.contains("bundle")),
                "the reference scan found no engine → bundle edge: {graph:?}"
            );
            checked_bundle_edge = true;
        }
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
            panic!("module dependency cycle in {c}:\n{}", hops.join("\n"));
        }
    }
    assert!(checked_bundle_edge);
}

#[test]
fn the_layering_checks_catch_what_they_look_for() {
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
    let g = graph(&[("a", "b"), ("b", "c"), ("x", "a")]);
    assert_eq!(closure(&g, "a").into_iter().collect::<Vec<_>>(), ["b", "c"]);
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
    let tests = root().join("tests");
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

/// The dashboard's floors, ground first. A module of `src/tui` may use the modules on its own
/// floor (without a circle) and those below it, never one above: the floor plan of
/// docs/architecture.md ("The dashboard's floors"). Every module of `src/tui` stands on one.
const TUI_FLOORS: [&[&str]; 11] = [
    &["theme", "fuzzy", "terminal"],
    &["actions"],
    &["widgets"],
    &["jobs"],
    &["view"],
    &["panes", "presenter"],
    &["commands"],
    &["help"],
    &["app"],
    &["export", "frame"],
    &["run"],
];

/// The module path of a file under `src/tui` (`panes/browser/mod.rs` → `[panes, browser]`).
fn tui_module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let last = parts.pop().unwrap_or_default();
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_string());
    }
    parts
}

/// The leading identifiers after a path prefix: `x::…` gives `[x]`, `{a, b::c}` gives `[a, b]`.
fn path_heads(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String { s.trim().chars().take_while(|&c| is_ident(c)).collect() };
    match rest.strip_prefix('{') {
        Some(group) => group
            .split('}')
            .next()
            .unwrap_or("")
            .split(',')
            .map(ident)
            .filter(|n| !n.is_empty() && n != "self")
            .collect(),
        None => vec![ident(rest)]
            .into_iter()
            .filter(|n| !n.is_empty())
            .collect(),
    }
}

/// The top-level modules of `src/tui` a line of a file at module path `at` refers to, through
/// `crate::tui::…` or `super::…` (resolved from the file's place).
fn tui_references(line: &str, at: &[String]) -> BTreeSet<String> {
    let code = code(line);
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::tui::") {
        out.extend(path_heads(&code[i + "crate::tui::".len()..]));
    }
    let mut i = 0;
    while let Some(j) = code[i..].find("super::") {
        let start = i + j;
        if code[..start].chars().next_back().is_some_and(is_ident)
            || code[..start].ends_with("super::")
        {
            i = start + 1;
            continue;
        }
        let mut rest = &code[start..];
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            rest = r;
            up += 1;
        }
        let base = &at[..at.len().saturating_sub(up)];
        match base.first() {
            Some(top) => {
                out.insert(top.clone());
            }
            None => out.extend(path_heads(rest)),
        }
        i = start + 1;
    }
    out
}

/// A module graph, and where each of its edges was first seen (`file:line`).
type Graph = (
    BTreeMap<String, BTreeSet<String>>,
    BTreeMap<(String, String), String>,
);

/// Every `src/tui` module's references to the others.
fn tui_graph() -> Graph {
    let src = root().join("src/tui");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let tops: BTreeSet<String> = files
        .iter()
        .filter_map(|f| {
            tui_module_path(f.strip_prefix(&src).unwrap())
                .first()
                .cloned()
        })
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut seen_at = BTreeMap::new();
    for f in &files {
        let at = tui_module_path(f.strip_prefix(&src).unwrap());
        let Some(me) = at.first().cloned() else {
            continue; // src/tui/mod.rs declares the modules
        };
        let edges = graph.entry(me.clone()).or_default();
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for r in tui_references(line, &at) {
                if r != me && tops.contains(&r) {
                    edges.insert(r.clone());
                    seen_at.entry((me.clone(), r)).or_insert_with(|| {
                        format!("{}:{}", f.strip_prefix(root()).unwrap().display(), n + 1)
                    });
                }
            }
        }
    }
    (graph, seen_at)
}

#[test]
fn the_dashboard_has_no_circle_and_no_back_arrow() {
    let at = |p: &str| -> Vec<String> { tui_module_path(Path::new(p)) };
    let refs = |l: &str, p: &str| tui_references(l, &at(p)).into_iter().collect::<Vec<_>>();
    assert_eq!(
        refs("use super::{commands, help::Help};", "app.rs"),
        ["commands", "help"]
    );
    assert_eq!(
        refs("use super::{message, Cx};", "panes/audit.rs"),
        ["panes"]
    );
    assert_eq!(
        refs("use super::super::view::View;", "panes/browser/edit.rs"),
        ["panes"]
    );
    assert_eq!(
        refs("x = crate::tui::frame::draw(f);", "panes/audit.rs"),
        ["frame"]
    );
    assert_eq!(
        refs("use super::App; // super::frame", "app/audit.rs"),
        ["app"]
    );

    let (graph, seen_at) = tui_graph();
    assert!(
        graph.get("app").is_some_and(|e| e.contains("panes")),
        "the scan found no app → panes edge: {graph:?}"
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
        panic!("import circle in src/tui:\n{}", hops.join("\n"));
    }
    let floor = |m: &str| TUI_FLOORS.iter().position(|f| f.contains(&m));
    let mut bad = Vec::new();
    // `crate::tui::App` and the like go through src/tui/mod.rs, which re-exports from the top
    // floor: inside the dashboard, name the module (`crate::tui::theme::Theme`).
    let mut files = Vec::new();
    rust_files(&root().join("src/tui"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let c = code(line);
            if c.match_indices("crate::tui::").any(|(i, _)| {
                c[i + "crate::tui::".len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase)
            }) {
                let rel = f.strip_prefix(root()).unwrap().display();
                bad.push(format!("{rel}:{}: a re-export of src/tui/mod.rs", n + 1));
            }
        }
    }
    for (m, edges) in &graph {
        let Some(mine) = floor(m) else {
            bad.push(format!("{m} stands on no floor (add it to TUI_FLOORS)"));
            continue;
        };
        for e in edges {
            if floor(e).is_some_and(|theirs| theirs > mine) {
                bad.push(format!(
                    "{m} → {e} runs back up ({})",
                    seen_at[&(m.clone(), e.clone())]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "src/tui's floor plan:\n{}", bad.join("\n"));
}
/// Lines of each `fn` of a Rust file (from its signature to its closing brace), by name.
fn function_lengths(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let c = code(l).trim_start();
        let words: Vec<&str> = c.split_whitespace().collect();
        let Some(at) = words.iter().position(|w| *w == "fn") else {
            continue;
        };
        if !words[..at]
            .iter()
            .all(|w| w.starts_with("pub") || ["const", "async", "unsafe"].contains(w))
            || c.ends_with(';')
        {
            continue;
        }
        let name: String = words
            .get(at + 1)
            .map(|w| w.chars().take_while(|&ch| is_ident(ch)).collect())
            .unwrap_or_default();
        let (mut depth, mut opened) = (0i64, false);
        for (j, body) in lines.iter().enumerate().skip(i) {
            let mut in_str = false;
            let mut prev = ' ';
            let chars: Vec<char> = code(body).chars().collect();
            let mut k = 0;
            while k < chars.len() {
                let ch = chars[k];
                if in_str {
                    if ch == '"' && prev != '\\' {
                        in_str = false;
                    }
                } else if ch == '"' {
                    in_str = true;
                } else if ch == '\'' && chars.get(k + 2) == Some(&'\'') {
                    k += 2; // a char literal such as '{'
                } else if ch == '{' {
                    depth += 1;
                    opened = true;
                } else if ch == '}' {
                    depth -= 1;
                }
                prev = if prev == '\\' && ch == '\\' { ' ' } else { ch };
                k += 1;
            }
            if opened && depth == 0 {
                out.push((name.clone(), i + 1, j - i + 1));
                break;
            }
        }
    }
    out
}

#[test]
fn dashboard_files_and_functions_stay_short() {
    assert_eq!(
        function_lengths(
            "fn a() {\n    let s = \"}\";\n}\npub(crate) fn b(x: u8) -> u8 {\n    x\n}\nfn c();\n"
        ),
        [("a".to_string(), 1, 3), ("b".to_string(), 4, 3)]
    );
    let mut files = Vec::new();
    rust_files(&root().join("src/tui"), &mut files);
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        let n = text.lines().count();
        if n > 700 {
            bad.push(format!("{rel}: {n} lines (at most 700)"));
        }
        for (name, at, len) in function_lengths(&text) {
            if len > 120 {
                bad.push(format!(
                    "{rel}:{at}: fn {name} has {len} lines (at most 120)"
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the dashboard's size limits:\n{}",
        bad.join("\n")
    );
}
