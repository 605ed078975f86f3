# execscope stand-ins for the code's objects on the test's side (Python stdlib only; the judge's
# and the sandboxed self-test runner's).
#
# An object of the code that plain data cannot express (an instance of its own class, a function,
# a generator, ...) is a handle; here it is an instance of a class that mirrors the code's class
# (same name, same bases as far as they are the code's or builtin value/exception types), so
# `type(x) is Node`, `isinstance(x, Node)` and `Node(3)` work as the test expects. Every operation
# on it is a request to the sandbox (its attributes, methods, len, iteration, str), answered with
# plain data -- except the operations whose answer would *be* the verdict: its truth, its `==` and
# ordering, membership through its own `__contains__`. Those are decided here by Python's rules
# where the code defines nothing (identity, always true, a TypeError), by comparing fields for a
# dataclass's generated `__eq__`, and are otherwise `Unjudged` (docs/threat-model.md). An
# instance of a class of the code never poses as a value either: its arithmetic, `len`,
# iteration and indexing are `Unjudged`, and a boolean one of its methods or attributes answers is
# a `Claimed` value, never a verdict. (Objects of builtin types -- generators, `itertools`
# iterators -- iterate and index as Python defines.)

from .codec import MISSING, VALUE_BASES, BadWire, TooBig, Unjudged, clean_name, int_in, value_base
from .decode import float_in
from .peer import BIN_OPS, UN_OPS, Ahead, as_chunk

NUMERIC = sorted(BIN_OPS | UN_OPS)


class Session:
    """The current test's conversation with the code (one test at a time per process)."""

    peer = None
    proxies = {}  # handle -> stand-in, for this test
    buffers = {}  # handle of an iterator -> items fetched ahead
    classes = {}  # generic proxy classes, by (type name, capabilities)
    jobjs = []  # the test's objects the code holds handles to
    jids = {}
    rendering = False  # rendering `observed`: stand-ins show their type, never ask the code
    link = None
    lazy = {}  # entry name -> its stand-in while the names are on their way (engine.Pair.run)
    names_raw = names = None
    predict = {}
    mispredicted = False

    def reset(self, peer):
        self.peer = peer
        self.link = getattr(peer, "link", None)
        self.proxies, self.buffers, self.jobjs, self.jids, self.lazy = {}, {}, [], {}, {}


S = Session()


def _judge_unjudged():
    return Unjudged()


def _ask(op, target, args=(), kwargs=None, **fields):
    q = {"op": op, "h": target}
    values = {}
    for k, v in fields.items():
        if k == "o":
            values["o"] = v
        else:
            q[k] = v
    return S.peer.ask(q, args, kwargs, values)


def hid_of(obj):
    return object.__getattribute__(obj, "_es_hid")


