# execscope test engine (Python stdlib only; the judge's and the sandboxed self-test runner's).
#
# A test is Python: one assert, several statements, loops, helper functions, try/except, a
# `def check(candidate)` and its call, `with pytest.raises(...)`. It runs here, with this process's
# own builtins and standard library, in a namespace where a name resolves to (a) what the test or
# the trusted setup binds, (b) an entry point -> the code's object, (c) a builtin of this process,
# (d) another top-level name of the code -> the code's object, else NameError. So a builtin the
# code rebinds (`abs`, `sum`) is the code's only when it is the function under test, and a module
# the code imported is this process's own module of that name. Every `assert` is rewritten to
# record the value it compares (`observed`: the left operand of a top-level comparison, else the
# asserted value).

import _signal
import ast as _ast
import builtins
import json as _json
import os
import random as _random
import select
import signal
import sys
import time
import types as _types

from .codec import MISSING, Unjudged, clean_name, std_name
from .excs import VOCAB, exc_dec, exc_enc, exc_label
from .peer import JUDGE_OPS, Gone, dumps
from .proxy import (
    ProxyBase,
    ProxyMeta,
    S,
    generic_class,
    hid_of,
    interface_class,
    judge_foreign_dec,
    judge_foreign_enc,
    judge_own,
    judge_sub_dec,
    mark,
    same_object,
)

OBS_MAX = 200
# The random module's shared generator starts every test from this seed, on both sides (the
# test's here, the code's in the sandbox): a test or a candidate that draws unseeded numbers
# (HumanEval/38, /50 and /53 build their inputs with `random.randint`) sees the same numbers on
# every run, every worker and every re-run of the test under the hang detector.
RANDOM_SEED = 0
_RANDOM = _random._inst  # the shared generator `random.seed`, `random.randint`, ... are bound to
_RANDOM_C_SEED = _random.Random.__mro__[1].seed  # its C seeding (Random.seed's last step)


def reseed():
    """`random.seed(RANDOM_SEED)` without the Python-level wrapper: the same C seeding and the
    same reset of the cached Gaussian (what `Random.seed` does for an int)."""
    _RANDOM_C_SEED(_RANDOM, RANDOM_SEED)
    _RANDOM.gauss_next = None
BUILTIN_NAMES = frozenset(vars(builtins))


def _assert_stmts(node):
    """`assert a <op> b, m` -> `_ES_t = a; _ES_obs(_ES_t); if not (_ES_t <op> b): _ES_fail(m)`,
    every new node at the assert's location (what `ast.fix_missing_locations` would give them)."""

    def at(n):
        return _ast.copy_location(n, node)

    test = node.test
    t_store = at(_ast.Name(id="_ES_t", ctx=_ast.Store()))
    t_load = at(_ast.Name(id="_ES_t", ctx=_ast.Load()))
    if isinstance(test, _ast.Compare):
        first, cond = test.left, at(_ast.Compare(left=t_load, ops=test.ops, comparators=test.comparators))
    else:
        first, cond = test, t_load
    fail_args = [node.msg] if node.msg is not None else []
    obs = at(_ast.Call(func=at(_ast.Name(id="_ES_obs", ctx=_ast.Load())), args=[t_load], keywords=[]))
    fail = at(_ast.Call(func=at(_ast.Name(id="_ES_fail", ctx=_ast.Load())), args=fail_args, keywords=[]))
    return [
        at(_ast.Assign(targets=[t_store], value=first)),
        at(_ast.Expr(obs)),
        at(_ast.If(test=at(_ast.UnaryOp(op=_ast.Not(), operand=cond)), body=[at(_ast.Expr(fail))], orelse=[])),
    ]


def _rewrite_asserts(stmts):
    """`stmts` with every assert, at any depth of statements, rewritten ([`_assert_stmts`]). Only
    statements are walked: an assert is a statement, so an expression (a test's expected value,
    a literal of thousands of items) never holds one and is left as it is, unvisited."""
    out = []
    for s in stmts:
        if isinstance(s, _ast.Assert):
            out.extend(_assert_stmts(s))
            continue
        for field in ("body", "orelse", "finalbody"):
            b = getattr(s, field, None)
            if type(b) is list:
                setattr(s, field, _rewrite_asserts(b))
        for h in getattr(s, "handlers", None) or ():
            h.body = _rewrite_asserts(h.body)
        for c in getattr(s, "cases", None) or ():
            c.body = _rewrite_asserts(c.body)
        out.append(s)
    return out


