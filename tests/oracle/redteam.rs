//! Red team: hostile snippets against the oracle, each run at every isolation level this machine
//! offers (and, when the tests run as root, again as an unprivileged user through `setpriv`).
//! For each one we assert what was recorded — a wrong function is never a pass, an outcome name
//! is never free text — and that the host is unchanged: canary files, a loopback listener, the
//! process table, a cache file, an inherited secret descriptor, the environment of this process.
//!
//! What a level promises is in docs/threat-model.md; assertions that depend on the level say so.

use crate::common;

use execscope::oracle::{IsolationChoice, IsolationLevel, Job, Oracle, OracleConfig, Outcome};
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(2);
const SECRET: &str = "s3cr3t-redteam-7f1d";
/// The daemon marker of this run: the root run and its inner run as `nobody` go on at once on one
/// host, so each looks only for its own daemons.
pub(crate) fn marker() -> &'static str {
    static M: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    // SAFETY: geteuid has no preconditions.
    M.get_or_init(|| {
        format!("execscope_redteam_daemon_b2c9_{}", unsafe {
            libc::geteuid()
        })
    })
}

/// The System V IPC key of this run's objects (root's run and the inner run as `nobody` differ).
pub(crate) fn ipc_key() -> u32 {
    // SAFETY: geteuid has no preconditions.
    0x5eed_0000 + (unsafe { libc::geteuid() } % 0xffff)
}

/// IPC objects of this run left on the host (System V objects with `ipc_key`, a POSIX message
/// queue or shared-memory object named by the marker), each removed once seen so that a failure
/// does not poison the runs after it.
fn ipc_left() -> Vec<String> {
    let mut left = Vec::new();
    let key = ipc_key().to_string();
    for (kind, flag) in [("shm", 0), ("sem", 1), ("msg", 2)] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/sysvipc/{kind}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.first() == Some(&key.as_str()) {
                left.push(format!("{kind} {}", f[1]));
                let id: i32 = f[1].parse().unwrap_or(-1);
                // SAFETY: IPC_RMID on an id read from /proc; the argument pointers may be null.
                unsafe {
                    match flag {
                        0 => libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                        1 => libc::semctl(id, 0, libc::IPC_RMID),
                        _ => libc::msgctl(id, libc::IPC_RMID, std::ptr::null_mut()),
                    };
                }
            }
        }
    }
    let queue = std::ffi::CString::new(format!("/{}", marker())).unwrap();
    // SAFETY: mq_unlink with a NUL-terminated name.
    if unsafe { libc::mq_unlink(queue.as_ptr()) } == 0 {
        left.push(format!("message queue /{}", marker()));
    }
    let shm = format!("/dev/shm/{}", marker());
    if std::fs::remove_file(&shm).is_ok() {
        left.push(shm);
    }
    left
}

/// The host-side fixtures every case may aim at.
pub(crate) struct Host {
    dir: tempfile::TempDir,
    canary: PathBuf,
    cache: PathBuf,
    answers: PathBuf,
    listener: TcpListener,
    port: u16,
    /// A Unix-domain socket on the host a pair tries to reach (above `rlimits` it must not).
    unix_sock: PathBuf,
    unix_listener: std::os::unix::net::UnixListener,
    /// A port nothing listens on (a pair tries to).
    free_port: u16,
    secret_fd: i32,
}

