# execscope execution harness (Python stdlib only; embedded in the execscope binary after
# codec.py, excs.py, peer.py, proxy.py, engine.py, pytest_shim.py, detector.py and sandbox.py).
#
# Usage: python3 -s -P /dev/fd/3 (--server | --once) CONFIG_JSON   (PYTHONHASHSEED fixed)
#   CONFIG_JSON: {"uid": <sandbox uid or -1>, "tmp": <dir for per-pair work dirs>,
#                 "wipe": [dirs emptied after each pair], "close_fd": 3}
#
# The server half inside the sandbox: it runs no code itself. Per pair it forks a child that runs
# the code (sandbox.py) and relays, line by line, between that child and execscope, which relays
# to the judge. Each test has its own wall budget, enforced here while the child holds the ball;
# a child that dies, floods, or runs past the budget is replaced by a fresh one for the next test.
# Lines from execscope (every line this harness writes during a pair starts with its nonce):
#   "P " {"nonce", "code", "mem", "n", "main"}   a pair begins (its child is forked on demand)
#   "T " {"i", "budget", "detect"}   test i starts: the child executes the code -> "N " names
#   "C " json                        a message of the judge for the child -> "R " json (its answer)
#   "K"                              drop the child (the judge ran out of time)
#   "Q " {"tests", "entry", "supply", "budget"}  a self-test run: a second, separate child runs
#                                    the self-tests against the code's child -> "V " verdict
#   "E"                              the pair is over -> "D " {"wall_ms"}
# Statuses: "X TIMEOUT" | "X HANG" | "X ERROR:<SIGNAL>" | "X ERROR:ProcessExit" | "X ERROR:OutputLimit"

import json as _json_mod
import select
import shutil
import time

PRELOAD = (
    "math cmath re collections collections.abc itertools functools heapq bisect string datetime "
    "calendar typing operator statistics fractions decimal random copy json hashlib array struct "
    "numbers enum dataclasses textwrap unicodedata ipaddress base64 binascii zlib difflib pprint "
    "abc contextlib io csv uuid urllib.parse time queue types weakref ctypes reprlib"
).split()
LINE_MAX = 64 << 20


class Child:
    """A forked pair child and the two pipes to it."""

    def __init__(self, pid, rfd, wfd, workdir):
        self.pid, self.rfd, self.wfd, self.workdir, self.buf = pid, rfd, wfd, workdir, b""


class Gone(Exception):
    """The child can answer no more: `status` says why (the test's outcome)."""

    def __init__(self, status):
        self.status = status


def children_of(ppid):
    """Pids whose parent is `ppid` (from /proc)."""
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for n in names:
        if not n.isdigit():
            continue
        try:
            with open("/proc/" + n + "/stat", "rb") as f:
                stat = f.read()
            fields = stat[stat.rindex(b")") + 2 :].split()
            if int(fields[1]) == ppid:
                out.append(int(n))
        except (OSError, ValueError, IndexError):
            pass
    return out


def close_fds_except(*keep):
    """Closes every descriptor above 2 but `keep` (nothing the harness holds reaches a pair)."""
    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 1024)
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


