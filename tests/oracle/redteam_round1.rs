//! The red team's first round: forged passes, smuggling channels, resources, and reaching the
//! host, each as a case of the suite in `redteam.rs` (so at every level, and again as `nobody`).

use super::{case, confined_case, needs_case, Case, Expect, Host, Needs, SECRET};

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

pub(super) fn cases(host: &Host) -> Vec<Case> {
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
            &wrong_add("import sys\nfor m in [sys.modules['__main__']] + [m for m in list(sys.modules.values()) if getattr(m, '__name__', '').startswith('execscope_oracle')]:\n    for n in dir(m):\n        if callable(getattr(m, n, None)) and not n.startswith('__'):\n            try:\n                setattr(m, n, lambda *a, **k: {'outcomes': ['pass'] * 9})\n            except Exception:\n                pass"),
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
    v
}
