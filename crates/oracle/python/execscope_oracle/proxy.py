# execscope stand-ins for the code's objects on the test's side (Python stdlib only; the judge's
# and the sandboxed self-test runner's).
#
# An object of the code that plain data cannot express (an instance of its own class, a function,
# a generator, ...) is a handle; here it is an instance of a class that mirrors the code's class
# (same name, same bases as far as they are the code's or builtin value/exception types), so
# `type(x) is Node`, `isinstance(x, Node)` and `Node(3)` work as the test expects.
#
# The rule this module enforces (docs/threat-model.md "The rule: a verdict depends only on values
# the judge holds"): the code sees the test's values only as the inputs of the code under test --
# the arguments of an entry point, of a name of the code the tests mention (a function, a class,
# its methods and protocols), of a function the code returned. An operation that would hand a
# value of the test to anything else the code returned -- a method of a returned value
# (`f(x).startswith('cb')`), an operator (`f(x) - y`), an item or attribute it would set -- is
# `Unjudged` without asking the code, so no answer the code gives can have been made for the
# test's expected value. What the code says on its own (a returned value, an attribute, `len`,
# the items it yields, `str`) is data the judge rebuilds with its own classes and compares by its
# own rules. The operations whose answer would *be* the verdict -- truth, `==` and ordering,
# membership, hashing -- are decided here by Python's rules where the code defines nothing
# (identity, always true, a TypeError), by comparing fields for a dataclass's generated `__eq__`
# (the fields read from that `__eq__` when the class crossed), and are otherwise `Unjudged`.

import dataclasses

from .codec import MISSING, VALUE_BASES, BadWire, TooBig, Unjudged, clean_name, int_in, value_base
from .decode import float_in
from .peer import BIN_OPS, MUTABLE_TYPES, UN_OPS, Ahead, apply_contents, as_chunk

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
    pair = None  # the engine's Pair of the current test (its names the tests mention)
    ns = None  # the current test's globals while the code's names are on their way
    wrapped = {}  # handle of a generator -> the judge's generator that iterates it
    unwrap = {}  # id(that generator) -> the handle (for handing it back to the code)
    same = {}  # k -> the value an answer the code marked "s": k carried (the same object again)

    def reset(self, peer):
        self.peer = peer
        self.link = getattr(peer, "link", None)
        self.proxies, self.buffers, self.jobjs, self.jids, self.lazy = {}, {}, [], {}, {}
        self.wrapped, self.unwrap, self.same, self.ns = {}, {}, {}, None


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


# -- trust ----------------------------------------------------------------------------------
# A stand-in's `_es_t`: "i" of the code's interface (a name of the code the tests mention, an
# entry point, a method of either), "r" (the default) a value the code returned, "c" a callable
# the test reached through an attribute of a returned value (a method of it, a function it
# carries): handing it the test's values would let the code see them, so that is Unjudged. An
# instance of a class of the interface is of the interface (`type(x)._es_iface`).


def trust_of(obj):
    if getattr(type(obj), "_es_iface", False):
        return "i"
    try:
        return object.__getattribute__(obj, "_es_t")
    except AttributeError:
        return "r"


def mark(obj, t):
    """Sets the trust of a stand-in (of an instance; a class of the interface is marked with
    `interface_class`)."""
    if isinstance(obj, ProxyBase):
        object.__setattr__(obj, "_es_t", t)


def interface_class(cls):
    """Marks a mirrored class as the code's interface (the tests name it): its instances take
    the test's values as the code under test's inputs."""
    if isinstance(cls, ProxyMeta):
        type.__setattr__(cls, "_es_iface", True)


def _needs_interface(obj):
    """Refuses an operation that hands the test's values to an object the code returned."""
    if trust_of(obj) != "i":
        raise Unjudged()


class ClaimedCall:
    """A callable of the judge's own (a standard-library function or class named by the code, a
    class of the code) the test reached through an attribute of a value the code returned: the
    code chose it, so calling it on the test's values is Unjudged; without arguments it is
    called."""

    __slots__ = ("_es_fn",)

    def __init__(self, fn):
        object.__setattr__(self, "_es_fn", fn)

    def __call__(self, *args, **kwargs):
        if args or kwargs:
            raise Unjudged()
        return object.__getattribute__(self, "_es_fn")()

    def __repr__(self):
        return "<method of a value of the code>"


WALK_MAX = 10_000  # values walked in one attribute's answer (beyond: the rest is left as it is)


