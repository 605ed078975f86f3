# execscope RPC peer (Python stdlib only; the harness's and the judge's).
#
# Both halves of the oracle speak the same protocol: a request {"q": {...}} is answered by a
# reply {"r": {...}}; while a side waits for its reply it serves the other side's requests (a
# function of the test the code calls back, which may call the code again). A request names the
# other side's object by handle and carries its arguments encoded (codec.py); the reply carries
# the result ({"v": x}) or the exception ({"x": x}) and the new contents of every mutable
# argument the call changed ({"p": [[k, x]]}), which the caller copies into its own objects, so
# `f(l); assert l == [...]` sees what `f` did to `l`.

import collections
import json as _json

from .codec import BadWire, Enc, TooBig, Unjudged, encode_value
from .decode import Dec
from .excs import BUILTIN_EXC

# Operations a side answers on its own objects. The judge answers only the first three on the
# test's objects it handed out (a function or an iterator of the test the code uses).
OPS = frozenset("call next iter get set del item setitem delitem len str repr format bin un fields bool has".split())
JUDGE_OPS = frozenset(("call", "next", "iter"))
BIN_OPS = frozenset(
    (
        "__add__ __radd__ __sub__ __rsub__ __mul__ __rmul__ __truediv__ __rtruediv__ __floordiv__ "
        "__rfloordiv__ __mod__ __rmod__ __pow__ __rpow__ __matmul__ __rmatmul__ __and__ __rand__ "
        "__or__ __ror__ __xor__ __rxor__ __lshift__ __rlshift__ __rshift__ __rrshift__ __divmod__ "
        "__rdivmod__"
    ).split()
)
UN_OPS = frozenset("__neg__ __pos__ __abs__ __invert__ __int__ __float__ __index__ __complex__ __round__".split())
MAX_NESTING = 60
CHUNK_MAX = 4096


def dumps(obj):
    return _json.dumps(obj, separators=(",", ":"))


