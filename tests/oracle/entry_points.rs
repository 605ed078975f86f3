//! A forged pass is not recorded through any entry point that runs untrusted code: `build` (the
//! independent-implementation gate), `audit --pool`, `report --execute --save-cache` and `exec
//! verify` (all through the binary), and the dashboard's audit pane (driven headless). All reach
//! the same oracle (harness in the sandbox, judge outside it); the forger is a wrong function
//! whose return value claims equality with anything.

use crate::common;
use execscope::record::keys::code_sha256;
use serde_json::Value;
use std::path::Path;

/// Wrong (off by 1000) but its result says it equals whatever it is compared with.
const FORGER: &str = "class I(int):\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    __hash__ = int.__hash__\ndef total(xs):\n    return I(sum(xs) + 1000)\n";

#[test]
fn build_refuses_a_forging_independent_implementation() {
    let dir = tempfile::tempdir().unwrap();
    let task = serde_json::json!({
        "task_id": "forge/total",
        "function_name": "total",
        "query": "Return the sum of a list of integers.",
        "domain": "",
        "canonical": "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
        "independent": FORGER,
        "tests": ["assert total([1, 2]) == 3", "assert total([]) == 0", "assert total([5]) == 5"],
    });
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    let out = dir.path().join("bundle");
    let o = common::execscope()
        .args([
            "build",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "the only task must be refused");
    assert!(
        err.contains("independent fails 3 of 3 tests"),
        "refused for the forger's wrong values: {err}"
    );
}

#[test]
fn audit_pool_does_not_pass_a_forging_candidate() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let pool = dir.path().join("pool.jsonl");
    std::fs::write(
        &tasks,
        "{\"task_id\": \"t\", \"function_name\": \"total\", \"base_tests\": [\"assert total([1, 2]) == 3\", \"assert total([]) == 0\"]}\n",
    )
    .unwrap();
    let honest = "def total(xs):\n    return sum(xs)\n";
    let rows: Vec<String> = [FORGER, honest]
        .iter()
        .enumerate()
        .map(|(i, code)| {
            serde_json::json!({"task_id": "t", "sample_index": i, "code": code,
                "self_tests": "assert total([2]) == 2\n"})
            .to_string()
        })
        .collect();
    std::fs::write(&pool, rows.join("\n") + "\n").unwrap();
    let o = common::execscope()
        .args(["audit", "--pool", pool.to_str().unwrap(), "--tasks"])
        .arg(&tasks)
        .args(["--format", "json", "--workers", "2", "--draws", "200"])
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: Value = serde_json::from_slice(&o.stdout).unwrap();
    // Two candidates, one pass: the honest one (the forger's values are wrong).
    let row = doc["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == "audit-admission")
        .and_then(|t| t["rows"].as_array())
        .and_then(|rows| rows.iter().find(|r| r["predicate"] == "C"))
        .expect("admission row for C");
    assert_eq!(row["candidates"], 2.0);
    assert_eq!(row["passes"], 1.0, "{row}");
}

/// The tiny fixture's `count_vowels`, wrong by 1000, its result claiming equality with anything.
const VOWEL_FORGER: &str = "class I(int):\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    __hash__ = int.__hash__\ndef count_vowels(s):\n    return I(sum(ch in 'aeiou' for ch in s.lower()) + 1000)\n";

/// A copy of the tiny fixture in which the paired distractor `c_0002` of `q_0001` (three tests)
/// is the forger. With `forged_row`, the cache claims the forger passes all three tests (a row
/// as a forger with write access to the cache would leave it); without, the cache has no row
/// for it, so it must be executed.
fn tiny_with_forger(forged_row: bool) -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = common::tiny::copy_tiny(false);
    let mut old_code = String::new();
    common::tiny::edit(&root, "data/corpus.jsonl", |s| {
        s.lines()
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).unwrap();
                if v["corpus_id"] == "c_0002" {
                    old_code = v["code"].as_str().unwrap().to_string();
                    v["code"] = VOWEL_FORGER.into();
                }
                v.to_string() + "\n"
            })
            .collect()
    });
    assert!(!old_code.is_empty(), "c_0002 is in the fixture");
    let (old_sha, new_sha) = (code_sha256(&old_code), code_sha256(VOWEL_FORGER));
    common::tiny::edit(&root, "data/execution_cache.jsonl", |s| {
        let mut out = String::new();
        for l in s.lines() {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["code_sha256"] == old_sha.as_str() {
                if !forged_row {
                    continue;
                }
                v["code_sha256"] = new_sha.as_str().into();
                let n = v["outcomes"].as_array().unwrap().len();
                v["outcomes"] = vec!["pass"; n].into();
                v["passes_all_tests"] = true.into();
            }
            out.push_str(&(v.to_string() + "\n"));
        }
        out
    });
    (dir, root)
}

