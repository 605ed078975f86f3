# execscope execution harness (Python stdlib only; embedded in the execscope binary).
#
# Usage: python3 -I harness.py (--server | --once) CONFIG_JSON
#   CONFIG_JSON: {"uid": <sandbox uid or -1>, "tmp": <dir for per-pair work dirs>}
#
# Protocol on stdin/stdout (one JSON object per line):
#   harness -> host   {"ready": true, "python": "3.11.7", "uid": <uid or -1>}
#   host -> harness   {"nonce": str, "code": str, "units": [[["e"|"s", src]]], "timeout": float,
#                      "mem": int, "detect": float}
#   `timeout` is each test's own wall budget; `detect` (seconds, 0 = off) is the wall backstop of
#   the hang detector that re-runs a test which ran past its budget (see Detector).
#   harness -> host   {"nonce": str, "results_json": str, "wall_ms": int, "test_ms": [int]}
# `--once` answers one request and exits (the naive runner); `--server` loops until EOF.
#
# This process and its children are the *untrusted* half of the oracle: they never see a test,
# only the units execscope's judge (crates/oracle/assets/judge.py) cut out of each test (e.g. the call `f(3)`
# of `assert f(3) == 5`), and they return the units' values in a plain data encoding (or the
# exception a unit raised). Nothing here decides an outcome, so nothing the code under test can
# reach here (this file's functions, `json`, the report pipe, the nonce) can forge a pass.
#
# Each (code, tests) pair runs in a forked child: own process group, rlimits, fresh work dir,
# unprivileged uid when the harness runs as root, stdio on /dev/null, no descriptor but its
# report pipe. The child streams one line per test over that pipe, tagged with a per-fork nonce
# and checked against its pid. Each test has its own wall budget; a child that dies mid-suite or
# runs past a test's budget is replaced by a fresh one that resumes at the next test, so each
# test's result is its own.

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

SINK_MAX = 1 << 16
LINE_MAX = 256 << 20


def exc_name(e):
    return type(e).__name__


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

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "strict"

    @property
    def newlines(self):
        return None

    @property
    def buffer(self):
        return self._buffer

    @property
    def line_buffering(self):
        return False

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


STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def exc_record(e):
    """["x", name, builtin-mro-names, message]: the name only when the class *is* a builtin or a
    stdlib exception (the judge further restricts it to a fixed vocabulary)."""
    t = type(e)
    name = "Other"
    try:
        tn = type.__getattribute__(t, "__name__")
        mod = type.__getattribute__(t, "__module__")
        if mod == "builtins" and getattr(builtins, tn, None) is t:
            name = tn
        elif tn == "ExecscopeNegativeControl":  # build's oracle-health control (a fixed word)
            name = tn
        elif isinstance(mod, str) and mod.split(".")[0] in STDLIB:
            if getattr(sys.modules.get(mod), tn, None) is t:
                name = tn
    except BaseException:
        pass
    mro = []
    try:
        for c in type.__getattribute__(t, "__mro__"):
            if getattr(builtins, type.__getattribute__(c, "__name__"), None) is c:
                mro.append(c.__name__)
    except BaseException:
        pass
    msg = ""
    try:
        msg = BaseException.__str__(e)[:1000] if isinstance(e, BaseException) else ""
    except BaseException:
        pass
    return ["x", name, mro, msg]


MAX_NODES = 1_000_000
MAX_ITEMS = 100_000
MAX_DEPTH = 200


class _TooBig(Exception):
    pass


def _opaque(v):
    try:
        n = type.__getattribute__(type(v), "__name__")
    except BaseException:
        n = "?"
    return ["o", n if isinstance(n, str) else "?"]


def _iter_types():
    def gen():
        yield 1

    d = {1: 1}
    ts = {
        type(gen()), map, filter, zip, enumerate, reversed, type(iter([])), type(iter(())),
        type(iter("")), type(iter(range(1))), type(iter(set())), type(iter(d)),
        type(iter(d.values())), type(iter(d.items())), type(iter(b"")),
    }
    return frozenset(ts)


