# JavaScript's semantics for the values a JavaScript function's answer crosses as (trusted judge
# setup of a HumanEval-X JavaScript test translated from its native `console.assert`s:
# crates/build/src/formats/jsnative.rs). A value is JavaScript's by its Python type: None null or
# undefined, bool a boolean, int and float a number, str a string, list and tuple an array,
# dict an object, set a Set.
import math as _es_math


def _js_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "object"


def _js_truthy(v):
    t = _js_type(v)
    if t == "null":
        return False
    if t == "boolean":
        return v
    if t == "number":
        return not (v == 0 or v != v)
    if t == "string":
        return v != ""
    return True


def _js_numstr(x):
    # Number.prototype.toString(10): the shortest digits that round-trip (Python's repr), laid
    # out by ECMAScript's Number::toString rules.
    if isinstance(x, int) and abs(x) <= 2**53:
        return str(x)
    x = float(x)
    if x != x:
        return "NaN"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + _js_numstr(-x)
    if _es_math.isinf(x):
        return "Infinity"
    r = repr(x)
    mant, _, exp = r.partition("e")
    ip, _, fp = mant.partition(".")
    all_digits = ip + fp
    digits = all_digits.lstrip("0")
    n = len(ip) + (int(exp) if exp else 0) - (len(all_digits) - len(digits))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits if k == 1 else digits[0] + "." + digits[1:]
    return head + "e" + sign + str(abs(e))


def _js_str(v):
    # String(v)
    t = _js_type(v)
    if t == "null":
        return "null"
    if t == "boolean":
        return "true" if v else "false"
    if t == "number":
        return _js_numstr(v)
    if t == "string":
        return v
    if isinstance(v, (list, tuple)):
        return ",".join("" if e is None else _js_str(e) for e in v)
    return "[object Object]" if isinstance(v, dict) else "[object Set]"


def _js_tonum(v):
    # Number(v)
    t = _js_type(v)
    if t == "null":
        return 0
    if t == "boolean":
        return 1 if v else 0
    if t == "number":
        return v
    if t == "string":
        s = v.strip(" \t\n\r\v\f\u00a0\ufeff\u2028\u2029")
        if s == "":
            return 0
        if s in ("Infinity", "+Infinity"):
            return _es_math.inf
        if s == "-Infinity":
            return -_es_math.inf
        try:
            if s[:2].lower() in ("0x", "0o", "0b"):
                return int(s, 0)
            if not any(c in s for c in "_nNiIxX"):
                f = float(s)
                return int(f) if f.is_integer() and abs(f) < 2**53 and f != 0 else f
        except ValueError:
            pass
        return _es_math.nan
    return _js_tonum(_js_str(v))


def _js_seq(a, b):
    # a === b: an array or object is equal only to itself (a literal of the test is a new one).
    ta = _js_type(a)
    if ta != _js_type(b):
        return False
    if ta == "object":
        return a is b
    return a == b


def _js_leq(a, b):
    # a == b (IsLooselyEqual)
    ta, tb = _js_type(a), _js_type(b)
    if ta == tb:
        return _js_seq(a, b)
    if "null" in (ta, tb):
        return False
    if ta == "boolean":
        return _js_leq(_js_tonum(a), b)
    if tb == "boolean":
        return _js_leq(a, _js_tonum(b))
    if ta == "object":
        return _js_leq(_js_str(a), b)
    if tb == "object":
        return _js_leq(a, _js_str(b))
    return _js_tonum(a) == _js_tonum(b)


def _js_cmp(op, a, b):
    # a < b, a > b, a <= b, a >= b
    if _js_type(a) == "object":
        a = _js_str(a)
    if _js_type(b) == "object":
        b = _js_str(b)
    if not (isinstance(a, str) and isinstance(b, str)):
        a, b = _js_tonum(a), _js_tonum(b)
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b and not (a != a or b != b)
    return a >= b and not (a != a or b != b)


def _js_number(x):
    # A Python result as JavaScript's double: an int beyond 2**53 rounds.
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) > 2**53:
        return float(x)
    return x


def _js_arith(op, a, b):
    if op == "+":
        if _js_type(a) == "object":
            a = _js_str(a)
        if _js_type(b) == "object":
            b = _js_str(b)
        if isinstance(a, str) or isinstance(b, str):
            return _js_str(a) + _js_str(b)
    a, b = _js_tonum(a), _js_tonum(b)
    if op == "+":
        return _js_number(a + b)
    if op == "-":
        return _js_number(a - b)
    if op == "*":
        return _js_number(a * b)
    if op == "/":
        if b == 0:
            if a == 0 or a != a:
                return _es_math.nan
            neg = (a < 0) != (_es_math.copysign(1.0, b) < 0)
            return -_es_math.inf if neg else _es_math.inf
        q = a / b
        return int(q) if isinstance(a, int) and isinstance(b, int) and a % b == 0 else q
    if op == "%":
        if b == 0 or a != a or b != b or _es_math.isinf(a):
            return _es_math.nan
        if _es_math.isinf(b):
            return a
        r = _es_math.fmod(a, b)
        return int(r) if isinstance(a, int) and isinstance(b, int) else r
    if op == "**":
        try:
            return _js_number(a**b)
        except (OverflowError, ZeroDivisionError):
            return _es_math.inf
    raise ValueError("operator " + op)


def _js_neg(v):
    x = _js_tonum(v)
    if x == 0:
        return -0.0 if _es_math.copysign(1.0, x) > 0 else 0
    return -x


def _js_and(a, b):
    return b() if _js_truthy(a) else a


def _js_or(a, b):
    return a if _js_truthy(a) else b()


def _js_abs(v):
    return abs(_js_tonum(v))


def _js_json_str(s):
    out = ['"']
    for c in s:
        o = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[c])
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF:
            out.append("\\u%04x" % o)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _js_json(v):
    # JSON.stringify(v); a top-level null or undefined answer is "null".
    t = _js_type(v)
    if t == "null":
        return "null"
    if t == "boolean":
        return "true" if v else "false"
    if t == "number":
        if isinstance(v, float) and (v != v or _es_math.isinf(v)):
            return "null"
        return _js_numstr(v)
    if t == "string":
        return _js_json_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_js_json(e) for e in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(_js_json_str(str(k)) + ":" + _js_json(x) for k, x in v.items()) + "}"
    if isinstance(v, (bytes, bytearray)):
        return "{" + ",".join('"%d":%d' % (i, x) for i, x in enumerate(v)) + "}"
    return "{}"
