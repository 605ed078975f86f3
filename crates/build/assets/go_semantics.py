# Go's and testify's semantics for the values a Go function's answer crosses as (trusted judge
# setup of a HumanEval-X Go test translated from its native `assert.Equal`s:
# crates/build/src/formats/gonative.rs). A value's Go type is a string the translation computed
# from the test's text and the task's declared signature ("int", "float64", "[]string",
# "[2]interface{}", "map[int32]int", "interface{}", "nil" for the untyped nil; constants not yet
# typed are "untyped int", "untyped float", "untyped rune", "untyped string", "untyped bool");
# the value is a Python one: int, float, str, bool, bytes ([]uint8), list (a slice), tuple (an
# array), dict (a map), None (nil).
import math as _go_math
import struct as _go_struct

_GO_INTS = {
    "int": (64, True), "int64": (64, True), "int32": (32, True), "int16": (16, True),
    "int8": (8, True), "uint": (64, False), "uint64": (64, False), "uint32": (32, False),
    "uint16": (16, False), "uint8": (8, False), "uintptr": (64, False),
}


def _go_kind(t):
    # ("slice", elem), ("array", n, elem), ("map", key, value), ("iface",), ("basic", t)
    if t.startswith("[]"):
        return ("slice", t[2:])
    if t.startswith("["):
        i = t.index("]")
        return ("array", int(t[1:i]), t[i + 1:])
    if t.startswith("map["):
        depth = 0
        for i in range(3, len(t)):
            if t[i] == "[":
                depth += 1
            elif t[i] == "]":
                depth -= 1
                if depth == 0:
                    return ("map", t[4:i], t[i + 1:])
    if t == "interface{}":
        return ("iface",)
    return ("basic", t)


def _go_wrap(t, v):
    # An integer of type t, wrapped to its width as Go's arithmetic wraps.
    bits, signed = _GO_INTS[t]
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def _go_isint(t):
    return t in _GO_INTS or t in ("untyped int", "untyped rune")


def _go_isfloat(t):
    return t in ("float64", "float32", "untyped float")


def _go_f32(x):
    try:
        return _go_struct.unpack("f", _go_struct.pack("f", x))[0]
    except OverflowError:
        return _go_math.copysign(_go_math.inf, x)


def _go_ans(t, v):
    # The function's answer as a value of its declared type t; an answer that is not one (the
    # candidate's program declares another type) fails the test, as it would not compile or
    # would not be equal natively.
    k = _go_kind(t)
    ok = True
    if k[0] == "iface":
        return v
    if k[0] == "basic":
        if t in _GO_INTS:
            ok = type(v) is int and _go_wrap(t, v) == v
        elif _go_isfloat(t):
            ok = type(v) is float
        elif t == "string":
            ok = type(v) is str
        elif t == "bool":
            ok = type(v) is bool
        else:
            ok = False
    elif k[0] == "slice":
        if k[1] == "uint8":
            ok = type(v) is bytes
        else:
            ok = type(v) is list
            if ok:
                v = [_go_ans(k[1], x) for x in v]
    elif k[0] == "array":
        ok = type(v) in (tuple, list) and len(v) == k[1]
        if ok:
            v = tuple(_go_ans(k[2], x) for x in v)
    elif k[0] == "map":
        ok = type(v) is dict
        if ok:
            v = {_go_ans(k[1], a): _go_ans(k[2], b) for a, b in v.items()}
    if not ok:
        raise TypeError("the answer %r is not a Go %s" % (v, t))
    return v


def _go_dyn(t, v):
    # The dynamic type of a value of static type t (an interface's by its value).
    if t != "interface{}":
        return t
    if v is None:
        return "nil"
    if type(v) is bool:
        return "bool"
    if type(v) is int:
        return "int"
    if type(v) is float:
        return "float64"
    if type(v) is str:
        return "string"
    if type(v) is bytes:
        return "[]uint8"
    if type(v) is list:
        return "[]interface{}"
    if type(v) is tuple:
        return "[%d]interface{}" % len(v)
    if type(v) is dict:
        return "map[interface{}]interface{}"
    return "?"


def _go_fits(t, v):
    try:
        _go_ans(t, v)
        return True
    except TypeError:
        return False


def _go_dyns(te, e, ta, a):
    # Both values' dynamic types. A slice, array or map held by an interface{} crosses without
    # its element types: it is taken as the other side's type when every element fits it
    # (SplitWords' interface{} holding a []string against `[]string{...}`), else as interface{}'s.
    de, da = _go_dyn(te, e), _go_dyn(ta, a)
    loose = (list, tuple, dict)
    if te == "interface{}" and type(e) in loose and _go_kind(da)[0] != "basic" and _go_fits(da, e):
        de = da
    if ta == "interface{}" and type(a) in loose and _go_kind(de)[0] != "basic" and _go_fits(de, a):
        da = de
    return de, da


