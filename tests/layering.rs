//! Layering: the core (load → rank → score/analyse) knows nothing of the front ends. This test
//! reads every source file of the core modules and fails when one imports the report, the
//! dashboard, the CLI, or a terminal crate (ratatui, crossterm, indicatif).

use std::path::{Path, PathBuf};

const CORE: [&str; 13] = [
    "bundle",
    "embed",
    "probe",
    "rank",
    "metrics",
    "stats",
    "analysis",
    "audit",
    "oracle",
    "build",
    "mutate",
    "engine.rs",
    "atomic.rs",
];
const FRONT: [&str; 6] = [
    "crate::report",
    "crate::tui",
    "crate::cli",
    "ratatui",
    "crossterm",
    "indicatif",
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

/// The forbidden paths a line of code names (comments and doc comments are prose, not imports).
fn offences(line: &str) -> Vec<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    FRONT
        .iter()
        .copied()
        .filter(|f| {
            code.match_indices(f).any(|(i, _)| {
                let before = code[..i].chars().next_back();
                let after = code[i + f.len()..].chars().next();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
        })
        .collect()
}

#[test]
fn core_modules_import_no_front_end() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for m in CORE {
        rust_files(&src.join(m), &mut files);
    }
    assert!(files.len() > 40, "found only {} core files", files.len());
    let mut bad = Vec::new();
    for f in &files {
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
    assert!(
        bad.is_empty(),
        "core modules import front ends:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_bites() {
    assert_eq!(
        offences("use crate::report::table::Table;"),
        ["crate::report"]
    );
    assert_eq!(
        offences("    let b = indicatif::ProgressBar::hidden();"),
        ["indicatif"]
    );
    assert_eq!(offences("use ratatui::{Frame};"), ["ratatui"]);
    assert!(offences("// see crate::report for the tables").is_empty());
    assert!(offences("use crate::reporting::x;").is_empty());
    assert!(offences("let tui_state = 1;").is_empty());
}
