//! The Ray driver (cluster/execscope_ray.py) on a real two-node Ray cluster on this machine
//! (`ray start --head`, then `ray start --address`): a build of the first 8 embedded tasks (a
//! few hundred pairs) in 4 shards, one Ray worker killed with SIGKILL while its shard runs, and
//! the merged bundle equal byte for byte to a one-machine build. On the same cluster, the driver
//! then runs `exec verify` and `audit --pool` in 4 shards each; their merged outputs equal the
//! one-machine ones byte for byte; so does `embed` of the tiny fixture with the smallest model when
//! the embedding environment is present (otherwise that case says by name that it skipped).
//!
//! Ray lives in its own virtualenv, `target/ray-venv` (or `$EXECSCOPE_RAY_VENV`); `.ci/run`
//! installs it. Without it the test says by name that it skipped.

use crate::common;
use crate::common::audit_pool;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TEST: &str = "ray_cluster::driver_on_two_nodes_survives_a_killed_worker";

fn venv() -> PathBuf {
    match std::env::var_os("EXECSCOPE_RAY_VENV") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ray-venv"),
    }
}

/// Stops the test's Ray nodes however the test ends.
struct Cluster {
    ray: PathBuf,
    tmp: PathBuf,
}

impl Drop for Cluster {
    /// Kills every process this test's nodes started: the ones that carry `TMPDIR=<the test's
    /// temp dir>` in their environment (what `ray start` started) and all their descendants
    /// (Ray's agents rewrite their environment block with their process title). `ray stop` would
    /// stop every Ray process on the machine, another run's cluster included.
    fn drop(&mut self) {
        let _ = &self.ray;
        let mark = format!("TMPDIR={}", self.tmp.display()).into_bytes();
        let me = std::process::id() as i32;
        for _ in 0..3 {
            let Ok(rd) = std::fs::read_dir("/proc") else {
                return;
            };
            let mut parent: Vec<(i32, i32)> = Vec::new();
            let mut doomed: std::collections::BTreeSet<i32> = Default::default();
            for e in rd.flatten() {
                let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
                    continue;
                };
                let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                    continue;
                };
                let after = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
                let ppid = after.split_whitespace().nth(1).and_then(|s| s.parse().ok());
                parent.push((pid, ppid.unwrap_or(0)));
                let env = std::fs::read(e.path().join("environ")).unwrap_or_default();
                if pid != me && env.split(|&b| b == 0).any(|v| v == mark.as_slice()) {
                    doomed.insert(pid);
                }
            }
            // Descendants, to a fixed point (before anything is killed and reparented).
            loop {
                let more: Vec<i32> = parent
                    .iter()
                    .filter(|(p, pp)| doomed.contains(pp) && !doomed.contains(p) && *p != me)
                    .map(|(p, _)| *p)
                    .collect();
                if more.is_empty() {
                    break;
                }
                doomed.extend(more);
            }
            for pid in doomed {
                // SAFETY: kill(2) of a process this test's Ray nodes started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn ok(cmd: &mut Command, what: &str) -> String {
    let o = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        o.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// (pid, parent pid, later round) of every running shard the driver shipped to a worker whose
/// command line names `scope` (this test's temp dir: another run's shards are not ours to kill).
fn shard_processes(scope: &str) -> Vec<(i32, i32, bool)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return out;
    };
    for e in rd.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if !(cmd.contains("execscope-ray-bin") && cmd.contains("--shard") && cmd.contains(scope)) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which is in parentheses): state, ppid, ...
        let after = &stat[stat.rfind(')').map_or(0, |i| i + 2)..];
        let ppid = after
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        out.push((pid, ppid, cmd.contains("--memo-from")));
    }
    out
}

use common::bundle_bytes;

