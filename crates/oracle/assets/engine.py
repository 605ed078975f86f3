# execscope test engine (Python stdlib only; embedded after codec.py, peer.py and proxy.py in the
# judge and the sandboxed self-test runner).
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

import ast as _ast
import copy as _copy
import types as _types

OBS_MAX = 200
BUILTIN_NAMES = frozenset(vars(builtins))


class _Asserts(_ast.NodeTransformer):
    """`assert a <op> b, m` -> `_ES_t = a; _ES_obs(_ES_t); if not (_ES_t <op> b): _ES_fail(m)`."""

    def visit_Assert(self, node):
        self.generic_visit(node)
        test = node.test
        t_store = _ast.Name(id="_ES_t", ctx=_ast.Store())
        t_load = _ast.Name(id="_ES_t", ctx=_ast.Load())
        if isinstance(test, _ast.Compare):
            first, cond = test.left, _ast.Compare(left=t_load, ops=test.ops, comparators=test.comparators)
        else:
            first, cond = test, t_load
        fail_args = [node.msg] if node.msg is not None else []
        out = [
            _ast.Assign(targets=[t_store], value=first),
            _ast.Expr(_ast.Call(func=_ast.Name(id="_ES_obs", ctx=_ast.Load()), args=[t_load], keywords=[])),
            _ast.If(
                test=_ast.UnaryOp(op=_ast.Not(), operand=cond),
                body=[_ast.Expr(_ast.Call(func=_ast.Name(id="_ES_fail", ctx=_ast.Load()), args=fail_args, keywords=[]))],
                orelse=[],
            ),
        ]
        for n in out:
            _ast.copy_location(n, node)
        return out


def instrument(src, filename):
    """The code object of `src` with its asserts rewritten, or the exception compiling it."""
    try:
        tree = _ast.parse(src, filename)
        tree = _ast.fix_missing_locations(_Asserts().visit(tree))
        return compile(tree, filename, "exec"), None
    except BaseException as e:
        return None, e


def called_names(src):
    """Names the test calls directly (`f(...)`), for inferring the entry point."""
    try:
        tree = _ast.parse(src)
    except BaseException:
        return set()
    return {n.func.id for n in _ast.walk(tree) if isinstance(n, _ast.Call) and isinstance(n.func, _ast.Name)}


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
        self.setup_code = None
        if self.setup.strip():
            self.setup_code, self.setup_err = instrument(self.setup, "<setup>")

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
        for n in entries:
            if n in names:
                ns[n] = names[n]
        for n, v in names.items():
            if n not in BUILTIN_NAMES and n not in ns and isinstance(n, str):
                ns[n] = v
        ns["_ES_obs"] = _observe
        ns["_ES_fail"] = _Fail.fail
        for alias in modules:
            m = _types.ModuleType(alias)
            for n, v in names.items():
                if isinstance(n, str) and not n.startswith("__"):
                    m.__dict__[n] = v
            sys.modules[alias] = m
        return ns

    def run(self, i, names_msg, peer, modules=()):
        """(outcome, observed) of test `i`; `names_msg` is the sandbox's answer to the test's
        start: {"names": {name: value}} or {"code": exception word}."""
        S.reset(peer)
        S.observed = None
        Unjudged.raised = False
        if type(names_msg) is not dict:
            return "ERROR:Other", None
        if "code" in names_msg:
            lab = names_msg["code"]
            return "ERROR:" + (lab if type(lab) is str and lab in VOCAB else "Other"), None
        try:
            raw = names_msg["names"]
            dec = peer.dec()
            names = {n: dec.dec(v) for n, v in raw.items() if type(n) is str}
        except BaseException:
            return "ERROR:Other", None
        code, err = self.code(i)
        if err is not None:
            return "FAIL:" + exc_label(err), None
        ns = self.namespace(names, modules)
        try:
            if self.setup_code is not None:
                exec(self.setup_code, ns)
            elif self.setup.strip():
                return "ERROR:" + exc_label(self.setup_err), None
        except Abort:
            raise
        except BaseException as e:
            return "ERROR:" + exc_label(e), S.observed
        try:
            exec(code, ns)
            outcome = "pass"
        except Abort:
            raise
        except AssertionError:
            outcome = "FAIL"
        except BaseException as e:
            outcome = "FAIL:" + exc_label(e)
        if Unjudged.raised:
            outcome = "FAIL:Unjudged"
        return outcome, S.observed


class JudgeSide:
    """The test's side of the conversation (the judge, or the sandboxed self-test runner): it
    serves only the test's functions and iterators the code was handed, called or iterated on
    the code's request."""

    ops = JUDGE_OPS

    def __init__(self):
        self.foreign_enc, self.foreign_dec, self.own = judge_foreign_enc, judge_foreign_dec, judge_own
        self.exc_enc, self.exc_dec, self.sub_dec = exc_enc, exc_dec, judge_sub_dec

    def obj(self, n):
        if type(n) is not int or not 0 <= n < len(S.jobjs):
            raise TypeError("no such object")
        return S.jobjs[n]

    def on_request(self):
        pass

    enter = leave = on_request

    def commit(self, enc):
        pass
