# execscope value codec (Python stdlib only; shared by the sandbox's pair child, the judge and
# the sandboxed self-test runner).
#
# Values cross between the two halves of the oracle as tagged JSON, never as pickles: the side
# that decodes builds them with its own classes, so a value arrives with the semantics of its
# *type*, never with code of the process that sent it. What plain data cannot express stays behind
# a handle on the side that owns it ("h" for the sandbox's objects, "j" for the judge's); the
# other side holds a stand-in that asks for every operation (docs/threat-model.md "Values").
#
# Wire forms (k, n: integers; x: a value):
#   JSON null/true/false/str, numbers for ints below 2**53 and for finite floats (and +-Infinity)
#   ["i", hex] int   ["n"] a NaN   ["nm"] math.nan itself   ["c", re, im]   ["b", hex] bytes
#   ["ba", hex] bytearray   ["l", [x]] ["t", [x]] ["s", [x]] ["fs", [x]]   ["d", [k0, v0, k1, v1]]
#   ["r", a, b, c] range   ["sl", a, b, c] slice   ["..."] Ellipsis   ["NI"] NotImplemented
#   ["q", n, d] Fraction   ["D", str] Decimal   ["od", [k0, v0..]] OrderedDict   ["ct", ...] Counter
#   ["dd", factory, [k0, v0..]] defaultdict   ["dq", [x], maxlen] deque   ["nt", name, [f], [x]]
#   ["date", y, m, d]   ["time", H, M, S, us, tz, fold]   ["dt", y, m, d, H, M, S, us, tz, fold]
#   ["td", days, s, us]   ["tz", td, name]   ["dk"|"dv"|"di", [x]] dict views (snapshots)
#   ["std", module, qualname] a standard-library object by name (types, functions, modules)
#   ["sub", cls, base, attrs] an instance of a class derived from a value type (cls: a handle)
#   ["ex", label, cls, args, msg] an exception instance (label: vocabulary word or "Other")
#   ["h", n, meta?] an object of the sandbox   ["j", n, flags?] an object of the judge
#   ["R", k] the k-th container (or NaN) of this message again   ["A", k] the k-th of the request
#   ["big", what] a value over a bound (arrives opaque, docs/threat-model.md "Bounds")
# Every container and every NaN takes the next index k, in the order written.

import collections
import datetime
import decimal
import fractions
import math
import re
import sys

MAX_NODES = 1_000_000
MAX_DEPTH = 100
MAX_INT_BITS = 1 << 23
MAX_FRAC_BITS = 1 << 15
MAX_CHARS = 1 << 24
MAX_DEC_CHARS = 10_000
HASH_WORK = 4_000_000
SMALL = 1 << 53

# Standard-library modules a name may refer to by name (and the `pytest` both halves install,
# pytest_shim.py): the receiver uses its own (already imported) module of that name, never the
# sender's.
STD_MODULES = frozenset(
    (
        "builtins math cmath re collections collections.abc itertools functools heapq bisect "
        "string datetime calendar typing operator statistics fractions decimal random copy json "
        "hashlib array struct numbers enum dataclasses textwrap unicodedata ipaddress base64 "
        "binascii zlib difflib pprint abc contextlib csv uuid queue types string reprlib pytest"
    ).split()
)


class TooBig(Exception):
    """A value over a bound (sizes, depth, digits, hash collisions)."""


class BadWire(Exception):
    """An encoding the protocol does not allow (only a hostile sender writes one)."""


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9_.]")  # compiled once, before a zygote forks


def clean_name(s):
    if not isinstance(s, str):
        return "?"
    return _UNSAFE_NAME.sub("?", s)[:40] or "?"


def _std_module(name):
    if not isinstance(name, str) or name.split(".")[0] not in STD_MODULES and name not in STD_MODULES:
        return None
    return sys.modules.get(name)


