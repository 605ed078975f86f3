# execscope pair child for a program in another language than Python (the harness's; stdlib only).
#
# The harness forks this child, confined exactly as a Python pair child (sandbox.confine: the
# level's namespaces, Landlock and seccomp, rlimits, the pair's uid, a private work dir). It
# compiles the program with the language's stub (the stubs' sources, `stubs.SOURCES`) inside that
# confinement -- compilers and runtimes are processes of this child -- starts it, and then speaks
# the line protocol a Python pair child speaks: `T`/`U` answered with the program's names (its
# entry points, each a function handle), `M` requests answered with `R` replies, every line after
# the child's token. Before the first test it says `C` (built: the judge starts the test's clock
# only then, and bounds the build with a budget of its own).
#
# The program runs in a process of its own, a child of this one in its process group, with its
# stdin, stdout and stderr on /dev/null: what it prints goes nowhere. It reads requests on fd 3
# and answers on fd 4 in the stub wire (docs/languages.md):
#   values   N | T | F | i<decimal>; | f<16 hex: the IEEE-754 bits> | s<n>;<n bytes of UTF-8>
#            | b<n>;<n bytes> | l<n>; list | p<n>; tuple | e<n>; set | d<n>; dict (n pairs)
#   to it    c<k>;<n>; + n values (call entry k)   n (a new test begins)
#   from it  h + value (ready: a list of booleans, the entries it has; or a word, the program
#            failed to load)   v + value (a result)   x + word + message (both str values)
# A value crosses by the type the function declares (decoded and encoded by the stub); a value
# that does not fit it is that call's error. Nothing the program does can answer for the judge:
# its answers are data, decoded here into Python's values and sent on as the codec's wire forms.
# When the program exits or dies before an answer, this child dies the same way (an exit or the
# same signal), which the harness reports to the judge as the test's outcome.

import json as _json
import os
import re
import signal
import struct

from .codec import MAX_CHARS, MAX_DEPTH, MAX_NODES, MISSING, BadWire, big
from .excs import BUILTIN_EXC, VOCAB, exc_dec
from .peer import Gone, Peer, dumps
from .toolchains import LANG_NAMES, build, die_like, spawn

# The words a stub may name an exception with (each a builtin exception of Python; anything else
# it sends is `Other`).
WORDS = frozenset(
    (
        "IndexError KeyError ValueError TypeError ZeroDivisionError OverflowError ArithmeticError "
        "RecursionError MemoryError RuntimeError NotImplementedError AssertionError AttributeError "
        "UnicodeDecodeError UnicodeEncodeError NameError StopIteration LookupError"
    ).split()
)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MAX_DIGITS = 4300  # Python's own limit on int() of a decimal string


class ForeignError(Exception):
    """An exception the program raised (or its stub reported), by word and message."""

    def __init__(self, word, msg):
        super().__init__(msg)
        self.word = word if word in WORDS else "Other"
        self.msg = msg


class Unsendable:
    """A value of the test the program cannot take (a function or iterator of the test)."""

    __slots__ = ()


class TooLargeReply:
    """An answer over the codec's bounds (it reaches the judge as a "too large" value)."""

    __slots__ = ()


# -- the stub wire --------------------------------------------------------------------------------
class WireError(Gone):
    """The program broke the stub wire (it wrote on the answer pipe itself): it is ended, and the
    test with it (a `Gone`, so the peer does not answer it as the call's exception)."""

    def __init__(self):
        super().__init__("wire")


def put(v, out, lang, depth=0):
    """Appends the stub wire form of the test's value `v` to `out` (a bytearray)."""
    if depth > MAX_DEPTH:
        raise ValueError("value nested too deeply to pass to the program")
    if v is None:
        out += b"N"
    elif v is True or v is False:
        out += b"T" if v else b"F"
    elif isinstance(v, int):
        out += b"i%d;" % int(v)
    elif isinstance(v, float):
        out += b"f" + struct.pack(">d", float(v)).hex().encode()
    elif isinstance(v, str):
        try:
            b = str(v).encode("utf-8")
        except UnicodeEncodeError:
            raise UnicodeEncodeError("utf-8", str(v), 0, 1, "a lone surrogate cannot cross") from None
        out += b"s%d;" % len(b) + b
    elif isinstance(v, (bytes, bytearray)):
        out += b"b%d;" % len(v) + bytes(v)
    elif isinstance(v, (list, tuple, set, frozenset)):
        tag = b"p" if isinstance(v, tuple) else b"e" if isinstance(v, (set, frozenset)) else b"l"
        items = list(v)
        out += tag + b"%d;" % len(items)
        for x in items:
            put(x, out, lang, depth + 1)
    elif isinstance(v, dict):
        items = list(dict.items(v))
        out += b"d%d;" % len(items)
        for k, x in items:
            put(k, out, lang, depth + 1)
            put(x, out, lang, depth + 1)
    else:
        name = "a function or iterator of the test" if isinstance(v, Unsendable) else "a value of type " + type(v).__name__
        raise TypeError("{} cannot be passed to a {} function".format(name, lang))


