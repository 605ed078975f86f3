# Trusted setup of the jobs that read an EvalPlus reference solution's outputs: the judge writes
# each output as a Python literal (plain data only) and reports it through the verdict's observed
# value, at most 200 characters per test: the head (is_floats flag, length, first 141 bytes) and
# then 147-byte parts, base64-encoded so that no character needs escaping. Each output is computed
# and written once per pair, whatever the number of its parts (`_es_literals`).
import base64 as _es_b64
import collections as _es_col
import decimal as _es_dec
import fractions as _es_frac


class _ES_Opaque(Exception):
    pass


def _es_lit(v):
    t = type(v)
    if v is None or t is bool:
        return repr(v)
    if t is int:
        return hex(v) if abs(v) >= 10**4000 else repr(v)
    if t is float:
        if v != v:
            return "float('nan')"
        if v in (float("inf"), -float("inf")):
            return "float('inf')" if v > 0 else "-float('inf')"
        return repr(v)
    if t is complex:
        return "complex(" + _es_lit(v.real) + ", " + _es_lit(v.imag) + ")"
    if t is str or t is bytes:
        return ascii(v)
    if t is bytearray:
        return "bytearray(" + ascii(bytes(v)) + ")"
    if t is list:
        return "[" + ", ".join(_es_lit(x) for x in v) + "]"
    if t is tuple:
        return "(" + ", ".join(_es_lit(x) for x in v) + ("," if len(v) == 1 else "") + ")"
    if t is set or t is frozenset:
        body = ", ".join(sorted(_es_lit(x) for x in v))
        if t is set:
            return "{" + body + "}" if v else "set()"
        return "frozenset({" + body + "})" if v else "frozenset()"
    if t is dict:
        return "{" + ", ".join(_es_lit(k) + ": " + _es_lit(x) for k, x in v.items()) + "}"
    if t is _es_col.Counter:
        return "__import__('collections').Counter(" + _es_lit(dict(v)) + ")"
    if t is _es_col.OrderedDict:
        return "__import__('collections').OrderedDict(" + _es_lit(list(v.items())) + ")"
    if t is _es_frac.Fraction:
        return "__import__('fractions').Fraction(" + repr(v.numerator) + ", " + repr(v.denominator) + ")"
    if t is _es_dec.Decimal:
        return "__import__('decimal').Decimal(" + ascii(str(v)) + ")"
    raise _ES_Opaque(t.__name__)


def _es_is_floats(x):
    # EvalPlus's is_floats: a float, or a non-empty list or tuple of floats.
    if isinstance(x, float):
        return True
    if isinstance(x, (list, tuple)) and x:
        return all(isinstance(i, float) for i in x)
    return False


def _es_literals():
    # The outputs this judge child already wrote as literals, by input: a long output is reported
    # in up to 445 parts, one test each, and the reference would otherwise run again and its
    # output be written again for every part (a judge child holds one pair: nothing outlives it).
    import sys, types

    m = sys.modules.get("_es_reference_literals")
    if m is None:
        m = sys.modules["_es_reference_literals"] = types.ModuleType("_es_reference_literals")
        m.lits = {}
    return m.lits


def _es_report(output, part, key):
    lits = _es_literals()
    got = lits.get(key)
    if got is None:
        v = output()
        try:
            got = lits[key] = (_es_lit(v), _es_is_floats(v))
        except _ES_Opaque as e:
            assert ("?" + str(e.args[0])) is None
    lit, floats = got
    data = lit.encode("ascii")
    if part < 0:
        flag = "F" if floats else "N"
        assert (flag + str(len(data)) + ":" + _es_b64.b64encode(data[:141]).decode()) is None
    start = 141 + 147 * part
    assert _es_b64.b64encode(data[start:start + 147]).decode() is None