COMPILED = {}  # (source, filename) -> instrument(): filled by the zygote before it forks
SCANNED = {}  # source -> scan(): likewise


def instrument(src, filename, tree=None):
    """The code object of `src` with its asserts rewritten, or the exception compiling it
    (`tree`: `src` already parsed, which this rewrites)."""
    got = COMPILED.get((src, filename))
    if got is not None:
        return got
    try:
        if tree is None:
            tree = _ast.parse(src, filename)
        tree.body = _rewrite_asserts(tree.body)
        return compile(tree, filename, "exec"), None
    except BaseException as e:
        return None, e


def scan(src, tree=None):
    """(names read, names bound, names called) of `src`, each a frozenset (all empty when it does
    not parse); `tree`: `src` already parsed, not yet rewritten. Names called are those the
    source calls directly (`f(...)`) or hands to a call as a bare argument (`check(f)`); read and
    bound as `mentioned_names` counts them."""
    got = SCANNED.get(src)
    if got is not None:
        return got
    if tree is None:
        try:
            tree = _ast.parse(src)
        except BaseException:
            return frozenset(), frozenset(), frozenset()
    loads, binds, called = set(), set(), set()
    for n in _ast.walk(tree):
        if isinstance(n, _ast.Name):
            (loads if isinstance(n.ctx, _ast.Load) else binds).add(n.id)
        elif isinstance(n, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
            binds.add(n.name)
        elif isinstance(n, _ast.arg):
            binds.add(n.arg)
        elif isinstance(n, (_ast.Import, _ast.ImportFrom)):
            binds.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, _ast.Call):
            if isinstance(n.func, _ast.Name):
                called.add(n.func.id)
            for a in list(n.args) + [k.value for k in n.keywords]:
                if isinstance(a, _ast.Name):
                    called.add(a.id)
    got = frozenset(loads), frozenset(binds), frozenset(called)
    if len(SCANNED) < 20_000:
        SCANNED[src] = got
    return got


def prepare(src, filename):
    """Parses `src` once for both [`scan`] and [`instrument`] and keeps their results (the judge's
    zygote, before it forks: each pair's child finds its tests ready)."""
    if (src, filename) in COMPILED and src in SCANNED:
        return
    try:
        tree = _ast.parse(src, filename)
    except BaseException:
        tree = None
    if src not in SCANNED:
        scan(src, tree)
    if (src, filename) not in COMPILED:
        COMPILED[(src, filename)] = instrument(src, filename, tree)


def called_names(src):
    """Names the test calls directly (`f(...)`) or hands to a call as a bare argument
    (`check(f)`, HumanEval's form, or `map(f, xs)`), for inferring the entry point. Without the
    second kind, `check(f)` beside `abs(...)` would make a builtin-named function of the code the
    only candidate, and the code's own `abs` would decide the test."""
    return set(scan(src)[2])


def mentioned_names(srcs):
    """The names the tests (and the trusted setup) read without binding them themselves. The
    code's objects bound to them, and the entry points, are the code's interface: the code under
    test, whose arguments are the test's inputs (docs/threat-model.md "The rule")."""
    loads, binds = set(), set()
    for src in srcs:
        got = scan(src)
        loads |= got[0]
        binds |= got[1]
    return frozenset(loads - binds)


def _join_interface(name, v):
    """Marks the code's object `v`, bound to a name of the interface, as of the interface."""
    if isinstance(v, ProxyMeta):
        interface_class(v)
    else:
        mark(v, "i")


def _by_name(v):
    """Whether an entry point's value is called by its name in the sandbox: a standard-library
    function or class the code bound to it (`from math import gcd`) is the code's function, so it
    runs there, as the code's own would."""
    return not isinstance(v, (ProxyBase, ProxyMeta)) and callable(v) and std_name(v) is not None


def infer_entries(code_names, tests):
    """Entry points when the caller named none: the code's names the tests call that are not
    builtins; a builtin-named one only when it is the only name of the code the tests call."""
    called = set()
    for t in tests:
        called |= called_names(t)
    mine = called & set(code_names)
    plain = {n for n in mine if n not in BUILTIN_NAMES}
    if plain:
        return sorted(plain)
    return sorted(mine) if len(mine) == 1 else []


