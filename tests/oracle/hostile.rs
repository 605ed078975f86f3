//! Hostile snippets: each must be contained, give the right outcome, never hang, and change
//! nothing on the host. Assertions that depend on the isolation level use the level the oracle
//! reports, so the suite passes (without skipping anything silently) as root and as a plain user.
//! `EXECSCOPE_ORACLE_LEVEL=rlimits|netns|bubblewrap|userns` runs the whole suite at one forced level.

use execscope::oracle::{
    IsolationChoice, IsolationLevel, Oracle, OracleConfig, Outcome, PROBE_SHARE,
};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(2);

fn oracle() -> &'static Oracle {
    static O: OnceLock<Oracle> = OnceLock::new();
    O.get_or_init(|| {
        let isolation = match std::env::var("EXECSCOPE_ORACLE_LEVEL").as_deref() {
            Ok("rlimits") => IsolationChoice::Rlimits,
            Ok("netns") => IsolationChoice::Netns,
            Ok("bubblewrap") => IsolationChoice::Bubblewrap,
            Ok("userns") => IsolationChoice::Userns,
            _ => IsolationChoice::Auto,
        };
        let cfg = OracleConfig {
            timeout: TIMEOUT,
            workers: 2,
            isolation,
            ..OracleConfig::default()
        };
        let o = Oracle::new(cfg).expect("an oracle at the requested level");
        eprintln!("isolation: {}, {}", o.isolation(), o.privileges());
        o
    })
}

fn run(code: &str, tests: &[&str]) -> (Vec<String>, Duration) {
    let start = Instant::now();
    let tests: Vec<String> = tests.iter().map(|s| s.to_string()).collect();
    let r = oracle().run(code, &tests).expect("oracle answers");
    let took = start.elapsed();
    // Nothing may run much past the suite's budget: each test's own, plus hang detection for a
    // test that runs out of it.
    let most =
        (TIMEOUT + OracleConfig::default().detect + Duration::from_secs(1)) * tests.len() as u32;
    assert!(took < most + Duration::from_secs(8), "took {took:?}");
    (r.outcomes.iter().map(|o| o.to_string()).collect(), took)
}

/// The oracle still works after a hostile pair.
fn still_healthy() {
    let (o, _) = run("def f():\n    return 7\n", &["assert f() == 7"]);
    assert_eq!(o, ["pass"]);
}

#[test]
fn infinite_loop_is_a_proven_hang() {
    // The loop holds the ball for its share of the budget (`PROBE_SHARE`), is killed, and (run
    // again under the cycle detector) is proven never to end; the next test still runs and passes.
    let (o, took) = run(
        "def f():\n    while True:\n        pass\n",
        &["assert f() == 1", "assert True"],
    );
    assert_eq!(o, ["HANG", "pass"]);
    assert!(took >= TIMEOUT.mul_f64(PROBE_SHARE), "{took:?}");
    // A loop that swallows every exception (including timeouts raised inside it) is still killed.
    let (o, _) = run(
        "def f():\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n",
        &["assert f()"],
    );
    assert_eq!(o, ["HANG"]);
    still_healthy();
}

#[test]
fn tests_before_the_timeout_keep_their_outcome() {
    let code = "def f(x):\n    while x:\n        pass\n    return 0\n";
    let (o, _) = run(
        code,
        &[
            "assert f(0) == 0",
            "assert f(0) == 1",
            "assert f(1) == 0",
            "assert f(0) == 0",
        ],
    );
    // Each test has its own budget: the one after the hang is judged on its own.
    assert_eq!(o, ["pass", "FAIL", "HANG", "pass"]);
}

#[test]
fn fork_bomb_is_contained() {
    let code = "import os\ndef f():\n    while True:\n        os.fork()\n";
    let (o, _) = run(code, &["assert f()"]);
    assert_ne!(o[0], "pass");
    assert!(o[0] == "TIMEOUT" || o[0].starts_with("FAIL:"), "{o:?}");
    still_healthy();
}

/// A pair's processes that are killed but not yet dead must not take the next pair's requests:
/// the kernel hands a reader woken by SIGKILL the data already waiting, so a dying process
/// still blocked on the judge's pipe could take the next child's first request (its trivial
/// test then ran out of time). The bombs lower their priority, so their deaths wait for CPU.
#[test]
fn dying_processes_of_a_pair_take_nothing_from_the_next() {
    let code = "import os\ndef f():\n    os.nice(19)\n    while True:\n        os.fork()\n";
    for _ in 0..6 {
        let (o, _) = run(code, &["assert f()"]);
        assert!(o[0] == "TIMEOUT" || o[0].starts_with("FAIL:"), "{o:?}");
        let (o, _) = run(
            "def f():\n    return 7\n",
            &["assert f() == 7", "assert f() != 8"],
        );
        assert_eq!(o, ["pass", "pass"]);
    }
}