def _through(owner, v):
    """`v`, the value of an attribute of `owner`: as it is when `owner` is of the code's
    interface (a stand-in in it joins the interface: a method of it); else every callable in it
    is one the test must not hand its values to."""
    if trust_of(owner) == "i":
        mark(v, "i")
        return v
    return _claim_callables(v, [WALK_MAX])


def _claim_callables(v, left):
    left[0] -= 1
    if left[0] < 0:
        return v
    if isinstance(v, ProxyBase):
        if callable(v):
            mark(v, "c")
        return v
    t = type(v)
    if t is list:
        for i, x in enumerate(v):
            y = _claim_callables(x, left)
            if y is not x:
                v[i] = y
        return v
    if t is tuple:
        items = [_claim_callables(x, left) for x in v]
        return v if all(a is b for a, b in zip(items, v)) else tuple(items)
    if t is dict:
        for k, x in list(v.items()):
            y = _claim_callables(x, left)
            if y is not x:
                v[k] = y
        return v
    if callable(v) and t is not ClaimedCall:
        return ClaimedCall(v)
    return v


class ProxyBase:
    """An object of the code, held in the sandbox."""

    __slots__ = ("_es_hid", "_es_t", "__weakref__")

    def __getattr__(self, name):
        if name.startswith("_es_"):
            raise AttributeError(name)
        return _through(self, _ask("get", hid_of(self), n=name))

    def __setattr__(self, name, value):
        _needs_interface(self)
        _ask("set", hid_of(self), n=name, o=value)

    def __delattr__(self, name):
        _needs_interface(self)
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
    """The values of the fields the class's generated `__eq__` compares (named when the class
    crossed), read as data."""
    names = type(obj).__dict__.get("_es_q")
    if names is None:
        for c in type(obj).__mro__:
            names = c.__dict__.get("_es_q")
            if names is not None:
                break
    if type(names) is not tuple:
        raise _judge_unjudged()
    v = _ask("fields", hid_of(obj), (list(names),))
    if type(v) is not tuple or len(v) != len(names):
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
    if (args or kwargs) and trust_of(self) == "c":
        raise _judge_unjudged()
    return _ask("call", hid_of(self), args, kwargs)


def _getitem(self, key):
    _needs_interface(self)
    return _ask("item", hid_of(self), o=key)


def _setitem(self, key, value):
    _needs_interface(self)
    _ask("setitem", hid_of(self), (value,), o=key)


def _delitem(self, key):
    _needs_interface(self)
    _ask("delitem", hid_of(self), o=key)


def _numeric(name):
    """An operator of a stand-in: a binary one hands the other operand to the code (only the
    code's interface takes it); a unary one asks."""
    if name in BIN_OPS:
        def op(self, other):
            _needs_interface(self)
            return _ask("bin", hid_of(self), n=name, o=other)
    else:
        def op(self, *args):
            if args:
                _needs_interface(self)
            return _ask("un", hid_of(self), args, n=name)
    op.__name__ = name
    return op


def _interface_only(ask):
    """A protocol of an instance of the code's own class: only an instance of a class the tests
    name answers it (`len(stack)`); an instance of another class of the code never poses as a
    value (Unjudged)."""

    def op(self, *args):
        _needs_interface(self)
        return ask(self, *args)

    op.__name__ = getattr(ask, "__name__", "op")
    return op


def _contains(self, item):
    """`item in x` through the class's own `__contains__`: the code's answer for an instance of
    a class the tests name (the operand is the test's input to it), else Unjudged."""
    _needs_interface(self)
    v = _ask("has", hid_of(self), o=item)
    if type(v) is not bool:
        raise _judge_unjudged()
    return v


def _truth(self):
    """The truth of an instance of the code's class that defines `__bool__` or `__len__`: the
    code's answer for a class of the interface (`assert not stack`), else Unjudged."""
    _needs_interface(self)
    v = _ask("bool", hid_of(self))
    if type(v) is not bool:
        raise TypeError("__bool__ should return bool")
    return v