class _Fail:
    @staticmethod
    def fail(*msg):
        raise AssertionError(*msg)


def _observe(v):
    S.observed = render(v)


def render(v):
    """repr(v), at most OBS_MAX characters, without asking the code anything (its objects show
    as `<Name object>`)."""
    out = []
    S.rendering = True
    try:
        _brepr(v, out, [OBS_MAX + 1], 0)
        r = "".join(out)
    except _Full:
        r = "".join(out)
    except BaseException as e:
        r = "<repr failed: {}>".format(exc_label(e))
    finally:
        S.rendering = False
    return r[:OBS_MAX]


class _Full(Exception):
    pass


def _emit(s, out, left):
    out.append(s)
    left[0] -= len(s)
    if left[0] <= 0:
        raise _Full()


_OPEN = {list: ("[", "]"), tuple: ("(", ")"), set: ("{", "}"), frozenset: ("frozenset({", "})")}


def _brepr(v, out, left, depth):
    t = type(v)
    if depth > 50:
        _emit("...", out, left)
        return
    if t in _OPEN and (t is not set or v) and (t is not frozenset or v):
        a, b = _OPEN[t]
        _emit(a, out, left)
        for i, x in enumerate(v):
            if i:
                _emit(", ", out, left)
            _brepr(x, out, left, depth + 1)
        if t is tuple and len(v) == 1:
            _emit(",", out, left)
        _emit(b, out, left)
    elif t is dict:
        _emit("{", out, left)
        for i, (k, x) in enumerate(v.items()):
            if i:
                _emit(", ", out, left)
            _brepr(k, out, left, depth + 1)
            _emit(": ", out, left)
            _brepr(x, out, left, depth + 1)
        _emit("}", out, left)
    elif t is str and len(v) > OBS_MAX * 2:
        _emit(repr(v[: OBS_MAX * 2]), out, left)
    elif t is int and v.bit_length() > 4 * OBS_MAX:
        _emit("<int of {} bits>".format(v.bit_length()), out, left)
    elif t is _types.GeneratorType:
        _emit("<generator object>", out, left)  # (its repr holds an address)
    else:
        _emit(repr(v), out, left)


