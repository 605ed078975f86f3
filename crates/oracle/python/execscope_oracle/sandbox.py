# execscope pair child (Python stdlib only; the harness forks it).
#
# The untrusted half: the only process that runs the code. It never sees a test. For each test it
# executes the code in a fresh namespace, reports the code's top-level names (plain values as
# data, everything else as handles), then answers requests on the code's objects: call this
# handle with these arguments, read this attribute, the next items of this iterator, ... Every
# answer is plain data or a handle; nothing here decides an outcome, so nothing the code can reach
# here (these functions, `json`, the pipes) can forge a pass: a lie can at most misstate what the
# code returned, which the code could do by returning it. (It can also write the lines the
# harness writes under its token: the judge takes an "X <status>" only with a status a process can
# die with, and an "H" only from a detector child; both can only fail the code's own test.)
#
# Lines from the test's side (the judge, through a pipe execscope set up; or the sandboxed
# self-test runner): "T <i>" (test i: exec the code; a detector child traces it), "U <i>" (the
# same, untraced: a detector child replaying an earlier test before the traced one), "M "
# {"q"|"r": ..} (a request, or the answer to one of ours). Lines back, each after this child's
# token: "N " {"names": {..}} | {"code": w}, "R " {"q"|"r": ..}, and "H" from a detector child that
# proved a hang.

import io
import json as _json
import os
import resource
import signal
import sys
import tempfile
import types

from .codec import MISSING, VALUE_BASES, BadWire, Enc, clean_name, encode_value, int_in
from .decode import float_in
from .engine import reseed
from .excs import class_label, exc_dec, exc_enc
from .peer import MUTABLE_TYPES, OPS, Ahead, Peer, as_chunk, dumps
from .proxy import NUMERIC
from .pytest_shim import pytest_module

SINK_MAX = 1 << 16
HEAPTYPE = 1 << 9


class CappedBytes(io.RawIOBase):
    """`sys.stdout.buffer` of the code: counts what it is given, keeps nothing."""

    def __init__(self):
        self.n = 0

    def writable(self):
        return True

    def write(self, b):
        n = len(memoryview(b))
        self.n = min(SINK_MAX, self.n + n)
        return n


class CappedSink(io.TextIOBase):
    """Stands in for sys.stdout/stderr of the code: the full text-stream interface (`encoding`,
    `errors`, `writelines`, `buffer`, `isatty`, ...), keeping nothing of what is written, so a
    completion that calls `doctest.testmod()` or reads `sys.stdout.encoding` behaves as under a
    terminal-less interpreter and nothing it prints reaches execscope."""

    def __init__(self):
        super().__init__()
        self.n = 0
        self._buffer = CappedBytes()

    encoding = property(lambda self: "utf-8")
    errors = property(lambda self: "strict")
    newlines = property(lambda self: None)
    buffer = property(lambda self: self._buffer)
    line_buffering = property(lambda self: False)

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not " + type(s).__name__)
        self.n = min(SINK_MAX, self.n + len(s))
        return len(s)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        pass

    def isatty(self):
        return False

    def fileno(self):
        raise io.UnsupportedOperation("fileno")


def _lookup(t, name):
    """(class, value) of the first class of `t`'s real MRO that defines `name`."""
    for c in type.__getattribute__(t, "__mro__"):
        d = type.__getattribute__(c, "__dict__")
        if name in d:
            return c, d[name]
    return None, None


