# execscope execution harness (Python stdlib only; embedded in the execscope binary).
#
# Usage: python3 -I harness.py (--server | --once) CONFIG_JSON
#   CONFIG_JSON: {"uid": <sandbox uid or -1>, "tmp": <dir for per-pair work dirs>}
#
# Protocol on stdin/stdout (one JSON object per line):
#   harness -> host   {"ready": true, "python": "3.11.7", "uid": <uid or -1>}
#   host -> harness   {"code": str, "tests": [str], "timeout": float, "mem": int}
#   harness -> host   {"outcomes": [str], "observed": [str|null], "wall_ms": int}
# `--once` answers one request and exits (the naive runner); `--server` loops until EOF.
#
# Each (code, tests) pair runs in a forked child: own process group, rlimits, fresh work dir,
# unprivileged uid when the harness runs as root, stdio on /dev/null. The child streams one line
# per test over a private pipe, tagged with a per-fork nonce and checked against its pid, so text
# the code prints (or a process it forks) cannot pass for a result. A child that dies mid-suite
# is replaced by a fresh one that resumes at the next test, so each test's outcome is its own.

import ast
import builtins
import io
import json
import math
import os
import resource
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time

PRELOAD = (
    "math cmath re collections collections.abc itertools functools heapq bisect string datetime "
    "calendar typing operator statistics fractions decimal random copy json hashlib array struct "
    "numbers enum dataclasses textwrap unicodedata ipaddress base64 binascii zlib difflib pprint "
    "abc contextlib io csv uuid urllib.parse time queue types weakref ctypes reprlib"
).split()

OBS_NAME = "__execscope_observed__"
OBS_MAX = 200
SINK_MAX = 1 << 16


def exc_name(e):
    return type(e).__name__


class CappedSink:
    """Stands in for sys.stdout/stderr of the code: keeps at most SINK_MAX chars, drops the rest."""

    def __init__(self):
        self.n = 0

    def write(self, s):
        self.n = min(SINK_MAX, self.n + len(s))
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return False


class _Raises:
    def __init__(self, exc, match=None):
        self.exc = exc
        self.match = match
        self.value = None

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is None:
            raise AssertionError("DID NOT RAISE {}".format(self.exc))
        if not issubclass(et, self.exc):
            return False
        if self.match is not None:
            import re

            if not re.search(self.match, str(ev)):
                raise AssertionError("pattern {!r} not found in {!r}".format(self.match, str(ev)))
        self.value = ev
        return True


class _Approx:
    def __init__(self, expected, rel=1e-6, abs=1e-12):
        self.expected, self.rel, self.abs = expected, rel, abs

    def _close(self, a, b):
        return a == b or builtins.abs(a - b) <= max(self.rel * builtins.abs(b), self.abs)

    def __eq__(self, other):
        e = self.expected
        if isinstance(e, (list, tuple)):
            return len(other) == len(e) and all(self._close(a, b) for a, b in zip(other, e))
        return self._close(other, e)

    def __repr__(self):
        return "approx({!r})".format(self.expected)


def pytest_shim():
    import types

    m = types.ModuleType("pytest")
    m.raises = _Raises
    m.approx = _Approx
    return m


def safe_repr(v):
    try:
        r = repr(v)
    except BaseException as e:  # noqa: B902 - a hostile __repr__ may raise anything
        return "<repr failed: {}>".format(exc_name(e))
    return r[:OBS_MAX]