impl Host {
    fn new() -> Host {
        // In the unprivileged inner run, TMPDIR is a directory that user may write.
        let base = if std::env::var_os("EXECSCOPE_REDTEAM_INNER").is_some() {
            std::env::temp_dir()
        } else {
            PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        };
        let dir = tempfile::Builder::new()
            .prefix("redteam-")
            .tempdir_in(base)
            .unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let canary = dir.path().join("canary.txt");
        std::fs::write(&canary, "keep me").unwrap();
        std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o600)).unwrap();
        let cache = dir.path().join("execution_cache.jsonl");
        std::fs::write(&cache, "{\"row\": 1}\n").unwrap();
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o600)).unwrap();
        // The answer key (the tests with their expected values), readable only by us.
        let answers = dir.path().join("answers.txt");
        std::fs::write(&answers, "add 2 3 -> 5\n").unwrap();
        std::fs::set_permissions(&answers, std::fs::Permissions::from_mode(0o600)).unwrap();
        let unix_sock = dir.path().join("host.sock");
        let unix_listener = std::os::unix::net::UnixListener::bind(&unix_sock).unwrap();
        unix_listener.set_nonblocking(true).unwrap();
        std::fs::set_permissions(&unix_sock, std::fs::Permissions::from_mode(0o777)).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let free_port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // A secret on a descriptor without close-on-exec, as a shell might leave one open.
        let secret = dir.path().join("secret.txt");
        std::fs::write(&secret, SECRET).unwrap();
        let c = std::ffi::CString::new(secret.to_str().unwrap()).unwrap();
        // SAFETY: plain open(2) of a path we just wrote; O_CLOEXEC deliberately absent.
        let secret_fd = unsafe { libc::open(c.as_ptr(), libc::O_RDONLY) };
        assert!(secret_fd > 2);
        std::env::set_var("EXECSCOPE_REDTEAM_SECRET", SECRET);
        Host {
            dir,
            canary,
            cache,
            answers,
            listener,
            port,
            unix_sock,
            unix_listener,
            free_port,
            secret_fd,
        }
    }

    fn check_unchanged(&self, case: &str, level: IsolationLevel, confined: bool) {
        if level >= IsolationLevel::Netns {
            // No host Unix socket reached, no host scratch directory written.
            assert!(
                self.unix_listener.accept().is_err(),
                "{case} at {level}: a host Unix-domain socket got a connection"
            );
            assert!(
                !Path::new("/run/lock").join(marker()).exists(),
                "{case} at {level}: a file appeared in the host's /run/lock"
            );
        }
        assert_eq!(
            std::fs::read_to_string(&self.canary).unwrap(),
            "keep me",
            "{case} at {level}: canary changed"
        );
        assert_eq!(
            std::fs::read_to_string(&self.cache).unwrap(),
            "{\"row\": 1}\n",
            "{case} at {level}: cache changed"
        );
        let extra: Vec<_> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| {
                ![
                    "canary.txt",
                    "execution_cache.jsonl",
                    "answers.txt",
                    "secret.txt",
                    "host.sock",
                ]
                .contains(&n.as_str())
            })
            .collect();
        if confined {
            assert!(
                extra.is_empty(),
                "{case} at {level}: files appeared {extra:?}"
            );
            assert!(
                self.listener.accept().is_err(),
                "{case} at {level}: the loopback listener got a connection"
            );
        }
        let ipc = ipc_left();
        assert!(
            ipc.is_empty(),
            "{case} at {level}: IPC objects left on the host {ipc:?}"
        );
        // No process left behind (give a dying one a moment).
        for _ in 0..50 {
            if daemons().is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            daemons().is_empty(),
            "{case} at {level}: processes left behind {:?}",
            daemons()
        );
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor opened in `new`.
        unsafe {
            libc::close(self.secret_fd);
        }
    }
}

/// Processes whose command line carries the daemon marker.
fn daemons() -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(format!("/proc/{pid}/cmdline")) {
            let _ = f.read_to_string(&mut s);
        }
        if s.contains(marker()) {
            out.push(pid);
        }
    }
    out
}

/// What a case must record.
#[derive(Clone)]
pub(crate) enum Expect {
    /// No test may pass (the function is wrong, or passing would mean the attack worked).
    NoPass,
    /// Every test passes: a probe whose asserts hold exactly when the attack was contained.
    Contained,
    /// Exactly these outcomes.
    Exactly(&'static [&'static str]),
}

#[derive(Clone)]
pub(crate) struct Case {
    name: &'static str,
    code: String,
    tests: Vec<String>,
    expect: Expect,
    /// Only meaningful when the level confines files/network/processes (see `confined`).
    needs_confinement: bool,
    /// Only meaningful where the level has this property (see [`Needs`]).
    needs: Needs,
    /// A port the pair listens on; the host tries to reach it while the pair runs.
    listen: Option<u16>,
    /// The entry point named to the judge (as a benchmark reader names it); `None`: inferred.
    entry: Option<String>,
    /// A pair (code, tests) run just before on the same worker (the free list is a stack):
    /// what it leaves behind is what the case looks for.
    prior: Option<(String, Vec<String>)>,
}