def caps(t):
    """What instances of `t` can do, as letters (read from the real MRO, never by calling the
    code): c callable, i iterable, n iterator, P a builtin iterator (fetched ahead in chunks), l
    len, g getitem, S setitem, k contains, b bool, e its own == or !=, d a dataclass's generated
    ==, F frozen dataclass, H unhashable, o ordering, s str, r repr."""

    def defined(n):
        c, v = _lookup(t, n)
        return c is not None and c is not object and v is not None

    f = ""
    for letter, n in (
        ("c", "__call__"), ("i", "__iter__"), ("n", "__next__"), ("l", "__len__"), ("g", "__getitem__"),
        ("S", "__setitem__"), ("k", "__contains__"), ("b", "__bool__"),
    ):
        if defined(n):
            f += letter
    if "n" in f and not type.__getattribute__(t, "__flags__") & HEAPTYPE:
        f += "P"
    if defined("__eq__") or defined("__ne__"):
        f += "e"
        if dataclass_shape(t) is not None:
            params = _lookup(t, "__dataclass_params__")[1]
            f += "d" + ("F" if getattr(params, "frozen", False) is True else "")
    c, h = _lookup(t, "__hash__")
    if c is not None and h is None:
        f += "H"
    if any(defined(n) for n in ("__lt__", "__le__", "__gt__", "__ge__")):
        f += "o"
    if defined("__str__"):
        f += "s"
    if defined("__repr__"):
        f += "r"
    return f, [n for n in NUMERIC if defined(n)]


def dataclass_shape(t):
    """(the field names its `__eq__` compares, its fields as [name, compare, init]) of a dataclass
    whose `__eq__` is the one `dataclasses` generated, the names read from that function itself
    (in order), so fields or flags changed after the class was made change nothing, as in one
    process; None for any other class."""
    try:
        eq = _lookup(t, "__eq__")[1]
        fields = _lookup(t, "__dataclass_fields__")[1]
        if type(fields) is not dict or type(eq) is not types.FunctionType:
            return None
        code = eq.__code__
        if code.co_filename != "<string>" or code.co_argcount != 2 or "__class__" not in code.co_names:
            return None
        q = [n for n in code.co_names if n not in ("__class__", "NotImplemented")]
        dc = []
        for name, fl in list(dict.items(fields)):
            if type(name) is str and str(getattr(fl, "_field_type", "")) == "_FIELD":
                dc.append([name, getattr(fl, "compare", True) is True, getattr(fl, "init", True) is not False])
        return q, dc
    except BaseException:
        return None


_CAPS = {}  # static (non-heap) types: what their instances can do never changes


def caps_of(t):
    """`caps(t)`, remembered for a static type (a builtin's: `function`, `generator`, ...), whose
    attributes cannot be set; a class of the code (a heap type) is read every time. The zygote's
    warm-up fills it for the common kinds, so every child starts with them."""
    if type.__getattribute__(t, "__flags__") & HEAPTYPE:
        return caps(t)
    got = _CAPS.get(t)
    if got is None:
        got = _CAPS[t] = caps(t)
    return got


class JudgeObj:
    """A function or iterator of the test the code was handed: calling or iterating it asks the
    judge (whose answer is plain data again)."""

    __slots__ = ("_jid", "_buf")

    def __repr__(self):
        return "<test object>"


