//! `execscope completions <shell>` and `execscope man` are generated from the clap definitions, so
//! they list the real subcommands and options.

use crate::common;

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = common::execscope()
        .args(args)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn completions_name_every_subcommand_and_option() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let s = run(&["completions", shell]);
        for word in [
            "report",
            "check",
            "build",
            "audit",
            "completions",
            "ties",
            "no-bm25",
        ] {
            assert!(s.contains(word), "{shell} completion lacks {word}");
        }
    }
    // A bash script that bash itself accepts, when bash is here.
    if let Ok(out) = Command::new("bash")
        .args(["-n", "-c", &run(&["completions", "bash"])])
        .output()
    {
        common::assert_ok(&out);
    }
}

#[test]
fn unknown_shell_is_refused() {
    let out = common::execscope()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[test]
fn man_page_documents_every_subcommand() {
    let man = run(&["man"]);
    assert!(
        man.starts_with(".ie") || man.contains(".TH execscope"),
        "{}",
        &man[..200.min(man.len())]
    );
    for sub in ["REPORT", "CHECK", "BUILD", "EXEC", "AUDIT", "TUI"] {
        assert!(
            man.contains(&format!(".SH \"EXECSCOPE {sub}\"")),
            "no section for {sub}"
        );
    }
    for opt in ["ties", "bootstrap", "tie\\-eps", "visible"] {
        assert!(man.contains(opt), "man page lacks {opt}");
    }
}

#[test]
fn build_refuses_an_unknown_operator_family_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::execscope()
        .args([
            "build",
            "tasks.jsonl",
            "--operators",
            "paper,negate",
            "--out",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown operator family \"negate\"") && err.contains("negate_condition"),
        "{err}"
    );
    // nothing was started or written
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
