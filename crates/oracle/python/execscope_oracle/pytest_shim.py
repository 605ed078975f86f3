# The `pytest` a test imports (Python stdlib only). Tests use two
# things of pytest: `raises` and `approx`; both are evaluated here, on the test's side, with the
# semantics pytest 7 gives them (src/_pytest/python_api.py): approx's defaults are rel 1e-6 and
# abs 1e-12, `abs=` alone means no relative tolerance, both given means either suffices, NaN
# equals NaN only with nan_ok, infinities only themselves; mappings compare their keys then each
# value, sequences their lengths then each element, anything not numeric falls back to ==.

import decimal
import math
import numbers as _numbers
import re
import types as _types
from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from collections.abc import Sized as _Sized

from .peer import Gone


class ApproxBase:
    __hash__ = None

    def __init__(self, expected, rel=None, abs=None, nan_ok=False):
        self.expected, self.rel, self.abs, self.nan_ok = expected, rel, abs, nan_ok
        self._check_type()

    def __eq__(self, actual):
        return all(a == self._approx_scalar(x) for a, x in self._yield_comparisons(actual))

    def __ne__(self, actual):
        return not (actual == self)

    def _approx_scalar(self, x):
        cls = ApproxDecimal if isinstance(x, decimal.Decimal) else ApproxScalar
        return cls(x, rel=self.rel, abs=self.abs, nan_ok=self.nan_ok)

    def _yield_comparisons(self, actual):
        raise NotImplementedError

    def _check_type(self):
        pass


class ApproxMapping(ApproxBase):
    def __repr__(self):
        return "approx({!r})".format({k: self._approx_scalar(v) for k, v in self.expected.items()})

    def __eq__(self, actual):
        try:
            if set(actual.keys()) != set(self.expected.keys()):
                return False
        except AttributeError:
            return False
        return ApproxBase.__eq__(self, actual)

    def _yield_comparisons(self, actual):
        for k in self.expected.keys():
            yield actual[k], self.expected[k]

    def _check_type(self):
        for k, v in self.expected.items():
            if isinstance(v, type(self.expected)):
                raise TypeError("pytest.approx() does not support nested dictionaries: key={!r}".format(k))


class ApproxSequencelike(ApproxBase):
    def __repr__(self):
        t = type(self.expected)
        if t not in (tuple, list, set):
            t = list
        return "approx({!r})".format(t(self._approx_scalar(x) for x in self.expected))

    def __eq__(self, actual):
        try:
            if len(actual) != len(self.expected):
                return False
        except TypeError:
            return False
        return ApproxBase.__eq__(self, actual)

    def _yield_comparisons(self, actual):
        return zip(actual, self.expected)

    def _check_type(self):
        for i, x in enumerate(self.expected):
            if isinstance(x, type(self.expected)):
                raise TypeError("pytest.approx() does not support nested data structures: at index {}".format(i))


class ApproxScalar(ApproxBase):
    DEFAULT_ABSOLUTE_TOLERANCE = 1e-12
    DEFAULT_RELATIVE_TOLERANCE = 1e-6

    def __repr__(self):
        e = self.expected
        if not isinstance(e, (_numbers.Complex, decimal.Decimal)) or math.isinf(abs(e)):
            return str(e)
        try:
            tol = "{:.1e}".format(self.tolerance)
            if isinstance(e, _numbers.Complex) and e.imag and not math.isinf(self.tolerance):
                tol += " \u2220 \u00b1180\u00b0"
        except ValueError:
            tol = "???"
        return "{} \u00b1 {}".format(e, tol)

    def __eq__(self, actual):
        if actual == self.expected:
            return True
        num = (_numbers.Complex, decimal.Decimal)
        if not (isinstance(self.expected, num) and isinstance(actual, num)):
            return False
        if math.isnan(abs(self.expected)):
            return self.nan_ok and math.isnan(abs(actual))
        if math.isinf(abs(self.expected)):
            return False
        return abs(self.expected - actual) <= self.tolerance

    __hash__ = None

    @property
    def tolerance(self):
        absolute = self.abs if self.abs is not None else self.DEFAULT_ABSOLUTE_TOLERANCE
        if absolute < 0:
            raise ValueError("absolute tolerance can't be negative: {}".format(absolute))
        if math.isnan(absolute):
            raise ValueError("absolute tolerance can't be NaN.")
        if self.rel is None and self.abs is not None:
            return absolute
        relative = (self.rel if self.rel is not None else self.DEFAULT_RELATIVE_TOLERANCE) * abs(self.expected)
        if relative < 0:
            raise ValueError("relative tolerance can't be negative: {}".format(absolute))
        if math.isnan(relative):
            raise ValueError("relative tolerance can't be NaN.")
        return max(relative, absolute)


class ApproxDecimal(ApproxScalar):
    DEFAULT_ABSOLUTE_TOLERANCE = decimal.Decimal("1e-12")
    DEFAULT_RELATIVE_TOLERANCE = decimal.Decimal("1e-6")


def approx(expected, rel=None, abs=None, nan_ok=False):
    if isinstance(expected, decimal.Decimal):
        cls = ApproxDecimal
    elif isinstance(expected, _Mapping):
        cls = ApproxMapping
    elif isinstance(expected, _Iterable) and isinstance(expected, _Sized) and not isinstance(expected, (str, bytes)):
        cls = ApproxSequencelike
    else:
        cls = ApproxScalar
    return cls(expected, rel, abs, nan_ok)


class ExceptionInfo:
    def __init__(self):
        self.type = self.value = self.tb = None

    @property
    def typename(self):
        return self.type.__name__

    def match(self, regexp):
        if not re.search(regexp, str(self.value)):
            raise AssertionError("Regex pattern {!r} does not match {!r}.".format(regexp, str(self.value)))
        return True


def _expected_types(expected):
    ts = expected if isinstance(expected, tuple) else (expected,)
    for t in ts:
        if not (isinstance(t, type) and issubclass(t, BaseException)):
            raise TypeError("expected exception must be a BaseException type, not {}".format(type(t).__name__))
    return expected


class RaisesContext:
    def __init__(self, expected, match=None):
        self.expected = _expected_types(expected)
        self.match_expr = match
        self.excinfo = None

    def __enter__(self):
        self.excinfo = ExceptionInfo()
        return self.excinfo

    def __exit__(self, et, ev, tb):
        if et is None:
            raise AssertionError("DID NOT RAISE {}".format(self.expected))
        if issubclass(et, Gone):
            return False
        if not issubclass(et, self.expected):
            return False
        self.excinfo.type, self.excinfo.value, self.excinfo.tb = et, ev, tb
        if self.match_expr is not None:
            self.excinfo.match(self.match_expr)
        return True


def raises(expected_exception, *args, **kwargs):
    if not args:
        match = kwargs.pop("match", None)
        if kwargs:
            raise TypeError("unexpected keyword arguments to pytest.raises: {}".format(sorted(kwargs)))
        return RaisesContext(expected_exception, match)
    func = args[0]
    if not callable(func):
        raise TypeError("{!r} object (type: {}) must be callable".format(func, type(func)))
    ctx = RaisesContext(expected_exception)
    with ctx as info:
        func(*args[1:], **kwargs)
    return info


def fail(reason="", pytrace=True):
    raise AssertionError(reason)


def pytest_module():
    m = _types.ModuleType("pytest")
    for n in ("approx", "raises", "fail", "ExceptionInfo"):
        m.__dict__[n] = globals()[n]
    return m
