# execscope execution harness (Python stdlib only).
#
# Usage: python3 -s -P /dev/fd/3 (--server | --once) CONFIG_JSON   (PYTHONHASHSEED fixed)
#   CONFIG_JSON: {"uid": <sandbox uid or -1>, "tmp": <dir for per-pair work dirs>,
#                 "wipe": [dirs emptied after each pair], "close_fd": 3}
# Descriptors: 0/1 control lines with execscope; 5 the pipe from the judge (its requests) and 6
# the pipe to it, which execscope set up for this worker: the harness hands them to each pair
# child, so requests and answers go judge <-> child directly, never through this process; 7 the
# pipe of records (each child's code; a self-test runner's self-tests), which execscope writes
# and each child reads itself: this process never holds a pair's code (sandbox.read_record).
#
# The server half inside the sandbox: it runs no code itself. It forks the pair child (sandbox.py)
# that runs the code, watches it, and when it dies writes `<token> X <status>` to the judge's pipe
# (the test's outcome). Every pair child gets a fresh token, and its every line carries it, so the
# judge never takes a line of an earlier child for the current one's. Control lines (every line
# this harness writes during a pair starts with the pair's nonce):
#   "P " {"nonce", "mem", "n", "budget", "main", "token"}  a pair: fork its child under `token`
#                     (execscope chose it; no answer: the judge may write at once); the child
#                     reads its record {"code"}
#   "F " {"detect"}   replace the child (a detector child when detect > 0) -> "F <token>"; the
#                     new child reads the next record {"code"}
#   "Q " {"budget"}   a self-test run: a second, separate child runs the self-tests against the
#                     code's child (pipes of their own) -> "V " | "X " ...; the code's child reads
#                     a record {"code"}, then the runner {"code", "tests", "entry", "supply"}
#   "E"               the pair is over: kill, sweep, empty the scratch space -> "D {}"
# Statuses: TIMEOUT | HANG | ERROR:<SIGNAL> | ERROR:ProcessExit | ERROR:OutputLimit | ERROR:Other

import json as _json_mod
import math
import os
import secrets
import select
import shutil
import signal
import sys
import tempfile
import time

from . import toolchains
from .detector import Detector
from .engine import LINE_MAX, JudgeSide, Link, Pair, reseed, warm_fork
from .excs import exc_label
from .foreign import relay
from .peer import Gone, Peer, dumps
from .sandbox import RECORDS, SIDE, Lines, confine, drop_privileges, pair_child, read_record, start_test

PRELOAD = (
    "math cmath re collections collections.abc itertools functools heapq bisect string datetime "
    "calendar typing operator statistics fractions decimal random copy json hashlib array struct "
    "numbers enum dataclasses textwrap unicodedata ipaddress base64 binascii zlib difflib pprint "
    "abc contextlib io csv uuid urllib.parse time queue types weakref ctypes reprlib"
).split()
FROM_JUDGE, TO_JUDGE = 5, 6


class Child:
    """A forked child, its pidfd (readable when it exits) and its token."""

    def __init__(self, pid, token, workdir, detect):
        self.pid, self.token, self.workdir, self.detect = pid, token, workdir, detect
        try:
            self.pidfd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            self.pidfd = None


def children_of(ppid):
    """Pids whose parent is `ppid`: for this process, the kernel's list of each of its threads'
    children (one read, where a scan of /proc outside a pid namespace reads every process of the
    machine); else, or where the kernel lacks the list, a scan of /proc. Either is a snapshot:
    `sweep` repeats it until it finds nothing."""
    if ppid == os.getpid():
        try:
            out = []
            for tid in os.listdir("/proc/self/task"):
                with open("/proc/self/task/" + tid + "/children", "rb") as f:
                    out.extend(int(x) for x in f.read().split())
            return out
        except (OSError, ValueError):
            pass
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