ITER_TYPES = _iter_types()
KEYS_T, VALUES_T, ITEMS_T = type({}.keys()), type({}.values()), type({}.items())


def encode(v, budget, depth=0):
    """A plain-data encoding of v: only builtin types survive, rebuilt through their base-type
    methods (a subclass's overrides are never consulted); anything else is ["o", type name]."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise _TooBig()
    t = type(v)
    if v is None or t is bool:
        return v
    if issubclass(t, str):
        v = str.__str__(v)
        if v.isascii():
            return v
        return ["u", v.encode("utf-8", "surrogatepass").hex()]
    if issubclass(t, bool):
        return bool(v)
    if issubclass(t, int):
        return ["i", format(int.__int__(v), "x")]
    if issubclass(t, float):
        return ["f", float.__repr__(float.__float__(v))]
    if t is complex:
        return ["c", float.__repr__(v.real), float.__repr__(v.imag)]
    if issubclass(t, (bytes, bytearray)):
        return ["b", bytes.hex(v) if issubclass(t, bytes) else bytearray.hex(v)]
    d = depth + 1
    if issubclass(t, list):
        return ["l", [encode(x, budget, d) for x in list.copy(v)]]
    if issubclass(t, tuple):
        return ["t", [encode(x, budget, d) for x in tuple.__getitem__(v, slice(None))]]
    if issubclass(t, frozenset):
        return ["F", [encode(x, budget, d) for x in frozenset.copy(v)]]
    if issubclass(t, set):
        return ["s", [encode(x, budget, d) for x in set.copy(v)]]
    if issubclass(t, dict):
        c = dict.copy(v)
        return ["d", [["p", [encode(k, budget, d), encode(x, budget, d)]] for k, x in dict.items(c)]]
    if t is range:
        return ["r", format(v.start, "x"), format(v.stop, "x"), format(v.step, "x")]
    if t is KEYS_T:
        return ["K", [encode(x, budget, d) for x in list(v)]]
    if t is VALUES_T:
        return ["V", [encode(x, budget, d) for x in list(v)]]
    if t is ITEMS_T:
        return ["I", [["p", [encode(k, budget, d), encode(x, budget, d)]] for k, x in list(v)]]
    frac = sys.modules.get("fractions")
    if frac is not None and t is getattr(frac, "Fraction", None):
        return ["q", format(v.numerator, "x"), format(v.denominator, "x")]
    dec = sys.modules.get("decimal")
    if dec is not None and t is getattr(dec, "Decimal", None):
        return ["D", str(v)]
    if t is _Drained:
        if len(v.items) > MAX_ITEMS:
            raise _TooBig()
        items = [encode(x, budget, d) for x in v.items]
        if v.err is None:
            return ["g", items]
        # the items before the exception, then the exception (a consumer that stops early, like
        # all() or any(), never reaches it, as in plain Python)
        return ["G", items, v.err[1], v.err[2], v.err[3]]
    if t in ITER_TYPES:
        items = []
        for x in v:
            if len(items) >= MAX_ITEMS:
                raise _TooBig()
            items.append(encode(x, budget, d))
        return ["g", items]
    return _opaque(v)


class _Drained:
    """An iterator a unit returned, run to its end (at most MAX_ITEMS + 1 items) while the unit is
    evaluated, so an exception it raises is kept, at its place, rather than lost in encoding."""

    __slots__ = ("items", "err")

    def __init__(self, it):
        self.items = []
        self.err = None  # the exception that ended the iteration early, as an exc_record
        try:
            for x in it:
                self.items.append(x)
                if len(self.items) > MAX_ITEMS:
                    break
        except BaseException as e:
            self.err = exc_record(e)


def value_record(v):
    try:
        return ["v", encode(v, [MAX_NODES])]
    except BaseException:
        return ["v", _opaque(v)]


# ---------------------------------------------------------------------------------------------
# Hang detection. A test that ran past its budget is run once more, alone, under a tracer that
# looks for a *proven* cycle: one activation of a frame of the code or the test reaching the same
# loop head twice in the same state. "State" is the frame's position, the iteration count of each
# `for` loop around it (their iterators live on the value stack, out of reach), a deep snapshot of
# its locals and of the code's globals, and a snapshot of every loaded module's attributes. The
# proof is void (history forgotten) when the frame returns or yields (a caller in C may hold
# state), when a snapshot meets a value it cannot see into (an iterator, a generator, a file, an
# object with slots, ...), and after any call into C that is not known to be deterministic and to
# act only on its arguments (time, randomness, I/O, threads, processes: see `_c_call_ok`). A
# deterministic process in the same state at the same point repeats forever, so a proof means
# the test never ends, on any machine. Bounded by DETECT_EVENTS traced instructions (a count, so
# the same on any machine) and a wall backstop; no proof within the bounds -> TIMEOUT.

DETECT_EVENTS = 300_000
SNAP_NODES = 20_000
WORLD_NODES = 400_000

PURE_MODULES = frozenset(
    (
        "builtins math cmath operator _operator itertools functools _functools heapq _heapq bisect "
        "_bisect string _string re _sre collections _collections statistics fractions decimal "
        "_decimal _pydecimal copy json _json struct _struct binascii zlib hashlib _hashlib _md5 _sha1 "
        "_sha256 _sha512 _sha3 _blake2 unicodedata array base64 textwrap difflib keyword numbers abc "
        "_abc enum types typing dataclasses calendar codecs _codecs reprlib pprint copyreg"
    ).split()
)
# Builtins whose result depends on more than their arguments or that reach outside the process.
IMPURE_BUILTINS = frozenset("open input breakpoint __import__ exec eval compile".split())
PLAIN_SELF = (list, dict, set, frozenset, tuple, str, bytes, bytearray, int, float, complex)


class _Opaque(Exception):
    pass


def _mod_name(m):
    try:
        n = type.__getattribute__(type(m), "__name__")
        return m.__dict__.get("__name__") if n == "module" else None
    except BaseException:
        return None


class _Snap:
    """Deep, deterministic encodings of values for cycle proofs (strict: an opaque value raises)."""

    def __init__(self, strict, nodes):
        self.strict, self.left, self.memo = strict, nodes, {}

    def opaque(self, v):
        if self.strict:
            raise _Opaque()
        return ("id", id(v))

    def enc(self, v):
        self.left -= 1
        if self.left < 0:
            raise _Opaque()
        t = type(v)
        if v is None or t is bool:
            return v
        if t is int:
            return ("i", format(v, "x"))
        if t is float or t is complex or t is range or t is slice:
            return (t.__name__, repr(v))
        if t is str:
            return v
        if t is bytes:
            return ("b", v)
        k = id(v)
        if k in self.memo:
            return ("ref", self.memo[k])
        self.memo[k] = len(self.memo)
        r = self.enc_obj(v, t)
        return r

    def enc_obj(self, v, t):
        e = self.enc
        mro = t.__mro__
        d = getattr(v, "__dict__", None) if t.__flags__ & (1 << 9) else None  # heap types only
        extra = e(d) if type(d) is dict else None
        import types as _t

        if t is _t.FunctionType:
            cells = tuple(e(c.cell_contents) if _cell_full(c) else ("empty",) for c in (v.__closure__ or ()))
            return ("fn", id(v.__code__), e(v.__defaults__), e(v.__kwdefaults__), cells, extra)
        if t is _t.MethodType:
            return ("m", e(v.__self__), e(v.__func__))
        if t is _t.BuiltinFunctionType:
            s = getattr(v, "__self__", None)
            mn = "builtins" if s is None else _mod_name(s)
            if mn in PURE_MODULES:
                return ("bf", mn, v.__name__)
            if isinstance(s, PLAIN_SELF):
                return ("bm", e(s), v.__name__)
            return self.opaque(v)
        if t is _t.ModuleType:
            return ("mod", v.__name__) if v.__name__ in PURE_MODULES else self.opaque(v)
        if t in (staticmethod, classmethod):
            return (t.__name__, e(v.__func__))
        if t is property:
            return ("prop", e(v.fget), e(v.fset), e(v.fdel))
        if isinstance(v, type):
            if not _own_class(v):
                mod = sys.modules.get(getattr(v, "__module__", None))
                if mod is not None and mod.__name__ in PURE_MODULES and getattr(mod, v.__name__, None) is v:
                    return ("ty", v.__module__, v.__qualname__)
                return self.opaque(v)
            if type(v) is not type:  # a metaclass may hold state elsewhere
                return self.opaque(v)
            body = tuple(
                (n, e(x)) for n, x in list(v.__dict__.items()) if n not in ("__dict__", "__weakref__", "__doc__")
            )
            return ("cls", id(v), e(v.__bases__), body)
        own = [c for c in mro if c is not object]
        base = None
        for b in PLAIN_SELF:
            if b in mro:
                base = b
                own = own[: own.index(b)]
                break
        if base is None and t.__name__ == "deque" and getattr(t, "__module__", None) == "collections":
            return ("dq", tuple(e(x) for x in v), v.maxlen)
        if base is None and t.__name__ in ("Fraction", "Decimal") and t.__module__ in ("fractions", "decimal"):
            return ("num", t.__name__, str(v))
        if base is None and t.__name__ == "Pattern" and t.__module__ == "re":
            return ("re", v.pattern, v.flags)
        if base is dict and own and all(c.__module__ == "collections" for c in own):
            # Counter, OrderedDict, defaultdict: their state is the dict (and the factory)
            own = []
            extra = (extra, e(getattr(v, "default_factory", None)))
        if any(not _own_class(c) or "__slots__" in c.__dict__ for c in own):
            return self.opaque(v)
        if base is None:
            if extra is None:
                return self.opaque(v)
            return ("obj", e(t), extra)
        if base is dict:
            body = tuple((e(a), e(b)) for a, b in list(dict.items(v)))
        elif base in (int, float, complex, str, bytes):
            body = base.__repr__(v)
        else:
            body = tuple(e(x) for x in base.__iter__(v))
        return (base.__name__, e(t) if own else None, body, extra)


def _cell_full(c):
    try:
        c.cell_contents
        return True
    except ValueError:
        return False


def _own_class(c):
    """A class the code under test defined (exec'd without `__name__`, its module is
    "builtins", where no such name is bound to it)."""
    return getattr(c, "__module__", None) == "builtins" and getattr(builtins, c.__name__, None) is not c


def _loop_shape(code):
    """(loop heads, [(for_iter offset, loop end)]) of a code object."""
    import dis

    heads, fors, one_line = set(), [], False
    line, line_of = None, {}
    ins_list = list(dis.get_instructions(code))
    for ins in ins_list:
        if ins.starts_line is not None:
            line = ins.starts_line
        line_of[ins.offset] = line
    for ins in ins_list:
        if "BACKWARD" in ins.opname:
            heads.add(ins.argval)
            # A loop on one line raises no line event per turn: it needs opcode events.
            one_line = one_line or line_of.get(ins.argval) == line_of[ins.offset]
        if ins.opname == "FOR_ITER":
            fors.append((ins.offset, ins.argval))
    return frozenset(heads), tuple(fors), one_line


class Detector:
    """Traces one test; calls `on_hang()` when a cycle is proven."""

    FILES = ("<code>", "<test>")

    def __init__(self, on_hang, on_giveup):
        self.on_hang = on_hang
        self.on_giveup = on_giveup  # no proof is possible any more: stop the run
        self.events = 0
        self.shapes = {}
        self.frames = {}  # id(frame) -> [for-iteration counts, {digest: world or None}]
        self.dead = False
        self.baseline = {}
        for name, m in list(sys.modules.items()):
            try:
                self.baseline[name] = dict(m.__dict__)
            except BaseException:
                pass

    def world(self):
        """Snapshot of every loaded module's attributes that changed since the test began
        (non-strict: an opaque value counts by identity)."""
        s = _Snap(False, WORLD_NODES)
        out = []
        for name in sorted(k for k in list(sys.modules) if isinstance(k, str)):
            m = sys.modules.get(name)
            try:
                d = m.__dict__
            except BaseException:
                continue
            if type(d) is not dict:
                continue
            base = self.baseline.get(name)
            for k, v in list(d.items()):
                if base is not None and base.get(k, self) is v and type(v) in _IMMUTABLE_KINDS:
                    continue
                out.append((name, k, s.enc(v)))
            if base is not None:
                out.append((name, tuple(k for k in base if k not in d)))
        return repr(out)

    def c_call(self, fn):
        s = getattr(fn, "__self__", None)
        if s is None or _mod_name(s) is not None:
            mn = "builtins" if s is None else _mod_name(s)
            return mn in PURE_MODULES and not (mn == "builtins" and fn.__name__ in IMPURE_BUILTINS)
        return isinstance(s, PLAIN_SELF)

    def profile(self, frame, event, arg):
        if event == "c_call" and not self.dead and not self.c_call(arg) and frame.f_code.co_filename != _HERE:
            self.dead = True  # the future may depend on time, randomness, I/O or threads
            self.frames.clear()
            self.on_giveup()

    def trace(self, frame, event, arg):
        if self.dead:
            return None
        if frame.f_code.co_filename not in self.FILES:
            return None
        shape = self.shapes.get(frame.f_code)
        if shape is None:
            shape = self.shapes[frame.f_code] = _loop_shape(frame.f_code)
        if shape[2]:
            frame.f_trace_opcodes = True
        return self.local

    def local(self, frame, event, arg):
        if self.dead:
            return None
        if event == "line" or event == "opcode":
            self.events += 1
            if self.events > DETECT_EVENTS:
                self.dead = True
                self.frames.clear()
                self.on_giveup()
                return None
            code = frame.f_code
            shape = self.shapes.get(code)
            if shape is None:
                shape = self.shapes[code] = _loop_shape(code)
            at = frame.f_lasti
            if at in shape[0]:
                self.loop_head(frame, shape, at)
        elif event == "return":
            self.frames.pop(id(frame), None)
        return self.local

    def loop_head(self, frame, shape, at):
        if frame.f_code.co_flags & 0x3A0:  # generator / coroutine / async generator frames
            return
        st = self.frames.get(id(frame))
        if st is None:
            st = self.frames[id(frame)] = [{}, {}]
        counts, seen = st
        if any(at == f for f, _ in shape[1]):
            counts[at] = counts.get(at, 0) + 1  # a `for` loop advanced: a new state
            return
        around = tuple(counts.get(f, 0) for f, end in shape[1] if f < at < end)
        try:
            s = _Snap(True, SNAP_NODES)
            g = frame.f_globals
            loc = frame.f_locals
            key = repr(
                (
                    at,
                    around,
                    s.enc(loc) if loc is not g else None,
                    s.enc({k: v for k, v in list(g.items()) if k != "__builtins__"}),
                )
            )
        except (_Opaque, RecursionError, ValueError, TypeError, AttributeError):
            return
        import hashlib as _h

        digest = _h.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=20).digest()
        if digest not in seen:
            if len(seen) > 200_000:
                seen.clear()
            seen[digest] = None
            return
        # The frame is back in a state it was in: confirm that no module changed over one more
        # period (state held outside the frame's reach).
        try:
            w = self.world()
        except (_Opaque, RecursionError, ValueError, TypeError, AttributeError):
            return
        if seen[digest] == w:
            self.on_hang()
        seen[digest] = w


_IMMUTABLE_KINDS = frozenset()


def _immutable_kinds():
    import types as _t

    return frozenset(
        (type(None), bool, int, float, complex, str, bytes, tuple, frozenset, range, type,
         _t.FunctionType, _t.BuiltinFunctionType, _t.ModuleType, _t.MethodType, staticmethod,
         classmethod, property, _t.MethodDescriptorType, _t.WrapperDescriptorType)
    )


_IMMUTABLE_KINDS = _immutable_kinds()
_HERE = _immutable_kinds.__code__.co_filename  # this file: the harness's own calls never taint


def run_test(code_obj, code_err, units, detector=None):
    """One test in a fresh namespace: the code, then each unit the judge asked for.
    Returns {"code": name} or {"units": [record]}; never a verdict. With a `detector`, the
    test runs traced (see Detector)."""
    if code_err is not None:
        return {"code": code_err}
    ns = {}
    if detector is not None:
        sys.settrace(detector.trace)
        sys.setprofile(detector.profile)
    try:
        exec(code_obj, ns)
    except BaseException as e:
        return {"code": exc_record(e)[1]}
    out = []
    for kind, src in units:
        try:
            if kind == "e":
                value = eval(compile(src, "<test>", "eval"), ns)
                if type(value) in ITER_TYPES:
                    value = _Drained(value)
            else:
                exec(compile(src, "<test>", "exec"), ns)
                value = None
        except BaseException as e:
            out.append(exc_record(e))
            continue
        out.append(value_record(value))
    return {"units": out}


def child_main(wfd, nonce, code, units, start, timeout, mem, uid, readcap, workdir, detect=False):
    mypid = os.getpid()
    prefix = (nonce + " ").encode()

    dumps, write, getpid, exit_ = json.dumps, os.write, os.getpid, os._exit

    def report(i, result):
        # Bound before the code runs, so replacing json.dumps or os.write costs nothing but the
        # pair's own results (a lie here can only misstate values: the judge decides).
        if getpid() != mypid:  # a process the code forked never reports
            exit_(0)
        try:
            line = prefix + dumps([i, result]).encode() + b"\n"
        except BaseException:
            line = prefix + dumps([i, {"units": [["v", ["o", "?"]]] * len(units[i])}]).encode() + b"\n"
        write(wfd, line)

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
    # `timeout` is the wall budget of each test; the parent enforces it. The CPU limit is only a
    # backstop for the tests this child may still run (a detector child runs one test).
    cpu = int(math.ceil(timeout * (1 if detect else len(units) - start))) + 1
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
        code_err = exc_record(e)[1]
    if detect:
        def hang():
            # Proven: the test never ends. Only this word counts from a detector child (its
            # values are ignored; forging it can only make the code's own test fail).
            sys.settrace(None)
            sys.setprofile(None)
            write(wfd, prefix + dumps([start, {"hang": True}]).encode() + b"\n")
            exit_(0)

        def giveup():
            exit_(0)

        run_test(code_obj, code_err, units[start], Detector(hang, giveup))
        sys.settrace(None)
        sys.setprofile(None)
        exit_(0)
    for i in range(start, len(units)):
        report(i, run_test(code_obj, code_err, units[i]))


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
        (grandchildren that left the group); then every process reparented to us (we are a
        child subreaper, so a double-forked daemon that left the group ends up here), and reap."""
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


    def run_child(self, code, units, start, budget, mem, results, times, detect=False):
        """Run tests[start:] in one child, each within its own wall `budget` (the clock restarts
        at each test's result); returns (next unreported index, status) where status is "done",
        "timeout" (test `next` ran past its budget), or the crash outcome of the test that was
        running. The child's lines only carry values (see run_test); the verdict is the judge's.
        With `detect`, the child runs test `start` alone under the hang detector, and `budget` is
        the detector's wall backstop; status is then "hang" or "timeout"."""
        r, w = os.pipe()
        nonce = secrets.token_hex(16)
        workdir = tempfile.mkdtemp(prefix="pair-", dir=self.tmp)
        if self.uid >= 0:
            os.chown(workdir, self.uid, self.uid)
        pid = os.fork()
        if pid == 0:
            try:
                os.close(r)
                close_fds_except(w)
                child_main(w, nonce, code, units, start, budget, mem, self.uid, self.readcap, workdir, detect)
            finally:
                os._exit(0)
        os.close(w)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        prefix = (nonce + " ").encode()
        nxt, buf, timed_out, flooded, hang = start, b"", False, False, False
        began = time.monotonic()
        deadline = began + budget
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            ready, _, _ = select.select([r], [], [], left)
            if not ready:
                continue
            chunk = os.read(r, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.startswith(prefix):
                    continue
                try:
                    i, res = json.loads(line[len(prefix):])
                except ValueError:
                    continue
                if detect:
                    hang = hang or (i == start and res == {"hang": True})
                elif i == nxt and isinstance(res, dict):
                    results[i] = res
                    now = time.monotonic()
                    times[i] = int((now - began) * 1000)
                    nxt += 1
                    began, deadline = now, now + budget  # the next test's own budget
            if hang or len(buf) > LINE_MAX:
                flooded = not hang
                break
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
        if detect:
            return start, "hang" if hang else "timeout"
        if nxt >= len(units):
            return nxt, "done"
        if flooded:
            return nxt, "ERROR:OutputLimit"
        if timed_out:
            return nxt, "timeout"
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            if sig == signal.SIGXCPU:
                return nxt, "timeout"
            return nxt, "ERROR:" + signal.Signals(sig).name
        return nxt, "ERROR:ProcessExit"

    def handle(self, req):
        t0 = time.monotonic()
        code, units = req["code"], req["units"]
        budget, mem = float(req["timeout"]), int(req["mem"])
        detect_wall = float(req.get("detect", 0))
        n = len(units)
        results = [None] * n
        times = [int(budget * 1000)] * n
        start = 0
        while start < n:
            nxt, status = self.run_child(code, units, start, budget, mem, results, times)
            if status == "done":
                break
            if status == "timeout":
                # Test `nxt` ran past its own budget: a certain hang, or a resource limit?
                status = "TIMEOUT"
                if detect_wall > 0:
                    _, d = self.run_child(code, units, nxt, detect_wall, mem, results, times, detect=True)
                    status = "HANG" if d == "hang" else "TIMEOUT"
            results[nxt] = {"status": status}
            start = nxt + 1
        results = [r if r is not None else {"status": "TIMEOUT"} for r in results]
        wall_ms = int((time.monotonic() - t0) * 1000)
        return {
            "nonce": req.get("nonce"),
            "results_json": json.dumps(results),
            "wall_ms": wall_ms,
            "test_ms": times,
        }


def close_fds_except(keep):
    """Closes every descriptor above 2 but `keep` (nothing the harness holds reaches a pair)."""
    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 1024)
    for fd in fds:
        if fd > 2 and fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass


def main():
    mode = sys.argv[1]
    cfg = json.loads(sys.argv[2])
    try:  # the harness source arrived as an inherited fd: the code must not get it
        os.close(int(cfg.get("close_fd", -1)))
    except OSError:
        pass
    close_fds_except(-1)  # nothing inherited beyond stdin/stdout/stderr
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
    h = Harness(uid if mode_uid else -1, cfg["tmp"], mode_uid == "readcap")
    out = os.fdopen(1, "wb", buffering=0)

    def send(obj):
        out.write(json.dumps(obj).encode() + b"\n")

    send({"ready": True, "python": sys.version.split()[0], "uid": h.uid, "readcap": h.readcap})
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        nonce = None
        try:
            req = json.loads(line)
            nonce = req.get("nonce")
            resp = h.handle(req)
        except Exception as e:  # a malformed request: answer, never die
            resp = {"nonce": nonce, "error": "{}: {}".format(exc_name(e), e)}
        send(resp)
        if mode == "--once":
            break


if __name__ == "__main__":
    main()