class SandboxSide:
    ops = OPS

    def __init__(self):
        self.detector = None
        self.peer = None
        self.reset()

    same = None  # (the judge marks nothing in its answers)

    def reset(self):
        self.objs, self.ids, self.described, self.stand = [], {}, set(), {}
        self.ns = {}
        self.sent, self.sent_ids = [], {}

    def remember(self, v):
        """The number of a container this test's calls answered with (the same object, the same
        number: the judge then gives the test its earlier object again, as `f() is f()` sees in
        one process), or None for anything else. Each stays alive for the test, so its id is not
        taken by another object."""
        if type(v) not in REMEMBERED:
            return None
        k = self.sent_ids.get(id(v))
        if k is None:
            k = self.sent_ids[id(v)] = len(self.sent)
            self.sent.append(v)
        return k

    def obj(self, n):
        """The object a request names: by handle, or (`=name`, a call sent with the test's
        start) by its top-level name in this test's namespace."""
        if type(n) is str and n.startswith("="):
            try:
                return self.ns[n[1:]]
            except KeyError:
                raise NameError("name {!r} is not defined".format(n[1:])) from None
        if type(n) is not int or not 0 <= n < len(self.objs):
            raise TypeError("no such object")
        return self.objs[n]

    def own(self, tag, n):
        if tag == "h":
            if not 0 <= n < len(self.objs):
                raise BadWire()
            return self.objs[n]
        return MISSING

    def commit(self, enc):
        self.described.update(enc.described)

    def on_request(self):
        pass

    def enter(self):
        if self.detector is not None:
            self.detector.active = True

    def leave(self):
        if self.detector is not None:
            self.detector.active = False

    def on_callback(self):
        if self.detector is not None and self.detector.armed:  # the judge's state is out of its sight
            self.detector.give_up()

    def exc_enc(self, e, enc, d):
        return exc_enc(e, enc, d, trusted=False)

    exc_dec = staticmethod(exc_dec)

    def sub_dec(self, x, dec, d):
        """The code's subclass of a value type, passed back by the test: a new instance of that
        class with the same base value and attributes (never through its `__init__`)."""
        cls = dec.dec(x[1], d)
        k = dec._slot()
        base = {b.__name__: b for b in VALUE_BASES}.get(x[2])
        if base is None or not isinstance(cls, type) or not issubclass(cls, base) or base is bool:
            raise BadWire()
        raw = x[3]
        if base is int:
            obj = int.__new__(cls, int_in(raw))
        elif base is float:
            obj = float.__new__(cls, float_in(raw) if not isinstance(raw, list) else float("nan"))
        elif base is complex:
            obj = complex.__new__(cls, float_in(raw[0]), float_in(raw[1]))
        elif base in (str, bytes, tuple, frozenset):
            v = dec.dec(raw, d) if base in (str, bytes) else dec.items(raw, d)
            obj = base.__new__(cls, v)
        else:
            obj = base.__new__(cls)
            if base in (list, bytearray):
                base.extend(obj, dec.dec(raw, d) if base is bytearray else dec.items(raw, d))
            elif base is set:
                set.update(obj, dec.items(raw, d))
            else:
                dict.update(obj, dec.pairs(raw, d))
        return dec._fill(k, obj)

    def foreign_dec(self, tag, x, dec, d):
        if tag != "j":
            raise BadWire()
        jid = x[1]
        got = self.stand.get(jid)
        if got is not None:
            return got
        flags = x[2] if len(x) > 2 and type(x[2]) is str else ""
        cls = _judge_class(flags)
        got = object.__new__(cls)
        object.__setattr__(got, "_jid", jid)
        object.__setattr__(got, "_buf", None)
        self.stand[jid] = got
        return got

    def foreign_enc(self, v, enc, d):
        """A handle for one of the code's objects, described (name, capabilities, class) the
        first time the judge meets it in this test."""
        if isinstance(v, JudgeObj):
            return ["j", object.__getattribute__(v, "_jid")]
        hid = self.ids.get(id(v))
        if hid is None:
            hid = len(self.objs)
            self.objs.append(v)
            self.ids[id(v)] = hid
        if hid in self.described or hid in enc.described:
            return ["h", hid]
        enc.described.append(hid)
        t = type(v)
        if issubclass(t, type):
            f, numeric = caps(v)
            meta = {"C": clean_name(type.__getattribute__(v, "__name__")), "f": f, "a": numeric}
            shape = dataclass_shape(v) if "d" in f else None
            if shape is not None:
                meta["q"], meta["dc"] = shape
            meta["b"] = [enc.enc(b, d) for b in type.__getattribute__(v, "__bases__")]
            if t is not type:
                mf = "".join(x for x in caps_of(t)[0] if x in "ilgk")
                if mf:
                    meta["m"] = mf
        else:
            f, numeric = caps_of(t)
            meta = {"n": clean_name(type.__getattribute__(t, "__name__")), "f": f, "a": numeric}
            if type.__getattribute__(t, "__flags__") & HEAPTYPE:
                meta["t"] = enc.enc(t, d)
        return ["h", hid, meta]


