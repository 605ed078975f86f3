# execscope exceptions across the oracle's halves (Python stdlib only).
#
# An outcome names an exception only from a fixed vocabulary: the builtin exception names and
# those of common standard-library modules; any other class -- the code's own, or one named like
# a builtin to pass for it -- is `Other`. An exception crosses as ["ex", word, class, args,
# message]; the receiver raises an instance of its own class of it (the builtin or stdlib class,
# the mirrored class of the code's exception, else the builtin of that word), so `except
# ValueError` and `pytest.raises(ValueError, match=...)` behave as in one process.

import builtins
import re

from .codec import BadWire, TooBig, std_name

# Every builtin exception class's name.
BUILTIN_EXC = frozenset(
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
)


def class_label(t):
    """The outcome word of an exception class: its name when it *is* the builtin or standard
    library class of that name (or build's negative control, by name), else `Other`."""
    try:
        n = type.__getattribute__(t, "__name__")
        if n == "ExecscopeNegativeControl":
            return n
        if n in VOCAB and (getattr(builtins, n, None) is t or std_name(t) is not None):
            return n
    except BaseException:
        pass
    return "Other"


def exc_label(e):
    """The outcome word of an exception of the test's side (one that came from the sandbox
    keeps the word the sandbox gave it)."""
    lab = getattr(e, "_es_label", None) if isinstance(e, BaseException) else None
    if type(lab) is str:
        return lab if lab in VOCAB else "Other"
    return class_label(type(e))


def exc_enc(e, enc, d, trusted=True):
    """["ex", label, class, args, message] of an exception of this side (`trusted`: the
    judge's, whose `_es_label` is its own; the sandbox labels by class only)."""
    t = type(e)
    label = exc_label(e) if trusted else class_label(t)
    sn = std_name(t)
    cls = ["std", sn[0], sn[1]] if sn is not None else enc.foreign(t, enc, d)
    try:
        args = BaseException.__dict__["args"].__get__(e)
        cp = enc.checkpoint()
        try:
            wire_args = [enc.enc(a, d) for a in tuple.__getitem__(args, slice(0, 20))]
        except TooBig:
            enc.restore(cp)
            wire_args = []
        msg = BaseException.__str__(e)[:1000]
    except BaseException:
        wire_args, msg = [], ""
    if not trusted and _own_str(t):
        try:
            m = str(e)  # the code's own message for its exception, computed in its process
            if type(m) is str:
                msg = m[:1000]
        except BaseException:
            pass
    return ["ex", label, cls, wire_args, msg]


def _own_str(t):
    """Whether the first class of `t`'s MRO that defines `__str__` is a class of the code (a heap
    type), not a builtin exception's."""
    try:
        for c in type.__getattribute__(t, "__mro__"):
            if "__str__" in type.__getattribute__(c, "__dict__"):
                return bool(type.__getattribute__(c, "__flags__") & (1 << 9))
    except BaseException:
        pass
    return False


def exc_dec(x, dec, d):
    """An exception of the other side as an instance of this side's class of it."""
    label = x[1] if type(x[1]) is str and x[1] in VOCAB else "Other"
    try:
        cls = dec.dec(x[2], d)
    except (BadWire, TooBig):
        cls = None
    if not (isinstance(cls, type) and issubclass(cls, BaseException)) or cls.__name__ in ("Gone", "Unjudged"):
        cls = getattr(builtins, label, None) if label in BUILTIN_EXC else Exception
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = Exception
    args = dec.items(x[3], d) if type(x[3]) is list else []
    try:
        e = cls.__new__(cls)
        BaseException.__init__(e, *args)
    except BaseException:
        e = Exception(*args)
    try:
        e._es_label = label
        if type(x[4]) is str and len(x[4]) <= 1000:
            e._es_msg = x[4]  # what `str(e)` gives for a class of the code (proxy._exception_str)
    except BaseException:
        pass
    return e


def _exception_vocabulary():
    """Builtin exception names plus those of common stdlib modules: the only names an outcome
    may carry (anything else is recorded as `Other`)."""
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
    names.add("CompileError")  # a program in another language that did not compile (foreign.py)
    return frozenset(n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", n))


VOCAB = _exception_vocabulary()