/// A property of a level a case depends on (beyond `confined`).
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Needs {
    Nothing,
    /// A pid namespace of the pair's own (netns, bubblewrap, userns).
    PidNs,
    /// The seccomp filter (netns and userns, where the architecture is known).
    Seccomp,
    /// A size-capped private /tmp (netns, bubblewrap, userns).
    CappedTmp,
    /// A root of its own holding only the system directories (bubblewrap, userns).
    OwnRoot,
    /// Scratch space no other user's process shares: a private /tmp and /dev/shm (netns,
    /// bubblewrap, userns), or a uid of the pair's own (`rlimits` as root).
    OwnScratch,
}

pub(crate) fn needs_case(
    name: &'static str,
    needs: Needs,
    code: &str,
    tests: &[&str],
    expect: Expect,
) -> Case {
    Case {
        needs,
        ..case(name, code, tests, expect)
    }
}

pub(crate) fn case(name: &'static str, code: &str, tests: &[&str], expect: Expect) -> Case {
    Case {
        name,
        code: code.to_string(),
        tests: tests.iter().map(|s| s.to_string()).collect(),
        expect,
        needs_confinement: false,
        needs: Needs::Nothing,
        listen: None,
        entry: None,
        prior: None,
    }
}

fn confined_case(name: &'static str, code: &str, tests: &[&str], expect: Expect) -> Case {
    Case {
        needs_confinement: true,
        ..case(name, code, tests, expect)
    }
}

/// Every case of the three rounds, each also as a benchmark writes its tests (`check_form`).
fn cases(host: &Host) -> Vec<Case> {
    let mut v = round1::cases(host);
    v.extend(more::cases(host));
    v.extend(round3::cases());
    let checks: Vec<Case> = v.iter().filter_map(check_form).collect();
    v.extend(checks);
    v
}

/// The case with every test written as HumanEval writes its tests: a `check(candidate)` function
/// in which the entry point is the parameter, then `check(entry)`, with the entry point named to
/// the judge as the HumanEval reader names it. `None` when the code defines no top-level
/// function the tests call. (With the entry inferred instead, see fidelity.rs.)
fn check_form(c: &Case) -> Option<Case> {
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let entry = c
        .code
        .lines()
        .filter_map(|l| l.strip_prefix("def ")?.split_once('(').map(|(n, _)| n))
        .rfind(|n| c.tests.iter().any(|t| t.contains(&format!("{n}("))))?
        .to_string();
    let call = format!("{entry}(");
    let rewrite = |t: &str| {
        let mut out = String::new();
        let mut rest = t;
        while let Some(i) = rest.find(&call) {
            let boundary = !rest[..i].ends_with(is_ident) && !rest[..i].ends_with('.');
            out.push_str(&rest[..i]);
            out.push_str(if boundary { "candidate(" } else { &call });
            rest = &rest[i + call.len()..];
        }
        out.push_str(rest);
        let body: Vec<String> = out.lines().map(|l| format!("    {l}")).collect();
        format!(
            "def check(candidate):\n{}\n\ncheck({entry})\n",
            body.join("\n")
        )
    };
    Some(Case {
        name: Box::leak(format!("{} [as check(candidate)]", c.name).into_boxed_str()),
        tests: c.tests.iter().map(|t| rewrite(t)).collect(),
        entry: Some(entry.clone()),
        ..c.clone()
    })
}

#[path = "redteam_round1.rs"]
mod round1;

#[path = "redteam_cases.rs"]
mod more;

#[path = "redteam_round3.rs"]
mod round3;

#[path = "redteam_languages.rs"]
pub(crate) mod languages;

/// Whether files, network and other processes are out of a pair's reach at this oracle.
fn confined(o: &Oracle) -> bool {
    o.isolation() >= IsolationLevel::Bubblewrap
        || (o.drops_privileges() && o.isolation() >= IsolationLevel::Netns && !readcap(o))
}