class Claimed:
    """A boolean an object of the code's own class answered (a method's or an attribute's
    result): a value the test may look at, never a verdict -- its truth and its comparisons are
    `Unjudged` (otherwise `f(s).startswith('cb')` would be decided by the code)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __bool__(self):
        raise _judge_unjudged()

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return repr(self.value)


def _claimed_cmp(self, other):
    raise _judge_unjudged()


Claimed.__eq__ = Claimed.__ne__ = Claimed.__lt__ = Claimed.__le__ = _claimed_cmp
Claimed.__gt__ = Claimed.__ge__ = _claimed_cmp


def _claim(owner, v):
    """`v`, an answer of an operation on `owner`: claimed when the owner is of the code's own
    class (a method of one is marked, so what it returns is claimed too)."""
    if not getattr(type(owner), "_es_own", False):
        return v
    if type(v) is bool:
        return Claimed(v)
    if isinstance(v, ProxyBase) and not getattr(type(v), "_es_own", False):
        object.__setattr__(v, "_es_owned", True)  # e.g. a bound method of the object
    return v


class ProxyBase:
    """An object of the code, held in the sandbox."""

    __slots__ = ("_es_hid", "_es_owned", "__weakref__")

    def __getattr__(self, name):
        if name.startswith("_es_"):
            raise AttributeError(name)
        return _claim(self, _ask("get", hid_of(self), n=name))

    def __setattr__(self, name, value):
        _ask("set", hid_of(self), n=name, o=value)

    def __delattr__(self, name):
        _ask("del", hid_of(self), n=name)

    def __repr__(self):
        if S.rendering or "r" not in type(self)._es_f:
            return "<{} object>".format(type(self).__name__)
        return _plain_str(_ask("repr", hid_of(self)))

    def __str__(self):
        f = type(self)._es_f
        if S.rendering or ("s" not in f and "r" not in f):
            return ProxyBase.__repr__(self)
        return _plain_str(_ask("str", hid_of(self)))

    def __format__(self, spec):
        if spec == "":
            return str(self)
        return _plain_str(_ask("format", hid_of(self), n=spec))

    def __reduce_ex__(self, proto):
        raise TypeError("an object of the code cannot be copied on the test's side")


def _plain_str(v):
    if not isinstance(v, str):
        raise TypeError("__str__ returned non-string")
    return v


def _unjudged(*a, **k):
    raise _judge_unjudged()


def _truth_unjudged(self):
    raise _judge_unjudged()


def _fields(obj):
    v = _ask("fields", hid_of(obj))
    if type(v) is not tuple:
        raise _judge_unjudged()
    return v


def _dc_eq(self, other):
    if type(other) is not type(self):
        return NotImplemented
    return _fields(self) == _fields(other)


def _dc_ne(self, other):
    r = _dc_eq(self, other)
    return r if r is NotImplemented else not r


def _dc_hash(self):
    return hash(_fields(self))


def _len(self):
    n = _ask("len", hid_of(self))
    if type(n) is not int or n < 0:
        raise TypeError("__len__ should return an int >= 0")
    return n


def _iter(self):
    return _ask("iter", hid_of(self))


def _next(self):
    hid = hid_of(self)
    buf = S.buffers.get(hid)
    if buf is None:
        buf = S.buffers[hid] = Ahead()
    return buf.next(lambda n: as_chunk(_ask("next", hid, n=n), _judge_unjudged), "P" in type(self)._es_f)


def _call(self, *args, **kwargs):
    v = _ask("call", hid_of(self), args, kwargs)
    try:
        owned = object.__getattribute__(self, "_es_owned")
    except AttributeError:
        owned = False
    if owned or getattr(type(self), "_es_own", False):
        return Claimed(v) if type(v) is bool else v
    return v


def _getitem(self, key):
    return _ask("item", hid_of(self), o=key)


def _setitem(self, key, value):
    _ask("setitem", hid_of(self), (value,), o=key)


def _delitem(self, key):
    _ask("delitem", hid_of(self), o=key)


def _numeric(name):
    if name in BIN_OPS:
        def op(self, other):
            return _ask("bin", hid_of(self), n=name, o=other)
    else:
        def op(self, *args):
            return _ask("un", hid_of(self), args, n=name)
    op.__name__ = name
    return op


def proxy_namespace(f, numeric, fields, own=False):
    """The dunders of a mirrored class, from its capabilities `f` (see sandbox caps()). For a
    class of the code (`own`), the protocols by which an object poses as a value are `Unjudged`."""
    ns = {"_es_f": f, "_es_own": own}
    if own:
        f_all, f = f, "".join(c for c in f if c not in "lingSP")
        for n, flag in (("__len__", "l"), ("__iter__", "i"), ("__next__", "n"), ("__getitem__", "g"), ("__setitem__", "S")):
            if flag in f_all:
                ns[n] = _unjudged
        if "l" in f_all:
            ns["__bool__"] = _truth_unjudged
        for n in numeric:
            ns[n] = _unjudged
        numeric = []
    if "c" in f:
        ns["__call__"] = _call
    if "l" in f:
        ns["__len__"] = _len
    if "b" in f or "l" in f:
        ns["__bool__"] = _truth_unjudged
    if "i" in f:
        ns["__iter__"] = _iter
    if "n" in f:
        ns["__next__"] = _next
        if "i" not in f:
            ns["__iter__"] = lambda self: self
    if "g" in f:
        ns["__getitem__"] = _getitem
    if "S" in f:
        ns["__setitem__"] = _setitem
        ns["__delitem__"] = _delitem
    if "k" in f:
        ns["__contains__"] = _unjudged
    if "d" in f:
        ns["__eq__"], ns["__ne__"] = _dc_eq, _dc_ne
        ns["__hash__"] = _dc_hash if "F" in f else None
    elif "e" in f:
        ns["__eq__"] = ns["__ne__"] = _unjudged
        ns["__hash__"] = None if "H" in f else object.__hash__
    elif "H" in f:
        ns["__hash__"] = None
    if "o" in f:
        for n in ("__lt__", "__le__", "__gt__", "__ge__"):
            ns[n] = _unjudged
    for n in numeric:
        if n in BIN_OPS or n in UN_OPS:
            ns[n] = _numeric(n)
    return ns


class ProxyMeta(type):
    """The metaclass of mirrored classes: calling one constructs an object of the code's class
    in the sandbox; its other attributes are the code's class's."""

    def __call__(cls, *args, **kwargs):
        return _ask("call", cls._es_chid, args, kwargs)

    def __getattr__(cls, name):
        if name.startswith("_es_") or name.startswith("__"):
            raise AttributeError(name)
        v = _ask("get", cls._es_chid, n=name)
        if type(v) is bool:
            return Claimed(v)
        if isinstance(v, ProxyBase) and not getattr(type(v), "_es_own", False):
            object.__setattr__(v, "_es_owned", True)  # a static or class method of the class
        return v

    def __setattr__(cls, name, value):
        if name.startswith("_es_") or cls.__dict__.get("_es_chid") is None:
            return type.__setattr__(cls, name, value)
        _ask("set", cls._es_chid, n=name, o=value)

    def __repr__(cls):
        return "<class '{}'>".format(cls.__name__)


def mirrored_class(hid, meta, dec, d):
    """The judge-side class for the code's class `hid` (meta: its name, bases, capabilities)."""
    name = clean_name(meta.get("C"))
    bases = []
    value_based = False
    for b in meta.get("b", []):
        try:
            cls = dec.dec(b, d)
        except (BadWire, TooBig):
            continue
        if isinstance(cls, ProxyMeta):
            bases.append(cls)
            value_based = value_based or not issubclass(cls, ProxyBase)
        elif isinstance(cls, type) and cls is not bool and (
            value_base(cls) is not None or issubclass(cls, BaseException)
        ):
            bases.append(cls)  # a value type (or Counter, OrderedDict, ...) or an exception
            value_based = True
    f = meta.get("f") if type(meta.get("f")) is str else ""
    numeric = [n for n in meta.get("a", []) if type(n) is str]
    if not value_based and not any(issubclass(b, ProxyBase) for b in bases):
        bases.append(ProxyBase)
    ns = {} if value_based else proxy_namespace(f, numeric, meta.get("q"), own=True)
    ns.update({"_es_chid": hid, "__module__": "<code>", "__qualname__": name})
    if not value_based:
        ns["__slots__"] = ()
    metas = ProxyMeta
    mf = meta.get("m") if type(meta.get("m")) is str else ""
    if mf:
        metas = _meta_variant(mf)
    try:
        return metas(name if name.isidentifier() else "code_class", tuple(bases), ns)
    except TypeError:
        ns["__slots__"] = ()
        return metas(name if name.isidentifier() else "code_class", (ProxyBase,), proxy_namespace(f, numeric, None) | {"_es_chid": hid})