def uid_alive(uid):
    """Whether any process of `uid` is in view (cheap in a pid namespace of our own)."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    want = str(uid).encode()
    for n in names:
        if not n.isdigit():
            continue
        try:
            with open("/proc/" + n + "/status", "rb") as f:
                for line in f:
                    if line.startswith(b"Uid:"):
                        if want in line.split()[1:]:  # real, effective, saved, filesystem
                            return True
                        break
        except OSError:
            continue
    return False


def group_alive(pgid):
    """Whether the process group still has a member (a zombie counts until reaped)."""
    try:
        os.killpg(pgid, 0)
        return True
    except OSError:
        return False


SWEEP_WAIT = 2.0  # seconds the pair's killed processes get to die before the worker is replaced
TAINTED_EXIT = 3


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


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def drain(fd):
    """Discards what is waiting in a pipe (lines meant for a child that is gone), moved to
    /dev/null inside the kernel where it can (`splice`), so none of it enters this process's
    memory, which every later pair's child inherits; else read and dropped."""
    os.set_blocking(fd, False)
    try:
        splice = getattr(os, "splice", None)
        if splice is not None:
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                while splice(fd, null, 1 << 20, flags=getattr(os, "SPLICE_F_NONBLOCK", 2)):
                    pass
            except (BlockingIOError, OSError):
                pass
            finally:
                os.close(null)
            return
        while os.read(fd, 1 << 20):
            pass
    except (BlockingIOError, OSError):
        pass
    finally:
        os.set_blocking(fd, True)


