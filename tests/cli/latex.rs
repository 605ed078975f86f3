//! Issue 30 item 11: every LaTeX table the report writes compiles with plain `pdflatex` (the
//! kernel alone: no inputenc mapping, no booktabs needed). CI installs Debian's
//! `texlive-latex-base` (`.ci/run`); without `pdflatex` the test says by name that it skipped.

use crate::common;
use std::process::Command;

/// A minimal document around one table fragment: nothing but the kernel.
fn document(fragment: &str) -> String {
    format!("\\documentclass{{article}}\n\\begin{{document}}\n{fragment}\n\\end{{document}}\n")
}

#[test]
fn every_latex_table_compiles_with_plain_pdflatex() {
    const TEST: &str = "cli::latex::every_latex_table_compiles_with_plain_pdflatex";
    if Command::new("pdflatex").arg("--version").output().is_err() {
        common::skip(
            TEST,
            "no pdflatex on PATH (apt-get install texlive-latex-base)",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("all");
    let bundle = common::embedded_bundle();
    let (code, _, err) = common::run_execscope(&[
        "report",
        bundle.to_str().unwrap(),
        "--all",
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "50",
    ]);
    assert_eq!(code, 0, "{err}");
    let mut tex: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tex"))
        .collect();
    tex.sort();
    assert!(tex.len() >= 8, "only {} tables: {tex:?}", tex.len());
    let mut greek = false;
    for t in &tex {
        let fragment = std::fs::read_to_string(t).unwrap();
        assert!(fragment.is_ascii(), "{} holds non-ASCII text", t.display());
        greek |= ["$\\alpha$", "$\\Delta$", "$\\rho$"]
            .iter()
            .any(|m| fragment.contains(m));
        let name = t.file_stem().unwrap().to_string_lossy().into_owned();
        let doc = dir.path().join(format!("{name}-doc.tex"));
        std::fs::write(&doc, document(&fragment)).unwrap();
        let o = Command::new("pdflatex")
            .args([
                "-interaction=nonstopmode",
                "-halt-on-error",
                "-no-shell-escape",
            ])
            .arg(format!("-output-directory={}", dir.path().display()))
            .arg(&doc)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let log = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{name}.tex does not compile:\n{log}");
        assert!(!log.contains("Missing character"), "{name}.tex: {log}");
        assert!(dir.path().join(format!("{name}-doc.pdf")).is_file());
    }
    assert!(greek, "no table exercised the Greek-letter macros");
}