#[test]
fn report_execute_records_a_forger_as_failing() {
    let (_dir, root) = tiny_with_forger(false);
    let o = common::execscope()
        .arg("report")
        .arg(&root)
        .args(["--execute", "--save-cache", "--bootstrap", "20"])
        .args(["--format", "json"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let text = std::fs::read_to_string(root.join("data/execution_cache.jsonl")).unwrap();
    let sha = code_sha256(VOWEL_FORGER);
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["code_sha256"] == sha.as_str())
        .collect();
    // Executed against its own query's suite (and any other query's it was ranked for), and
    // never recorded as passing a test: its values are 1000 off.
    assert!(!rows.is_empty(), "the forger was executed and saved: {err}");
    for r in &rows {
        assert_eq!(r["passes_all_tests"], false, "{r}");
        for o in r["outcomes"].as_array().unwrap() {
            assert_ne!(o, "pass", "{r}");
        }
    }
}

#[test]
fn exec_verify_catches_a_forged_pass_in_the_cache() {
    let (_dir, root) = tiny_with_forger(true);
    let o = common::execscope()
        .args(["exec", "verify"])
        .arg(&root)
        .output()
        .expect("runs");
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "a disagreement fails the run: {out}"
    );
    let lines: Vec<&str> = out.lines().filter(|l| l.starts_with("DISAGREE")).collect();
    assert_eq!(lines.len(), 1, "only the forged row disagrees: {out}");
    assert!(
        lines[0].contains("c_0002")
            && lines[0].contains("cached [pass pass pass]")
            && lines[0].contains("now [FAIL FAIL FAIL]")
            && lines[0].contains("(pass/not-pass differs: test 1, 2, 3)"),
        "{out}"
    );
    assert!(
        out.contains("1 disagree (1 of them on a test's pass/not-pass);"),
        "{out}"
    );
}

#[test]
fn dashboard_audit_pane_does_not_pass_a_forger() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use execscope::tui::view::AuditSlot;
    use execscope::tui::{App, Theme, ThemeKind};

    let (_dir, root) = tiny_with_forger(false);
    // The audit needs one pool order: under the default `expected` ties the pane refuses, as
    // `execscope audit --ties expected` does.
    let args = execscope::cli::EvalArgs {
        no_cache: true,
        ties: execscope::metrics::TiePolicy::Pessimistic,
        ..execscope::cli::EvalArgs::default()
    };
    let engine = execscope::cli::open_engine(Some(root.as_path()), &args).expect("loads");
    let mut app = App::with_engine(engine, Theme::new(ThemeKind::Dark, false));
    app.run_jobs_inline();
    for code in [KeyCode::Char('7'), KeyCode::Enter] {
        app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
        app.run_jobs_inline();
    }
    assert_eq!(app.pane_id(), "audit");
    let done = match &app.data.as_ref().unwrap().audit {
        AuditSlot::Done(r) => r.clone(),
        AuditSlot::Failed(_, e) => panic!("audit failed: {e}"),
        other => panic!("audit not finished: {other:?}"),
    };
    let forger: Vec<_> = done
        .view
        .tasks
        .iter()
        .flat_map(|t| &t.candidates)
        .filter(|c| c.code == VOWEL_FORGER)
        .collect();
    assert!(!forger.is_empty(), "the forger is among the audited top 10");
    for c in forger {
        assert!(!c.pass, "{}: recorded as passing", c.label);
        assert!(!c.tests.is_empty());
        for t in &c.tests {
            assert!(!t.outcome.is_pass(), "{}: {} passed", c.label, t.test);
        }
        // `top-k` admits every candidate of the top k (the baseline without evidence); no
        // predicate that looks at execution admits the forger.
        assert!(
            c.admitted.iter().all(|(p, a)| p == "top-k" || !a),
            "{}: admitted {:?}",
            c.label,
            c.admitted
        );
    }
}