#[test]
fn memory_bomb_is_a_memory_error() {
    let (o, _) = run(
        "def f():\n    return len(bytearray(3 * 1024 ** 3))\n",
        &["assert f() > 0"],
    );
    assert_eq!(o, ["FAIL:MemoryError"]);
    let (o, _) = run(
        "x = [0] * (10 ** 10)\ndef f():\n    return 1\n",
        &["assert f() == 1"],
    );
    assert_eq!(o, ["ERROR:MemoryError"]);
    still_healthy();
}

#[test]
fn output_floods_are_swallowed() {
    let code = "def f():\n    for _ in range(50):\n        print('x' * 10 ** 6)\n    return 1\n";
    let (o, _) = run(code, &["assert f() == 1"]);
    assert_eq!(o, ["pass"]);
    let code = "import os\ndef f():\n    while True:\n        os.write(1, b'y' * 65536)\n";
    let (o, _) = run(code, &["assert f()"]);
    assert_eq!(o, ["TIMEOUT"]);
    still_healthy();
}

#[test]
fn host_files_survive() {
    let dir = tempfile::tempdir().unwrap();
    let sentinel = dir.path().join("sentinel.txt");
    std::fs::write(&sentinel, "keep me").unwrap();
    let intruder = dir.path().join("intruder.txt");
    let root_file = format!("/execscope-oracle-probe-{}", std::process::id());
    let code = format!(
        "import os\ndef rm():\n    os.remove({s:?})\n    return 1\ndef put():\n    open({i:?}, 'w').write('x')\n    return 1\n\
         def root():\n    open({r:?}, 'w').write('x')\n    return 1\ndef local():\n    open('here.txt', 'w').write('x')\n    return os.path.exists('here.txt')\n",
        s = sentinel.to_str().unwrap(),
        i = intruder.to_str().unwrap(),
        r = root_file,
    );
    let (o, _) = run(
        &code,
        &[
            "assert rm() == 1",
            "assert put() == 1",
            "assert root() == 1",
            "assert local()",
        ],
    );
    let level = oracle().isolation();
    let confined = level >= IsolationLevel::Bubblewrap || oracle().drops_privileges();
    if confined {
        assert!(o[0].starts_with("FAIL:"), "{o:?}");
        assert!(o[1].starts_with("FAIL:"), "{o:?}");
        // bubblewrap's root is a tmpfs of the sandbox's own: as a plain user a pair may write
        // there, and the host's root stays untouched (checked below).
        assert!(
            o[2].starts_with("FAIL:") || level >= IsolationLevel::Bubblewrap,
            "{o:?}"
        );
        assert_eq!(std::fs::read_to_string(&sentinel).unwrap(), "keep me");
        assert!(!intruder.exists());
        assert!(!std::path::Path::new(&root_file).exists());
    } else {
        // A plain user without bubblewrap: the pair runs as that user and can touch that user's
        // files (at `netns` all but those in the private scratch directories, where this test's
        // temporary directory may be); the oracle must say so by the level it reports.
        eprintln!("file confinement unavailable here: level {level}, outcomes {o:?}");
        assert!(
            matches!(level, IsolationLevel::Rlimits | IsolationLevel::Netns),
            "{level}"
        );
        let _ = std::fs::remove_file(&root_file);
    }
    // Its own work dir is writable at every level.
    assert_eq!(o[3], "pass");
}

#[test]
fn shared_tmp_is_private_above_rlimits() {
    let leak = format!("/tmp/execscope-oracle-leak-{}", std::process::id());
    let code = format!("def f():\n    open({leak:?}, 'w').write('x')\n    return 1\n");
    let (o, _) = run(&code, &["assert f() == 1"]);
    let on_host = std::path::Path::new(&leak).exists();
    let _ = std::fs::remove_file(&leak);
    if oracle().isolation() >= IsolationLevel::Netns {
        // Written to the sandbox's own /tmp, gone with it.
        assert_eq!(o, ["pass"]);
        assert!(
            !on_host,
            "a pair wrote to the host's /tmp at {}",
            oracle().isolation()
        );
    } else {
        eprintln!("/tmp is shared at level rlimits: outcome {o:?}, on host: {on_host}");
        assert_eq!(oracle().isolation(), IsolationLevel::Rlimits);
    }
}

#[test]
fn network_is_cut_above_rlimits() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let code = format!(
        "import socket\ndef f():\n    socket.create_connection(('127.0.0.1', {port}), timeout=1).close()\n    return 1\n"
    );
    let (o, _) = run(&code, &["assert f() == 1"]);
    if oracle().isolation() >= IsolationLevel::Netns {
        assert!(
            o[0].starts_with("FAIL:"),
            "reached the host at {}: {o:?}",
            oracle().isolation()
        );
    } else {
        eprintln!("no network isolation here (level rlimits): {o:?}");
        assert_eq!(o, ["pass"]);
    }
}

