# execscope judge (Python stdlib only; embedded in the execscope binary).
#
# The trusted half of the oracle. It never runs the code under test: it reads the tests, tells
# execscope which sub-expressions ("units", e.g. the call `f(3)` of `assert f(3) == 5`) need the
# candidate's namespace, and later decides each test's outcome from the *plain values* those units
# produced in the sandbox. The sandbox never sees the expected side of an assertion, and a value
# that arrives here is rebuilt from a tagged data encoding (no pickle, no classes of the code), so
# a custom `__eq__`, a patched `json`, or a forged report can at most claim "the call returned v".
#
# Usage: python3 -I judge.py
# Protocol on stdin/stdout, one JSON object per line:
#   host -> judge  {"op": "plan", "code": str, "tests": [str]}
#   judge -> host  {"units": [[["e" | "s", source]]]}   per test, what the sandbox evaluates
#   host -> judge  {"op": "judge", "code": str, "tests": [str], "results_json": str}
#   judge -> host  {"outcomes": [str], "observed": [str | null]}
# A per-test result from the sandbox is one of
#   {"units": [unit result]}   unit result: ["v", encoded] | ["x", name, [builtin mro names], msg]
#   {"code": name}             the code itself raised `name` when executed
#   {"status": "TIMEOUT" | "HANG" | "ERROR:SIG..." | "ERROR:ProcessExit" | "ERROR:OracleKilled"}
# Test shapes it judges: a single `assert EXPR[, msg]` (plus `import pytest` / `import math` /
# `from math|fractions|decimal import ...` lines) and `with pytest.raises(E[, match=...]): CALL`.
# Any other test is run whole in the sandbox and can at best be recorded `FAIL:Unjudged`.

import ast
import copy
import builtins
import decimal
import fractions
import json
import math
import re
import signal
import sys

OBS_MAX = 200
UNJUDGED = "Unjudged"

# Pure functions a test may apply to values on this side.
SAFE_BUILTINS = {
    n: getattr(builtins, n)
    for n in (
        "abs all any bool bytes chr complex dict divmod enumerate filter float format frozenset "
        "hash int isinstance issubclass len list map max min ord pow range repr reversed round "
        "set slice sorted str sum tuple type zip"
    ).split()
}
SAFE_MODULES = {"math": math, "fractions": fractions, "decimal": decimal}