#[test]
fn driver_on_two_nodes_survives_a_killed_worker() {
    let python = venv().join("bin/python");
    let ray = venv().join("bin/ray");
    let has_ray = Command::new(&python)
        .args(["-c", "import ray"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_ray || !ray.exists() {
        common::skip(
            TEST,
            &format!(
                "Ray is not installed in {} (python3 -m venv {0} && {0}/bin/pip install ray; \
                 .ci/run does this)",
                venv().display()
            ),
        );
        return;
    }
    // Short: Ray puts unix sockets under its temp dir.
    let tmp = tempfile::Builder::new().prefix("xr").tempdir().unwrap();
    let t = tmp.path().to_path_buf();
    let work = t.join("w");
    std::fs::create_dir(&work).unwrap();
    let all =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/tasks.jsonl"))
            .unwrap();
    let some: Vec<&str> = all.lines().take(8).collect();
    std::fs::write(work.join("tasks.jsonl"), some.join("\n") + "\n").unwrap();

    // The embedding environment, when present, for the `embed` case (the workers find it
    // through the nodes' environment).
    let embed_env = execscope::embed::EmbedEnv::locate()
        .ok()
        .filter(execscope::embed::EmbedEnv::is_ready);
    let port = free_port();
    let cluster = Cluster {
        ray: ray.clone(),
        tmp: t.clone(),
    };
    // Ports Ray would otherwise take at fixed numbers, so that a second cluster on this machine
    // (another test run) cannot collide with this one.
    let node = |extra: &[&str]| {
        let mut c = Command::new(&ray);
        c.arg("start")
            .args(extra)
            .args([
                "--num-cpus=2",
                "--object-store-memory=100000000",
                "--disable-usage-stats",
            ])
            .arg(format!("--dashboard-agent-listen-port={}", free_port()))
            .env("TMPDIR", &t)
            .env("EXECSCOPE_CACHE_DIR", common::rank_cache_dir())
            .env("RAY_USAGE_STATS_ENABLED", "0")
            // A shared machine's disk may be fuller than Ray's default 95 % (counting the
            // blocks reserved for root); the object store spills the shipped binary there.
            .env("RAY_local_fs_capacity_threshold", "0.99");
        if let Some(e) = &embed_env {
            c.env("EXECSCOPE_EMBED_ENV", &e.dir);
        }
        c
    };
    ok(
        node(&[
            "--head",
            &format!("--port={port}"),
            "--include-dashboard=false",
            &format!("--temp-dir={}", t.join("ray").display()),
        ])
        .arg("--node-ip-address=127.0.0.1"),
        "ray start --head",
    );
    ok(
        node(&[&format!("--address=127.0.0.1:{port}")]).arg("--node-ip-address=127.0.0.1"),
        "ray start --address (second node)",
    );

    // The one-machine reference.
    let mut single = common::execscope();
    single
        .current_dir(&work)
        .args(["build", "tasks.jsonl", "--out", "whole"])
        .env("TMPDIR", &t);
    let summary = ok(&mut single, "one-machine build");
    let pairs: usize = summary
        .split("pairs executed ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .expect("pairs executed");
    assert!(pairs >= 200, "a few hundred pairs wanted, got {pairs}");

    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("cluster/execscope_ray.py");
    let mut child = Command::new(&python)
        .current_dir(&work)
        .arg(&driver)
        .args([
            &format!("--address=127.0.0.1:{port}"),
            "--shards=4",
            "--out=merged",
            "--binary",
        ])
        // The binary common::execscope() starts (the driver ships it to the workers).
        .arg(common::execscope().get_program())
        .args(["--", "tasks.jsonl"])
        .env("TMPDIR", &t)
        .env("EXECSCOPE_CACHE_DIR", common::rank_cache_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Kill the Ray worker running a shard of a later round once that shard has run a moment.
    let start = Instant::now();
    let mut killed = None;
    let scope = t.display().to_string();
    let mut seen_at: std::collections::HashMap<i32, Instant> = Default::default();
    while killed.is_none() && child.try_wait().unwrap().is_none() {
        for (pid, ppid, later_round) in shard_processes(&scope) {
            let first = *seen_at.entry(pid).or_insert_with(Instant::now);
            if later_round && first.elapsed() > Duration::from_millis(700) && ppid > 1 {
                // SAFETY: kill(2) of the Ray worker process that started this shard.
                unsafe { libc::kill(ppid, libc::SIGKILL) };
                killed = Some((pid, ppid));
                break;
            }
        }
        assert!(
            start.elapsed() < Duration::from_secs(900),
            "driver too slow"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "driver failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (shard_pid, worker_pid) = killed.expect("no shard ran long enough to kill its worker");
    assert!(
        !Path::new(&format!("/proc/{shard_pid}")).exists(),
        "the killed worker's shard process {shard_pid} lives on"
    );
    let _ = worker_pid;
    let (a, b) = (
        bundle_bytes(&work.join("whole")),
        bundle_bytes(&work.join("merged")),
    );
    assert_eq!(
        a.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        b.iter().map(|(n, _)| n).collect::<Vec<_>>()
    );
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        assert!(
            x == y,
            "{name} differs between the Ray run and the one-machine build"
        );
    }
    assert!(stdout.contains("shard 3/4 done"), "{stdout}");
    // Both nodes ran shards.
    let nodes: std::collections::BTreeSet<&str> = stdout
        .lines()
        .filter_map(|l| l.split(" node ").nth(1))
        .filter_map(|s| s.split_whitespace().next())
        .collect();
    assert!(nodes.len() >= 2, "shards ran on {nodes:?} only:\n{stdout}");

    // The same driver with `exec verify` and `audit --pool`, the command's own arguments after
    // `--`: 4 shards each, merged output equal to the one-machine run's.
    let drive = |dir: &Path, out: &str, args: &[&str]| {
        let mut c = Command::new(&python);
        c.current_dir(dir)
            .arg(&driver)
            .args([
                &format!("--address=127.0.0.1:{port}"),
                "--shards=4",
                &format!("--out={out}"),
                "--binary",
            ])
            .arg(common::execscope().get_program())
            .arg("--")
            .args(args)
            .env("TMPDIR", &t)
            .env("EXECSCOPE_CACHE_DIR", common::rank_cache_dir());
        ok(&mut c, &format!("driver {args:?}"))
    };
    let mut one = common::execscope();
    one.current_dir(&work)
        .args(["exec", "verify", "whole", "--out", "verify-one"])
        .env("TMPDIR", &t);
    ok(&mut one, "one-machine exec verify");
    let said = drive(&work, "verify-merged", &["exec", "verify", "whole"]);
    assert!(said.contains("shard 3/4 done"), "{said}");
    let rows = |d: &str| std::fs::read(work.join(d).join("verify.jsonl")).unwrap();
    assert!(
        rows("verify-one") == rows("verify-merged"),
        "verify.jsonl differs between the Ray run and one machine"
    );

    let aw = work.join("audit");
    std::fs::create_dir(&aw).unwrap();
    audit_pool::write(&aw, 4);
    let audit_args = audit_pool::ARGS;
    let mut one = common::execscope();
    one.current_dir(&aw)
        .args(audit_args)
        .args(["--out", "audit-one"])
        .env("TMPDIR", &t);
    let tables = ok(&mut one, "one-machine audit");
    let said = drive(&aw, "audit-merged", &audit_args);
    assert!(said.contains("round 2: shard 3/4 done"), "{said}");
    assert!(
        said.contains(tables.trim_end()),
        "the merged tables differ:\n{said}"
    );
    audit_pool::assert_same(&aw.join("audit-one"), &aw.join("audit-merged"));

    // `embed` of the tiny fixture (15 rows, the smallest model, batches of 2) in 4 shards.
    match &embed_env {
        None => common::skip(
            &format!("{TEST} (embed case)"),
            "no embedding environment ($EXECSCOPE_EMBED_ENV or the platform cache)",
        ),
        Some(env) => {
            let tiny = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny");
            common::copy_dir(&tiny, &work.join("tiny-one"));
            common::copy_dir(&tiny, &work.join("tiny-ray"));
            let emb = ["--model", "MiniLM-L3", "--name", "l3", "--batch-size", "2"];
            let mut one = common::execscope();
            one.current_dir(&work)
                .args(["embed", "tiny-one"])
                .args(emb)
                .env("EXECSCOPE_EMBED_ENV", &env.dir);
            ok(&mut one, "one-machine embed");
            let mut args = vec!["embed", "tiny-ray"];
            args.extend(emb);
            let said = drive(&work, "tiny-ray", &args);
            assert!(said.contains("shard 3/4 done"), "{said}");
            for f in [
                "embeddings/l3.npz",
                "results/invocation_table.json",
                "SHA256SUMS",
            ] {
                assert!(
                    std::fs::read(work.join("tiny-one").join(f)).unwrap()
                        == std::fs::read(work.join("tiny-ray").join(f)).unwrap(),
                    "{f} differs between the Ray run and one machine"
                );
            }
        }
    }
    drop(cluster);
}