def _go_deep(te, e, ta, a):
    # reflect.DeepEqual of a value of type te and one of type ta.
    te, ta = _go_dyns(te, e, ta, a)
    if te == "nil" or ta == "nil":
        return te == ta
    if te != ta:
        return False
    k = _go_kind(te)
    if k[0] == "slice" or k[0] == "array":
        el = k[-1]
        if type(e) is bytes or type(a) is bytes:
            return e == a
        return len(e) == len(a) and all(_go_deep(el, x, el, y) for x, y in zip(e, a))
    if k[0] == "map":
        if len(e) != len(a):
            return False
        for key, x in e.items():
            if key not in a or not _go_deep(k[2], x, k[2], a[key]):
                return False
        return True
    return e == a


def _go_equal(te, e, ta, a):
    # testify's ObjectsAreEqual(expected, actual): nil only equals nil; []byte by bytes.Equal;
    # else reflect.DeepEqual, so the types must be the same (int is not float64).
    de, da = _go_dyns(te, e, ta, a)
    if de == "nil" or da == "nil":
        return de == da
    if de == "[]uint8":
        return da == "[]uint8" and bytes(e) == bytes(a)
    return _go_deep(de, e, da, a)


def _go_tofloat(t, v):
    # testify's toFloat: a number of any numeric kind, else None.
    t = _go_dyn(t, v)
    if t in _GO_INTS or _go_isfloat(t):
        return float(v)
    return None


def _go_indelta(te, e, ta, a, td, d):
    af, bf, df = _go_tofloat(te, e), _go_tofloat(ta, a), _go_tofloat(td, d)
    if af is None or bf is None or df is None:
        return False
    if af != af and bf != bf:
        return True
    if af != af or bf != bf:
        return False
    dt = af - bf
    return not (dt < -df or dt > df)


def _go_conv(t, v):
    # The conversion T(v) (and an untyped constant given the type t).
    if t in _GO_INTS:
        if type(v) is float:
            if v != v or _go_math.isinf(v):
                raise OverflowError("%r does not fit a Go %s" % (v, t))
            v = int(v)
        return _go_wrap(t, v)
    if t == "float64":
        return float(v)
    if t == "float32":
        return _go_f32(float(v))
    if t == "string":
        if type(v) is int:
            return chr(v) if 0 <= v < 0x110000 and not 0xD800 <= v < 0xE000 else "\ufffd"
        if type(v) is list:
            return "".join(_go_conv("string", c) for c in v)
        if type(v) is bytes:
            return v.decode("utf-8", "replace")
        return v
    if t in ("[]int32", "[]rune") and type(v) is str:
        return [ord(c) for c in v]
    if t in ("[]uint8", "[]byte") and type(v) is str:
        return v.encode("utf-8")
    return v


def _go_bin(op, t, a, b):
    # a op b for operands of type t (both already of it).
    if op == "==":
        return a == b
    if op == "!=":
        return a != b
    if op in ("<", "<=", ">", ">="):
        if type(a) is str:
            a, b = a.encode("utf-8"), b.encode("utf-8")
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
    if t == "string" or t == "untyped string":
        if op == "+":
            return a + b
        raise TypeError("operator " + op + " on strings")
    if _go_isint(t):
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op in ("/", "%"):
            if b == 0:
                raise ZeroDivisionError("runtime error: integer divide by zero")
            q = abs(a) // abs(b)
            if (a < 0) != (b < 0):
                q = -q
            r = q if op == "/" else a - b * q
        else:
            raise TypeError("operator " + op)
        return r if t.startswith("untyped") else _go_wrap(t, r)
    if _go_isfloat(t):
        a, b = float(a), float(b)
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op == "/":
            if b == 0:
                if a == 0 or a != a:
                    r = _go_math.nan
                else:
                    neg = (a < 0) != (_go_math.copysign(1.0, b) < 0)
                    r = -_go_math.inf if neg else _go_math.inf
            else:
                r = a / b
        else:
            raise TypeError("operator " + op + " on floats")
        return _go_f32(r) if t == "float32" else r
    raise TypeError("operator " + op + " on " + t)


def _go_neg(t, v):
    if _go_isint(t):
        return -v if t.startswith("untyped") else _go_wrap(t, -v)
    return -v


def _go_len(v):
    # len(v): a string's length is its count of UTF-8 bytes.
    if type(v) is str:
        return len(v.encode("utf-8"))
    return len(v)


def _go_index(v, i):
    # v[i], a panic (an error here) out of range; a string's byte.
    if type(v) is str:
        v = v.encode("utf-8")
    if i < 0 or i >= len(v):
        raise IndexError("runtime error: index out of range [%d] with length %d" % (i, len(v)))
    return v[i]


def _go_abs(x):
    return abs(float(x))


def _go_pow(x, y):
    try:
        return _go_math.pow(x, y)
    except OverflowError:
        return _go_math.inf if x > 0 or float(y).is_integer() and int(y) % 2 == 0 else -_go_math.inf
    except (ValueError, ZeroDivisionError):
        if x == 0:
            return _go_math.inf
        return _go_math.nan


def _go_mod(x, y):
    if y == 0 or _go_math.isinf(x) or x != x or y != y:
        return _go_math.nan
    return _go_math.fmod(x, y)


def _go_sqrt(x):
    return _go_math.sqrt(x) if x >= 0 else _go_math.nan
