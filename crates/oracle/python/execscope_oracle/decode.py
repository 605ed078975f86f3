# execscope value decoding (Python stdlib only; codec.py documents the wire forms). A receiver
# builds every value with its own classes; anything the protocol does not allow is BadWire,
# anything over a bound TooBig (both end in an Unjudged test, never a pass).

import collections
import datetime
import decimal
import fractions
import math

from .codec import (
    HASH_WORK,
    MAX_CHARS,
    MAX_DEC_CHARS,
    MAX_DEPTH,
    MAX_FRAC_BITS,
    MAX_NODES,
    MISSING,
    TZ_T,
    BadWire,
    TooBig,
    TooLarge,
    clean_name,
    int_in,
    std_lookup,
)


class Dec:
    """Decodes one message. `foreign(tag, x)` turns the peer's handle into a stand-in, `own(tag,
    n)` finds this side's object by handle; `args` lists the objects of the request this message
    answers (for ["A", k])."""

    def __init__(self, foreign, own, args=None, sub=None, exc=None):
        self.foreign, self.own, self.sub_cls, self.exc = foreign, own, sub, exc
        self.args = args or []
        self.nodes = MAX_NODES
        self.chars = MAX_CHARS
        self.memo = []  # the k-th container (or NaN) of the message, for ["R", k] and replies
        # Per slot: the node budget when it opened, then the nodes its value took (with every
        # reference in it counted as the nodes of what it refers to). A reference costs what it
        # refers to, so the budget bounds the value *expanded*: a small structure shared many
        # times (a tuple DAG of 64 levels: 2^64 elements) costs what hashing or comparing it
        # would cost the judge in C, where its alarm cannot stop it (docs/threat-model.md
        # "Bounds").
        self.start = []
        self.weight = []

    def _slot(self):
        self.memo.append(_PENDING)
        self.start.append(self.nodes)
        self.weight.append(0)
        return len(self.memo) - 1

    def _fill(self, k, v):
        self.memo[k] = v
        self.weight[k] = self.start[k] - self.nodes
        return v

    def _done(self, k):
        self.weight[k] = self.start[k] - self.nodes

    def dec(self, x, depth=0):
        self.nodes -= 1
        if self.nodes < 0 or depth > MAX_DEPTH:
            raise TooBig()
        if x is None or x is True or x is False:
            return x
        t = type(x)
        if t is str:
            self.chars -= len(x)
            if self.chars < 0:
                raise TooBig()
            return x
        if t is int:
            return x
        if t is float:
            return x
        if t is not list or not x or type(x[0]) is not str:
            raise BadWire()
        return self.tagged(x[0], x, depth + 1)

    def items(self, x, d):
        if type(x) is not list:
            raise BadWire()
        return [self.dec(v, d) for v in x]

    def pairs(self, x, d):
        xs = self.items(x, d)
        if len(xs) % 2:
            raise BadWire()
        it = iter(xs)
        return list(zip(it, it))

    def tagged(self, tag, x, d):
        n = len(x)
        if tag == "R" and n == 2 and type(x[1]) is int and 0 <= x[1] < len(self.memo):
            v = self.memo[x[1]]
            if v is _PENDING:
                raise BadWire()
            self.nodes -= self.weight[x[1]]
            if self.nodes < 0:
                raise TooBig()
            return v
        if tag == "A" and n == 2 and type(x[1]) is int and 0 <= x[1] < len(self.args):
            return self.args[x[1]]
        if tag == "i" and n == 2:
            return int_in(x)
        if tag in ("n", "nm") and n == 1:
            v = math.nan if tag == "nm" else float("nan")
            return self._fill(self._slot(), v)
        if tag == "c" and n == 3:
            return complex(float_in(x[1]), float_in(x[2]))
        if tag == "b" and n == 2:
            return _hex_bytes(x[1], self)
        if tag == "r" and n == 4:
            return range(int_in(x[1]), int_in(x[2]), int_in(x[3]) or _bad())
        if tag == "sl" and n == 4:
            return slice(self.dec(x[1], d), self.dec(x[2], d), self.dec(x[3], d))
        if tag == "..." and n == 1:
            return Ellipsis
        if tag == "NI" and n == 1:
            return NotImplemented
        if tag == "q" and n == 3:
            return _fraction(int_in(x[1]), int_in(x[2]))
        if tag == "D" and n == 2 and type(x[1]) is str and len(x[1]) <= MAX_DEC_CHARS:
            try:
                return decimal.Decimal(x[1])
            except (decimal.InvalidOperation, ValueError):
                raise BadWire() from None
        if tag == "td" and n == 4:
            return datetime.timedelta(days=_small(x[1]), seconds=_small(x[2]), microseconds=_small(x[3]))
        if tag == "tz" and n == 3:
            off = self.dec(x[1], d)
            if type(off) is not datetime.timedelta:
                raise BadWire()
            return datetime.timezone(off) if x[2] is None else datetime.timezone(off, _str_in(x[2]))
        if tag == "date" and n == 4:
            return datetime.date(*map(_small, x[1:4]))
        if tag == "dt" and n == 10:
            return datetime.datetime(*map(_small, x[1:8]), tzinfo=self.tzinfo(x[8], d), fold=_small(x[9]))
        if tag == "time" and n == 7:
            return datetime.time(*map(_small, x[1:5]), tzinfo=self.tzinfo(x[5], d), fold=_small(x[6]))
        if tag == "std" and n == 3:
            v = std_lookup(x[1], x[2])
            if v is None:
                raise BadWire()
            return v
        if tag in ("h", "j") and n >= 2 and type(x[1]) is int:
            got = self.own(tag, x[1])
            if got is not MISSING:
                return got
            return self.foreign(tag, x, self, d)
        if tag == "big" and n == 2:
            return TooLarge(clean_name(x[1]))
        if tag == "ex" and n == 5 and self.exc is not None:
            return self.exc(x, self, d)
        if tag == "sub" and n == 5 and self.sub_cls is not None:
            return self.sub_cls(x, self, d)
        return self.container(tag, x, n, d)

    def tzinfo(self, z, d):
        if z is None:
            return None
        v = self.dec(z, d)
        if type(v) is not TZ_T:
            raise BadWire()
        return v

    def container(self, tag, x, n, d):
        k = self._slot()
        v = self._container(k, tag, x, n, d)
        self._done(k)
        return v

    def _container(self, k, tag, x, n, d):
        if tag == "l" and n == 2:
            out = self._fill(k, [])
            out.extend(self.items(x[1], d))
            return out
        if tag == "d" and n == 2:
            out = self._fill(k, {})
            dict.update(out, _hashable_pairs(self.pairs(x[1], d)))
            return out
        if tag == "od" and n == 2:
            out = self._fill(k, collections.OrderedDict())
            out.update(_hashable_pairs(self.pairs(x[1], d)))  # its own: it keeps an order list
            return out
        if tag == "ct" and n == 2:
            out = self._fill(k, collections.Counter())
            dict.update(out, _hashable_pairs(self.pairs(x[1], d)))  # not Counter.update: it adds
            return out
        if tag == "dd" and n == 3:
            out = self._fill(k, collections.defaultdict())
            f = self.dec(x[1], d)
            if f is not None and not callable(f):
                raise BadWire()
            out.default_factory = f
            dict.update(out, _hashable_pairs(self.pairs(x[2], d)))
            return out
        if tag == "dq" and n == 3:
            m = x[2]
            if m is not None and (type(m) is not int or m < 0):
                raise BadWire()
            out = self._fill(k, collections.deque(maxlen=m))
            out.extend(self.items(x[1], d))
            return out
        if tag == "ba" and n == 2:
            return self._fill(k, bytearray(_hex_bytes(x[1], self)))
        if tag == "t" and n == 2:
            return self._fill(k, tuple(self.items(x[1], d)))
        if tag in ("s", "fs") and n == 2:
            items = _hashable(self.items(x[1], d))
            return self._fill(k, set(items) if tag == "s" else frozenset(items))
        if tag == "nt" and n == 4:
            return self._fill(k, namedtuple_value(x[1], x[2], self.items(x[3], d)))
        if tag in ("dk", "dv", "di") and n == 2:
            items = self.items(x[1], d)
            if tag == "dk":
                return self._fill(k, dict.fromkeys(_hashable(items)).keys())
            if tag == "dv":
                return self._fill(k, dict(enumerate(items)).values())
            pairs = [p for p in items if type(p) is tuple and len(p) == 2]
            if len(pairs) != len(items):
                raise BadWire()
            return self._fill(k, dict(_hashable_pairs(pairs)).items())
        raise BadWire()