def run_test(code_obj, code_err, test):
    """One test in a fresh namespace: (outcome, observed)."""
    if code_err is not None:
        return "ERROR:" + code_err, None
    ns = {}
    try:
        exec(code_obj, ns)
    except BaseException as e:
        return "ERROR:" + exc_name(e), None
    try:
        tree = ast.parse(test)
    except BaseException as e:
        return "FAIL:" + exc_name(e), None
    observed = None
    try:
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert):
            node = tree.body[0]
            target = node.test.left if isinstance(node.test, ast.Compare) else node.test
            value = eval(compile(ast.Expression(target), "<test>", "eval"), ns)
            observed = safe_repr(value)
            ns[OBS_NAME] = value
            name = ast.copy_location(ast.Name(id=OBS_NAME, ctx=ast.Load()), target)
            if isinstance(node.test, ast.Compare):
                node.test.left = name
            else:
                node.test = name
            exec(compile(ast.fix_missing_locations(tree), "<test>", "exec"), ns)
        else:
            exec(compile(tree, "<test>", "exec"), ns)
    except AssertionError:
        return "FAIL", observed
    except BaseException as e:
        return "FAIL:" + exc_name(e), observed
    return "pass", observed


def child_main(wfd, nonce, code, tests, start, timeout, mem, uid, readcap, workdir):
    mypid = os.getpid()
    prefix = (nonce + " ").encode()

    def report(i, outcome, observed):
        if os.getpid() != mypid:  # a process the code forked never reports
            os._exit(0)
        line = prefix + json.dumps([i, outcome, observed]).encode() + b"\n"
        os.write(wfd, line)

    try:
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the harness
    except BaseException:
        pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    os.chdir(workdir)
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir})
    tempfile.tempdir = workdir
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes raise instead of killing
    cpu = int(math.ceil(timeout)) + 1
    limits = [
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_CPU, cpu),
        (resource.RLIMIT_NOFILE, 64),
        (resource.RLIMIT_FSIZE, 10 * 1024 * 1024),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, 32),
    ]
    for which, lim in limits:
        resource.setrlimit(which, (lim, lim))
    if uid >= 0:
        drop_privileges(uid, readcap)
    sys.stdout = sys.stderr = CappedSink()
    sys.stdin = io.StringIO("")  # input() raises EOFError, as with stdin on /dev/null
    sys.modules["pytest"] = pytest_shim()
    code_obj, code_err = None, None
    try:
        code_obj = compile(code, "<code>", "exec")
    except BaseException as e:
        code_err = exc_name(e)
    for i in range(start, len(tests)):
        outcome, observed = run_test(code_obj, code_err, tests[i])
        report(i, outcome, observed)