_JUDGE_CLASSES = {}


def _judge_class(flags):
    cls = _JUDGE_CLASSES.get(flags)
    if cls is None:
        ns = {"__slots__": ()}
        if "c" in flags:
            ns["__call__"] = _judge_call
        if "n" in flags:
            ns["__next__"] = _judge_next
            ns["__iter__"] = lambda self: self
        elif "i" in flags:
            ns["__iter__"] = lambda self: _judge_ask("iter", self)
        cls = _JUDGE_CLASSES[flags] = type("JudgeObj", (JudgeObj,), ns)
    return cls


REMEMBERED = MUTABLE_TYPES | {tuple, frozenset}
SIDE = SandboxSide()


def _judge_ask(op, obj, args=(), kwargs=None, **fields):
    SIDE.on_callback()
    q = {"op": op, "h": object.__getattribute__(obj, "_jid")}
    q.update(fields)
    return SIDE.peer.ask(q, args, kwargs)


def _judge_call(self, *args, **kwargs):
    return _judge_ask("call", self, args, kwargs)


def _judge_next(self):
    buf = object.__getattribute__(self, "_buf")
    if buf is None:
        buf = Ahead()
        object.__setattr__(self, "_buf", buf)
    return buf.next(lambda n: as_chunk(_judge_ask("next", self, n=n), lambda: TypeError("bad iterator answer")), True)


class Lines:
    """Line I/O on the child's pipes: it reads the test side's lines, and prefixes every line it
    writes with its token (how the test side tells this child's lines from any other's)."""

    def __init__(self, rfd, wfd, token):
        self.rfd, self.wfd, self.buf = rfd, wfd, b""
        self.prefix = token.encode() + b" "

    def line(self):
        while b"\n" not in self.buf:
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                os._exit(0)  # the harness is gone
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line

    def write(self, data):
        view = memoryview(self.prefix + data)
        while view:
            view = view[os.write(self.wfd, view) :]


def start_test(code_obj, code_err, main):
    """A fresh namespace with the code executed in it, and its names for the judge."""
    SIDE.reset()
    if code_err is not None:
        return {"code": code_err}
    ns = SIDE.ns = {"__name__": "__main__"} if main else {}
    reseed()  # engine.py: every test draws the same numbers on every run
    SIDE.enter()
    try:
        exec(code_obj, ns)
    except BaseException as e:
        return {"code": class_label(type(e))}
    finally:
        SIDE.leave()
    enc = Enc(SIDE.foreign_enc, None, SIDE.exc_enc)
    names = {}
    for k, v in list(ns.items()):
        if k != "__builtins__" and type(k) is str:
            names[k] = encode_value(enc, v)
    SIDE.commit(enc)
    return {"names": names}


def pair_child(lines, code, main, detector):
    """The pair child's loop (after its confinement): tests on request, requests in between."""
    code_obj, code_err = None, None
    try:
        code_obj = compile(code, "<code>", "exec")
    except BaseException as e:
        code_err = class_label(type(e))

    def send(obj):
        lines.write(b"R " + dumps(obj).encode() + b"\n")

    def recv():
        while True:
            line = lines.line()
            if line.startswith(b"M "):
                try:
                    return _json.loads(line[2:])
                except (ValueError, RecursionError):
                    return None
            # a test start while a request of ours is pending cannot happen: skip

    SIDE.peer = Peer(send, recv, SIDE)
    SIDE.detector = detector
    while True:
        line = lines.line()
        if line.startswith(b"T ") or line.startswith(b"U "):
            if detector is not None and line[:1] == b"T":
                detector.arm()  # "U": a replay of an earlier test, before the traced one
            msg = start_test(code_obj, code_err, main)
            lines.write(b"N " + dumps(msg).encode() + b"\n")
        elif line.startswith(b"M "):
            try:
                m = _json.loads(line[2:])
            except (ValueError, RecursionError):
                m = None
            if type(m) is dict and "q" in m:
                SIDE.peer.answer(m["q"])
            # a stray reply (to nothing we asked) is dropped