class Reader:
    """Values of the stub wire from the program's answer pipe, within the codec's bounds (beyond
    them the rest of the value is read and dropped: the answer is "too large")."""

    def __init__(self, fd, pid):
        self.fd, self.pid, self.buf, self.at = fd, pid, b"", 0
        self.bad = None  # the first part of the value Python cannot hold (it is read to its end)

    def read(self):
        """One whole value; raises what made a part of it a value Python cannot hold (a string
        that is not UTF-8, an unhashable key) only once the value is read to its end."""
        self.bad = None
        v = self.value()
        if self.bad is not None:
            raise self.bad
        return v

    def _fill(self):
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            die_like(self.pid)  # the program is gone before its answer
        self.buf = self.buf[self.at :] + chunk
        self.at = 0

    def byte(self):
        if self.at >= len(self.buf):
            self._fill()
        self.at += 1
        return self.buf[self.at - 1 : self.at]

    def upto(self, limit=24):
        """The ASCII text before the next `;` (a count or a number)."""
        out = b""
        while True:
            c = self.byte()
            if c == b";":
                return out
            out += c
            if len(out) > limit:
                raise WireError()

    def count(self):
        t = self.upto()
        if not t.isdigit():
            raise WireError()
        return int(t)

    def take(self, n, keep):
        parts, left = [], n
        while left:
            if self.at >= len(self.buf):
                self._fill()
            piece = self.buf[self.at : self.at + left]
            self.at += len(piece)
            left -= len(piece)
            if keep:
                parts.append(piece)
        return b"".join(parts)

    def value(self, budget=None, depth=0):
        if budget is None:
            budget = [MAX_NODES, MAX_CHARS]
        budget[0] -= 1
        over = budget[0] < 0 or depth > MAX_DEPTH
        c = self.byte()
        if c == b"N":
            return None
        if c in (b"T", b"F"):
            return c == b"T"
        if c == b"i":
            t = self.upto(MAX_DIGITS + 2 if not over else 1 << 30)
            if len(t) > MAX_DIGITS or over:
                return TooLargeReply()
            try:
                return int(t)
            except ValueError:
                raise WireError() from None
        if c == b"f":
            t = self.take(16, True)
            try:
                return struct.unpack(">d", bytes.fromhex(t.decode("ascii")))[0]
            except (ValueError, UnicodeDecodeError):
                raise WireError() from None
        if c in (b"s", b"b"):
            n = self.count()
            budget[1] -= n
            keep = budget[1] >= 0 and not over
            raw = self.take(n, keep)
            if not keep:
                return TooLargeReply()
            if c == b"b":
                return raw
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as e:
                self.bad = self.bad or e
                return ""
        if c in (b"l", b"p", b"e", b"d"):
            n = self.count()
            items = [self.value(budget, depth + 1) for _ in range(n * (2 if c == b"d" else 1))]
            if over or budget[0] < 0 or any(type(x) is TooLargeReply for x in items):
                return TooLargeReply()
            if c == b"l":
                return items
            if c == b"p":
                return tuple(items)
            try:
                if c == b"e":
                    return set(items)
                it = iter(items)
                return dict(zip(it, it))
            except TypeError as e:  # an unhashable key or member
                self.bad = self.bad or e
                return None
        raise WireError()


# -- the side the judge talks to ------------------------------------------------------------------
class Entry:
    """One entry point of the program: calling it is a request to the program."""

    __slots__ = ("k", "name", "prog")

    def __init__(self, k, name, prog):
        self.k, self.name, self.prog = k, name, prog

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("a {} function takes no keyword arguments".format(self.prog.lang_name))
        return self.prog.call(self.k, args)

    def __repr__(self):
        return "<{} function {}>".format(self.prog.lang_name, self.name)