class Pair:
    """One pair's tests in this process: compiled once, each run in a fresh namespace."""

    def __init__(self, tests, entry, setup, main=False):
        self.tests = tests
        self.entry = [e for e in entry if isinstance(e, str)]
        self.setup = setup or ""
        self.main = main  # the namespace is `__main__` (the self-test contract)
        self.compiled = {}
        self.predicted = None  # see Pair.run
        self.inferred = []
        self.setup_code = None
        if self.setup.strip():
            self.setup_code, self.setup_err = instrument(self.setup, "<setup>")
        self.mentioned = mentioned_names(list(self.tests) + [self.setup])

    def code(self, i):
        c = self.compiled.get(i)
        if c is None:
            c = self.compiled[i] = instrument(self.tests[i], "<test>")
        return c

    def namespace(self, names, modules=()):
        """The test's globals from the code's top-level names (already decoded)."""
        ns = {"__builtins__": builtins}
        if self.main:
            ns["__name__"] = "__main__"
        entries = self.entry or infer_entries(names, self.tests)
        self.inferred = entries
        for n in entries:
            if n in names:
                v = names[n]
                ns[n] = _lazy_entry(n, FUNCTION_META) if _by_name(v) else v
                _join_interface(n, ns[n])
        for n, v in names.items():
            if n not in BUILTIN_NAMES and n not in ns and isinstance(n, str):
                ns[n] = v
                if n in self.mentioned:
                    _join_interface(n, v)
        ns["_ES_obs"] = _observe
        ns["_ES_fail"] = _Fail.fail
        for alias in modules:
            m = _types.ModuleType(alias)
            for n, v in names.items():
                if isinstance(n, str) and not n.startswith("__"):
                    m.__dict__[n] = v
            sys.modules[alias] = m
        return ns

    def run(self, i, link, peer, modules=()):
        """(outcome, observed) of test `i`.

        The test starts in the sandbox (the code executed anew) and the code's names come back.
        When every entry point is known and none is a builtin's name, the test does not wait
        for them: each entry is a stand-in addressing the code's object by name (as a plain
        function, what an entry almost always is), so the start and the first call leave in one
        write. The names are read when they arrive (before the first answer): a stand-in then
        takes the class of the code's object (or stays by name when the code lacks it, so its
        calls raise the code's NameError); any other name of the code waits for them. An entry
        that turns out to be a plain value cannot be stood in for: such a test is never a pass."""
        predict = None if modules else self.prediction()  # served modules need the names first
        S.reset(peer)
        S.link = link
        S.observed = None
        Unjudged.raised = False
        code, err = self.code(i)
        if err is not None:
            return "FAIL:" + exc_label(err), None
        S.names_raw, S.names, S.predict, S.mispredicted = None, None, predict or {}, False
        link.on_names = _take_names
        link.begin(i)
        S.pair = self
        if predict:
            ns = SpecNs(self, modules)
            ns.update(vars(builtins))
            ns.update({"__builtins__": builtins, "_ES_obs": _observe, "_ES_fail": _Fail.fail})
            if self.main:
                ns["__name__"] = "__main__"
            for name, meta in predict.items():
                ns[name] = S.lazy[name] = _lazy_entry(name, meta)
            S.ns = ns
        else:
            if not _await_names(link):
                return _code_failure()
            ns = self.namespace(S.names, modules)
        try:
            if self.setup_code is not None:
                exec(self.setup_code, ns)
            elif self.setup.strip():
                return "ERROR:" + exc_label(self.setup_err), None
            exec(code, ns)
            outcome = "pass"
        except Gone:
            raise
        except _SetupFailed as e:
            outcome = "ERROR:" + exc_label(e.error)
        except AssertionError:
            outcome = "FAIL"
        except BaseException as e:
            outcome = "FAIL:" + exc_label(e)
        if not _await_names(link):
            return _code_failure()
        if Unjudged.raised or (S.mispredicted and outcome == "pass"):
            outcome = "FAIL:Unjudged"
        if not self.entry:
            self.predicted = entry_prediction(self, S.names_raw)
        return outcome, S.observed

    def prediction(self):
        """{entry: the description of a plain function's handle} when the entries are known
        (given, or inferred from an earlier test) and none is a builtin's name, else None."""
        entries = self.entry
        if not entries:
            return self.predicted
        if any(e in BUILTIN_NAMES for e in entries):
            return None
        return {e: FUNCTION_META for e in entries}


class _SetupFailed(Exception):
    def __init__(self, error):
        self.error = error


class SpecNs(dict):
    """A test's globals while the code's names are on their way: a name that is neither the
    test's nor a builtin waits for them (then resolves as `Pair.namespace` says)."""

    def __init__(self, pair, modules):
        super().__init__()
        self.pair, self.modules, self.filled = pair, modules, False

    def __missing__(self, key):
        if self.filled or type(key) is not str:
            raise KeyError(key)
        self.filled = True
        if not _await_names(S.link):
            raise _SetupFailed(NameError(key))
        full = self.pair.namespace(S.names, self.modules)
        for k, v in full.items():
            if k not in self and not k.startswith("_ES_"):
                dict.__setitem__(self, k, v)
        if key in self:
            return dict.__getitem__(self, key)
        raise KeyError(key)


def _lazy_entry(name, meta):
    """A stand-in for the entry point `name` that addresses the code's object by its name."""
    f = meta.get("f") if type(meta.get("f")) is str else ""
    numeric = [n for n in meta.get("a", []) if type(n) is str]
    obj = object.__new__(generic_class(clean_name(meta.get("n")), f, numeric))
    object.__setattr__(obj, "_es_hid", "=" + name)
    mark(obj, "i")
    return obj


