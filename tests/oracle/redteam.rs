//! Red team: hostile snippets against the oracle, each run at every isolation level this machine
//! offers (and, when the tests run as root, again as an unprivileged user through `setpriv`).
//! For each one we assert what was recorded — a wrong function is never a pass, an outcome name
//! is never free text — and that the host is unchanged: canary files, a loopback listener, the
//! process table, a cache file, an inherited secret descriptor, the environment of this process.
//!
//! What a level promises is in docs/threat-model.md; assertions that depend on the level say so.

use crate::common;

use execscope::oracle::{IsolationChoice, IsolationLevel, Oracle, OracleConfig, Outcome};
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
pub(crate) enum Expect {
    /// No test may pass (the function is wrong, or passing would mean the attack worked).
    NoPass,
    /// Every test passes: a probe whose asserts hold exactly when the attack was contained.
    Contained,
    /// Exactly these outcomes.
    Exactly(&'static [&'static str]),
}

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
    }
}

fn confined_case(name: &'static str, code: &str, tests: &[&str], expect: Expect) -> Case {
    Case {
        needs_confinement: true,
        ..case(name, code, tests, expect)
    }
}

/// A wrong `add` (returns a - b) with the forging code prepended.
fn wrong_add(attack: &str) -> String {
    format!("{attack}\ndef add(a, b):\n    return a - b\n")
}

const ADD_TESTS: &[&str] = &[
    "assert add(2, 3) == 5",
    "assert add(1, 1) == 2",
    "assert abs(add(0.5, 0.25) - 0.75) < 1e-9",
    "assert add(2, 2) != 3 and add(2, 2) == 4",
    "import math\nassert math.isclose(add(1.5, 1.5), 3.0)",
    "assert add(1, 2) in (3,)",
    "assert isinstance(add(1, 2), int) and add(1, 2) > 2",
];