def proxy_namespace(f, numeric, fields, own=False):
    """The dunders of a mirrored class, from its capabilities `f` (see sandbox caps()). For a
    class of the code (`own`), the protocols by which an object poses as a value are `Unjudged`."""
    ns = {"_es_f": f, "_es_own": own}
    if own:
        f_all, f = f, "".join(c for c in f if c not in "lingSPb")
        protocols = (
            ("__len__", "l", _len), ("__iter__", "i", _iter), ("__next__", "n", _next),
            ("__getitem__", "g", _getitem), ("__setitem__", "S", _setitem), ("__delitem__", "S", _delitem),
        )
        for n, flag, ask in protocols:
            if flag in f_all:
                ns[n] = _interface_only(ask)
        if "n" in f_all and "i" not in f_all:
            ns["__iter__"] = lambda self: self
        if "l" in f_all or "b" in f_all:
            ns["__bool__"] = _truth
        for n in numeric:
            ns[n] = _interface_only(_numeric(n))
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
        ns["__contains__"] = _contains if own else _unjudged
    q = fields if type(fields) is list and all(type(n) is str for n in fields) else None
    if "d" in f and q is not None:
        ns["_es_q"] = tuple(q)
        ns["__eq__"], ns["__ne__"] = _dc_eq, _dc_ne
        ns["__hash__"] = _dc_hash if "F" in f else None
    elif "e" in f or "d" in f:
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
        if cls.__dict__.get("_es_iface"):
            mark(v, "i")  # a static or class method of a class the tests name
            return v
        return _claim_callables(v, [WALK_MAX])

    def __setattr__(cls, name, value):
        if name.startswith("_es_") or cls.__dict__.get("_es_chid") is None:
            return type.__setattr__(cls, name, value)
        if not cls.__dict__.get("_es_iface"):
            raise _judge_unjudged()
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
    if any(issubclass(b, BaseException) for b in bases):
        ns["__str__"] = _exception_str
    ns.update(_dataclass_fields(meta.get("dc")))
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


def _exception_str(self):
    """`str()` of an exception of a class of the code: the message the code's `__str__` gave
    when it crossed (data), else Python's from its arguments."""
    m = self.__dict__.get("_es_msg") if hasattr(self, "__dict__") else None
    return m if type(m) is str else BaseException.__str__(self)


def _dataclass_fields(dc):
    """`__dataclass_fields__` for the mirror of a dataclass of the code (its fields as the
    class described them: name, `compare`, `init`), so `dataclasses.is_dataclass`, `fields`,
    `asdict` and `astuple` work on its instances (each field's value read as an attribute)."""
    if type(dc) is not list or len(dc) > 255:
        return {}
    out = {}
    for item in dc:
        if not (type(item) is list and len(item) == 3 and type(item[0]) is str and item[0].isidentifier()):
            return {}
        fl = dataclasses.field(compare=item[1] is True, init=item[2] is not False)
        fl.name, fl.type = item[0], object
        fl._field_type = dataclasses._FIELD
        out[item[0]] = fl
    return {"__dataclass_fields__": out}


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
    if meta.get("n") == "generator" and "t" not in meta and "n" in (meta.get("f") or ""):
        g = _as_generator(obj)
        S.wrapped[hid], S.unwrap[id(g)] = g, hid
        return g
    return obj


def _as_generator(p):
    """A generator of the judge's yielding what the code's generator `p` yields, so a test that
    checks `isinstance(x, types.GeneratorType)` sees one, as in one process. (What `send`,
    `throw` and `close` do to it does not reach the code's generator.)"""
    while True:
        try:
            v = _next(p)
        except StopIteration:
            return
        yield v


def same_object(k, v):
    """The value of an answer the sandbox marked as its k-th object of this test: the same
    object as the earlier answer of that mark (its contents brought up to date), so `f() is
    f()` holds when the code returned one object twice; a first mark keeps `v`."""
    if type(k) is not int:
        return v
    old = S.same.get(k)
    if old is None or type(old) is not type(v):
        S.same[k] = v
        return v
    if type(v) in MUTABLE_TYPES:
        apply_contents(old, v)
    elif old != v:
        S.same[k] = v
        return v
    return old


def judge_own(tag, n):
    if tag == "h":
        got = S.wrapped.get(n) or S.proxies.get(n)
        return MISSING if got is None else got
    if tag == "j" and 0 <= n < len(S.jobjs):
        return S.jobjs[n]
    raise BadWire()


def judge_foreign_enc(v, enc, d):
    """A value of the test with no plain form: a proxy goes back as its handle; anything else
    (a function of the test, an iterator) becomes a judge handle the code may call or iterate."""
    if type(v) is ClaimedCall:
        return enc.enc(object.__getattribute__(v, "_es_fn"), d)
    hid = S.unwrap.get(id(v))
    if hid is not None:
        return ["h", hid]  # a generator of the code, iterated here through a generator of ours
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
            # An instance attribute never shadows what the class has (`s.startswith = ...` on a
            # str subclass): the judge's methods of the base type stay the ones a test calls;
            # a callable among the others is the code's to call, never with the test's values.
            if type(a) is str and not hasattr(type(obj), a):
                obj.__dict__[a] = _claim_callables(v, [WALK_MAX])
    return dec._fill(k, obj)