def _take_names(body):
    """The code's names arrived (possibly while an answer is awaited): decoded now, so the
    answers that follow can refer to them; a predicted entry becomes the code's object."""
    try:
        msg = _json.loads(body)
    except (ValueError, RecursionError):
        msg = None
    S.names_raw = msg
    if type(msg) is not dict or "names" not in msg or type(msg["names"]) is not dict:
        S.names = {}
        return
    try:
        dec = S.peer.dec()
        S.names = {n: dec.dec(v) for n, v in msg["names"].items() if type(n) is str}
    except BaseException:
        S.names_raw = {"code": "Other"}
        S.names = {}
        return
    for name, lazy in S.lazy.items():
        real = S.names.get(name, MISSING)
        if real is MISSING or _by_name(real):
            continue  # calls by name: the code's NameError, or its standard-library function
        if isinstance(real, ProxyMeta):
            # A class: what was called by name so far made its instances; the test's globals
            # take the class itself (`isinstance(s, Stack)`).
            interface_class(real)
            if S.ns is not None and dict.get(S.ns, name) is lazy:
                dict.__setitem__(S.ns, name, real)
            continue
        if not isinstance(real, ProxyBase):
            S.mispredicted = True
            continue
        hid = hid_of(real)
        object.__setattr__(lazy, "__class__", type(real))
        object.__setattr__(lazy, "_es_hid", hid)
        S.proxies[hid] = lazy
        S.names[name] = lazy
    pair = S.pair
    if pair is not None:
        for n in pair.mentioned:
            v = S.names.get(n, MISSING)
            if v is not MISSING and n not in BUILTIN_NAMES and n not in S.lazy:
                _join_interface(n, v)


def _await_names(link):
    """Waits for this test's names; False when the code itself failed (or sent nonsense)."""
    if S.names_raw is None:
        link.wait_names()
    m = S.names_raw
    return type(m) is dict and "names" in m and type(m["names"]) is dict


def _code_failure():
    m = S.names_raw
    lab = m.get("code") if type(m) is dict else None
    return "ERROR:" + (lab if type(lab) is str and lab in VOCAB else "Other"), None


FUNCTION_META = {"n": "function", "f": "cr", "a": []}


def entry_prediction(pair, raw):
    """For inferred entry points: {entry: its handle's description} when every entry was a
    plain function in the last test's names (`raw`) and none is a builtin's name, else None."""
    entries = pair.inferred
    if any(e in BUILTIN_NAMES for e in entries):
        return None
    if type(raw) is not dict or type(raw.get("names")) is not dict or not entries:
        return None
    out = {}
    for e in entries:
        x = raw["names"].get(e)
        if not (type(x) is list and len(x) == 3 and type(x[2]) is dict):
            return None
        meta = x[2]
        if meta.get("n") != "function" or "t" in meta or "C" in meta:
            return None
        out[e] = meta
    return out


class JudgeSide:
    """The test's side of the conversation (the judge, or the sandboxed self-test runner): it
    serves only the test's functions and iterators the code was handed, called or iterated on
    the code's request."""

    ops = JUDGE_OPS
    same = staticmethod(same_object)

    def __init__(self):
        self.foreign_enc, self.foreign_dec, self.own = judge_foreign_enc, judge_foreign_dec, judge_own
        self.exc_enc, self.exc_dec, self.sub_dec = exc_enc, exc_dec, judge_sub_dec

    def remember(self, v):
        return None

    def obj(self, n):
        if type(n) is not int or not 0 <= n < len(S.jobjs):
            raise TypeError("no such object")
        return S.jobjs[n]

    def on_request(self):
        pass

    enter = leave = on_request

    def commit(self, enc):
        pass


def _warm_fork():
    """fork(2) for a zygote (the judge's, the harness's): the C library's fork, without CPython's
    after-fork work in the child (re-creating the interpreter's locks and thread states, running
    every module's at-fork hook: `random` re-seeding itself from the OS, `threading` rebuilding
    its tables). A zygote is single-threaded and forks between requests, holding no lock, so
    that work has nothing to repair; skipped, a child starts with about 190 fewer copy-on-write
    page faults (measured: 47 instead of 234 for a child that exits at once), a tenth of a pair's
    CPU. Code under test that forks again uses `os.fork`, with all of it."""
    try:
        import ctypes

        fork = ctypes.CDLL(None, use_errno=True).fork
    except BaseException:
        return os.fork

    def warm():
        pid = fork()
        if pid < 0:
            import ctypes

            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        return pid

    return warm


warm_fork = _warm_fork()


class Overrun(BaseException):
    """The test's own logic ran past its budget (the judge's alarm)."""


LINE_MAX = 64 << 20