def std_lookup(mod, qualname):
    """The standard-library object `mod.qualname` of *this* process, or None."""
    m = _std_module(mod)
    if m is None or not isinstance(qualname, str):
        return None
    if qualname == "":
        return m
    obj = m
    for part in qualname.split("."):
        if part.startswith("__") and part != "__init__":
            return None
        obj = getattr(obj, part, MISSING)
        if obj is MISSING:
            return None
    return obj


MISSING = object()


def std_name(v):
    """(module, qualname) when `v` *is* a standard-library module, class or function here."""
    try:
        t = type(v)
        if t is type(sys):
            n = v.__dict__.get("__name__")
            return (n, "") if _std_module(n) is v else None
        mod = type.__getattribute__(v, "__module__") if isinstance(v, type) else getattr(v, "__module__", None)
        qn = type.__getattribute__(v, "__qualname__") if isinstance(v, type) else getattr(v, "__qualname__", None)
        if not isinstance(mod, str) or not isinstance(qn, str) or "<" in qn:
            return None
        if std_lookup(mod, qn) is v:
            return (mod, qn)
        if mod.startswith("_") and std_lookup(mod[1:], qn) is v:  # e.g. _heapq.heappush
            return (mod[1:], qn)
    except BaseException:
        pass
    return None


def _int_out(v):
    if -SMALL < v < SMALL:
        return v
    if v.bit_length() > MAX_INT_BITS:
        raise TooBig()
    return ["i", format(v, "x")]


def int_in(x):
    if type(x) is int:
        return x
    if isinstance(x, list) and len(x) == 2 and x[0] == "i" and isinstance(x[1], str):
        s = x[1]
        if len(s) > MAX_INT_BITS // 4 + 2:
            raise TooBig()
        try:
            return int(s, 16)
        except ValueError:
            raise BadWire() from None
    raise BadWire()