/// Whether `path` lies under a directory an unprivileged user cannot traverse.
fn hidden_from_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.ancestors()
        .skip(1)
        .any(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 == 0))
}

/// `auto` refuses untrusted code where no adequate level exists, and says what to do. Made real
/// here, without touching the machine: as root, the test starts execscope as `nobody` inside a
/// user namespace of its own whose `user.max_user_namespaces` is 0, so neither execscope's
/// `userns` level nor bubblewrap nor `netns` can create the namespaces they need; only
/// `rlimits` (same uid as execscope) works, which `auto` must not pick silently. Then the flag
/// the message names (`EXECSCOPE_ISOLATION=rlimits`) is accepted and recorded.
#[test]
fn auto_refuses_when_no_adequate_level_exists() {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    const TEST: &str = "auto_refuses_when_no_adequate_level_exists";
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        common::skip(
            TEST,
            "needs root (to map nobody into a user namespace of its own)",
        );
        return;
    }
    let exe = common::execscope().get_program().to_owned();
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let (Some(python), true, false) = (
        python,
        Path::new("/usr/bin/setpriv").exists(),
        hidden_from_others(Path::new(&exe)),
    ) else {
        common::skip(
            TEST,
            "needs /usr/bin/setpriv, a python3 outside /root and a binary nobody can run",
        );
        return;
    };
    let dir = tempfile::Builder::new()
        .prefix("refusal-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    let task = serde_json::json!({
        "task_id": "t", "function_name": "total", "query": "Return the sum of a list.",
        "domain": "", "canonical": "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n",
        "tests": ["assert total([1, 2]) == 3", "assert total([]) == 0", "assert total([5]) == 5"],
    });
    std::fs::write(&tasks, format!("{task}\n")).unwrap();
    std::fs::set_permissions(&tasks, std::fs::Permissions::from_mode(0o644)).unwrap();

    let run = |isolation: Option<&str>, out: &str| {
        // sh waits for the id maps and execs a shell that is root in the namespace (the first
        // one started unmapped, so without capabilities); that one sets the namespace limit
        // and becomes nobody.
        let inner = "echo 0 > /proc/sys/user/max_user_namespaces && exec \
                     /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \"$@\"";
        let script = "read _ && exec /bin/sh -c \"$0\" sh \"$@\"";
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.args(["-c", script, inner])
            .arg(&exe)
            .arg("build")
            .arg(&tasks)
            .arg("--out")
            .arg(dir.path().join(out))
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("EXECSCOPE_PYTHON", python)
            .env("EXECSCOPE_CACHE_DIR", dir.path().join("rank-cache"))
            .env("TMPDIR", dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if let Some(level) = isolation {
            cmd.env("EXECSCOPE_ISOLATION", level);
        }
        // SAFETY: unshare is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::unshare(libc::CLONE_NEWUSER) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().expect("sh in a new user namespace");
        // root and nobody keep their ids inside; nothing else is mapped.
        for map in ["uid_map", "gid_map"] {
            std::fs::write(
                format!("/proc/{}/{map}", child.id()),
                "0 0 1\n65534 65534 1\n",
            )
            .unwrap_or_else(|e| panic!("{map}: {e}"));
        }
        child.stdin.take().unwrap().write_all(b"go\n").unwrap();
        let o = child.wait_with_output().unwrap();
        (
            o.status,
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };

    let (status, _, err) = run(None, "refused");
    assert!(!status.success(), "auto must refuse here: {err}");
    // Why, what to enable or install, and which flag accepts the weaker level.
    for want in [
        "no adequate sandbox for untrusted code",
        "unprivileged user namespaces",
        "apt install bubblewrap",
        "--isolation netns|rlimits",
        "EXECSCOPE_ISOLATION=netns|rlimits",
        "stronger levels:",
    ] {
        assert!(err.contains(want), "refusal lacks {want:?}: {err}");
    }
    assert!(!dir.path().join("refused").exists(), "nothing was built");

    // The weaker level, accepted explicitly, runs and is recorded.
    let (status, _, err) = run(Some("rlimits"), "accepted");
    assert!(status.success(), "{err}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("accepted/build_report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["isolation"], "rlimits");
    assert_eq!(report["privileges"], "same uid as execscope");
    assert_eq!(report["tasks_kept"], 1);
}