class Link:
    """The test side's pipes to the code's pair child: requests go out on `wfd` as `T <i>` (start
    test i) and `M <json>`; the child answers on `rfd`, every line prefixed by the token the
    harness gave that child (a line of an earlier child, or of anything else, is skipped). The
    harness writes `<token> X <status>` there when the child dies; a detector child writes
    `<token> H` when it proved a hang. The test's budget is enforced here while the code holds
    the ball (`code_timed_out`); `renew(detect)` asks for a new child (None where impossible)."""

    def __init__(self, rfd, wfd, token, renew=None):
        self.rfd, self.wfd, self.token, self.renew_fn = rfd, wfd, token.encode(), renew
        self.on_names = None  # called with the body of the names line when it arrives
        self.buf = b""
        self.deadline = None
        self.gone = None
        self.code_timed_out = False
        self.overran = False  # a test of this pair ran out of time (see run_test)
        self.waiting = False
        self.probe = None  # seconds the code may hold the ball in this test before a probe
        self.held = 0.0  # seconds the code held the ball so far in this test
        self.history = []  # (test, outcome, seconds) of each test the current child ran, in order
        self.untraced = False  # tests start with "U" (a replay a detector child does not trace)
        self.detecting = False  # the current child is a detector child (its "H" is a proof)
        self.kept, self.spill, self.eof = [], b"", False  # what `absorb` read (see there)
        # A program in another language than Python (foreign.py): each child builds it first,
        # within `build` seconds of its own, and says `C` when it is ready; a build that fails
        # that way decides every later test of the pair (`build_failed`).
        self.build = None
        self.built = False
        self.build_failed = None
        self.build_spent = 0.0  # seconds spent waiting for builds during the current test
        self.ran = None  # seconds of the last `timed` run (see run_test)

    def _write(self, data):
        if self.gone is not None:
            raise Gone(self.gone)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self.wfd, view) :]
        except OSError:
            raise self._lost("ERROR:OracleKilled") from None

    def _lost(self, status, code_timed_out=False):
        self.gone = status
        self.code_timed_out = code_timed_out
        return Gone(status)

    def _line(self):
        """The current child's next line (its tag and body), before the deadline."""
        prefix = self.token + b" "
        self.waiting = True
        since = time.monotonic()
        try:
            while True:
                while b"\n" not in self.buf:
                    if len(self.buf) > LINE_MAX:
                        raise self._lost("ERROR:OutputLimit")
                    now = time.monotonic()
                    left = None if self.deadline is None else self.deadline - now
                    if left is not None and left <= 0:
                        raise self._lost("TIMEOUT", code_timed_out=True)
                    if self.probe is not None:
                        early = self.probe - self.held - (now - since)
                        if early <= 0:
                            raise self._lost("PROBE")
                        left = early if left is None else min(left, early)
                    ready, _, _ = select.select([self.rfd], [], [], left)
                    if not ready:
                        continue
                    chunk = os.read(self.rfd, 1 << 20)
                    if not chunk:
                        raise self._lost("ERROR:OracleKilled")
                    self.buf += chunk
                line, self.buf = self.buf.split(b"\n", 1)
                if line.startswith(prefix):
                    rest = line[len(prefix) :]
                    return rest[:1], rest[2:]
        finally:
            self.held += time.monotonic() - since
            self.waiting = False

    def send(self, obj):
        self._write(b"M " + dumps(obj).encode() + b"\n")

    def recv(self):
        while True:
            tag, body = self._line()
            if tag == b"R":
                try:
                    return _json.loads(body)
                except (ValueError, RecursionError):
                    return None
            self._other(tag, body)

    def _other(self, tag, body):
        if tag == b"N" and self.on_names is not None:
            self.on_names(body)
        elif tag == b"X":
            # The harness's word that the child died, and how. The code runs in that child and
            # can write this line too: only a status the child could also earn by dying for real
            # counts (never a verdict such as `pass`); anything else is skipped.
            st = body.decode("ascii", "replace")
            if st in ("TIMEOUT", "ERROR:ProcessExit") or (st[:9] == "ERROR:SIG" and st[9:].isalnum()):
                raise self._lost(st, code_timed_out=st == "TIMEOUT")
        elif tag == b"H" and self.detecting:
            raise self._lost("HANG")  # (from any other child than a detector's: skipped)

    def await_build(self):
        """Waits, within the build budget, for the child's word that the program is built and
        started; None, or the outcome of this and every later test of the pair when it is not
        (`TIMEOUT`, or how the child died: the same for every child of the pair)."""
        t0 = time.monotonic()
        self.deadline = t0 + self.build
        try:
            while True:
                tag, body = self._line()
                if tag == b"C":
                    self.built = True
                    return None
                self._other(tag, body)
        except Gone:
            self.build_failed = self.gone or "ERROR:Other"
            return self.build_failed
        finally:
            self.deadline = None
            self.build_spent += time.monotonic() - t0

    def begin(self, i):
        """Test i starts in the child: the code executed anew (its names follow)."""
        self._write((b"U " if self.untraced else b"T ") + str(i).encode() + b"\n")

    def wait_names(self):
        """Reads up to this test's names line (handed to `on_names`)."""
        while True:
            tag, body = self._line()
            if tag == b"N":
                self.on_names(body)
                return
            self._other(tag, body)

    def absorb(self):
        """Reads what waits on the pipe while the judge waits for its new child (`renew`). The
        harness writes on this pipe before it forks that child (the line that ends the old
        child's output) and must never wait on a full pipe for a judge that waits on the
        harness: that stalled a pair for 30 s, then lost its test as ERROR:OracleKilled
        (measured under `--slowdown 4` with hangs probed early). What is read here comes from
        children that are gone, but for one line: the harness's status of the new child,
        should it die at once (one atomic write, whose first part a read can end with). Only
        lines that may be such a status are kept, a bounded few, and the unfinished last one."""
        try:
            chunk = os.read(self.rfd, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self.eof = True
            return
        lines = (self.spill + chunk).split(b"\n")
        self.spill = lines.pop()
        if len(self.spill) > 4096:
            self.spill = b""  # longer than any status: the rest of it is skipped as it comes
        self.kept = (self.kept + [x for x in lines if b" X " in x and len(x) <= 256])[-64:]

    def renew(self, detect=0.0):
        """A fresh child (a detector child when `detect` > 0) in place of the current one."""
        token = self.renew_fn(detect) if self.renew_fn is not None else None
        if token is None:
            return False
        self.token = token.encode()
        self.buf = b"".join(x + b"\n" for x in self.kept) + self.spill  # (see absorb)
        self.kept, self.spill, self.eof = [], b"", False
        self.gone = None
        self.code_timed_out = False
        self.history = []
        self.detecting = detect > 0
        self.built = False
        return True


def attempt(pair, link, peer, i, budget, probe=None):
    """(outcome, observed) of one run of test i within `budget` seconds: the code's side is
    bounded by the link's deadline, the test's own logic by an alarm just after it. With `probe`
    seconds, a run whose code holds the ball that long ends early as `PROBE` (see run_test). The
    run joins the link's history while its child lives.

    The alarm raises `Overrun` at most once per attempt, and the outer `except` takes it
    wherever it lands: on a loaded machine the alarm can fire just after the code's side ran
    out of time, while the `except Gone` clause below runs, and an `Overrun` escaping from
    there would be recorded as the judge's own failure (`ERROR:Other`) instead of `TIMEOUT`
    -- a verdict that would depend on the machine's load. A test whose own logic caught the
    `Overrun` still ran past its budget: `TIMEOUT`, whatever it did next."""
    t0 = time.monotonic()
    link.deadline = t0 + budget
    link.probe, link.held = probe, 0.0
    state = {"armed": True, "fired": False}

    def alarm(signum, frame):
        if state["armed"] and not link.waiting:
            state["armed"], state["fired"] = False, True
            raise Overrun()

    outcome, observed = None, None
    reseed()
    # The C functions themselves: the `signal` module's wrappers convert every handler to an enum
    # member and back (two lookups and a caught ValueError per call, twice a test).
    old = _signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, budget + 0.05, 0.05)
    try:
        try:
            try:
                outcome, observed = pair.run(i, link, peer)
            except Gone:
                outcome, observed = link.gone or "ERROR:Other", None
            except Overrun:
                outcome, observed = "TIMEOUT", None
            state["armed"] = False  # past this line no Overrun is raised
        except Overrun:
            outcome, observed = "TIMEOUT", None
    finally:
        state["armed"] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        _signal.signal(signal.SIGALRM, old)
        link.deadline, link.probe = None, None
    if link.gone is not None:
        return link.gone, None
    if state["fired"]:
        outcome, observed = "TIMEOUT", None
    link.history.append((i, outcome, time.monotonic() - t0))
    return outcome, observed