class Harness:
    def __init__(self, uid, tmp, readcap, wipe):
        self.uid, self.tmp, self.readcap, self.wipe = uid, tmp, readcap, wipe
        self.inbuf = b""
        self.child = None
        self.pair = None
        self.deadline = 0.0
        self.detecting = False
        self.ended = set()
        try:
            import ctypes

            ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans come back here
        except BaseException:
            pass

    # -- execscope's side ---------------------------------------------------------------------
    def host_line(self):
        while b"\n" not in self.inbuf:
            chunk = os.read(0, 1 << 20)
            if not chunk:
                raise EOFError()
            self.inbuf += chunk
        line, self.inbuf = self.inbuf.split(b"\n", 1)
        return line

    def say(self, data):
        nonce = self.pair["nonce"].encode() if self.pair else b"-"
        view = memoryview(nonce + b" " + data + b"\n")
        while view:
            view = view[os.write(1, view) :]

    # -- children -----------------------------------------------------------------------------
    def fork_child(self, role, detect=False):
        """A confined child: the code's (`role` "code") or the self-tests' ("tester")."""
        p = self.pair
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        workdir = tempfile.mkdtemp(prefix="pair-", dir=self.tmp)
        uid = self.uid
        if uid >= 0 and role == "tester":
            uid += 512  # never the uid of the code it tests
        if uid >= 0:
            os.chown(workdir, uid, uid)
        n_left = max(1, p["n"] - p.get("done", 0))
        cpu = int(math.ceil(p["budget"] * (1 if detect else n_left))) + 1
        pid = os.fork()
        if pid == 0:
            try:
                close_fds_except(to_r, from_w)
                confine(workdir, cpu, p["mem"], uid, self.readcap)
                lines = Lines(to_r, from_w)
                if role == "tester":
                    tester_child(lines, p)
                else:
                    det = None
                    if detect:
                        def hang():
                            sys.settrace(None)
                            sys.setprofile(None)
                            lines.write(b"H\n")
                            os._exit(0)

                        det = Detector(hang, lambda: os._exit(0))
                    pair_child(lines, p["code"], p.get("main", False), det)
            finally:
                os._exit(0)
        os.close(to_r)
        os.close(from_w)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        return Child(pid, from_r, to_w, workdir)

    def end_child(self, c):
        """Kills a child's process group and everything it left; its wait status."""
        self.ended.add(c.pid)
        for fd in (c.rfd, c.wfd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(c.pid, signal.SIGKILL)
        except OSError:
            pass
        status = 0
        try:
            _, status = os.waitpid(c.pid, 0)
        except ChildProcessError:
            pass
        self.sweep(c.pid)
        shutil.rmtree(c.workdir, ignore_errors=True)
        return status

    def sweep(self, pgid):
        """Kill the child's group and, when a sandbox uid is in use, every process of those uids
        (grandchildren that left the group); then every process reparented to us (we are a
        child subreaper, so a double-forked daemon that left the group ends up here), and reap."""
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        if self.uid >= 0:
            for uid in (self.uid, self.uid + 512):
                pid = os.fork()
                if pid == 0:
                    try:
                        os.setgid(uid)
                        os.setuid(uid)
                        os.kill(-1, signal.SIGKILL)
                    finally:
                        os._exit(0)
                os.waitpid(pid, 0)
        me = os.getpid()
        for _ in range(50):
            orphans = children_of(me)
            for pid in orphans:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            while True:
                try:
                    pid, _ = os.waitpid(-1, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid == 0:
                    break
            if not orphans:
                break

    def drop(self, why_status=None):
        """Ends the current child; the status its end gives a test (None: no status)."""
        c, self.child = self.child, None
        if c is None:
            return why_status
        st = self.end_child(c)
        if why_status is not None:
            return why_status
        if self.detecting:
            return "TIMEOUT"
        if os.WIFSIGNALED(st):
            sig = os.WTERMSIG(st)
            if sig == signal.SIGXCPU:
                return "TIMEOUT"
            return "ERROR:" + signal.Signals(sig).name
        return "ERROR:ProcessExit"

    def child_line(self, c):
        """The child's next line before the test's deadline (raises Gone with the status)."""
        while b"\n" not in c.buf:
            if len(c.buf) > LINE_MAX:
                raise Gone(self.drop("ERROR:OutputLimit"))
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise Gone(self.drop("TIMEOUT"))
            ready, _, _ = select.select([c.rfd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(c.rfd, 1 << 20)
            except OSError:
                chunk = b""
            if not chunk:
                raise Gone(self.drop())
            c.buf += chunk
        line, c.buf = c.buf.split(b"\n", 1)
        if line == b"H" and self.detecting:
            raise Gone(self.drop("HANG"))
        return line

    def to_child(self, c, data):
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(c.wfd, view) :]
        except OSError:
            raise Gone(self.drop()) from None

    def relay(self, c, data, want):
        """Sends `data` to the child and forwards its answer (a line tagged `want`)."""
        try:
            self.to_child(c, data)
            while True:
                line = self.child_line(c)
                if line[:2] in want:
                    self.say(line)
                    return
        except Gone as g:
            self.say(b"X " + g.status.encode())

    # -- requests -----------------------------------------------------------------------------
    def test(self, req):
        p = self.pair
        detect = float(req.get("detect") or 0)
        if detect > 0 or self.detecting:
            self.drop(None)
        self.detecting = detect > 0
        p["budget"] = float(req["budget"])
        p["done"] = int(req["i"])
        if self.child is None:
            self.child = self.fork_child("code", detect=self.detecting)
        self.deadline = time.monotonic() + (detect if self.detecting else p["budget"])
        self.relay(self.child, b"T " + str(int(req["i"])).encode() + b"\n", (b"N ",))

    def message(self, payload):
        if self.child is None:
            self.say(b"X ERROR:ProcessExit")
            return
        self.relay(self.child, b"M " + payload + b"\n", (b"R ",))

    def selftest(self, req):
        """The self-tests in a child of their own, the code in another; lines relayed here."""
        p = self.pair
        p["budget"] = float(req["budget"])
        p.update(tests=req["tests"], entry=req.get("entry") or [], supply=bool(req.get("supply")))
        p["main"] = True
        self.deadline = time.monotonic() + p["budget"]
        code = self.fork_child("code")
        tester = self.fork_child("tester")
        try:
            self.child = code
            self.to_child(code, b"T 0\n")
            names = self.child_line(code)
            if not names.startswith(b"N "):
                raise Gone("ERROR:Other")
            self.child = tester
            self.to_child(tester, b"T 0 " + names[2:] + b"\n")
            while True:
                line = self.child_line(tester)
                if line.startswith(b"V "):
                    self.say(line)
                    return
                if not line.startswith(b"S "):
                    continue
                self.child = code
                self.to_child(code, b"M " + line[2:] + b"\n")
                ans = self.child_line(code)
                while not ans.startswith(b"R "):
                    ans = self.child_line(code)
                self.child = tester
                self.to_child(tester, b"R " + ans[2:] + b"\n")
        except Gone as g:
            st = g.status
            if self.child is tester and st.startswith("ERROR:"):
                st = "FAIL:Unjudged"  # the self-tests' own process died: no verdict
            self.say(b"X " + st.encode())
        finally:
            self.child = None
            for c in (code, tester):
                if c.pid not in self.ended:
                    self.end_child(c)

    def end(self, t0):
        self.drop(None)
        self.detecting = False
        for d in self.wipe:
            _empty(d, keep=self.tmp)
        self.say(b"D " + dumps({"wall_ms": int((time.monotonic() - t0) * 1000)}).encode())
        self.pair = None

    def serve(self, once):
        t0 = time.monotonic()
        while True:
            line = self.host_line()
            tag, _, rest = line.partition(b" ")
            try:
                if tag == b"P":
                    self.ended = set()
                    self.pair = _json_mod.loads(rest)
                    self.pair.setdefault("n", 1)
                    self.pair.setdefault("budget", 2.0)
                    t0 = time.monotonic()
                elif self.pair is None:
                    continue
                elif tag == b"T":
                    self.test(_json_mod.loads(rest))
                elif tag == b"C":
                    self.message(rest)
                elif tag == b"K":
                    self.drop(None)
                elif tag == b"Q":
                    self.selftest(_json_mod.loads(rest))
                elif tag == b"E":
                    self.end(t0)
                    if once:
                        return
            except (ValueError, KeyError, TypeError) as e:
                self.drop(None)
                self.say(b"X ERROR:Other")
                del e


def _empty(d, keep):
    """Removes everything in `d` but `keep` (the next pair finds the scratch space empty)."""
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = os.path.join(d, n)
        if p == keep:
            for m in os.listdir(p):
                shutil.rmtree(os.path.join(p, m), ignore_errors=True)
            continue
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


def tester_child(lines, p):
    """The self-test runner: the engine on the self-tests, its requests to the code's child.
    Not dumpable: the code's process (the same uid when execscope is not root) can neither trace
    it nor open its pipes through /proc."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except BaseException:
        pass
    side = JudgeSide()

    def send(obj):
        lines.write(b"S " + dumps(obj).encode() + b"\n")

    def recv():
        line = lines.line()
        if not line.startswith(b"R "):
            raise Unjudged()
        try:
            return _json.loads(line[2:])
        except (ValueError, RecursionError):
            raise Unjudged() from None

    peer = Peer(send, recv, side)
    line = lines.line()
    names = None
    if line.startswith(b"T 0 "):
        try:
            names = _json.loads(line[4:])
        except (ValueError, RecursionError):
            names = None
    pair = Pair([p["tests"]], p["entry"], "", main=True)
    mods = []
    if p.get("supply"):
        mods = sorted(selftest_aliases(p["tests"], p["code"], p["entry"]))
    try:
        outcome, observed = pair.run(0, names, peer, modules=mods)
    except BaseException as e:
        outcome, observed = "FAIL:" + exc_label(e), None
    lines.write(b"V " + dumps({"o": outcome, "obs": observed}).encode() + b"\n")


ALIASES = ("solution", "your_module", "total_match_module")


def selftest_aliases(tests, code, entry):
    """Candidate-named modules the texts import (absolute imports anywhere), served from the
    code's namespace under the module-supply contract (docs/audit.md)."""
    import ast as a

    names = set(ALIASES) | {str(e) + "_module" for e in entry}
    found = set()
    for src in (code, tests):
        try:
            tree = a.parse(src)
        except BaseException:
            continue
        for node in a.walk(tree):
            if isinstance(node, a.Import):
                found.update(x.name.split(".")[0] for x in node.names if x.name.split(".")[0] in names)
            elif isinstance(node, a.ImportFrom) and node.level == 0 and node.module:
                top = node.module.split(".")[0]
                if top in names:
                    found.add(top)
    return found


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


def main():
    mode = sys.argv[1]
    cfg = _json_mod.loads(sys.argv[2])
    try:  # the harness source arrived as an inherited fd: the code must not get it
        os.close(int(cfg.get("close_fd", -1)))
    except OSError:
        pass
    close_fds_except()  # nothing inherited beyond stdin/stdout/stderr
    try:
        import ctypes

        # PR_SET_DUMPABLE 0: a pair (same uid when execscope is not root) can neither ptrace the
        # harness nor open its descriptors through /proc/<ppid>/fd.
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except BaseException:
        pass
    for name in PRELOAD if mode == "--server" else ():  # a server's children start warm
        try:
            __import__(name)
        except BaseException:
            pass
    os.makedirs(cfg["tmp"], exist_ok=True)
    uid = int(cfg["uid"])
    mode_uid = uid_mode(uid) if uid >= 0 else None
    h = Harness(uid if mode_uid else -1, cfg["tmp"], mode_uid == "readcap", list(cfg.get("wipe") or []))
    ready = {"ready": True, "python": sys.version.split()[0], "uid": h.uid, "readcap": h.readcap}
    os.write(1, dumps(ready).encode() + b"\n")
    try:
        h.serve(mode == "--once")
    except EOFError:
        pass
    finally:
        h.drop(None)


if __name__ == "__main__":
    main()
