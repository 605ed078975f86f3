# Trivial Compiler Equivalence for execscope build (crates/build/src/equivalence.rs).
# Reads JSON lines, each a Python source string; writes one JSON line per source, in order:
# {"d": "<sha256 of the normalised code objects>"} or {"e": "<exception name>: <message>"}.
# compile() runs none of the source's code; the limits below are set before reading anything
# anyway, so a hostile source can cost this process at most its CPU and memory budget.
import dis, hashlib, json, resource, sys, types

for which, limit in ((resource.RLIMIT_CPU, 600), (resource.RLIMIT_AS, 4 << 30),
                     (resource.RLIMIT_NPROC, 0)):
    try:
        resource.setrlimit(which, (limit, limit))
    except (ValueError, OSError):
        pass


def canon(obj):
    """A deterministic, hashable picture of a compiled constant. A code object is its
    instruction stream with every argument resolved (constants by value, names by name, jumps
    by target) and without positions or file name, so only what executes is compared: the names
    and constants of code the compiler dropped as unreachable do not count. Frozensets are
    sorted (their order depends on string hashing), floats compared by their exact bits."""
    if isinstance(obj, types.CodeType):
        return ("code", obj.co_argcount, obj.co_posonlyargcount, obj.co_kwonlyargcount,
                obj.co_flags, tuple(instruction(i) for i in dis.get_instructions(obj)),
                obj.co_varnames, obj.co_freevars, obj.co_cellvars, obj.co_name,
                getattr(obj, "co_qualname", ""), getattr(obj, "co_exceptiontable", b""),
                # the docstring, which no instruction loads
                canon(obj.co_consts[0]) if obj.co_consts and isinstance(obj.co_consts[0], str) else None)
    if isinstance(obj, frozenset):
        return ("frozenset", tuple(sorted(repr(canon(x)) for x in obj)))
    if isinstance(obj, tuple):
        return ("tuple", tuple(canon(x) for x in obj))
    if isinstance(obj, float):
        return ("float", obj.hex())
    if isinstance(obj, complex):
        return ("complex", obj.real.hex(), obj.imag.hex())
    return (type(obj).__name__, repr(obj))


def instruction(i):
    if i.opcode in dis.hasconst:
        return (i.opname, canon(i.argval))
    if i.opcode in dis.hasname:
        # the index into co_names may shift with dead names; the name (and the NULL/method
        # flag LOAD_GLOBAL and LOAD_ATTR carry) is in argrepr
        return (i.opname, i.argrepr)
    return (i.opname, i.arg, i.argrepr)


for line in sys.stdin:
    src = json.loads(line)
    try:
        code = compile(src, "<mutant>", "exec", dont_inherit=True)
        out = {"d": hashlib.sha256(repr(canon(code)).encode()).hexdigest()}
    except SyntaxError as e:
        out = {"e": "%s: %s (line %s)" % (type(e).__name__, e.msg, e.lineno), "syntax": True}
    except BaseException as e:  # RecursionError, MemoryError: unknown, so executed
        out = {"e": "%s: %s" % (type(e).__name__, e)}
    sys.stdout.write(json.dumps(out) + "\n")