def _no_child(link):
    """The outcome of a test for which no new child came: how the last one ended, or the
    judge's own failure where that was a probe or a detection (words that are no outcome)."""
    return "ERROR:Other" if link.gone in ("PROBE", "detected") else link.gone


def replay(pair, link, peer, done, budget):
    """Runs `done` (the tests an ended child ran, with their outcomes) again in the link's new
    child, started untraced: whether each outcome came out the same, i.e. the child is in the
    state the ended one was in when it ended (as far as the verdicts show)."""
    link.untraced = True
    try:
        for j, was, _ in done:
            if attempt(pair, link, peer, j, budget)[0] != was:
                return False
        return True
    finally:
        link.untraced = False


def proven(pair, link, peer, i, done, budget, detect):
    """Whether test i never ends from the state the tests `done` leave: a detector child replays
    them, then runs test i traced. None when there is no such child or a replay came out
    otherwise (no proof can be about that state)."""
    if not link.renew(detect):
        return None
    try:
        if not replay(pair, link, peer, done, budget):
            return None
        return attempt(pair, link, peer, i, detect)[0] == "HANG"
    finally:
        link.gone = link.gone or "detected"  # a detector child serves no further test


def timed(pair, link, peer, i, budget, probe=None):
    """`attempt`, whose own time (builds waited for excluded) becomes `link.ran`: the time of
    the run a test's verdict comes from, without the probe, detections and replays before it
    (so the build gate's speed check reads the test's own run, not the load of proving it)."""
    t0, b0 = time.monotonic(), link.build_spent
    try:
        return attempt(pair, link, peer, i, budget, probe)
    finally:
        link.ran = max(0.0, time.monotonic() - t0 - (link.build_spent - b0))


