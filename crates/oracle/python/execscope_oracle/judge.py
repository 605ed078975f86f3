# execscope judge (Python stdlib only).
#
# The trusted half of the oracle. It never runs the code under test: it runs the *tests*, with
# its own builtins and standard library, and every operation on the code's objects is a request
# to the sandbox's pair child (docs/threat-model.md "Who decides a verdict").
#
# Usage: python3 -s -P -c <judge> (PYTHONHASHSEED fixed, environment cleared). A zygote: it
# imports everything once, then forks one child per pair, so no test's side effects reach another
# pair and no pair pays an interpreter start. Descriptors: 0/1 control lines with execscope, 3 the
# pipe to the sandbox (requests), 4 the pipe from it (answers, each line tagged by the child's
# token). Control lines:
#   zygote <- "P " {"tests", "entry", "setup", "token", "budget", "detect", "probe", "start"}  fork
#                                    a child ("probe": seconds the code may hold the ball in a test
#                                    before it is probed for a hang, execscope's PROBE_SHARE of the
#                                    budget unless configured; absent: never probed; "stop", only
#                                    when asked: a list of segment starts besides 0, and each
#                                    segment ends at its first test that does not pass: no verdict
#                                    is written for the rest of it, which execscope records not run;
#                                    "budgets", "cap", "segments", only when asked: each test's own
#                                    budget and each segment's total, segments starting at 0 and at
#                                    these)
#   child  -> "V " {"i", "o": outcome, "obs": str|null, "ms": int}   test i's verdict (verdicts are
#                                    written together, before an "F" and at the pair's end)
#   child  -> "F <detect seconds>"   the sandbox child is gone: ask for a new one (a detector child
#   child  <- "G <token>"            when detect > 0); execscope answers with its token
#   zygote -> "Z"                    (on its own line) the pair's child is gone: next pair

import json as _json
import os as _os
import select
import sys
import time

from .codec import STD_MODULES
from .engine import COMPILED, SCANNED, JudgeSide, Link, Pair, prepare, run_test, warm_fork
from .excs import exc_label
from .peer import Peer, dumps
from .proxy import S
from .pytest_shim import pytest_module


class Wire:
    """Control lines on stdin/stdout (raw descriptors: the zygote and its child take turns)."""

    def __init__(self):
        self.buf = b""

    def line(self, side=None):
        """The next control line. With `side` (the link to the sandbox), what arrives on its
        pipe meanwhile is absorbed (`Link.absorb`): the harness may be writing there."""
        while b"\n" not in self.buf:
            if side is not None and not side.eof:
                ready, _, _ = select.select([0, side.rfd], [], [])
                if side.rfd in ready:
                    side.absorb()
                if 0 not in ready:
                    continue
            chunk = _os.read(0, 1 << 16)
            if not chunk:
                raise EOFError()
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[_os.write(1, view) :]

    def later(self, data):
        """Verdicts wait for the next write (execscope needs them only at the pair's end or
        when it is asked for a new sandbox child): one wake-up of execscope per pair."""
        self.pending = getattr(self, "pending", b"") + data

    def flush(self):
        data, self.pending = getattr(self, "pending", b""), b""
        if data:
            self.write(data)