KEYS_T, VALUES_T, ITEMS_T = type({}.keys()), type({}.values()), type({}.items())
VALUE_BASES = (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
TZ_T = datetime.timezone
EXACT = frozenset(
    (
        int, float, complex, str, bytes, bytearray, list, tuple, set, frozenset, dict, range, slice,
        fractions.Fraction, decimal.Decimal, collections.OrderedDict, collections.Counter,
        collections.defaultdict, collections.deque, datetime.date, datetime.datetime,
        datetime.time, datetime.timedelta, TZ_T, KEYS_T, VALUES_T, ITEMS_T,
    )
)


def is_namedtuple_type(t):
    try:
        f = t.__dict__.get("_fields")
        return (
            tuple in t.__bases__
            and isinstance(f, tuple)
            and all(isinstance(n, str) for n in f)
            and "_make" in t.__dict__
        )
    except BaseException:
        return False


def value_base(t):
    """The builtin value type a class derives from (None: not derived from one)."""
    try:
        for b in type.__getattribute__(t, "__mro__"):
            if b in VALUE_BASES:
                return b
    except BaseException:
        pass
    return None


class Enc:
    """Encodes one message. `foreign(v)` turns a value that has no plain form into a handle;
    `argmap` (id -> k) names the objects the peer sent in the request being answered."""

    def __init__(self, foreign, argmap=None, exc=None):
        self.foreign = foreign
        self.exc = exc
        self.argmap = argmap or {}
        self.nodes = MAX_NODES
        self.chars = MAX_CHARS
        self.memo = {}
        self.busy = set()
        self.order = []  # the objects that took an index, in order (the request's argument map)
        self.described = []  # handles described for the first time (the side commits them)

    def _take(self, v):
        k = len(self.order)
        self.memo[id(v)] = k
        self.order.append(v)
        return k

    def checkpoint(self):
        return (len(self.order), self.nodes, self.chars, len(self.described))

    def restore(self, cp):
        """Forgets what was written since `cp` (a value over a bound is replaced whole)."""
        n, self.nodes, self.chars, nd = cp
        for v in self.order[n:]:
            self.memo.pop(id(v), None)
        del self.order[n:]
        del self.described[nd:]
        self.busy.clear()

    def enc(self, v, depth=0):
        self.nodes -= 1
        if self.nodes < 0 or depth > MAX_DEPTH:
            raise TooBig()
        t = type(v)
        if v is None or t is bool:
            return v
        if t is str:
            self.chars -= len(v)
            if self.chars < 0:
                raise TooBig()
            return v
        if t is int:
            return _int_out(v)
        if t is float:
            if v == v:
                return v
            k = self.argmap.get(id(v))
            if k is not None:
                return ["A", k]
            r = self.memo.get(id(v))
            if r is not None:
                return ["R", r]
            self._take(v)
            return ["nm"] if v is math.nan else ["n"]
        k = self.argmap.get(id(v))
        if k is not None:
            return ["A", k]
        r = self.memo.get(id(v))
        if r is not None:
            if id(v) in self.busy:
                raise TooBig()  # a cycle through an immutable container
            return ["R", r]
        if t in EXACT:
            return self.exact(v, t, depth + 1)
        return self.other(v, t, depth + 1)

    def seq(self, items, depth):
        return [self.enc(x, depth) for x in items]

    def flat(self, pairs, depth):
        out = []
        for a, b in pairs:
            out.append(self.enc(a, depth))
            out.append(self.enc(b, depth))
        return out

    def exact(self, v, t, d):
        if t is complex:
            return ["c", v.real, v.imag] if v == v else ["c", repr(v.real), repr(v.imag)]
        if t is bytes:
            self.chars -= len(v)
            if self.chars < 0:
                raise TooBig()
            return ["b", v.hex()]
        if t is range:
            return ["r", _int_out(v.start), _int_out(v.stop), _int_out(v.step)]
        if t is slice:
            return ["sl", self.enc(v.start, d), self.enc(v.stop, d), self.enc(v.step, d)]
        if t is fractions.Fraction:
            n, q = v.numerator, v.denominator
            if n.bit_length() > MAX_FRAC_BITS or q.bit_length() > MAX_FRAC_BITS:
                raise TooBig()
            return ["q", _int_out(n), _int_out(q)]
        if t is decimal.Decimal:
            s = str(v)
            if len(s) > MAX_DEC_CHARS:
                raise TooBig()
            return ["D", s]
        if t is datetime.timedelta:
            return ["td", v.days, v.seconds, v.microseconds]
        if t is TZ_T:
            args = v.__getinitargs__()
            return ["tz", self.enc(args[0], d), args[1] if len(args) > 1 else None]
        if t in (datetime.datetime, datetime.time) and v.tzinfo is not None and type(v.tzinfo) is not TZ_T:
            return self.foreign(v, self, d)  # a zone database's tzinfo: no plain form
        if t is datetime.datetime:
            return ["dt", v.year, v.month, v.day, v.hour, v.minute, v.second, v.microsecond, self.tz(v.tzinfo, d), v.fold]
        if t is datetime.date:
            return ["date", v.year, v.month, v.day]
        if t is datetime.time:
            return ["time", v.hour, v.minute, v.second, v.microsecond, self.tz(v.tzinfo, d), v.fold]
        k = self._take(v)
        if t in (tuple, frozenset):
            self.busy.add(id(v))
        try:
            if t is list:
                return ["l", self.seq(list.copy(v), d)]
            if t is tuple:
                return ["t", self.seq(v, d)]
            if t is set:
                return ["s", self.seq(set.copy(v), d)]
            if t is frozenset:
                return ["fs", self.seq(v, d)]
            if t is dict:
                return ["d", self.flat(list(dict.items(v)), d)]
            if t is bytearray:
                return ["ba", bytes(v).hex()]
            if t is collections.OrderedDict:
                return ["od", self.flat(list(dict.items(v)), d)]
            if t is collections.Counter:
                return ["ct", self.flat(list(dict.items(v)), d)]
            if t is collections.defaultdict:
                return ["dd", self.enc(v.default_factory, d), self.flat(list(dict.items(v)), d)]
            if t is collections.deque:
                return ["dq", self.seq(list(v), d), v.maxlen]
            tag = {KEYS_T: "dk", VALUES_T: "dv", ITEMS_T: "di"}[t]
            return [tag, self.seq(list(v), d)]
        finally:
            self.busy.discard(id(v))
        raise AssertionError(k)

    def tz(self, z, d):
        return None if z is None else self.enc(z, d)

    def other(self, v, t, d):
        """Instances of other classes: exceptions, named tuples, subclasses of value types, the
        standard library's objects by name; anything else is `foreign` (a handle)."""
        try:
            if BaseException in type.__getattribute__(t, "__mro__") and self.exc is not None:
                return self.exc(v, self, d)
            sn = std_name(v)
            if sn is not None:
                return ["std", sn[0], sn[1]]
            if is_namedtuple_type(t):
                self._take(v)
                fields = list(t._fields)
                return ["nt", clean_name(t.__name__), fields, self.seq(tuple.__getitem__(v, slice(None)), d)]
            base = value_base(t)
            if base is not None and base is not bool:
                return self.sub(v, t, base, d)
        except TooBig:
            raise
        except BaseException:
            pass
        return self.foreign(v, self, d)

    def sub(self, v, t, base, d):
        """An instance of a class derived from a value type: its base value (read through the
        base type's own methods) and its instance attributes; the class travels as a handle."""
        cls = self.foreign(t, self, d)
        k = self._take(v)
        if base is int:
            val = _int_out(int.__int__(v))
        elif base is float:
            val = float.__float__(v)
            val = val if val == val else ["n"]
        elif base is complex:
            val = [complex.__complex__(v).real, complex.__complex__(v).imag]
        elif base is str:
            val = self.enc(str.__str__(v), d)
        elif base is bytes:
            val = ["b", bytes.hex(v)]
        elif base is bytearray:
            val = ["ba", bytearray.hex(v)]
        elif base is list:
            val = self.seq(list.copy(v), d)
        elif base is tuple:
            val = self.seq(tuple.__getitem__(v, slice(None)), d)
        elif base in (set, frozenset):
            val = self.seq(base.copy(v), d)
        else:
            # The storage itself: dict.copy of a subclass would call its own keys()/__getitem__.
            val = self.flat(list(dict.items(v)), d)
        attrs = None
        try:
            dd = object.__getattribute__(v, "__dict__")
        except BaseException:
            dd = None
        if type(dd) is dict and dd:
            attrs = self.flat(list(dict.items(dd)), d)
        del k
        return ["sub", cls, base.__name__, val, attrs]


class Unjudged(Exception):
    """The test needs something only the code could say (its own `__eq__`, `__bool__`, ...):
    recorded as `FAIL:Unjudged`, never as a pass -- even when the test catches it (`raised`
    stays set until the next test)."""

    raised = False

    def __init__(self, *args):
        Unjudged.raised = True
        super().__init__(*args)


class TooLarge:
    """A value over a bound: it stands for nothing but itself (any question about it is
    Unjudged)."""

    __slots__ = ("what",)

    def __init__(self, what):
        self.what = what

    def __repr__(self):
        return "<too large: {}>".format(self.what)

    def __eq__(self, other):
        if other is self:
            return True
        raise Unjudged()

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __eq__
    __hash__ = object.__hash__

    def __bool__(self):
        raise Unjudged()

    def __len__(self):
        raise Unjudged()

    def __iter__(self):
        raise Unjudged()


def big(what):
    return ["big", clean_name(what)]


def encode_value(enc, v):
    """`v` encoded, or the "too large" form when it is over a bound."""
    cp = enc.checkpoint()
    try:
        return enc.enc(v)
    except TooBig:
        enc.restore(cp)
        try:
            n = type.__getattribute__(type(v), "__name__")
        except BaseException:
            n = "?"
        return big(n)