fn readcap(o: &Oracle) -> bool {
    o.privileges().contains("CAP_DAC_READ_SEARCH")
}

fn levels() -> Vec<Oracle> {
    let mut out = Vec::new();
    for choice in [
        IsolationChoice::Rlimits,
        IsolationChoice::Netns,
        IsolationChoice::Bubblewrap,
        IsolationChoice::Userns,
    ] {
        let cfg = OracleConfig {
            timeout: TIMEOUT,
            workers: 2,
            isolation: choice,
            ..OracleConfig::default()
        };
        match Oracle::new(cfg) {
            Ok(o) => out.push(o),
            Err(e) => eprintln!("SKIPPED level {choice:?}, unavailable here: {e}"),
        }
    }
    out
}

fn run_suite() {
    let host = Host::new();
    let all = cases(&host);
    assert!(all.len() >= 60, "{} cases", all.len());
    eprintln!("red team: {} cases", all.len());
    let oracles = levels();
    assert!(!oracles.is_empty());
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    // EXECSCOPE_REDTEAM_REPORT=1: every case runs and those not contained are listed at the end
    // (a new round's cases checked against code that does not contain them yet); otherwise the
    // first one fails the test.
    let report = std::env::var_os("EXECSCOPE_REDTEAM_REPORT").is_some();
    let mut not_contained: Vec<String> = Vec::new();
    for o in &oracles {
        let level = o.isolation();
        let conf = confined(o);
        let detail = o.isolation_detail();
        eprintln!(
            "red team at {level} ({}; {detail}), confined: {conf}",
            o.privileges()
        );
        let pidns = level >= IsolationLevel::Netns;
        // As a plain user at rlimits, `kill(-1)` would take this test runner down with it.
        let same_uid_no_pidns = !o.drops_privileges() && !pidns;
        for c in &all {
            if c.needs_confinement && !conf {
                eprintln!("  skip (level does not promise it): {}", c.name);
                continue;
            }
            let has = match c.needs {
                Needs::Nothing => true,
                Needs::PidNs | Needs::CappedTmp => pidns,
                Needs::OwnRoot => level >= IsolationLevel::Bubblewrap,
                Needs::OwnScratch => pidns || o.drops_privileges(),
                Needs::Seccomp => detail.contains("seccomp"),
            };
            if !has {
                eprintln!("  skip (level lacks what it tests): {}", c.name);
                continue;
            }
            if same_uid_no_pidns
                && [
                    "signal everything",
                    "kill the harness",
                    "catchable signals to the harness",
                ]
                .iter()
                .any(|n| c.name.starts_with(n))
            {
                eprintln!("  skip (same uid, no pid namespace): {}", c.name);
                continue;
            }
            let run_case = || {
                let reached = std::sync::atomic::AtomicBool::new(false);
                let running = std::sync::atomic::AtomicBool::new(true);
                let r = std::thread::scope(|s| {
                    if let Some(port) = c.listen {
                        let (running, reached) = (&running, &reached);
                        s.spawn(move || {
                            while running.load(std::sync::atomic::Ordering::Relaxed) {
                                let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
                                if std::net::TcpStream::connect_timeout(
                                    &addr,
                                    Duration::from_millis(100),
                                )
                                .is_ok()
                                {
                                    reached.store(true, std::sync::atomic::Ordering::Relaxed);
                                }
                                std::thread::sleep(Duration::from_millis(50));
                            }
                        });
                    }
                    if let Some((code, tests)) = &c.prior {
                        o.run_job(&Job::new(code.clone(), tests.clone()))
                            .expect("oracle answers");
                    }
                    let job = Job::new(c.code.clone(), c.tests.clone());
                    let job = match &c.entry {
                        Some(e) => job.entry(e),
                        None => job,
                    };
                    let r = o.run_job(&job).expect("oracle answers");
                    running.store(false, std::sync::atomic::Ordering::Relaxed);
                    r
                });
                assert!(
                    !reached.load(std::sync::atomic::Ordering::Relaxed),
                    "{} at {level}: the host reached a listener the pair opened",
                    c.name
                );
                assert_eq!(
                    r.isolation, level,
                    "{}: the result records its level",
                    c.name
                );
                let got: Vec<String> = r.outcomes.iter().map(|x| x.to_string()).collect();
                for s in &got {
                    let back: Outcome = s.parse().expect("outcome parses");
                    assert_eq!(&back.to_string(), s);
                    assert!(
                        !s.contains("LEAK") && !s.contains('\u{1b}'),
                        "{}: {s}",
                        c.name
                    );
                }
                for obs in r.observed.iter().flatten() {
                    assert!(
                        obs.chars().count() <= 200 && !obs.contains('\u{1b}'),
                        "{obs:?}"
                    );
                }
                match &c.expect {
                    Expect::NoPass => assert!(
                        !got.iter().any(|s| s == "pass"),
                        "{} at {level}: a wrong function passed: {got:?}",
                        c.name
                    ),
                    Expect::Contained => assert!(
                        got.iter().all(|s| s == "pass"),
                        "{} at {level}: not contained: {got:?}",
                        c.name
                    ),
                    Expect::Exactly(want) => {
                        assert_eq!(got, *want, "{} at {level}", c.name)
                    }
                }
                host.check_unchanged(c.name, level, conf);
                // The oracle still works after every hostile pair.
                let ok = o
                    .run(
                        "def add(a, b):\n    return a + b\n",
                        &["assert add(2, 3) == 5".to_string()],
                    )
                    .unwrap();
                assert_eq!(ok.outcomes, [Outcome::Pass], "after {} at {level}", c.name);
            };
            if report {
                let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run_case));
                if got.is_err() {
                    not_contained.push(format!("{} at {level}", c.name));
                }
            } else {
                run_case();
            }
        }
    }
    if !root {
        eprintln!("not root: the unprivileged run is this run");
    }
    if report {
        eprintln!("NOT CONTAINED ({}):", not_contained.len());
        for c in &not_contained {
            eprintln!("  {c}");
        }
        assert!(not_contained.is_empty());
    }
}