class ForeignSide:
    """What the peer needs of this side: the entry points by handle or by name; every answer is
    plain data (a handle never leaves this side but for the entries themselves)."""

    ops = frozenset(("call", "str", "repr"))
    same = None

    def __init__(self, entries):
        self.entries = entries

    def obj(self, n):
        if type(n) is str and n.startswith("="):
            for e in self.entries:
                if e.name == n[1:]:
                    return e
            raise NameError("name {!r} is not defined".format(n[1:]))
        if type(n) is not int or not 0 <= n < len(self.entries):
            raise TypeError("no such object")
        return self.entries[n]

    def own(self, tag, n):
        if tag == "h":
            if not 0 <= n < len(self.entries):
                raise BadWire()
            return self.entries[n]
        return MISSING

    def foreign_dec(self, tag, x, dec, d):
        if tag != "j":
            raise BadWire()
        return Unsendable()

    def foreign_enc(self, v, enc, d):
        if isinstance(v, Entry):
            return ["h", v.k]
        return big("value")

    def exc_enc(self, e, enc, d):
        if isinstance(e, ForeignError):
            word, msg = e.word, e.msg
        else:
            word = type(e).__name__ if type(e).__name__ in WORDS else "Other"
            msg = str(e)[:1000]
        cls = ["std", "builtins", word if word in BUILTIN_EXC else "Exception"]
        return ["ex", word if word in VOCAB else "Other", cls, [msg[:1000]], msg[:1000]]

    exc_dec = staticmethod(exc_dec)

    def sub_dec(self, x, dec, d):
        raise BadWire()

    def remember(self, v):
        return None

    def on_request(self):
        pass

    enter = leave = on_request

    def commit(self, enc):
        pass


class Program:
    """The running program: requests out on one pipe, answers in on the other."""

    def __init__(self, lang, lang_name, pid, wfd, rfd):
        self.lang, self.lang_name, self.pid, self.wfd = lang, lang_name, pid, wfd
        self.reader = Reader(rfd, pid)

    def send(self, data):
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.wfd, view) :]
        except OSError:
            die_like(self.pid)  # it is gone (it closed its end, or died)

    def hello(self):
        """The program's first word: the entries it has (booleans), or why it cannot run."""
        if self.reader.byte() != b"h":
            raise WireError()
        return self.reader.read()

    def call(self, k, args):
        out = bytearray(b"c%d;%d;" % (k, len(args)))
        for a in args:
            put(a, out, self.lang_name)
        self.send(bytes(out))
        tag = self.reader.byte()
        if tag == b"v":
            return self.reader.read()
        if tag == b"x":
            word, msg = self.reader.value(), self.reader.value()
            if type(word) is not str or type(msg) is not str:
                raise WireError()
            raise ForeignError(word, msg[:1000])
        raise WireError()


def relay(lines, record, tools, workdir):
    """The pair child's loop for a program in another language (after its confinement)."""
    lang = str(record.get("lang"))
    lang_name = LANG_NAMES.get(lang, lang)
    entries = [e for e in record.get("entry") or [] if type(e) is str and IDENT.match(e)]
    code = record.get("code") if type(record.get("code")) is str else ""
    prog, failure = None, None
    try:
        argv, env = build(lang, code, entries, tools.get(lang) or {}, workdir)
    except Exception as e:  # the build did not produce a program: its word for every test
        argv, failure = None, getattr(e, "word", "CompileError")
    if argv is not None:
        req_r, req_w = os.pipe()
        ans_r, ans_w = os.pipe()
        pid = spawn(argv, env, {3: req_r, 4: ans_w})
        os.close(req_r)
        os.close(ans_w)
        prog = Program(lang, lang_name, pid, req_w, ans_r)
        try:
            hello = prog.hello()
        except (WireError, ValueError, TypeError):
            os.kill(pid, signal.SIGKILL)
            die_like(pid)
        if type(hello) is str:
            failure = hello if hello in VOCAB else "Other"
        elif type(hello) is not list or len(hello) != len(entries):
            os.kill(pid, signal.SIGKILL)
            die_like(pid)
        else:
            entries = [e for e, ok in zip(entries, hello) if ok is True]
    lines.write(b"C\n")
    handles = [Entry(k, name, prog) for k, name in enumerate(entries)] if failure is None else []
    side = ForeignSide(handles)

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

    peer = Peer(send, recv, side)
    names = {"code": failure} if failure is not None else {"names": {e.name: ["h", k, FUNCTION_META] for k, e in enumerate(handles)}}
    while True:
        line = lines.line()
        if line.startswith(b"T ") or line.startswith(b"U "):
            if prog is not None and failure is None:
                prog.send(b"n")
            lines.write(b"N " + dumps(names).encode() + b"\n")
        elif line.startswith(b"M "):
            try:
                m = _json.loads(line[2:])
            except (ValueError, RecursionError):
                m = None
            if type(m) is dict and "q" in m:
                try:
                    peer.answer(m["q"])
                except WireError:
                    os.kill(prog.pid, signal.SIGKILL)
                    die_like(prog.pid)


FUNCTION_META = {"n": "function", "f": "cr", "a": []}