class Harness:
    def __init__(self, uid, tmp, readcap, wipe, own_ipc=False, apart=False, tools=None, tool_readcap=()):
        self.uid, self.tmp, self.readcap, self.wipe = uid, tmp, readcap, wipe
        self.own_ipc, self.apart = own_ipc, apart
        # The candidate languages' toolchains (toolchains.py), and the languages whose toolchain
        # the pair's uid can read only with CAP_DAC_READ_SEARCH (at `rlimits`, as root, a rustup
        # toolchain under /root): only their pairs keep it.
        self.tools, self.tool_readcap = tools or {}, frozenset(tool_readcap)
        self.inbuf = b""
        self.child = None
        self.pair = None
        self.tester_used = False
        self.tainted = False
        try:
            import ctypes

            ctypes.CDLL(None).prctl(36, 1)  # PR_SET_CHILD_SUBREAPER: orphans come back here
        except BaseException:
            pass

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
        write_all(1, nonce + b" " + data + b"\n")

    # -- children -----------------------------------------------------------------------------
    def fork_child(self, role, rfd, wfd, extra=(), detect=False, token=None, started=None):
        """A confined child: the code's (`role` "code") or the self-tests' ("tester"), reading
        `rfd` and writing `wfd` (and the fds in `extra`). It reads its record (the code; the
        self-tests) itself, from the pipe this process never reads, then writes a byte to
        `started` when given."""
        p = self.pair
        token = token or secrets.token_hex(12)
        workdir = tempfile.mkdtemp(prefix="pair-", dir=self.tmp)
        uid = self.uid
        if uid >= 0 and role == "tester":
            uid += 512  # never the uid of the code it tests
            self.tester_used = True
        if uid >= 0:
            os.chown(workdir, uid, uid)
        # CPU for every test the child may run: a detector child replays the earlier tests of
        # the child it replaces before the traced one (engine.py run_test); a program in another
        # language than Python also builds and starts within it.
        cpu = int(math.ceil(p["budget"] * max(1, p["n"]) + float(p.get("build") or 0))) + 1
        lang = p.get("lang")
        readcap = self.readcap or (lang is not None and lang in self.tool_readcap)
        pid = warm_fork()
        if pid == 0:
            try:
                keep = (started,) if started is not None else ()
                debug = (toolchains.DEBUG_FD,) if toolchains.DEBUG_FD is not None else ()
                close_fds_except(rfd, wfd, RECORDS, *extra, *keep, *debug)
                confine(workdir, cpu, p["mem"], uid, readcap, apart=self.apart and uid < 0, ambient=lang is not None)
                record = read_record()
                if started is not None:
                    os.write(started, b"1")
                    os.close(started)
                lines = Lines(rfd, wfd, token)
                if role == "tester":
                    tester_child(rfd, wfd, extra[0], p, record)
                elif record.get("lang"):
                    relay(lines, record, self.tools, workdir)
                else:
                    det = None
                    if detect:
                        def hang():
                            sys.settrace(None)
                            sys.setprofile(None)
                            lines.write(b"H\n")
                            while True:  # stay until the harness ends it: no status follows
                                signal.pause()

                        det = Detector(hang, lambda: os._exit(0))
                    pair_child(lines, record.get("code", ""), p.get("main", False), det)
            finally:
                os._exit(0)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        return Child(pid, token, workdir, detect)

    def end_child(self, c):
        """Kills a child's process group and everything it left; its wait status."""
        try:
            os.killpg(c.pid, signal.SIGKILL)
        except OSError:
            pass
        status = 0
        try:
            _, status = os.waitpid(c.pid, 0)
        except ChildProcessError:
            pass
        if c.pidfd is not None:
            os.close(c.pidfd)
        if not self.sweep(c.pid):
            self.tainted = True
        shutil.rmtree(c.workdir, ignore_errors=True)
        return status

    def stop_if_tainted(self):
        """A process of a pair outlived its sweep and may still read the judge's pipe: this
        harness ends (execscope replaces the worker with new pipes) before anything else uses
        them."""
        if self.tainted:
            os._exit(TAINTED_EXIT)

    def sweep(self, pgid):
        """Kills the child's group and, when a sandbox uid is in use, every process of those uids
        (grandchildren that left the group); then every process reparented to us (we are a
        child subreaper, so a double-forked daemon that left the group ends up here), and reaps.
        Then, when any of that found a process, waits until none is alive: a process sent
        SIGKILL but not yet run to its end still holds the judge's pipe, and the kernel hands a
        reader woken with data waiting that data before it dies, so a dying process of a fork
        bomb could take the next child's first request (measured: the next pair's trivial test
        out of time in 3 of 10 runs). False when something of the pair is still alive after
        SWEEP_WAIT seconds (the worker is then replaced, pipes and all)."""
        left = self.kill_pair(pgid)
        if not self.reap_orphans() and not left:
            return True  # nothing of the pair outlived its child: the common case, no wait
        deadline = time.monotonic() + SWEEP_WAIT
        while group_alive(pgid) or any(uid_alive(u) for u in left if u != "group"):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
            self.kill_pair(pgid)
            self.reap_orphans()
        return True

    def kill_pair(self, pgid):
        """SIGKILL to the pair's group and (when in use) to every process of its uids; what was
        still there to be signalled: "group" and those uids."""
        left = []
        try:
            os.killpg(pgid, signal.SIGKILL)
            left.append("group")
        except OSError:
            pass
        if self.uid >= 0:
            for uid in (self.uid, self.uid + 512) if self.tester_used else (self.uid,):
                if os.getpid() == 1 and not uid_alive(uid):
                    continue  # the pid namespace is ours: nothing of that uid is left
                pid = os.fork()
                if pid == 0:
                    code = 0
                    try:
                        os.setgid(uid)
                        os.setuid(uid)
                        try:
                            os.kill(-1, signal.SIGKILL)
                            code = 1  # something was signalled
                        except ProcessLookupError:
                            pass
                    finally:
                        os._exit(code)
                _, st = os.waitpid(pid, 0)
                if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 1:
                    left.append(uid)
        return left

    def reap_orphans(self):
        """Kills every child of ours (pair children are reaped before: these are orphans
        reparented to us) and reaps what has ended, until a snapshot finds none; whether any
        was found."""
        me, found = os.getpid(), False
        for _ in range(50):
            orphans = children_of(me)
            for pid in orphans:
                found = True
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
        return found

    @staticmethod
    def status_of(st, detect):
        if detect:
            return "TIMEOUT"  # a detector child that ends without a proof
        if os.WIFSIGNALED(st):
            sig = os.WTERMSIG(st)
            if sig == signal.SIGXCPU:
                return "TIMEOUT"
            return "ERROR:" + signal.Signals(sig).name
        return "ERROR:ProcessExit"

    def replace(self, detect):
        """Ends the current child (no status: the judge asked) and forks the next one."""
        if self.child is not None:
            self.end_child(self.child)
            self.child = None
        self.stop_if_tainted()
        self.fresh_scratch()
        drain(FROM_JUDGE)
        write_all(TO_JUDGE, b"\n")  # ends any half line the old child left
        self.child = self.fork_child("code", FROM_JUDGE, TO_JUDGE, detect=detect)
        self.say(b"F " + self.child.token.encode())

    def begin(self, token):
        """A pair's first child, under the token execscope chose (the judge already has it, and
        may already have written the first test's start: the pipe holds it for the child)."""
        write_all(TO_JUDGE, b"\n")
        self.child = self.fork_child("code", FROM_JUDGE, TO_JUDGE, token=token)

    def child_exited(self):
        """The child died on its own: its status goes to the judge as the test's outcome."""
        c, self.child = self.child, None
        st = self.end_child(c)
        write_all(TO_JUDGE, b"\n" + c.token.encode() + b" X " + self.status_of(st, c.detect).encode() + b"\n")

    # -- requests -----------------------------------------------------------------------------
    def serve(self, once):
        while True:
            self.stop_if_tainted()
            fds = [0]
            if self.child is not None and self.child.pidfd is not None:
                fds.append(self.child.pidfd)
            if b"\n" in self.inbuf:
                ready = [0]  # a line already read ahead
            else:
                ready, _, _ = select.select(fds, [], [], None if len(fds) > 1 or self.child is None else 0.05)
            if self.child is not None and (
                (self.child.pidfd is not None and self.child.pidfd in ready)
                or (self.child.pidfd is None and os.waitpid(self.child.pid, os.WNOHANG)[0] != 0)
            ):
                self.child_exited()
            if 0 not in ready:
                continue
            line = self.host_line()
            tag, _, rest = line.partition(b" ")
            try:
                if tag == b"P":
                    self.pair = _json_mod.loads(rest)
                    self.pair.setdefault("n", 1)
                    self.pair.setdefault("budget", 2.0)
                    self.tester_used = False
                    if "token" in self.pair:
                        self.begin(str(self.pair["token"]))
                elif self.pair is None:
                    continue
                elif tag == b"F":
                    self.replace(float(_json_mod.loads(rest).get("detect") or 0) > 0)
                elif tag == b"Q":
                    self.selftest(_json_mod.loads(rest))
                elif tag == b"E":
                    self.end()
                    if once:
                        return
            except (ValueError, KeyError, TypeError, OSError):
                import traceback

                traceback.print_exc()  # stderr: nowhere unless EXECSCOPE_ORACLE_DEBUG
                self.say(b"X ERROR:Other")

    def end(self):
        if self.child is not None:
            self.end_child(self.child)
            self.child = None
        self.stop_if_tainted()
        drain(FROM_JUDGE)  # the pair's judge is gone: nothing on this pipe is for anyone
        drain(RECORDS)  # a record no child read (it died first): no later pair's child reads it
        self.fresh_scratch()
        self.say(b"D {}")
        self.pair = None

    def fresh_scratch(self):
        """Empties what the pair could leave to a later process: the level's scratch directories
        and, in this worker's own IPC namespace, every System V object (POSIX message queues are
        refused by the system-call filter, or live in a wiped mount). Run after each pair and
        before each child that replaces one, so every child starts from the same empty state: a
        test that a hang probe replays in a new child finds what it found in the first run
        (engine.replay), and nothing outlives its pair."""
        for d in self.wipe:
            _empty(d, keep=self.wipe)
        if self.own_ipc:
            remove_sysv_ipc()
        elif self.uid >= 0:
            _remove_owned("/dev/shm", (self.uid, self.uid + 512))

    def selftest(self, req):
        """The self-tests in a child of their own, the code in another: they talk over pipes of
        their own (the code's answers reach the self-test runner directly, its verdict reaches
        only this process); the harness watches the code's child and the budget."""
        p = self.pair
        p["budget"], p["main"], p["n"] = float(req["budget"]), True, 1
        if self.child is not None:
            self.end_child(self.child)
            self.child = None
        self.fresh_scratch()
        to_code, from_code, verdict, go = os.pipe(), os.pipe(), os.pipe(), os.pipe()
        # The code's child reads the first record (its code), then says so; only then is the
        # self-test runner forked, to read the second (code and self-tests).
        code = self.fork_child("code", to_code[0], from_code[1], started=go[1])
        os.close(go[1])
        ready, _, _ = select.select([go[0]], [], [], p["budget"])
        if ready:
            os.read(go[0], 1)
        os.close(go[0])
        p["token"] = code.token
        tester = self.fork_child("tester", from_code[0], to_code[1], extra=(verdict[1],))
        for fd in (to_code[0], to_code[1], from_code[0], verdict[1]):
            os.close(fd)
        live = [code, tester]
        deadline = time.monotonic() + p["budget"]
        buf, out = b"", None
        try:
            while out is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    out = b"X TIMEOUT"
                    break
                watch = [verdict[0]] + ([code.pidfd] if code in live and code.pidfd is not None else [])
                ready, _, _ = select.select(watch, [], [], left)
                if verdict[0] in ready:
                    chunk = os.read(verdict[0], 1 << 20)
                    buf += chunk
                    if b"\n" in buf:
                        out = buf.split(b"\n", 1)[0]
                    elif not chunk or len(buf) > LINE_MAX:
                        out = b"X FAIL:Unjudged"  # the self-tests' own process died: no verdict
                if out is None and code in live and code.pidfd is not None and code.pidfd in ready:
                    live.remove(code)
                    st = self.status_of(self.end_child(code), False)
                    try:  # the self-tests learn the code's process is gone (its status ends them)
                        write_all(from_code[1], b"\n" + code.token.encode() + b" X " + st.encode() + b"\n")
                    except OSError:
                        pass  # the runner is gone too: its verdict, or none, is on its pipe
        finally:
            for c in live:
                self.end_child(c)
            for fd in (from_code[1], verdict[0]):
                os.close(fd)
        self.say(out if out.startswith((b"V ", b"X ")) else b"X FAIL:Unjudged")