class Gone(BaseException):
    """The other side can answer no more (it ran out of time, died, or proved a hang): unwinds
    the test, whose outcome is `status` -- even if the test catches it."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


class Peer:
    """One side of a test's RPC conversation. `side` supplies: foreign_enc(v, enc, d) (this
    side's object -> handle), foreign_dec(tag, x, dec, d) (the other side's handle -> stand-in),
    own(tag, n) (this side's object by handle, or codec.MISSING), exc_enc(e, enc, d),
    exc_dec(x, dec, d), sub_dec(x, dec, d), obj(n) (this side's object a request names),
    remember(v) (the number of a container this side answers a call with, the same for the same
    object within a test, or None), same(k, v) (the value of an answer marked k: the earlier
    answer's object when it had that mark, or None where this side keeps no such marks),
    ops (the operations it serves), on_request(), enter() and leave() (around the operation:
    the hang detector watches only the code's own computation) and commit(enc) (the handles a
    message described are known to the other side once it is sent)."""

    def __init__(self, send, recv, side):
        self.send, self.recv, self.side = send, recv, side
        self.depth = 0

    def enc(self, argmap=None):
        s = self.side
        return Enc(s.foreign_enc, argmap, s.exc_enc)

    def dec(self, args=None):
        s = self.side
        return Dec(s.foreign_dec, s.own, args, s.sub_dec, s.exc_dec)

    # -- asking ---------------------------------------------------------------------------
    def ask(self, q, args=(), kwargs=None, values=None):
        """Sends request `q` (its "a"/"k"/"o" fields filled from `args`, `kwargs` and `values`,
        a dict of named operands), waits for the reply while serving nested requests, and returns
        the decoded result (or raises the decoded exception)."""
        enc = self.enc()
        try:
            if args:
                q["a"] = [enc.enc(a) for a in args]
            if kwargs:
                q["k"] = [[k, enc.enc(v)] for k, v in kwargs.items()]
            for name, v in (values or {}).items():
                q[name] = enc.enc(v)
        except TooBig:
            raise ValueError("argument too large to pass to the code") from None
        self.side.commit(enc)
        self.send({"q": q})
        r = self.wait()
        dec = self.dec(enc.order)
        try:
            if "c" in r:  # a chunk of an iterator: its items, whether it ended, what it raised
                err = dec.dec(r["x"]) if "x" in r else None
                if err is not None and not isinstance(err, BaseException):
                    raise BadWire()
                out = ("v", Chunk(dec.items(r["c"], 1), r.get("e") is True, err))
            elif "v" in r:
                out = ("v", dec.dec(r["v"]))
                if "s" in r and self.side.same is not None:
                    out = ("v", self.side.same(r["s"], out[1]))
            else:
                out = ("x", dec.dec(r["x"]))
            for k, x in r.get("p", ()):
                if type(k) is int and 0 <= k < len(enc.order):
                    apply_contents(enc.order[k], dec.dec(x))
        except (TooBig, BadWire, KeyError, TypeError, ValueError, RecursionError):
            raise Unjudged() from None
        if out[0] == "x":
            e = out[1]
            if not isinstance(e, BaseException):
                raise Unjudged()
            raise e
        return out[1]

    def wait(self):
        """The reply to the request just sent; requests of the other side are served meanwhile."""
        while True:
            m = self.recv()
            if type(m) is not dict:
                raise Unjudged()
            if "r" in m:
                if type(m["r"]) is not dict:
                    raise Unjudged()
                return m["r"]
            if "q" in m:
                self.answer(m["q"])
                continue
            raise Unjudged()

    # -- answering ------------------------------------------------------------------------
    def answer(self, q):
        if self.depth >= MAX_NESTING:
            self.send({"r": {"x": _exc_plain("RecursionError", "too many nested calls")}})
            return
        self.depth += 1
        try:
            self.send({"r": self.serve(q)})
        finally:
            self.depth -= 1

    def serve(self, q):
        side = self.side
        side.on_request()
        dec = self.dec()
        try:
            op = q.get("op") if type(q) is dict else None
            if op not in side.ops:
                raise TypeError("operation not allowed")
            args = [dec.dec(a) for a in q.get("a", ())]
            kwargs = {}
            for k, v in q.get("k", ()):
                if type(k) is not str:
                    raise TypeError("bad keyword")
                kwargs[k] = dec.dec(v)
            operand = dec.dec(q["o"]) if "o" in q else None
        except (TooBig, BadWire, KeyError, TypeError, ValueError, RecursionError) as e:
            return {"x": _exc_plain(type(e).__name__ if not isinstance(e, (TooBig, BadWire)) else "ValueError", "bad request")}
        mutables = []
        argmap = {id(o): k for k, o in enumerate(dec.memo)}
        for k, o in enumerate(dec.memo):
            if type(o) in MUTABLE_TYPES:
                try:
                    mutables.append((k, o, Enc(side.foreign_enc, argmap, side.exc_enc).exact(o, type(o), 1)))
                except BaseException:
                    pass
        side.enter()
        try:
            target = side.obj(q.get("h"))  # by name: the code's NameError when it lacks it
            result = ("v", perform(op, target, args, kwargs, operand, q))
        except Gone:
            raise
        except BaseException as e:
            result = ("x", e)
        finally:
            side.leave()
        enc = Enc(side.foreign_enc, argmap, side.exc_enc)
        if result[0] == "v" and type(result[1]) is Chunk:
            ch = result[1]
            r = {"c": [encode_value(enc, x) for x in ch.items], "e": ch.end}
            if ch.err is not None:
                try:
                    r["x"] = enc.enc(ch.err)
                except BaseException:
                    r["x"] = _exc_plain("Other", "")
        elif result[0] == "v":
            r = {"v": encode_value(enc, result[1])}
            k = side.remember(result[1]) if op == "call" else None
            if k is not None:
                r["s"] = k  # the k-th object this side answered with in this test
        else:
            try:
                r = {"x": enc.enc(result[1])}
            except BaseException:
                r = {"x": _exc_plain("Other", "")}
        posts = []
        for k, o, pre in mutables:
            cp = enc.checkpoint()
            try:
                body = enc.exact(o, type(o), 1)
            except TooBig:
                enc.restore(cp)
                continue
            if body != pre:
                posts.append([k, body])
        if posts:
            r["p"] = posts
        side.commit(enc)
        return r


def _exc_plain(name, msg):
    return ["ex", name, ["std", "builtins", name if name in BUILTIN_EXC else "Exception"], [msg], msg]



def perform(op, obj, args, kwargs, operand, q):
    """One operation on this side's object (the code's, in the sandbox; the test's, in the
    judge)."""
    if op == "call":
        return obj(*args, **kwargs)
    if op == "next":
        return _next_chunk(obj, q.get("n"))
    if op == "iter":
        return iter(obj)
    name = q.get("n")
    if op in ("get", "set", "del"):
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
        if op == "get":
            return getattr(obj, name)
        if op == "set":
            return setattr(obj, name, operand)
        return delattr(obj, name)
    if op == "item":
        return obj[operand]
    if op == "setitem":
        obj[operand] = args[0] if args else None
        return None
    if op == "delitem":
        del obj[operand]
        return None
    if op == "len":
        return len(obj)
    if op == "str":
        return str(obj)
    if op == "repr":
        return repr(obj)
    if op == "format":
        return format(obj, name if type(name) is str else "")
    if op == "bin":
        if name not in BIN_OPS:
            raise TypeError("operator not allowed")
        f = getattr(type(obj), name, None)
        return NotImplemented if f is None else f(obj, operand)
    if op == "un":
        if name not in UN_OPS:
            raise TypeError("operator not allowed")
        return getattr(type(obj), name)(obj, *args)
    if op == "fields":
        names = args[0] if args else None
        if type(names) is not list or not all(type(n) is str for n in names):
            raise TypeError("field names must be strings")
        return tuple(getattr(obj, n) for n in names)
    if op == "bool":
        return bool(obj)
    if op == "has":
        return operand in obj
    raise TypeError("unknown operation")


class Chunk:
    """Up to `n` items of an iterator, and how it ended (exhausted, or the exception it raised)."""

    __slots__ = ("items", "end", "err")

    def __init__(self, items, end, err):
        self.items, self.end, self.err = items, end, err


class Ahead:
    """The items of the other side's iterator fetched so far, for `next` on a stand-in (the
    judge's view of a code's iterator, the sandbox's view of a test's): items are asked for in
    chunks that double up to CHUNK_MAX (one at a time when `chunked` is false), and how the
    iterator ended (exhausted, or the exception it raised) is told after the last item."""

    __slots__ = ("items", "at", "n", "ended", "err")

    def __init__(self):
        self.items, self.at, self.n, self.ended, self.err = [], 0, 1, False, None

    def next(self, fetch, chunked):
        """The next item; `fetch(n)` asks the other side for up to n items (a Chunk, or raises)."""
        while self.at >= len(self.items):
            if self.ended:
                raise StopIteration
            if self.err is not None:
                e, self.err = self.err, None
                self.ended = True
                raise e
            n = self.n if chunked else 1
            ch = fetch(n)
            self.items, self.at, self.n = ch.items, 0, min(n * 2, CHUNK_MAX)
            self.ended, self.err = ch.end, ch.err
        self.at += 1
        return self.items[self.at - 1]


def as_chunk(ch, bad):
    """`ch` when it is a Chunk, else raises `bad()` (an answer that is not one)."""
    if type(ch) is not Chunk:
        raise bad()
    return ch


def _next_chunk(it, n):
    if type(n) is not int or not 1 <= n <= CHUNK_MAX:
        n = 1
    items = []
    end, err = False, None
    for _ in range(n):
        try:
            items.append(next(it))
        except StopIteration:
            end = True
            break
        except Gone:
            raise
        except BaseException as e:
            err = e
            break
    return Chunk(items, end, err)


def apply_contents(obj, new):
    """Copies the new contents of a mutable argument into this side's own object."""
    t = type(obj)
    if t is not type(new):
        return
    if t is list or t is bytearray:
        obj[:] = new
    elif t is set:
        obj.clear()
        obj.update(new)
    elif t is collections.deque:
        obj.clear()
        obj.extend(new)
    elif t is collections.OrderedDict:
        obj.clear()
        obj.update(new)
    elif t in (dict, collections.Counter, collections.defaultdict):
        dict.clear(obj)
        dict.update(obj, new)


MUTABLE_TYPES = frozenset(
    (list, dict, set, bytearray, collections.OrderedDict, collections.Counter, collections.defaultdict, collections.deque)
)