def drop_privileges(uid, readcap):
    """Become `uid`; with `readcap`, keep only CAP_DAC_READ_SEARCH (read any file, write none) so
    an interpreter installed under a private home (/root) can still import its stdlib."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS: no setuid-binary escalation
    if readcap:
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS across setuid
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    if readcap:

        class Hdr(ctypes.Structure):
            _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

        class Data(ctypes.Structure):
            _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

        data = (Data * 2)()
        data[0].effective = data[0].permitted = 1 << 2  # CAP_DAC_READ_SEARCH
        if libc.capset(ctypes.byref(Hdr(0x20080522, 0)), data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
        libc.prctl(8, 0, 0, 0, 0)


def uid_mode(uid):
    """How pairs can run as `uid` while still reading the interpreter's stdlib: "plain" (it is
    world-readable), "readcap" (it sits under a private home such as /root and no sandbox
    re-binds it), or None (privileges cannot be dropped here)."""
    import sysconfig

    paths = [sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]]
    paths.append(os.path.join(paths[1], "lib-dynload"))
    paths = [p for p in paths if os.path.isdir(p)]  # checked with our own rights
    for readcap in (False, True):
        pid = os.fork()
        if pid == 0:
            ok = False
            try:
                drop_privileges(uid, readcap)
                ok = all(os.listdir(p) is not None for p in paths)
                ok = ok and not os.access("/etc", os.W_OK)
            except BaseException:
                ok = False
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
            return "readcap" if readcap else "plain"
    return None


class Harness:
    def __init__(self, uid, tmp, readcap):
        self.uid = uid
        self.tmp = tmp
        self.readcap = readcap
        try:
            import ctypes

            ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans come back here
        except BaseException:
            pass

    def sweep(self, pgid):
        """Kill the child's group and, when a sandbox uid is in use, every process of that uid
        (grandchildren that left the group), then reap whatever was reparented to us."""
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        if self.uid >= 0:
            pid = os.fork()
            if pid == 0:
                try:
                    os.setgid(self.uid)
                    os.setuid(self.uid)
                    os.kill(-1, signal.SIGKILL)
                finally:
                    os._exit(0)
            os.waitpid(pid, 0)
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break

    def run_child(self, code, tests, start, deadline, timeout, mem, outcomes, observed):
        """Run tests[start:] in one child; returns (next unreported index, status) where status
        is "done", "timeout", or the crash outcome of the test that was running."""
        r, w = os.pipe()
        nonce = secrets.token_hex(16)
        workdir = tempfile.mkdtemp(prefix="pair-", dir=self.tmp)
        if self.uid >= 0:
            os.chown(workdir, self.uid, self.uid)
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                child_main(w, nonce, code, tests, start, timeout, mem, self.uid, self.readcap, workdir)
            finally:
                os._exit(0)
        os.close(w)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        prefix = (nonce + " ").encode()
        nxt, buf, timed_out = start, b"", False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 65536)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.startswith(prefix):
                    continue
                try:
                    i, out, obs = json.loads(line[len(prefix):])
                except ValueError:
                    continue
                if i == nxt and isinstance(out, str):
                    outcomes[i] = out
                    observed[i] = obs if isinstance(obs, str) else None
                    nxt += 1
        os.close(r)
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        status = 0
        try:
            _, status = os.waitpid(pid, 0)  # before sweep() reaps anything
        except ChildProcessError:
            pass
        self.sweep(pid)
        shutil.rmtree(workdir, ignore_errors=True)
        if nxt >= len(tests):
            return nxt, "done"
        if timed_out:
            return nxt, "timeout"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig in (signal.SIGXCPU, signal.SIGKILL) and time.monotonic() >= deadline - 0.05:
                return nxt, "timeout"
            if sig == signal.SIGXCPU:
                return nxt, "timeout"
            return nxt, "ERROR:" + signal.Signals(sig).name
        return nxt, "ERROR:ProcessExit"

    def handle(self, req):
        t0 = time.monotonic()
        code, tests = req["code"], req["tests"]
        timeout, mem = float(req["timeout"]), int(req["mem"])
        n = len(tests)
        outcomes, observed = [None] * n, [None] * n
        deadline = t0 + timeout
        start = 0
        while start < n:
            if time.monotonic() >= deadline:
                break
            nxt, status = self.run_child(code, tests, start, deadline, timeout, mem, outcomes, observed)
            if status in ("done", "timeout"):
                break
            outcomes[nxt] = status
            start = nxt + 1
        outcomes = [o if o is not None else "TIMEOUT" for o in outcomes]
        wall_ms = int((time.monotonic() - t0) * 1000)
        return {"outcomes": outcomes, "observed": observed, "wall_ms": wall_ms}


def main():
    mode = sys.argv[1]
    cfg = json.loads(sys.argv[2])
    try:  # the harness source arrived as an inherited fd: the code must not get it
        os.close(int(cfg.get("close_fd", -1)))
    except OSError:
        pass
    for name in PRELOAD if mode == "--server" else ():  # a server's children start warm
        try:
            __import__(name)
        except BaseException:
            pass
    os.makedirs(cfg["tmp"], exist_ok=True)
    uid = int(cfg["uid"])
    mode_uid = uid_mode(uid) if uid >= 0 else None
    h = Harness(uid if mode_uid else -1, cfg["tmp"], mode_uid == "readcap")
    out = os.fdopen(1, "wb", buffering=0)

    def send(obj):
        out.write(json.dumps(obj).encode() + b"\n")

    send({"ready": True, "python": sys.version.split()[0], "uid": h.uid, "readcap": h.readcap})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            resp = h.handle(json.loads(line))
        except Exception as e:  # a malformed request: answer, never die
            resp = {"error": "{}: {}".format(exc_name(e), e)}
        send(resp)
        if mode == "--once":
            break


if __name__ == "__main__":
    main()