_VARIANTS = {}


def _meta_variant(mf):
    """A metaclass for classes that are themselves iterable or sized (an Enum class)."""
    v = _VARIANTS.get(mf)
    if v is None:
        ns = {}
        if "i" in mf:
            ns["__iter__"] = lambda cls: _ask("iter", cls._es_chid)
        if "l" in mf:
            ns["__len__"] = lambda cls: _len_cls(cls)
        if "g" in mf:
            ns["__getitem__"] = lambda cls, key: _ask("item", cls._es_chid, o=key)
        if "k" in mf:
            ns["__contains__"] = _unjudged
        v = _VARIANTS[mf] = type("ProxyMeta_" + mf, (ProxyMeta,), ns)
    return v


def _len_cls(cls):
    n = _ask("len", cls._es_chid)
    if type(n) is not int or n < 0:
        raise TypeError("__len__ should return an int >= 0")
    return n


def generic_class(name, f, numeric):
    """The class of a handle whose type is a standard-library type (a match object, an
    itertools iterator, ...): a proxy with that type's capabilities."""
    key = (name, f, tuple(numeric))
    cls = S.classes.get(key)
    if cls is None:
        ns = proxy_namespace(f, numeric, None)
        ns.update({"__slots__": (), "__module__": "<code>", "_es_chid": None})
        cls = S.classes[key] = ProxyMeta(name if name.isidentifier() else "code_object", (ProxyBase,), ns)
    return cls


