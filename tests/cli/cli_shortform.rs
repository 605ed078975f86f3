//! Issue 30 item 8: `execscope BUNDLE [OPTIONS]` and `execscope [OPTIONS]` are `execscope tui`,
//! a missing path is told from a mistyped subcommand, and enum options complete to their names.

use crate::common;

/// Runs the binary with stdin, stdout and stderr off any terminal: the dashboard, once the
/// arguments parsed and the bundle loaded, stops at setting up the terminal, and says so.
fn stderr_of(args: &[&str]) -> (bool, String) {
    let out = common::execscope()
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("binary runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn tiny() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tiny").to_string()
}

#[test]
fn every_tui_option_works_after_a_bundle_path_and_without_one() {
    for args in [
        vec![tiny(), "--theme".into(), "light".into()],
        vec!["--theme".into(), "light".into(), tiny()],
        vec!["tui".into(), tiny(), "--theme".into(), "light".into()],
        vec![tiny(), "--ties".into(), "row".into(), "--no-cache".into()],
        vec![tiny(), "--theme".into(), "high-contrast".into()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (_, err) = stderr_of(&args);
        assert!(
            err.contains("cannot set up the terminal"),
            "{args:?} did not reach the dashboard: {err}"
        );
    }
    // With no bundle the options parse too (the embedded bundle opens, or its absence is named).
    let (_, err) = stderr_of(&["--theme", "light"]);
    assert!(
        !err.contains("unexpected argument") && !err.contains("unrecognized"),
        "{err}"
    );
}

#[test]
fn a_missing_path_is_told_from_a_mistyped_subcommand() {
    let (ok, err) = stderr_of(&["./typo"]);
    assert!(!ok);
    assert!(err.contains("no such directory: ./typo"), "{err}");
    assert!(!err.contains("subcommand"), "{err}");

    let (ok, err) = stderr_of(&["reprot"]);
    assert!(!ok);
    assert!(err.contains("did you mean `execscope report`"), "{err}");

    let (ok, err) = stderr_of(&["zzzzzzzz", "--theme", "light"]);
    assert!(!ok);
    assert!(
        err.contains("neither a subcommand nor a directory") && !err.contains("did you mean"),
        "{err}"
    );
}

#[test]
fn an_existing_directory_that_is_no_bundle_says_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, err) = stderr_of(&[dir.path().to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("is not a bundle (no data/queries.jsonl)"),
        "{err}"
    );
}

/// The bash completion of an option with a closed set of values lists exactly those names; an
/// open-valued option (a metric, a list of families) offers no file names either.
#[test]
fn enum_options_complete_to_their_names_not_to_file_names() {
    let (ok, script) = {
        let out = common::execscope()
            .args(["completions", "bash"])
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8(out.stdout).unwrap())
    };
    assert!(ok);
    let case = |opt: &str| -> Vec<String> {
        let key = format!("                {opt})\n");
        script
            .match_indices(&key)
            .map(|(i, _)| {
                let body = &script[i + key.len()..];
                body[..body.find(";;").unwrap()].to_string()
            })
            .collect()
    };
    for (opt, words) in [
        ("--ties", "row expected pessimistic optimistic"),
        ("--format", "table json csv markdown latex"),
        ("--theme", "dark light high-contrast"),
        ("--method", "rrf combsum combmnz"),
        ("--norm", "minmax zscore"),
    ] {
        let bodies = case(opt);
        assert!(!bodies.is_empty(), "no completion case for {opt}");
        let closed: Vec<&String> = bodies.iter().filter(|b| b.contains(words)).collect();
        assert!(
            !closed.is_empty(),
            "{opt} never completes to {words}: {bodies:?}"
        );
    }
    for opt in [
        "--ties",
        "--theme",
        "--method",
        "--norm",
        "--metric",
        "--operators",
    ] {
        for body in case(opt) {
            assert!(
                !body.contains("compgen -f"),
                "{opt} offers file names: {body}"
            );
        }
    }
}