def run_test(pair, link, peer, i, budget, detect, probe):
    """Test i's outcome: run once; a run whose code holds the ball for `probe` seconds is probed
    for a hang, and a test whose code ran out of time is TIMEOUT unless the hang detector proves
    that it never ends (HANG). Every detection runs from the state the test ran in: a detector
    child replays the tests the test's child ran before it (`proven`).

    The probe (docs/threat-model.md "A hang is proven, not assumed"): the child is ended and the
    detection runs; a proof is the test's HANG, before the rest of its budget is spent.
    Otherwise a fresh child replays the same tests and the test runs with its whole budget: its
    verdict is that run's, and TIMEOUT if the code runs out of time (the detector already ran
    from that state). Without a probe (no time for one before the budget, or replays that would
    cost more than the probe saves), a test whose code runs out of time is detected after its
    budget, from the same state. So when a probe comes, or whether one does, depends on the
    machine; the verdict does not: a proof means the test never ends from that state, and
    without one the verdict is a whole-budget run from that state.

    Once a test of the pair ran out of time (or hung), a later test that starts in a fresh child
    anyway (the one before it ended with its child) runs under the detector *first*: a proof
    there is its HANG without a probe's wait; otherwise it runs as usual, unprobed."""
    if link.build_failed is not None:
        return link.build_failed, None
    probed = False
    if link.gone is not None:
        if link.overran and detect > 0:
            proof = proven(pair, link, peer, i, [], budget, detect)
            if proof:
                return "HANG", None
            probed = proof is not None
        if not link.renew(0.0):
            return _no_child(link), None
    if link.build is not None and not link.built:
        failed = link.await_build()
        if failed is not None:
            return failed, None
    done = link.history
    cheap = sum(secs for _, _, secs in done) <= (probe or 0.0)
    early = probe if detect > 0 and not probed and cheap else None
    outcome, observed = timed(pair, link, peer, i, budget, early)
    if outcome == "PROBE":
        proof = proven(pair, link, peer, i, done, budget, detect)
        if proof:
            link.overran = True
            return "HANG", None
        probed = proof is not None
        if not link.renew(0.0):
            return _no_child(link), None
        if not replay(pair, link, peer, done, budget):
            probed = False  # not the state the detection ran from: a fresh child instead
            if not link.renew(0.0):
                return _no_child(link), None
        done = link.history
        outcome, observed = timed(pair, link, peer, i, budget)
    if outcome == "TIMEOUT" and link.code_timed_out:
        link.overran = True
        observed = None
        if not probed and detect > 0:
            outcome = "HANG" if proven(pair, link, peer, i, done, budget, detect) else "TIMEOUT"
    return outcome, observed