def child(wire, req):
    pair = Pair(list(req["tests"]), list(req.get("entry") or []), req.get("setup") or "")
    budget, detect = float(req["budget"]), float(req.get("detect") or 0)
    probe = None if req.get("probe") is None else float(req["probe"])
    foreign = req.get("lang") is not None
    if foreign:
        detect, probe = 0.0, None  # the hang detector traces Python: TIMEOUT, never a proof

    def renew(secs):
        wire.flush()
        wire.write(b"F " + repr(float(secs)).encode() + b"\n")
        while True:
            line = wire.line(link)
            if line.startswith(b"G "):
                return line[2:].decode("ascii", "replace")

    link = Link(4, 3, str(req["token"]), renew)
    if foreign:
        link.build = float(req.get("build") or 30.0)
    peer = Peer(link.send, link.recv, JudgeSide())
    stop = req.get("stop")
    # A benchmark's time convention ("budgets", "cap", "segments"): each test's own budget,
    # and each segment's total capped (a test gets at most what is left of it).
    budgets, cap = req.get("budgets"), req.get("cap")
    starts = {0} | {b for b in req.get("segments") or [] if type(b) is int}
    i = int(req.get("start") or 0)
    spent = 0.0
    while i < len(pair.tests):
        t0 = time.monotonic()
        link.build_spent, link.ran = 0.0, None
        mine = float(budgets[i]) if budgets is not None and i < len(budgets) else budget
        if i in starts:
            spent = 0.0
        if cap is not None:
            mine = min(mine, float(cap) - spent)
        try:
            if mine <= 0:
                outcome, observed = "TIMEOUT", None  # the segment's cap is spent
            else:
                outcome, observed = run_test(pair, link, peer, i, mine, detect, probe)
        except BaseException as e:  # the judge's own failure: the test's, never a pass
            outcome, observed = "ERROR:" + exc_label(e), None
        # A test's time is its own: a build it waited for is not, nor the probe, detections and
        # replays before the run its verdict comes from (the build gate compares a canonical's
        # test times with the budget). A HANG's time is what proving it took.
        if outcome != "HANG" and link.ran is not None:
            ms = int(link.ran * 1000)
        else:
            ms = int(max(0.0, time.monotonic() - t0 - link.build_spent) * 1000)
        spent += ms / 1000
        wire.later(b"V " + dumps({"i": i, "o": outcome, "obs": observed, "ms": ms}).encode() + b"\n")
        if stop is not None and outcome != "pass":
            # The rest of this test's segment is not run (execscope records it "not-run").
            i = min([b for b in stop if type(b) is int and b > i] + [len(pair.tests)])
        else:
            i += 1
    wire.flush()


def precompile(req):
    """Compiles and scans the pair's tests here, before the fork, once per distinct text: the
    tests of a query recur for every snippet it is paired with, and each child starts with them
    ready."""
    if len(COMPILED) > 20_000:
        COMPILED.clear()
    if len(SCANNED) >= 20_000:
        SCANNED.clear()
    for src, name in [(t, "<test>") for t in req.get("tests") or []] + [(req.get("setup") or "", "<setup>")]:
        if type(src) is str and src.strip():
            prepare(src, name)


def warm_up():
    """Runs the engine's common paths once in the zygote (a call of a function of the code,
    its answer, the rendering of `observed`), so the classes and caches they create are
    inherited by every child instead of being built again per pair."""
    replies = iter([{"r": {"v": 3}}])
    peer = Peer(lambda obj: None, lambda: next(replies), JudgeSide())
    pair = Pair(["assert f(1) == 3"], ["f"], "")

    class Warm:
        on_names = None

        def begin(self, i):
            self.on_names(dumps({"names": {"f": ["h", 0, {"n": "function", "f": "cr", "a": []}]}}))

        def wait_names(self):
            pass

    try:
        pair.run(0, Warm(), peer)
    except BaseException:
        pass
    S.reset(None)


def main():
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/<pid>/mem
    except BaseException:
        pass
    sys.modules["pytest"] = pytest_module()  # never the real one, should it be installed
    for name in sorted(STD_MODULES):
        try:
            __import__(name)
        except BaseException:
            pass
    sys.setrecursionlimit(10000)
    warm_up()
    wire = Wire()
    wire.write(b"ready\n")
    while True:
        try:
            line = wire.line()
        except EOFError:
            return
        if not line.startswith(b"P "):
            continue
        try:
            req = _json.loads(line[2:])
            precompile(req)
        except BaseException:
            wire.write(b"\nZ\n")
            continue
        pid = warm_fork()
        if pid == 0:
            code = 0
            try:
                child(wire, req)
            except BaseException:
                code = 1
            finally:
                _os._exit(code)
        wire.buf = b""  # what it read ahead belongs to the child
        try:
            _os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        wire.write(b"\nZ\n")