RECORDS = 7  # the pipe execscope writes each child's record into (see read_record)


def read_record(fd=RECORDS):
    """This child's record: its pair's code (and, for a self-test runner, the self-tests), read
    from the pipe execscope writes it into (`R <length>` and a line, then that many bytes of
    JSON), then closed. The harness never reads that pipe, so no process a later pair's child is
    forked from ever holds another pair's code (docs/threat-model.md "Nothing of a pair in the
    next pair's memory")."""
    head = b""
    while not head.endswith(b"\n"):
        c = os.read(fd, 1)
        if not c or len(head) > 24:
            raise EOFError("no record")
        head += c
    n = int(head[2:])
    body = bytearray()
    while len(body) < n:
        chunk = os.read(fd, min(n - len(body), 1 << 20))
        if not chunk:
            raise EOFError("a record cut short")
        body += chunk
    os.close(fd)
    return _json.loads(bytes(body))


def count_apart():
    """Enters a user namespace of this child's own, mapping its own ids (nothing changes for it
    outside), so that its process limit counts this pair's processes only. At `rlimits` without a
    uid of the pair's own, RLIMIT_NPROC would count every process of the user (other workers'
    pairs, execscope's threads), and a correct threaded program would fail whenever other work
    ran. Where user namespaces are not allowed the limit counts them all (docs/threat-model.md).
    Whether it did."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    libc.prctl(4, 1, 0, 0, 0)  # dumpable for the maps (a non-dumpable /proc/self is root's)
    try:
        if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
            return False
        for path, text in (
            ("/proc/self/setgroups", "deny"),
            ("/proc/self/uid_map", "{0} {0} 1".format(uid)),
            ("/proc/self/gid_map", "{0} {0} 1".format(gid)),
        ):
            with open(path, "w") as f:
                f.write(text)
        return True
    except OSError:
        return False
    finally:
        libc.prctl(4, 0, 0, 0, 0)


def confine(workdir, budget_cpu, mem, uid, readcap, apart=False, ambient=False):
    """Everything a pair child does before it runs the code: stdio on /dev/null, a private work
    dir, a clean environment, rlimits, an unprivileged uid (when the harness is root); with
    `apart`, a process limit that counts the pair's own processes only (`count_apart`); with
    `ambient`, a kept CAP_DAC_READ_SEARCH survives exec (a compiler and a program in another
    language than Python are processes of their own)."""
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
    if apart:
        count_apart()
    limits = [
        (resource.RLIMIT_AS, mem),
        (resource.RLIMIT_CPU, budget_cpu),
        (resource.RLIMIT_NOFILE, 64),
        (resource.RLIMIT_FSIZE, 10 * 1024 * 1024),
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_NPROC, 32),
    ]
    for which, lim in limits:
        resource.setrlimit(which, (lim, lim))
    if uid >= 0:
        drop_privileges(uid, readcap, ambient)
    sys.stdout = sys.stderr = CappedSink()
    sys.stdin = io.StringIO("")  # input() raises EOFError, as with stdin on /dev/null
    sys.modules["pytest"] = pytest_module()


def drop_privileges(uid, readcap, ambient=False):
    """Become `uid`; with `readcap`, keep only CAP_DAC_READ_SEARCH (read any file, write none) so
    an interpreter installed under a private home (/root) can still import its stdlib (with
    `ambient`, also in the programs this process runs: a toolchain under /root)."""
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
        if ambient:
            data[0].inheritable = 1 << 2
        if libc.capset(ctypes.byref(Hdr(0x20080522, 0)), data) != 0:
            raise OSError(ctypes.get_errno(), "capset")
        libc.prctl(8, 0, 0, 0, 0)
        if ambient and libc.prctl(47, 2, 2, 0, 0) != 0:  # PR_CAP_AMBIENT_RAISE
            raise OSError(ctypes.get_errno(), "ambient capability")
