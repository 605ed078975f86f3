# Rust's semantics for the values a Rust function's answer crosses as (trusted judge setup of a
# HumanEval-X Rust test translated from its native `assert!`s: crates/build/src/formats/rsnative.rs).
# A value is Rust's by its Python type: bool a bool, int an integer, float an f32 or f64 (an f32
# widened exactly), str a String, &str or char, list a Vec, slice or array, tuple a tuple, dict a
# HashMap, None an Option's None (Some(x) crosses as x). `kind` names the Rust type the test gives
# an operation (`i32`, `u8`, `f32`, `str`), or None when the translation could not tell.
import math as _es_math
import struct as _es_struct

_RS_INTS = {
    "i8": (-(2**7), 2**7 - 1), "i16": (-(2**15), 2**15 - 1), "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1), "i128": (-(2**127), 2**127 - 1),
    "isize": (-(2**63), 2**63 - 1),
    "u8": (0, 2**8 - 1), "u16": (0, 2**16 - 1), "u32": (0, 2**32 - 1), "u64": (0, 2**64 - 1),
    "u128": (0, 2**128 - 1), "usize": (0, 2**64 - 1),
}


def _rs_isint(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _rs_f32(x):
    # x rounded to the nearest f32 (ties to even), as a Python float; beyond f32's range an
    # infinity, as Rust's `as f32`.
    x = float(x)
    if x != x or _es_math.isinf(x):
        return x
    try:
        return _es_struct.unpack("<f", _es_struct.pack("<f", x))[0]
    except OverflowError:
        return _es_math.copysign(_es_math.inf, x)


def _rs_bool(v):
    # What `assert!`, `!`, `&&`, `||` and `if` take: a bool, nothing else (Rust would not compile).
    if not isinstance(v, bool):
        raise TypeError("expected bool, found " + type(v).__name__)
    return v


def _rs_eq(a, b):
    # a == b (PartialEq) between values of the same Rust type; values of different kinds (which
    # Rust would not compare: an integer and a float, a bool and an integer) are unequal.
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if _rs_isint(a) or _rs_isint(b):
        return _rs_isint(a) and _rs_isint(b) and a == b
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, float) and isinstance(b, float) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            isinstance(a, tuple) == isinstance(b, tuple)
            and len(a) == len(b)
            and all(_rs_eq(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(k in b and _rs_eq(v, b[k]) for k, v in a.items())
    if isinstance(a, (set, frozenset)) and isinstance(b, (set, frozenset)):
        return a == b
    return False


def _rs_cmp(op, a, b):
    # a < b, a > b, a <= b, a >= b (PartialOrd): Python's order is Rust's for numbers (NaN
    # unordered), strings (UTF-8 bytes order as code points do), bools, sequences and tuples.
    if isinstance(a, bool) != isinstance(b, bool) or isinstance(a, str) != isinstance(b, str):
        raise TypeError("values of different types compared")
    if op == "<":
        return a < b
    if op == ">":
        return a > b
    if op == "<=":
        return a <= b
    return a >= b


def _rs_int(v, kind):
    # An integer result of type `kind`: beyond its range Rust panics (overflow checks are on in a
    # test build: "attempt to add with overflow").
    r = _RS_INTS.get(kind)
    if r is not None and not (r[0] <= v <= r[1]):
        raise OverflowError("attempt to compute " + str(v) + " in " + kind)
    return v


def _rs_float_div(a, b):
    if b == 0:
        if a == 0 or a != a:
            return _es_math.nan
        neg = (a < 0) != (_es_math.copysign(1.0, b) < 0)
        return -_es_math.inf if neg else _es_math.inf
    return a / b


def _rs_op(op, a, b, kind):
    # a <op> b in Rust, both of type `kind`.
    if isinstance(a, str) and op == "+":
        if not isinstance(b, str):
            raise TypeError("String + a value that is not a &str")
        return a + b
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        raise TypeError("arithmetic on a bool or a string")
    if isinstance(a, float) or isinstance(b, float) or kind in ("f32", "f64"):
        if _rs_isint(a) != _rs_isint(b) and kind not in ("f32", "f64"):
            raise TypeError("arithmetic between an integer and a float")
        a, b = float(a), float(b)
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op == "/":
            r = _rs_float_div(a, b)
        elif op == "%":
            r = _es_math.nan if b == 0 or _es_math.isinf(a) or a != a or b != b else (
                a if _es_math.isinf(b) else _es_math.fmod(a, b))
        else:
            raise TypeError("operator " + op + " on floats")
        return _rs_f32(r) if kind == "f32" else r
    if op == "+":
        r = a + b
    elif op == "-":
        r = a - b
    elif op == "*":
        r = a * b
    elif op in ("/", "%"):
        if b == 0:
            raise ZeroDivisionError("attempt to divide by zero")
        # Rust's integer division truncates toward zero; the remainder has the dividend's sign.
        q = abs(a) // abs(b)
        if (a < 0) != (b < 0):
            q = -q
        r = q if op == "/" else a - b * q
    elif op == "&":
        r = a & b
    elif op == "|":
        r = a | b
    elif op == "^":
        r = a ^ b
    else:
        raise TypeError("operator " + op)
    return _rs_int(r, kind)


def _rs_neg(v, kind):
    if isinstance(v, bool) or isinstance(v, str):
        raise TypeError("negation of a bool or a string")
    if isinstance(v, float):
        return -v
    if kind is not None and kind.startswith("u"):
        raise TypeError("negation of an unsigned integer")
    return _rs_int(-v, kind)


def _rs_abs(v, kind):
    if isinstance(v, float):
        return abs(v)
    if not _rs_isint(v):
        raise TypeError("abs of a value that is not a number")
    return _rs_int(abs(v), kind)


def _rs_as(v, kind):
    # v as <kind>: Rust's `as` casts between numbers, bools and chars.
    if kind in ("f32", "f64"):
        if isinstance(v, str):
            raise TypeError("a char cast to a float")
        x = float(int(v)) if isinstance(v, bool) else float(v)
        return _rs_f32(x) if kind == "f32" else x
    if kind == "char":
        if not _rs_isint(v) or not (0 <= v <= 255):
            raise TypeError("only a u8 casts to char")
        return chr(v)
    r = _RS_INTS[kind]
    if isinstance(v, str):
        if len(v) != 1:
            raise TypeError("a string cast to an integer")
        v = ord(v)
    if isinstance(v, bool):
        v = int(v)
    if isinstance(v, float):
        # Float to integer saturates at the type's bounds, NaN is 0, and truncates toward zero.
        if v != v:
            return 0
        if v <= r[0]:
            return r[0]
        if v >= r[1]:
            return r[1]
        return int(v)
    # Integer to integer wraps (two's complement).
    span = r[1] - r[0] + 1
    return (v - r[0]) % span + r[0]


def _rs_str(v):
    # `.to_string()` of a String, &str, char, integer or bool (a float's Display is not Python's:
    # not translated).
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (str, int)):
        return str(v)
    raise TypeError("to_string of a " + type(v).__name__)