class _Pending:
    pass


_PENDING = _Pending()


def _bad():
    raise BadWire()


def _small(v):
    if type(v) is not int or not -(1 << 40) < v < (1 << 40):
        raise BadWire()
    return v


def _str_in(v):
    if type(v) is not str or len(v) > 200:
        raise BadWire()
    return v


def float_in(v):
    if type(v) in (int, float):
        return float(v)
    if type(v) is str and v in ("nan", "inf", "-inf"):
        return float(v)
    raise BadWire()


def _hex_bytes(s, dec):
    if type(s) is not str:
        raise BadWire()
    dec.chars -= len(s) // 2
    if dec.chars < 0:
        raise TooBig()
    try:
        return bytes.fromhex(s)
    except ValueError:
        raise BadWire() from None


def _fraction(n, d):
    if d <= 0:
        raise BadWire()  # a Fraction never has this denominator
    if n.bit_length() > MAX_FRAC_BITS or d.bit_length() > MAX_FRAC_BITS:
        raise TooBig()
    return fractions.Fraction(n, d)


def _collisions(hashes):
    """Refuses a set of keys whose equal hashes would cost more than HASH_WORK comparisons."""
    if len(hashes) < 64:
        return
    c = collections.Counter(hashes)
    if sum(g * g for g in c.values() if g > 1) > HASH_WORK:
        raise TooBig()


def _hashable(items):
    try:
        _collisions([hash(v) for v in items])
    except TypeError:
        raise BadWire() from None
    return items


def _hashable_pairs(pairs):
    try:
        _collisions([hash(k) for k, _ in pairs])
    except TypeError:
        raise BadWire() from None
    return pairs


_NT = {}


def namedtuple_value(name, fields, values):
    """A named tuple of a judge-side class with the same name and fields."""
    if (
        type(fields) is not list
        or len(fields) != len(values)
        or len(fields) > 255
        or not all(type(f) is str and f.isidentifier() and not f.startswith("_") for f in fields)
    ):
        raise BadWire()
    key = (clean_name(name), tuple(fields))
    cls = _NT.get(key)
    if cls is None:
        if len(_NT) > 10_000:
            _NT.clear()
        try:
            n = key[0] if key[0].isidentifier() else "namedtuple"
            cls = _NT[key] = collections.namedtuple(n, fields)
        except (ValueError, TypeError):
            raise BadWire() from None
    return cls(*values)