def _exception_vocabulary():
    """Builtin exception names plus the exceptions defined by common stdlib modules: the only
    names an outcome may carry (anything else is recorded as `Other`)."""
    names = {n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)}
    mods = (
        "math cmath re collections itertools functools heapq bisect string datetime calendar "
        "statistics fractions decimal random copy json hashlib struct enum textwrap unicodedata "
        "ipaddress base64 binascii zlib csv uuid queue"
    ).split()
    for m in mods:
        try:
            mod = __import__(m)
        except BaseException:
            continue
        for v in vars(mod).values():
            if isinstance(v, type) and issubclass(v, BaseException):
                names.add(v.__name__)
    names.add("ExecscopeNegativeControl")  # build's oracle-health control (crates/build/src/health.rs)
    return frozenset(n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", n))


VOCAB = _exception_vocabulary()
SIGNALS = frozenset(s.name for s in signal.Signals)


def exc_label(name):
    return name if isinstance(name, str) and name in VOCAB else "Other"


class Raises:
    """`pytest.raises` evaluated here: holds the expected builtin exception class."""


class Approx:
    def __init__(self, expected, rel=1e-6, abs=1e-12):
        self.expected, self.rel, self.abs = expected, rel, abs

    def _close(self, a, b):
        if type(a) not in (int, float, bool) or type(b) not in (int, float, bool):
            return a == b
        return a == b or builtins.abs(a - b) <= max(self.rel * builtins.abs(b), self.abs)

    def __eq__(self, other):
        e = self.expected
        if isinstance(e, (list, tuple)):
            if not isinstance(other, (list, tuple)) or len(other) != len(e):
                return False
            return all(self._close(a, b) for a, b in zip(other, e))
        return self._close(other, e)

    def __repr__(self):
        return "approx({!r})".format(self.expected)


class PytestShim:
    approx = Approx


class Unjudged(Exception):
    """The test needs something of a value that only the code could say (e.g. the truth of an
    object of its own class): recorded as `FAIL:Unjudged`, never as a pass."""


class Opaque:
    """A value the sandbox could not express as plain data (an object of the code's own class,
    a function, ...). Equal only to itself, ordered with nothing, and of unknown truth."""

    __slots__ = ("kind",)

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return "<{} object>".format(self.kind)

    def __bool__(self):
        raise Unjudged()

    def __len__(self):
        raise Unjudged()


class Materialized:
    """An iterator the sandbox drained (a generator, map, ...): iterable once, equal to itself."""

    __slots__ = ("it", "err")

    def __init__(self, items, err=None):
        self.it = iter(items)
        self.err = err  # raised after the last item (the sandbox's iterator raised there)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self.it)
        except StopIteration:
            if self.err is not None:
                err, self.err = self.err, None
                if err.label == "AssertionError":
                    raise AssertionError() from None
                raise err from None
            raise

    def __repr__(self):
        return "<iterator>"


# ---------------------------------------------------------------------------------------------
# Decoding the sandbox's values. Every constructor below is a builtin applied to plain data.

MAX_NODES = 2_000_000


def decode(x, budget):
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError("value too large")
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, str):
        return x
    if not isinstance(x, list) or not x or not isinstance(x[0], str):
        raise ValueError("bad value encoding")
    tag = x[0]
    if tag == "i":
        return int(x[1], 16)
    if tag == "f":
        return float(x[1])
    if tag == "c":
        return complex(float(x[1]), float(x[2]))
    if tag == "u":
        return bytes.fromhex(x[1]).decode("utf-8", "surrogatepass")
    if tag == "b":
        return bytes.fromhex(x[1])
    if tag == "q":
        return fractions.Fraction(int(x[1], 16), int(x[2], 16))
    if tag == "D":
        return decimal.Decimal(str(x[1]))
    if tag == "o":
        kind = x[1] if isinstance(x[1], str) else "?"
        return Opaque(re.sub(r"[^A-Za-z0-9_.]", "?", kind)[:40] or "?")
    if tag == "G":  # an iterator that raised after its items
        if len(x) != 5 or not isinstance(x[1], list):
            raise ValueError("bad iterator encoding")
        mro = [m for m in x[3] if isinstance(m, str) and m in EXC_NAMES] if isinstance(x[3], list) else []
        msg = x[4] if isinstance(x[4], str) else ""
        return Materialized([decode(v, budget) for v in x[1]], _Raised(exc_label(x[2]), mro, msg))
    if tag == "r":
        return range(int(x[1], 16), int(x[2], 16), int(x[3], 16))
    items = [decode(v, budget) for v in x[1]]
    if tag == "l":
        return items
    if tag == "t":
        return tuple(items)
    if tag == "s":
        return set(items)
    if tag == "F":
        return frozenset(items)
    if tag == "d":
        return dict(items)
    if tag == "p":  # a (key, value) pair inside a dict
        if len(items) != 2:
            raise ValueError("bad pair")
        return tuple(items)
    if tag == "g":
        return Materialized(items)
    if tag == "K":
        return dict.fromkeys(items).keys()
    if tag == "V":
        return dict(enumerate(items)).values()
    if tag == "I":
        return dict(items).items()
    raise ValueError("unknown tag")


# ---------------------------------------------------------------------------------------------
# Planning: which nodes of an assertion need the candidate's namespace.

IMPORT_OK = {"pytest", "math", "fractions", "decimal"}


def _bound_names(stmts):
    """Names the accepted import lines bind: {name: object}."""
    env = {}
    for s in stmts:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.name not in IMPORT_OK:
                    return None
                env[a.asname or a.name] = PytestShim if a.name == "pytest" else SAFE_MODULES[a.name]
        elif isinstance(s, ast.ImportFrom):
            if s.level or s.module not in IMPORT_OK:
                return None
            for a in s.names:
                src = PytestShim if s.module == "pytest" else SAFE_MODULES[s.module]
                if a.name == "*" or a.name.startswith("_") or not hasattr(src, a.name):
                    return None
                env[a.asname or a.name] = getattr(src, a.name)
        else:
            return None
    return env