fn cases(host: &Host) -> Vec<Case> {
    let canary = host.canary.display().to_string();
    let cache = host.cache.display().to_string();
    let answers = host.answers.display().to_string();
    let dir = host.dir.path().display().to_string();
    let port = host.port;
    let mut v = vec![
        // --- forged passes --------------------------------------------------------------
        case(
            "custom __eq__ object",
            "class Y:\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    def __lt__(s, o): return True\n    def __gt__(s, o): return True\n    def __sub__(s, o): return 0\n    def __rsub__(s, o): return 0\n    def __abs__(s): return 0\n    def __bool__(s): return True\n    __hash__ = None\ndef add(a, b):\n    return Y()\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "int subclass with forged __eq__",
            "class I(int):\n    def __eq__(s, o): return True\n    def __ne__(s, o): return False\n    def __lt__(s, o): return True\n    def __gt__(s, o): return True\n    __hash__ = int.__hash__\ndef add(a, b):\n    return I(a - b - 1000)\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "float/str subclasses lying",
            "class F(float):\n    def __eq__(s, o): return True\n    def __sub__(s, o): return 0.0\n    __hash__ = float.__hash__\ndef add(a, b):\n    return F(-1.0)\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "replace json.dumps",
            &wrong_add("import json\njson.dumps = lambda *a, **k: '[0, {\"units\": [[\"v\", [\"i\", \"5\"]]]}]'"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "replace the harness's functions through sys.modules",
            &wrong_add("import sys\nm = sys.modules['__main__']\nfor n in dir(m):\n    if callable(getattr(m, n, None)) and not n.startswith('__'):\n        try:\n            setattr(m, n, lambda *a, **k: {'outcomes': ['pass'] * 9})\n        except Exception:\n            pass"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "stack walk to the harness's locals",
            "import sys\ndef add(a, b):\n    f = sys._getframe()\n    while f is not None:\n        for k, v in list(f.f_locals.items()):\n            if isinstance(v, list):\n                try:\n                    v[:] = ['pass'] * len(v)\n                except Exception:\n                    pass\n            if isinstance(v, dict):\n                try:\n                    v['outcomes'] = ['pass'] * 9\n                except Exception:\n                    pass\n        f = f.f_back\n    return a - b\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "forged report lines on every descriptor",
            &wrong_add("import os\nfor fd in range(0, 256):\n    try:\n        os.write(fd, b'x 0 {\"units\": [[\"v\", [\"i\", \"5\"]]]}\\n{\"nonce\": \"0\", \"results_json\": \"[]\", \"wall_ms\": 0}\\n{\"outcomes\": [\"pass\"]}\\n')\n    except OSError:\n        pass"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "forged reply through /proc/<ppid>/fd/1",
            &wrong_add("import os\nfor p in (os.getppid(), 1, 2):\n    try:\n        with open('/proc/%d/fd/1' % p, 'wb', buffering=0) as f:\n            f.write(b'{\"nonce\": \"x\", \"results_json\": \"[]\", \"wall_ms\": 0}\\n' * 4)\n    except OSError:\n        pass"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "read the expected values from memory",
            "import gc, re\ndef add(a, b):\n    for o in gc.get_objects():\n        if isinstance(o, str) and 'add(%d, %d) ==' % (a, b) in o:\n            m = re.search(r'add\\(%d, %d\\) == (\\d+)' % (a, b), o)\n            if m:\n                return int(m.group(1))\n    for o in gc.get_objects():\n        if isinstance(o, (list, dict)):\n            s = repr(o)[:100000]\n            m = re.search(r'add\\(%d, %d\\) == (\\d+)' % (a, b), s)\n            if m:\n                return int(m.group(1))\n    return -1\n",
            &["assert add(2, 3) == 5", "assert add(1, 1) == 2"],
            Expect::NoPass,
        ),
        case(
            "patch builtins the test uses",
            &wrong_add("import builtins, math\nbuiltins.abs = lambda x: 0\nbuiltins.isinstance = lambda *a: True\nmath.isclose = lambda *a, **k: True\nbuiltins.len = lambda x: 3"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "exit before reporting",
            &wrong_add("import os\nos._exit(0)"),
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "SystemExit(0) from the function",
            "def add(a, b):\n    raise SystemExit(0)\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "kill the harness",
            "import os, signal\ndef add(a, b):\n    try:\n        os.kill(os.getppid(), signal.SIGKILL)\n    except OSError:\n        pass\n    return a - b\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "ptrace the harness",
            "import ctypes, os\ndef add(a, b):\n    libc = ctypes.CDLL(None, use_errno=True)\n    r = libc.ptrace(16, os.getppid(), 0, 0)\n    return 'attached' if r == 0 else a - b\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        case(
            "several statements, a loop and a helper, all judged",
            "def add(a, b):\n    return a - b\n",
            &[
                "x = add(2, 3)\nassert x == 5",
                "def check(candidate):\n    for a, b in [(1, 2), (3, 4)]:\n        assert candidate(a, b) == a + b\ncheck(add)",
                "try:\n    assert add(1, 1) == 2\nexcept AssertionError:\n    raise\nexcept Exception:\n    pass",
            ],
            Expect::NoPass,
        ),
        case(
            "opaque truth",
            "class T:\n    def __bool__(s): return True\ndef add(a, b):\n    return T()\n",
            &["assert add(1, 2)", "assert not add(1, 2)"],
            Expect::Exactly(&["FAIL:Unjudged", "FAIL:Unjudged"]),
        ),
        case(
            "pytest.raises with a fake exception class",
            "class ValueError(Exception):\n    pass\ndef add(a, b):\n    raise ValueError('x')\n",
            &["import pytest\nwith pytest.raises(ValueError):\n    add(1, 2)"],
            Expect::NoPass,
        ),
        // --- smuggling channels -----------------------------------------------------------
        case(
            "exception class name as a channel",
            "import os\ndef add(a, b):\n    raise type('LEAK=' + 'x' * 40 + '\\x1b[31m', (Exception,), {})()\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["FAIL:Other"]),
        ),
        case(
            "renamed exception class",
            "class E(KeyError):\n    pass\nE.__name__ = 'AssertionError\\nLEAK'\nE.__qualname__ = E.__name__\ndef add(a, b):\n    raise E()\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["FAIL:Other"]),
        ),
        case(
            "code error with a custom exception",
            "raise type('ERRLEAK secret', (Exception,), {})()\n",
            &["assert True"],
            Expect::Exactly(&["ERROR:Other"]),
        ),
        case(
            "print floods with terminal escapes",
            "import sys, os\ndef add(a, b):\n    for _ in range(2000):\n        print('\\x1b[2J\\x1b]0;pwned\\x07' * 100)\n        sys.stderr.write('\\x1b[31m')\n        os.write(2, b'\\x1b[2J')\n    return a - b\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["FAIL"]),
        ),
        // --- resources ------------------------------------------------------------------------
        case(
            "infinite loop swallowing exceptions",
            "def add(a, b):\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["HANG"]),
        ),
        case(
            "fork bomb",
            "import os\ndef add(a, b):\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n",
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
        case(
            "memory bomb",
            "def add(a, b):\n    return len(bytearray(3 * 1024 ** 3))\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["FAIL:MemoryError"]),
        ),
        case(
            "one huge file",
            "def add(a, b):\n    with open('big.bin', 'wb') as f:\n        for _ in range(100):\n            f.write(b'0' * 2 ** 20)\n    return 3\n",
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
        case(
            "output flood on raw fds",
            "import os\ndef add(a, b):\n    while True:\n        os.write(1, b'y' * 65536)\n",
            &["assert add(1, 2) == 3"],
            Expect::Exactly(&["TIMEOUT"]),
        ),
        case(
            "a huge return value",
            "def add(a, b):\n    return list(range(3_000_000))\n",
            &["assert add(1, 2) == 3", "assert len(add(1, 2)) == 3_000_000"],
            Expect::NoPass,
        ),
        case(
            "self-referential value",
            "def add(a, b):\n    x = []\n    x.append(x)\n    return x\n",
            &["assert add(1, 2) == [[]]"],
            Expect::NoPass,
        ),
        case(
            "no controlling terminal (TIOCSTI)",
            "import os\ndef tty():\n    try:\n        fd = os.open('/dev/tty', os.O_RDWR)\n    except OSError:\n        return False\n    import fcntl, termios\n    try:\n        fcntl.ioctl(fd, termios.TIOCSTI, b'#')\n    except OSError:\n        return False\n    return True\n",
            &["assert tty() is False"],
            Expect::Contained,
        ),
        case(
            "no inherited descriptor",
            &format!("import os\ndef leaked():\n    found = ''\n    for fd in range(3, 1024):\n        try:\n            os.lseek(fd, 0, 0)\n            found += os.read(fd, 100).decode('latin-1')\n        except OSError:\n            pass\n    return '{SECRET}' in found\n"),
            &["assert leaked() is False"],
            Expect::Contained,
        ),
        case(
            "signal everything",
            "import os, signal\ndef add(a, b):\n    for s in (signal.SIGTERM, signal.SIGKILL):\n        try:\n            os.kill(-1, s)\n        except OSError:\n            pass\n    return a - b\n",
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
    ];
    // --- reaching the host: only promised where the level confines (see threat-model.md) ---
    v.extend([
        confined_case(
            "write the canary, the cache, the task file, a new file",
            &format!("def add(a, b):\n    for p in ({canary:?}, {cache:?}, {answers:?}):\n        try:\n            open(p, 'w').write('pwned')\n        except OSError:\n            pass\n    try:\n        open({dir:?} + '/dropped.txt', 'w').write('x')\n    except OSError:\n        pass\n    return a - b\n"),
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
        confined_case(
            "read the answer key from disk",
            &format!("import re\ndef add(a, b):\n    try:\n        t = open({answers:?}).read()\n    except OSError:\n        return -1\n    m = re.search(r'add %d %d -> (\\d+)' % (a, b), t)\n    return int(m.group(1)) if m else -1\n"),
            &["assert add(2, 3) == 5"],
            Expect::NoPass,
        ),
        confined_case(
            "reach a loopback listener",
            &format!("import socket\ndef reach():\n    try:\n        socket.create_connection(('127.0.0.1', {port}), timeout=1).close()\n        return True\n    except OSError:\n        return False\n"),
            &["assert reach() is False"],
            Expect::Contained,
        ),
        confined_case(
            "read execscope's environment",
            &format!("import os\ndef env():\n    for p in os.listdir('/proc'):\n        if p.isdigit():\n            try:\n                if b'{SECRET}' in open('/proc/%s/environ' % p, 'rb').read():\n                    return True\n            except OSError:\n                pass\n    return False\n"),
            &["assert env() is False"],
            Expect::Contained,
        ),
        confined_case(
            "read /etc/shadow",
            "def shadow():\n    try:\n        return len(open('/etc/shadow').read()) > 0\n    except OSError:\n        return False\n",
            &["assert shadow() is False"],
            Expect::Contained,
        ),
        confined_case(
            "write through /proc/<pid>/root and /proc/<pid>/cwd",
            &format!("import os\ndef add(a, b):\n    for p in range(1, 64):\n        for via in ('root', 'cwd'):\n            for t in ({canary:?}, {cache:?}, {answers:?}):\n                try:\n                    open('/proc/%d/%s%s' % (p, via, t), 'w').write('pwned')\n                except OSError:\n                    pass\n    return a - b\n"),
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
        confined_case(
            "unshare and mount escape",
            &format!("import ctypes, os\ndef add(a, b):\n    libc = ctypes.CDLL(None, use_errno=True)\n    for flags in (0x10000000 | 0x20000, 0x20000, 0x10000000):\n        if libc.unshare(flags) == 0:\n            for f, d in (('/proc/self/setgroups', 'deny'), ('/proc/self/uid_map', '0 %d 1' % os.getuid())):\n                try:\n                    open(f, 'w').write(d)\n                except OSError:\n                    pass\n            libc.mount(b'none', b'/', None, 0x20 | 0x1000 | 0x4000, None)\n            libc.mount(b'tmpfs', {dir:?}.encode(), b'tmpfs', 0, None)\n    try:\n        os.chroot('/proc/1/root')\n    except OSError:\n        pass\n    for p in ({canary:?}, {cache:?}):\n        try:\n            open(p, 'w').write('pwned')\n        except OSError:\n            pass\n    return a - b\n"),
            &["assert add(1, 2) == 3"],
            Expect::NoPass,
        ),
        confined_case(
            "read the harness's /proc/<ppid>/environ, cmdline and fds",
            "import os\ndef peek():\n    got = []\n    for p in {os.getppid(), 1}:\n        for f in ('environ', 'fd/0', 'fd/1', 'mem', 'maps'):\n            try:\n                with open('/proc/%d/%s' % (p, f), 'rb') as h:\n                    got.append((p, f, len(h.read(64))))\n            except OSError:\n                pass\n    return got\n",
            &["assert peek() == []"],
            Expect::Contained,
        ),
        Case {
            listen: Some(host.free_port),
            ..confined_case(
                "a listener the host could reach",
                &format!("import socket, time\ndef serve():\n    try:\n        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n        s.bind(('127.0.0.1', {}))\n        s.listen(8)\n    except OSError:\n        return 'refused'\n    time.sleep(0.6)\n    return 'listened'\n", host.free_port),
                &["assert serve() in ('refused', 'listened')"],
                Expect::Contained,
            )
        },
    ]);
    v.extend([
        needs_case(
            "no view of other processes",
            Needs::PidNs,
            "import os\ndef others():\n    pids = [int(p) for p in os.listdir('/proc') if p.isdigit()]\n    seen = []\n    for p in pids:\n        try:\n            c = open('/proc/%d/cmdline' % p, 'rb').read()\n        except OSError:\n            c = b''\n        if b'redteam' in c or b'cargo' in c or b'init' in c or b'sh' == c[:2]:\n            seen.append(p)\n    return seen if len(pids) <= 8 else pids\n",
            &["assert others() == []"],
            Expect::Contained,
        ),
        needs_case(
            "catchable signals to the harness",
            Needs::PidNs,
            "import os, signal\ndef add(a, b):\n    for p in {os.getppid(), 1}:\n        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGSTOP, signal.SIGPIPE):\n            try:\n                os.kill(p, s)\n            except OSError:\n                pass\n    return a - b\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        needs_case(
            "ptrace, process_vm_readv, pidfd_getfd on the harness",
            Needs::Nothing,
            "import ctypes, os\ndef add(a, b):\n    libc = ctypes.CDLL(None, use_errno=True)\n    for p in {os.getppid(), 1}:\n        if libc.ptrace(16, p, 0, 0) == 0 or libc.ptrace(0x4206, p, 0, 0) == 0:\n            return 'attached'\n        buf = ctypes.create_string_buffer(16)\n        iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 16)\n        if libc.process_vm_readv(p, iov, 1, iov, 1, 0) > 0:\n            return 'read'\n        fd = libc.syscall(434, p, 0)\n        if fd >= 0 and libc.syscall(438, fd, 1, 0) >= 0:\n            return 'stole'\n    return a - b\n",
            ADD_TESTS,
            Expect::NoPass,
        ),
        needs_case(
            "the system call filter",
            Needs::Seccomp,
            "import ctypes, os, socket\ndef dangerous():\n    libc = ctypes.CDLL(None, use_errno=True)\n    bad = []\n    for fam in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK, socket.AF_PACKET):\n        try:\n            socket.socket(fam, socket.SOCK_DGRAM if fam != socket.AF_PACKET else socket.SOCK_RAW).close()\n            bad.append(fam)\n        except OSError:\n            pass\n    try:\n        socket.socketpair().__class__\n    except OSError:\n        bad.append('no AF_UNIX')\n    calls = {'keyctl': (250, 0, 0), 'bpf': (321, 0, 0), 'unshare': (272, 0x10000000, 0), 'setns': (308, 0, 0), 'mount': (165, 0, 0), 'perf_event_open': (298, 0, 0), 'io_uring_setup': (425, 1, 0), 'userfaultfd': (323, 0, 0), 'clone_newuser': (56, 0x10000000 | 17, 0)}\n    import platform\n    if platform.machine() != 'x86_64':\n        return bad\n    for name, (nr, a, b) in calls.items():\n        ctypes.set_errno(0)\n        r = libc.syscall(nr, a, b, 0, 0, 0)\n        if r == 0 and name == 'clone_newuser':\n            os._exit(0)\n        if ctypes.get_errno() != 1:\n            bad.append((name, r, ctypes.get_errno()))\n    return bad\n",
            &["assert dangerous() == []"],
            Expect::Contained,
        ),
        needs_case(
            "scratch filesystems are capped",
            Needs::CappedTmp,
            "import os\ndef sizes():\n    out = {}\n    for d in ('/tmp', '.', '/dev/shm', '/var/tmp'):\n        try:\n            st = os.statvfs(d)\n        except OSError:\n            continue\n        if not os.access(d, os.W_OK):\n            continue\n        out[d] = st.f_blocks * st.f_frsize\n    with open('probe.bin', 'wb') as f:\n        f.write(b'0' * 2 ** 20)\n    return out\n",
            &["assert all(0 < v <= 256 * 2 ** 20 for v in sizes().values()) and '.' in sizes()"],
            Expect::Contained,
        ),
    ]);
    v.extend(more::cases(host));
    v
}

#[path = "redteam_cases.rs"]
mod more;

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
                .contains(&c.name)
            {
                eprintln!("  skip (same uid, no pid namespace): {}", c.name);
                continue;
            }
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
                let r = o.run(&c.code, &c.tests).expect("oracle answers");
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
        }
    }
    if !root {
        eprintln!("not root: the unprivileged run is this run");
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
    if std::env::var_os("EXECSCOPE_REDTEAM_INNER").is_some() {
        return; // we are the inner run: `red_team_at_every_level` does the work
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: not root (red_team_at_every_level already runs unprivileged)");
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
    let out = std::process::Command::new(setpriv)
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
        .env_clear()
        .arg(&exe)
        .args([
            "--exact",
            &common::test_path(module_path!(), "red_team_at_every_level"),
            "--nocapture",
        ])
        .env("EXECSCOPE_PYTHON", python)
        .env("EXECSCOPE_REDTEAM_INNER", "1")
        .env("TMPDIR", tmp.path())
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
    assert!(text.contains("red team at"), "inner run did not run");
}