#[test]
fn exits_are_outcomes() {
    let (o, _) = run("import sys\nsys.exit(0)\n", &["assert True", "assert True"]);
    assert_eq!(o, ["ERROR:SystemExit", "ERROR:SystemExit"]);
    let (o, _) = run(
        "import sys\ndef f():\n    sys.exit(1)\n",
        &["assert f()", "assert True"],
    );
    assert_eq!(o, ["FAIL:SystemExit", "pass"]);
    // os._exit kills the process running the pair: that test crashes, the next ones still run.
    let (o, _) = run(
        "import os\ndef f(x):\n    if x:\n        os._exit(0)\n    return 1\n",
        &["assert f(0) == 1", "assert f(1) == 1", "assert f(0) == 2"],
    );
    assert_eq!(o, ["pass", "ERROR:ProcessExit", "FAIL"]);
    let (o, _) = run(
        "import os, signal\ndef f():\n    os.kill(os.getpid(), signal.SIGSEGV)\n",
        &["assert f()"],
    );
    assert_eq!(o, ["ERROR:SIGSEGV"]);
    still_healthy();
}

#[test]
fn killing_the_parent_is_survived() {
    let code = "import os\ndef f():\n    os.kill(os.getppid(), 9)\n    return 1\n";
    let (o, _) = run(code, &["assert f() == 1", "assert True"]);
    let level = oracle().isolation();
    let protected = oracle().drops_privileges()
        || matches!(level, IsolationLevel::Netns | IsolationLevel::Userns);
    if protected {
        // Another uid, or the harness is the init of the pair's pid namespace: refused.
        assert_eq!(o, ["FAIL:PermissionError", "pass"], "{level}");
    } else {
        // The pair shares execscope's uid and the harness's pid namespace (a plain user at
        // `rlimits` or `bubblewrap`), so the kill lands. Whether the child's answer reaches
        // the judge before the child dies with the harness is a race (docs/threat-model.md,
        // "same uid"): each test is the truth or records the killed oracle, never anything else.
        for x in &o {
            assert!(
                x == "pass" || x == execscope::oracle::HARNESS_KILLED,
                "{o:?}"
            );
        }
    }
    still_healthy();
    still_healthy();
    // The naive runner survives it too.
    let r = oracle()
        .run_naive(&execscope::oracle::Job::new(
            code,
            vec!["assert f() == 1".to_string()],
        ))
        .unwrap();
    if protected {
        assert_ne!(r.outcomes, [Outcome::Pass]);
    }
}

#[test]
fn deep_recursion_is_a_recursion_error() {
    let (o, _) = run("def f(n):\n    return f(n + 1)\n", &["assert f(0)"]);
    assert_eq!(o, ["FAIL:RecursionError"]);
    still_healthy();
}

#[test]
fn spoofed_results_are_ignored() {
    // The code writes lines that look like the harness's to every fd it can find.
    let code = "import os\ndef f():\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'x 0 [0, \"pass\", null]\\n{\"outcomes\": [\"pass\"], \"observed\": [null], \"wall_ms\": 0}\\n')\n        except OSError:\n            pass\n    return 0\n";
    let (o, _) = run(code, &["assert f() == 1"]);
    assert_eq!(o, ["FAIL"]);
    still_healthy();
}

#[test]
fn a_status_line_in_the_childs_name_is_no_verdict() {
    // The code finds its own child's token and pipe and writes the harness's status line (and a
    // hang proof's) with it: neither may become a verdict, least of all a pass.
    let forge = |line: &str| {
        format!(
            "import gc, os\n\
             def f():\n    \
                 for o in gc.get_objects():\n        \
                     if type(o).__name__ == 'Lines':\n            \
                         os.write(o.wfd, b'\\n' + o.prefix + b'{line}\\n')\n    \
                 return 0\n"
        )
    };
    for line in ["X pass", "X FAIL", "H"] {
        let (o, _) = run(&forge(line), &["assert f() == 1", "assert f() == 1"]);
        assert_eq!(o, ["FAIL", "FAIL"], "{line}");
    }
    still_healthy();
}

#[test]
fn a_full_pipe_to_the_judge_stalls_no_new_child() {
    // The code floods its own pipe to the judge, a page a write: once the test is probed, the
    // judge stops reading that pipe, which fills at once (every page to its end), and waits for
    // a new child; the harness writes the line that ends the old child's output before it forks
    // one. Were the judge deaf to the pipe while it waits, each would wait on the other until
    // execscope gave up (30 s), and the test would be lost as ERROR:OracleKilled.
    let code = "import gc, os\n\
                def f():\n    \
                    fd = next(o.wfd for o in gc.get_objects() if type(o).__name__ == 'Lines')\n    \
                    while True:\n        \
                        os.write(fd, b'y' * 4095 + b'\\n')\n";
    let (o, _) = run(code, &["assert f()", "assert 1 == 1"]);
    assert!(
        matches!(o[0].as_str(), "HANG" | "TIMEOUT"),
        "the flooding test: {o:?}"
    );
    assert_eq!(o[1], "pass", "{o:?}");
    still_healthy();
}
