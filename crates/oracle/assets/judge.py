# execscope judge (Python stdlib only; embedded after codec.py, peer.py, proxy.py, engine.py and
# pytest_shim.py in the execscope binary).
#
# The trusted half of the oracle. It never runs the code under test: it runs the *tests*, with
# its own builtins and standard library, and every operation on the code's objects is a request
# to the sandbox, relayed by execscope (docs/threat-model.md "Who decides a verdict").
#
# Usage: python3 -s -P -c <judge> (PYTHONHASHSEED fixed, environment cleared). A zygote: it
# imports everything once, then forks one child per pair, so no test's side effects reach another
# pair and no pair pays an interpreter start. Lines on stdin/stdout:
#   zygote <- "P " {"tests": [str], "entry": [str], "setup": str}   a pair: fork its child
#   child  <- "T <i> " names      test i starts; names: the sandbox's {"names": {..}} | {"code": w}
#   child  -> "S " {"q"|"r": ..}  a request to the code, or the answer to one of its requests
#   child  <- "R " {"q"|"r": ..}  the code's reply or request;  "A": the test was ended (abort)
#   child  -> "V " {"o": outcome, "obs": str|null}               test i's verdict
#   child  <- "E"                 the pair is over: the child exits
#   zygote -> "Z"                 (on its own line) the child is gone; ready for the next pair

import os as _os


class Wire:
    """Line I/O on stdin/stdout (raw descriptors: the zygote and its child share them in turn)."""

    def __init__(self):
        self.buf = b""

    def line(self):
        while b"\n" not in self.buf:
            chunk = _os.read(0, 1 << 20)
            if not chunk:
                raise EOFError()
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def write(self, data):
        view = memoryview(data)
        while view:
            n = _os.write(1, view)
            view = view[n:]


def child(wire, pair):
    side = JudgeSide()

    def send(obj):
        wire.write(b"S " + dumps(obj).encode() + b"\n")

    def recv():
        line = wire.line()
        if line == b"A":
            raise Abort()
        if not line.startswith(b"R "):
            raise Unjudged()
        try:
            return _json.loads(line[2:])
        except (ValueError, RecursionError):
            raise Unjudged() from None

    peer = Peer(send, recv, side)
    while True:
        line = wire.line()
        if line == b"E":
            return
        if not line.startswith(b"T "):
            continue
        head, _, rest = line[2:].partition(b" ")
        try:
            i = int(head)
            names = _json.loads(rest)
        except (ValueError, RecursionError):
            i, names = int(head) if head.isdigit() else 0, None
        try:
            outcome, observed = pair.run(i, names, peer)
        except Abort:
            outcome, observed = "FAIL:Unjudged", None  # execscope records its own outcome
        except BaseException as e:
            outcome, observed = "FAIL:" + exc_label(e), None
        wire.write(b"V " + dumps({"o": outcome, "obs": observed}).encode() + b"\n")


def main():
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/<pid>/mem
    except BaseException:
        pass
    for name in sorted(STD_MODULES):
        try:
            __import__(name)
        except BaseException:
            pass
    sys.modules["pytest"] = pytest_module()
    sys.setrecursionlimit(10000)
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
            pair = Pair(list(req["tests"]), list(req.get("entry") or []), req.get("setup") or "")
        except BaseException:
            wire.write(b"\nZ\n")
            continue
        pid = _os.fork()
        if pid == 0:
            code = 0
            try:
                child(wire, pair)
            except BaseException:
                code = 1
            finally:
                _os._exit(code)
        try:
            _os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        wire.write(b"\nZ\n")


if __name__ == "__main__":
    main()
