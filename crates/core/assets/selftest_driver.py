# execscope self-test screen (Python stdlib only; embedded in the execscope binary).
#
# Not a harness of its own: this source is the *code* of an ordinary oracle pair, so it runs inside
# the oracle's sandbox (fresh forked child, rlimits, private work dir, unprivileged uid, the test
# budget). The pair's test is one assert calling `__es_screen` with the candidate's texts as string
# literals, and the oracle's `observed` field (the repr of the compared value) carries the answer
# back. It only parses the texts; the self-tests themselves run as self-test jobs of the oracle
# (the candidate in one sandboxed process, the self-tests in another). See
# crates/core/src/audit/selftest.rs for the Rust side and docs/audit.md "Admission, selection and
# return" for the definitions.
#
#   __es_screen(code, tests, fname) -> "c=1 t=1 def=1 n=3 const=0 ident=0 dup=0 nocall=0 other=0 alias=solution"
#       C (code compiles) and the structural screen S, never executing either text.

import ast as __es_ast

# The names the paper (002, Section 4 "Two execution contracts") lists; `<function>_module`
# generalises its `total_match_module` (HumanEval/74's `total_match`) to every task.
__ES_ALIASES = ("solution", "your_module", "total_match_module")


def __es_alias_names(fname):
    return set(__ES_ALIASES) | {str(fname) + "_module"}


def __es_static_aliases(trees, fname):
    """Absolute imports (anywhere in the texts) of a candidate-named module, sorted."""
    names = __es_alias_names(fname)
    found = set()
    for tree in trees:
        for node in __es_ast.walk(tree):
            if isinstance(node, __es_ast.Import):
                for a in node.names:
                    top = a.name.split(".")[0]
                    if top in names:
                        found.add(top)
            elif isinstance(node, __es_ast.ImportFrom) and node.level == 0 and node.module:
                top = node.module.split(".")[0]
                if top in names:
                    found.add(top)
    return sorted(found)


def __es_is_constant(expr):
    """An assertion whose expression names nothing: its truth is fixed before any code runs."""
    return not any(isinstance(n, (__es_ast.Name, __es_ast.Call)) for n in __es_ast.walk(expr))


def __es_is_identical_cmp(expr):
    """A comparison two of whose operands are the same expression (e.g. f(1) == f(1))."""
    if not isinstance(expr, __es_ast.Compare):
        return False
    dumps = [__es_ast.dump(o) for o in [expr.left] + list(expr.comparators)]
    return len(set(dumps)) < len(dumps)


def __es_calls(expr, fname):
    """The asserted expression (not the assert's message) calls the target, by name or as an
    attribute (module.fname(...))."""
    for n in __es_ast.walk(expr):
        if isinstance(n, __es_ast.Call):
            f = n.func
            if isinstance(f, __es_ast.Name) and f.id == fname:
                return True
            if isinstance(f, __es_ast.Attribute) and f.attr == fname:
                return True
    return False


def __es_screen(code, tests, fname):
    c = t = d = 0
    cerr = terr = ""
    ctree = ttree = None
    try:
        ctree = __es_ast.parse(code)
        compile(ctree, "<candidate>", "exec")
        c = 1
    except BaseException as e:
        cerr = type(e).__name__
    try:
        ttree = __es_ast.parse(tests)
        compile(ttree, "<self-tests>", "exec")
        t = 1
    except BaseException as e:
        terr = type(e).__name__
    if ctree is not None and c:
        d = int(
            any(
                isinstance(n, (__es_ast.FunctionDef, __es_ast.AsyncFunctionDef)) and n.name == fname
                for n in ctree.body
            )
        )
    n = const = ident = dup = nocall = other = 0
    aliases = []
    if ttree is not None and t:
        seen = set()
        for node in ttree.body:
            if not isinstance(node, __es_ast.Assert):
                other += 1
                continue
            if __es_is_constant(node.test):
                const += 1
            elif __es_is_identical_cmp(node.test):
                ident += 1
            elif not __es_calls(node.test, fname):
                nocall += 1
            else:
                # The whole Assert node without positions: two asserts differing only in their
                # message are distinct; re-asserting the same expression and message is not.
                key = __es_ast.dump(node)
                if key in seen:
                    dup += 1
                else:
                    seen.add(key)
                    n += 1
    trees = [x for x in (ctree if c else None, ttree if t else None) if x is not None]
    try:
        aliases = __es_static_aliases(trees, fname)
    except BaseException:
        aliases = []
    out = "c={}{} t={}{} def={} n={} const={} ident={} dup={} nocall={} other={} alias={}".format(
        c, ":" + cerr if cerr else "", t, ":" + terr if terr else "", d, n, const, ident, dup,
        nocall, other, ",".join(aliases)
    )
    return out