#[test]
fn red_team_at_every_level() {
    run_suite();
}

/// As root, the same suite as an unprivileged user (`setpriv`), with an interpreter that user
/// can run. Skipped (and said so) when not root or when `setpriv` or such an interpreter is
/// missing.
#[test]
fn red_team_as_an_unprivileged_user() {
    as_nobody("red_team_at_every_level");
}

/// The red team in every language (`redteam_languages.rs`), at every level.
#[test]
fn red_team_in_every_language_at_every_level() {
    languages::run();
}

/// The red team in every language as an unprivileged user (a toolchain that user cannot run,
/// such as a rustup toolchain under `/root`, is skipped by name).
#[test]
fn red_team_in_every_language_as_an_unprivileged_user() {
    as_nobody("red_team_in_every_language_at_every_level");
}

/// Runs the test `name` of this binary again as `nobody` (`setpriv`), with an interpreter that
/// user can run, and fails when it fails.
fn as_nobody(name: &str) {
    if std::env::var_os("EXECSCOPE_REDTEAM_INNER").is_some() {
        return; // we are the inner run: the test named `name` does the work
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root ({name} already runs unprivileged)");
        return;
    }
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let setpriv = Path::new("/usr/bin/setpriv");
    let Some(python) = python.filter(|_| setpriv.exists()) else {
        eprintln!("skipped: no setpriv or no interpreter outside /root");
        return;
    };
    let exe = std::env::current_exe().unwrap();
    let tmp = tempfile::Builder::new()
        .prefix("redteam-nobody-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let mut cmd = std::process::Command::new(setpriv);
    cmd.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .env_clear();
    if let Some(v) = std::env::var_os("EXECSCOPE_REDTEAM_REPORT") {
        cmd.env("EXECSCOPE_REDTEAM_REPORT", v);
    }
    let out = cmd
        .arg(&exe)
        .args([
            "--exact",
            &common::test_path(module_path!(), name),
            "--nocapture",
        ])
        .env("EXECSCOPE_PYTHON", python)
        .env("EXECSCOPE_REDTEAM_INNER", "1")
        .env("TMPDIR", tmp.path())
        .env("HOME", tmp.path())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "unprivileged red team failed");
    assert!(text.contains("red team"), "inner run did not run");
}