def code_globals(code):
    """Names the code binds in its module namespace (statically): top-level assignments,
    definitions and imports (also inside top-level if/for/while/try/with blocks), and names
    functions declare `global`. A test's use of such a name reaches the code, so the judge never
    evaluates it on its own side (e.g. MBPP's function under test named `sum`)."""
    try:
        tree = ast.parse(code)
    except BaseException:
        return frozenset()  # the code will not run: every test is an ERROR anyway
    names = set()
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

    def visit(node, top):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if top:
                    names.add(child.name)
                for d in getattr(child, "decorator_list", []):
                    visit(d, top)
                visit(child, False)
                continue
            if isinstance(child, ast.Global):
                names.update(child.names)
            elif top and isinstance(child, ast.Name) and isinstance(child.ctx, (ast.Store, ast.Del)):
                names.add(child.id)
            elif top and isinstance(child, (ast.Import, ast.ImportFrom)):
                for a in child.names:
                    names.add((a.asname or a.name).split(".")[0])
            elif top and isinstance(child, ast.MatchAs) and child.name:
                names.add(child.name)
            elif top and isinstance(child, ast.ExceptHandler) and child.name:
                names.add(child.name)
            if isinstance(child, ast.Lambda) or (
                isinstance(child, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
            ):
                visit(child, False)
            else:
                visit(child, top)

    try:
        visit(tree, True)
    except RecursionError:
        return None  # too deep to tell: nothing is judged on this side by name
    return frozenset(names)


class Planner:
    """Splits an expression into judge-side structure and sandbox-side units."""

    def __init__(self, env, shadowed):
        self.shadowed = shadowed  # names the code binds (None: assume every name)
        self.env = env  # names resolvable here: safe builtins + imported safe modules
        self.units = []  # ast nodes
        self.local = set()  # names bound by comprehensions and lambdas inside the assertion

    def bind_locals(self, expr):
        for n in ast.walk(expr):
            if isinstance(n, ast.comprehension):
                for t in ast.walk(n.target):
                    if isinstance(t, ast.Name):
                        self.local.add(t.id)
            elif isinstance(n, ast.arg):
                self.local.add(n.arg)

    def pure(self, node):
        """True when `node` can be evaluated here without the candidate's namespace."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                if n.id in self.local or n.id in self.env:
                    continue
                if n.id not in SAFE_BUILTINS and n.id not in EXC_NAMES:
                    return False
                if self.shadowed is None or n.id in self.shadowed:
                    return False
            elif isinstance(n, ast.Attribute):
                if n.attr.startswith("_"):
                    return False
            elif isinstance(n, (ast.NamedExpr, ast.Await, ast.Yield, ast.YieldFrom)):
                return False
        return True

    def split(self, node):
        """Returns the node with every impure maximal unit replaced by `__u(k)`."""
        if self.pure(node):
            return node
        decomposable = (
            ast.Compare,
            ast.BoolOp,
            ast.UnaryOp,
            ast.BinOp,
            ast.IfExp,
            ast.Tuple,
            ast.List,
            ast.Set,
            ast.Dict,
            ast.Subscript,
            ast.Slice,
            ast.Starred,
            ast.keyword,
            ast.JoinedStr,
            ast.FormattedValue,
            ast.ListComp,
            ast.SetComp,
            ast.DictComp,
            ast.GeneratorExp,
            ast.comprehension,
            ast.Lambda,
        )
        if isinstance(node, SCOPES):
            # A unit must be evaluable on its own: one that names a variable bound by this
            # comprehension or lambda cannot be (it would raise NameError in the sandbox). Then the
            # whole comprehension is the unit and its value, plain data, is judged here
            # (docs/threat-model.md: comparisons inside such a unit are the sandbox's).
            bound = _scope_bound(node)
            start = len(self.units)
            whole = copy.deepcopy(node)
            split = self._split_fields(node)
            if any(
                isinstance(n, ast.Name) and n.id in bound
                for u in self.units[start:]
                for n in ast.walk(u)
            ):
                del self.units[start:]
                return self._unit(whole)
            return split
        if isinstance(node, ast.Call) and any(
            isinstance(a, ast.Lambda) and not self.pure(a)
            for a in node.args + [k.value for k in node.keywords]
        ):
            # a function that calls the code, passed on: the call that uses it is the unit
            return self._unit(node)
        if isinstance(node, decomposable) or (isinstance(node, ast.Call) and self.pure(node.func)):
            return self._split_fields(node)
        return self._unit(node)

    def _split_fields(self, node):
        for field, value in ast.iter_fields(node):
            if field == "ctx":
                continue
            if isinstance(value, ast.AST):
                setattr(node, field, self.split(value))
            elif isinstance(value, list):
                setattr(
                    node,
                    field,
                    [self.split(v) if isinstance(v, ast.AST) else v for v in value],
                )
        return node

    def _unit(self, node):
        k = len(self.units)
        self.units.append(node)
        call = ast.Call(func=ast.Name(id="__u", ctx=ast.Load()), args=[ast.Constant(k)], keywords=[])
        return ast.copy_location(call, node)


SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def _scope_bound(node):
    """Every name a comprehension or lambda (and those nested in it) binds."""
    bound = set()
    for n in ast.walk(node):
        if isinstance(n, ast.comprehension):
            bound.update(t.id for t in ast.walk(n.target) if isinstance(t, ast.Name))
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            bound.add(n.target.id)
    return bound


EXC_NAMES = frozenset(
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
)


def plan(test, shadowed):
    """(kind, data, units-sources) for one test; kind in {"assert", "raises", "whole", "syntax"}.
    `shadowed`: the names the code binds (see code_globals)."""
    try:
        tree = ast.parse(test)
    except BaseException as e:  # SyntaxError, ValueError (null bytes), RecursionError, ...
        return ("syntax", exc_label(type(e).__name__), [])
    body = tree.body
    env = _bound_names(body[:-1]) if body else None
    last = body[-1] if body else None
    if env is not None and isinstance(last, ast.Assert):
        p = Planner(env, shadowed)
        p.bind_locals(last.test)
        expr = p.split(last.test)
        if isinstance(expr, ast.Compare):
            target = expr.left
        else:
            target = expr
        return ("assert", (expr, target, env), [["e", _src(test, u)] for u in p.units])
    if (
        env is not None
        and isinstance(last, ast.With)
        and len(last.items) == 1
        and last.items[0].optional_vars is None
        and len(last.body) == 1
        and isinstance(last.body[0], ast.Expr)
    ):
        ce = last.items[0].context_expr
        if (
            isinstance(ce, ast.Call)
            and isinstance(ce.func, ast.Attribute)
            and isinstance(ce.func.value, ast.Name)
            and env.get(ce.func.value.id) is PytestShim
            and ce.func.attr == "raises"
            and len(ce.args) == 1
            and isinstance(ce.args[0], ast.Name)
            and ce.args[0].id in EXC_NAMES
            and shadowed is not None
            and ce.args[0].id not in shadowed
            and all(k.arg == "match" and isinstance(k.value, ast.Constant) for k in ce.keywords)
        ):
            match = ce.keywords[0].value.value if ce.keywords else None
            return ("raises", (ce.args[0].id, match), [["e", _src(test, last.body[0].value)]])
    return ("whole", None, [["s", test]])


def _src(test, node):
    seg = ast.get_source_segment(test, node)
    return seg if seg is not None else ast.unparse(node)


# ---------------------------------------------------------------------------------------------
# Judging.


class _Raised(Exception):
    """A unit raised in the sandbox: carries its recorded name."""

    def __init__(self, label, mro, msg):
        self.label, self.mro, self.msg = label, mro, msg


def _unit_values(results):
    vals = []
    for r in results:
        if isinstance(r, list) and len(r) == 2 and r[0] == "v":
            try:
                vals.append(("v", decode(r[1], [MAX_NODES])))
            except (ValueError, TypeError, OverflowError, RecursionError, decimal.InvalidOperation):
                vals.append(("v", Opaque("?")))
        elif isinstance(r, list) and len(r) == 4 and r[0] == "x":
            mro = [m for m in r[2] if isinstance(m, str) and m in EXC_NAMES] if isinstance(r[2], list) else []
            msg = r[3] if isinstance(r[3], str) else ""
            vals.append(("x", _Raised(exc_label(r[1]), mro, msg)))
        else:
            raise ValueError("bad unit result")
    return vals


def _evaluator(vals):
    def u(k):
        kind, v = vals[k]
        if kind == "x":
            if v.label == "AssertionError":
                raise AssertionError()
            raise v
        return v

    return u


def safe_repr(v):
    try:
        r = repr(v)
    except BaseException as e:
        return "<repr failed: {}>".format(exc_label(type(e).__name__))
    return r[:OBS_MAX]


def judge_one(test, res, planned):
    """(outcome, observed) of one test from its sandbox result."""
    if not isinstance(res, dict):
        return "TIMEOUT", None
    if "status" in res:
        s = res["status"]
        if s in ("TIMEOUT", "HANG"):
            return s, None
        if s in ("ERROR:ProcessExit", "ERROR:OracleKilled", "ERROR:OutputLimit"):
            return s, None
        if isinstance(s, str) and s.startswith("ERROR:") and s[6:] in SIGNALS:
            return s, None
        return "ERROR:Other", None
    if "code" in res:
        return "ERROR:" + exc_label(res["code"]), None
    if not isinstance(planned, tuple):
        return "FAIL:" + UNJUDGED, None
    kind, data, srcs = planned
    if kind == "syntax":
        return "FAIL:" + data, None
    results = res.get("units")
    if not isinstance(results, list) or len(results) != len(srcs):
        return "FAIL:" + UNJUDGED, None  # the sandbox answered something else: never a pass
    try:
        vals = _unit_values(results)
    except (ValueError, TypeError, IndexError):
        return "FAIL:" + UNJUDGED, None
    if kind == "whole":
        k, v = vals[0]
        if k == "x":
            return ("FAIL" if v.label == "AssertionError" else "FAIL:" + v.label), None
        return "FAIL:" + UNJUDGED, None
    if kind == "raises":
        name, match = data
        k, v = vals[0]
        if k != "x":
            return "FAIL", None
        if name not in v.mro:
            return ("FAIL" if v.label == "AssertionError" else "FAIL:" + v.label), None
        if match is not None:
            try:
                if not re.search(match, v.msg):
                    return "FAIL", None
            except BaseException as e:
                return "FAIL:" + exc_label(type(e).__name__), None
        return "pass", None
    expr, target, env = data
    ns = {"__builtins__": BUILTINS_NS}
    ns.update(env)
    ns["__u"] = _evaluator(vals)
    observed = None
    try:
        value = eval(compile(ast.fix_missing_locations(ast.Expression(target)), "<test>", "eval"), ns)
        observed = safe_repr(value)
        if target is not expr:
            ns["__t"] = value
            whole = ast.Compare(
                left=ast.Name(id="__t", ctx=ast.Load()), ops=expr.ops, comparators=expr.comparators
            )
            value = eval(compile(ast.fix_missing_locations(ast.Expression(whole)), "<test>", "eval"), ns)
        ok = bool(value)
    except AssertionError:
        return "FAIL", observed
    except _Raised as e:
        return "FAIL:" + e.label, observed
    except Unjudged:
        return "FAIL:" + UNJUDGED, observed
    except BaseException as e:
        return "FAIL:" + exc_label(type(e).__name__), observed
    return ("pass" if ok else "FAIL"), observed


BUILTINS_NS = dict(SAFE_BUILTINS, **{n: getattr(builtins, n) for n in EXC_NAMES})


def main():
    out = sys.stdout.buffer
    try:
        import ctypes

        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: no ptrace, no /proc/<pid>/mem
    except BaseException:
        pass
    plans = {}
    codes = {}
    sys.setrecursionlimit(10000)
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            tests = req["tests"]
            code = req["code"]
            if code not in codes:
                if len(codes) > 2_000:
                    codes.clear()
                codes[code] = code_globals(code)
            shadowed = codes[code]
            planned = []
            for t in tests:
                key = (t, shadowed)
                if key not in plans:
                    if len(plans) > 100_000:
                        plans.clear()
                    plans[key] = plan(t, shadowed)
                planned.append(plans[key])
            if req["op"] == "plan":
                resp = {"units": [p[2] for p in planned]}
            else:
                results = json.loads(req["results_json"])
                if len(results) != len(tests):
                    raise ValueError("result count mismatch")
                outs, obs = [], []
                for t, r, p in zip(tests, results, planned):
                    o, v = judge_one(t, r, p)
                    outs.append(o)
                    obs.append(v)
                resp = {"outcomes": outs, "observed": obs}
        except Exception as e:
            resp = {"error": "{}: {}".format(type(e).__name__, str(e)[:200])}
        out.write(json.dumps(resp).encode() + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