def judge_foreign_dec(tag, x, dec, d):
    """A handle of the sandbox ("h") met for the first time in this test."""
    if tag != "h" or len(x) != 3 or type(x[2]) is not dict:
        raise BadWire()
    hid, meta = x[1], x[2]
    if "C" in meta:
        obj = mirrored_class(hid, meta, dec, d)
    else:
        cls = None
        if "t" in meta:
            cls = dec.dec(meta["t"], d)
            if not isinstance(cls, ProxyMeta) or not issubclass(cls, ProxyBase):
                cls = None
        if cls is None:
            f = meta.get("f") if type(meta.get("f")) is str else ""
            numeric = [n for n in meta.get("a", []) if type(n) is str]
            cls = generic_class(clean_name(meta.get("n")), f, numeric)
        obj = object.__new__(cls)
        object.__setattr__(obj, "_es_hid", hid)
    S.proxies[hid] = obj
    return obj


def judge_own(tag, n):
    if tag == "h":
        got = S.proxies.get(n)
        return MISSING if got is None else got
    if tag == "j" and 0 <= n < len(S.jobjs):
        return S.jobjs[n]
    raise BadWire()


def judge_foreign_enc(v, enc, d):
    """A value of the test with no plain form: a proxy goes back as its handle; anything else
    (a function of the test, an iterator) becomes a judge handle the code may call or iterate."""
    if type(v) is Claimed:
        return enc.enc(v.value, d)
    if isinstance(v, ProxyBase):
        h = hid_of(v)
        if type(h) is str:  # a predicted entry: its handle comes with the names
            from_names = S.link.wait_names if S.names_raw is None else None
            if from_names is not None:
                from_names()
            h = hid_of(v)
            if type(h) is str:
                raise Unjudged()
        return ["h", h]
    if isinstance(v, ProxyMeta) and v.__dict__.get("_es_chid") is not None:
        return ["h", v._es_chid]
    jid = S.jids.get(id(v))
    if jid is None:
        jid = len(S.jobjs)
        S.jobjs.append(v)
        S.jids[id(v)] = jid
    flags = ("c" if callable(v) else "") + ("n" if hasattr(type(v), "__next__") else "") + (
        "i" if hasattr(type(v), "__iter__") else ""
    )
    return ["j", jid, flags]


def judge_sub_dec(x, dec, d):
    """An instance of the code's subclass of a value type: an instance of the mirrored class
    holding the same base value (so it compares as its base value, never as `type(v) is int`)."""
    cls = dec.dec(x[1], d)
    k = dec._slot()
    base = {b.__name__: b for b in VALUE_BASES}.get(x[2])
    if base is None or base is bool:
        raise BadWire()
    raw = x[3]
    if base is int:
        val = int_in(raw)
    elif base is float:
        val = float_in(raw) if not isinstance(raw, list) else float("nan")
    elif base is complex:
        val = complex(float_in(raw[0]), float_in(raw[1]))
    elif base in (str, bytes, bytearray):
        val = dec.dec(raw, d)
    elif base in (list, tuple, set, frozenset):
        val = dec.items(raw, d)
    else:
        val = dec.pairs(raw, d)
    if type(val) not in (base, list) and base not in (int, float, complex, list, tuple, set, frozenset, dict):
        raise BadWire()
    if not (isinstance(cls, type) and issubclass(cls, base)):
        obj = base(val) if base is not dict else dict(val)
        return dec._fill(k, obj)
    if base in (list, set, dict):
        obj = base.__new__(cls)
        if base is list:
            list.extend(obj, val)
        elif base is set:
            set.update(obj, val)
        else:
            dict.update(obj, val)
    else:
        obj = base.__new__(cls, val)
    if x[4] is not None and hasattr(obj, "__dict__"):
        for a, v in dec.pairs(x[4], d):
            if type(a) is str:
                obj.__dict__[a] = v
    return dec._fill(k, obj)