def remove_sysv_ipc():
    """Removes every System V shared-memory segment, semaphore set and message queue of this IPC
    namespace: the worker's own, so they are its pairs' and nobody else's."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    removers = (
        ("shm", lambda i: libc.shmctl(i, 0, None)),  # IPC_RMID
        ("sem", lambda i: libc.semctl(i, 0, 0)),
        ("msg", lambda i: libc.msgctl(i, 0, None)),
    )
    for kind, remove in removers:
        try:
            with open("/proc/sysvipc/" + kind) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            parts = row.split()
            if len(parts) > 1 and parts[1].isdigit():
                remove(int(parts[1]))


def _remove_owned(d, uids):
    """Removes the entries of `d` owned by `uids` (a pair's own uids: at `rlimits`, as root)."""
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = os.path.join(d, n)
        try:
            if os.lstat(p).st_uid in uids:
                if os.path.isdir(p) and not os.path.islink(p):
                    shutil.rmtree(p, ignore_errors=True)
                else:
                    os.unlink(p)
        except OSError:
            pass


def _empty(d, keep):
    """Removes everything in `d` but the directories in `keep` (each emptied on its own): the
    next pair finds the scratch space empty."""
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        p = os.path.join(d, n)
        if p in keep:
            continue
        try:
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                os.unlink(p)
        except OSError:
            pass


def tester_child(rfd, wfd, vfd, p, record):
    """The self-test runner: the engine on the self-tests, its requests to the code's child over
    `wfd`/`rfd`, its verdict to the harness on `vfd` (a pipe the code's process never holds).
    Not dumpable: the code's process (the same uid when execscope is not root) can neither trace
    it nor open its pipes through /proc."""
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
    except BaseException:
        pass
    link = Link(rfd, wfd, p["token"])
    peer = Peer(link.send, link.recv, JudgeSide())
    tests, entry = str(record.get("tests") or ""), [e for e in record.get("entry") or [] if type(e) is str]
    pair = Pair([tests], entry, "", main=True)
    mods = sorted(selftest_aliases(tests, str(record.get("code") or ""), entry)) if record.get("supply") else []
    try:
        reseed()  # as every test of the judge (engine.attempt)
        outcome, observed = pair.run(0, link, peer, modules=mods)
    except Gone:
        outcome, observed = link.gone or "ERROR:Other", None
    except BaseException as e:
        outcome, observed = "FAIL:" + exc_label(e), None
    if link.gone is not None:
        outcome, observed = link.gone, None
    write_all(vfd, b"V " + dumps({"o": outcome, "obs": observed}).encode() + b"\n")


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


def uid_mode(uid, paths=None):
    """How pairs can run as `uid` while still reading the interpreter's stdlib (or `paths`, a
    toolchain's directories): "plain" (it is world-readable), "readcap" (it sits under a private
    home such as /root and no sandbox re-binds it), or None (privileges cannot be dropped
    here)."""
    import sysconfig

    if paths is None:
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


def warm_up():
    """Runs a pair child's common path once here, on trusted code (its names encoded for the
    judge), so what it builds on first use (compiled patterns, type descriptions) is inherited
    by every child instead of being built again per pair."""
    try:
        start_test(compile(WARM_CODE, "<warm>", "exec"), None, False)
    except BaseException:
        pass
    SIDE.reset()


WARM_CODE = "def f(x):\n    return x\nclass C:\n    pass\nn = [1, 2.5, 'a', (None,)]\n"


def main():
    mode = sys.argv[1]
    cfg = _json_mod.loads(sys.argv[2])
    try:  # the harness source arrived as an inherited fd: the code must not get it
        os.close(int(cfg.get("close_fd", -1)))
    except OSError:
        pass
    close_fds_except(FROM_JUDGE, TO_JUDGE, RECORDS)  # nothing inherited but stdio and these pipes
    if cfg.get("debug") is True:
        # EXECSCOPE_ORACLE_DEBUG: the builds' compiler messages go to execscope's stderr.
        toolchains.DEBUG_FD = os.dup(2)
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
    tools = cfg.get("tools") if type(cfg.get("tools")) is dict else {}
    tool_readcap = []
    if mode_uid == "plain":
        for lang, roots in (cfg.get("toolroots") or {}).items():
            if lang in tools and uid_mode(uid, [str(r) for r in roots]) == "readcap":
                tool_readcap.append(lang)
    h = Harness(
        uid if mode_uid else -1,
        cfg["tmp"],
        mode_uid == "readcap",
        list(cfg.get("wipe") or []),
        own_ipc=cfg.get("own_ipc") is True,
        apart=cfg.get("own_ipc") is not True,  # rlimits: no namespace of the worker's own
        tools=tools,
        tool_readcap=tool_readcap,
    )
    if mode == "--server":
        warm_up()
    ready = {"ready": True, "python": sys.version.split()[0], "uid": h.uid, "readcap": h.readcap}
    os.write(1, dumps(ready).encode() + b"\n")
    try:
        h.serve(mode == "--once")
    except EOFError:
        pass
    finally:
        if h.child is not None:
            h.end_child(h.child)

