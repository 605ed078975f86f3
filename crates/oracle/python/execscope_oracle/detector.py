# execscope hang detector (Python stdlib only; the harness's, see harness.py).
#
# Hang detection. A test probed for a hang (its code held the ball for 1/32 of its budget; the
# tests before it replayed untraced in this child) is run once more under a tracer that
# looks for a *proven* cycle: one activation of a frame of the code or the test reaching the same
# loop head twice in the same state. "State" is the frame's position, the iteration count of each
# `for` loop around it (their iterators live on the value stack, out of reach), a deep snapshot of
# its locals and of the code's globals, and a snapshot of every loaded module's attributes. The
# proof is void (history forgotten) when the frame returns or yields (a caller in C may hold
# state), when a snapshot meets a value it cannot see into (an iterator, a generator, a file, an
# object with slots, ...), and after any call into C that is not known to be deterministic and to
# act only on its arguments (time, randomness, I/O, threads, processes: see `_c_call_ok`). A
# deterministic process in the same state at the same point repeats forever, so a proof means
# the test never ends, on any machine. Bounded by DETECT_EVENTS traced instructions and
# DETECT_WORK units of snapshot work (values walked plus key characters; counts, so the same on
# any machine: a state that grows, such as a counter that becomes a huge integer, never repeats,
# and walking it would otherwise cost more with every turn) and a wall backstop; no proof within
# the bounds -> TIMEOUT.

import builtins
import sys
import types

DETECT_EVENTS = 300_000
DETECT_WORK = 2_000_000
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
        import types as _t

        # Instance attributes of heap types, and a function's own attributes (a counter kept
        # in `f.calls` is state a loop can reach).
        d = getattr(v, "__dict__", None) if t.__flags__ & (1 << 9) or t is _t.FunctionType else None
        extra = e(d) if type(d) is dict else None

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
        c.cell_contents  # noqa: B018 (raises ValueError when the cell is empty)
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
        self.work = 0  # values walked and key characters built at loop heads (DETECT_WORK)
        self.shapes = {}
        self.frames = {}  # id(frame) -> [for-iteration counts, {digest: world or None}]
        self.dead = False
        self.baseline = {}
        self.active = False  # the code is running (calls into C between its runs are ours)
        self.armed = False  # the traced test started (replays of earlier tests run before it)

    def arm(self):
        """Starts watching (when the test starts: the code is executed traced)."""
        self.armed = True
        self.baseline = {}
        self.inner = {}
        for name, m in list(sys.modules.items()):
            try:
                d = dict(m.__dict__)
            except BaseException:
                continue
            self.baseline[name] = d
            for v in d.values():
                inner = _own_dict(v)
                if inner is not None and id(v) not in self.inner:
                    self.inner[id(v)] = (v, dict(inner))
        sys.settrace(self.trace)
        sys.setprofile(self.profile)

    def give_up(self):
        """The future depends on something outside the detector's sight (e.g. the judge's
        state, reached through a function of the test): no proof is possible any more."""
        self.dead = True
        self.frames.clear()
        self.on_giveup()

    def world(self):
        """Snapshot of every loaded module's attributes that changed since the test began
        (non-strict: an opaque value counts by identity)."""
        s = _Snap(False, WORLD_NODES)
        strict = _Snap(True, WORLD_NODES)
        strict.memo = s.memo  # one numbering of shared values for both
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
                if base is not None and base.get(k, self) is v:
                    # A function's or a class's own attributes can hold state (a counter in
                    # `statistics.mean.n`, `fractions.Fraction.n`): what changed of them.
                    changed = self.changed_inside(v, s)
                    if changed is not None:
                        out.append((name, k, changed))
                    if type(v) not in _IMMUTABLE_KINDS:
                        out.append((name, k, s.enc(v)))
                else:
                    # New since the test began, or another object: nothing of it may be out of
                    # sight (an iterator kept in a module is state no snapshot shows).
                    out.append((name, k, strict.enc(v)))
            if base is not None:
                out.append((name, tuple(k for k in base if k not in d)))
        return repr(out)

    def changed_inside(self, v, s):
        """What changed in the own attributes of a function or class `v` since the test began:
        new or rebound attributes (encoded), the contents of a small list, dict or set it held
        (its size for a larger one), and removed attributes; None when none was added, rebound
        or removed (what a list, dict or set it already held holds is not looked into then)."""
        got = self.inner.get(id(v))
        if got is None or got[0] is not v:
            return None
        inner = _own_dict(v)
        saved = got[1]
        if inner is None or inner == saved:  # (in C; a value still there compares by identity)
            return None
        out = []
        for a, x in list(inner.items()):
            was = saved.get(a, self)
            if was is not x:
                out.append((a, s.enc(x)))
            elif type(x) in _CONTAINERS:
                out.append((a, s.enc(x) if len(x) <= 64 else ("len", len(x))))
        gone = tuple(a for a in saved if a not in inner)
        return (tuple(out), gone) if out or gone else None

    def c_call(self, fn):
        s = getattr(fn, "__self__", None)
        if s is None or _mod_name(s) is not None:
            mn = "builtins" if s is None else _mod_name(s)
            return mn in PURE_MODULES and not (mn == "builtins" and fn.__name__ in IMPURE_BUILTINS)
        return isinstance(s, PLAIN_SELF)

    def profile(self, frame, event, arg):
        if (
            event == "c_call"
            and self.active
            and not self.dead
            and not frame.f_code.co_filename.startswith(_HERE)
            and not self.c_call(arg)
        ):
            self.give_up()  # the future may depend on time, randomness, I/O or threads

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
                self.give_up()
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
        s = _Snap(True, SNAP_NODES)
        key = None
        try:
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
            pass
        # The work of this visit: the values walked and the key's characters. A state that grows
        # (a counter that becomes a huge integer, a list that gets longer) never repeats, and one
        # too large to snapshot can never be compared: either would spend its effort, turn after
        # turn, on a proof that cannot come.
        self.work += SNAP_NODES - s.left + (len(key) if key is not None else 0)
        if self.work > DETECT_WORK:
            self.give_up()
            return
        if key is None:
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


def _own_dict(v):
    """The own attributes of a function or a class (a heap type's: a builtin type's cannot be
    set), or None."""
    try:
        t = type(v)
        if t is types.FunctionType:
            return v.__dict__
        if isinstance(v, type) and type.__getattribute__(v, "__flags__") & (1 << 9):
            return type.__getattribute__(v, "__dict__")
    except BaseException:
        pass
    return None


_CONTAINERS = (list, dict, set, bytearray)


def _immutable_kinds():
    import types as _t

    return frozenset(
        (type(None), bool, int, float, complex, str, bytes, tuple, frozenset, range, type,
         _t.FunctionType, _t.BuiltinFunctionType, _t.ModuleType, _t.MethodType, staticmethod,
         classmethod, property, _t.MethodDescriptorType, _t.WrapperDescriptorType)
    )


_IMMUTABLE_KINDS = _immutable_kinds()
# The folder of this package's files (the bootstrap names each "<execscope_oracle/NAME.py>"): the
# harness's own calls never taint.
_HERE = _immutable_kinds.__code__.co_filename.rpartition("/")[0] + "/"

