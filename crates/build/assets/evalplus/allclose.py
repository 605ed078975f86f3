def _es_allclose(out, expected, atol):
    # EvalPlus's comparison of floats, judged here: the same type (and length, for a list or a
    # tuple), then numpy.allclose(out, expected, rtol=1e-07, atol=atol) with numpy's rules.
    import math
    if type(out) != type(expected):
        return False
    if isinstance(expected, (list, tuple)) and len(out) != len(expected):
        return False

    def array(v, numbers):
        # numpy.asarray's shape and items; None where numpy refuses (ragged, text, and for the
        # expected side anything but numbers). Other objects on the out side are compared as
        # Python objects, as numpy does in an object array.
        if isinstance(v, (list, tuple)):
            parts = [array(x, numbers) for x in v]
            if any(p is None for p in parts) or len({p[0] for p in parts}) > 1:
                return None
            return (len(v),) + (parts[0][0] if parts else ()), [x for p in parts for x in p[1]]
        if isinstance(v, (str, bytes)) or (numbers and not isinstance(v, (int, float, complex))):
            return None
        return (), [v]

    def finite(y):
        return math.isfinite(y.real) and math.isfinite(y.imag) if type(y) is complex else math.isfinite(y)

    def close(x, y):
        try:
            return (abs(x - y) <= atol + 1e-07 * abs(y) and finite(y)) or x == y
        except OverflowError:
            return False

    if not isinstance(expected, (list, tuple)):
        return close(out, float(expected) if isinstance(expected, int) else expected)
    a, b = array(out, False), array(expected, True)
    if a is None or b is None:
        return False
    if any(isinstance(y, int) and not -2**63 <= y < 2**64 for y in b[1]):
        return False  # numpy holds such an array as objects, and isfinite refuses them
    to = complex if any(type(y) is complex for y in b[1]) else float
    ys = [to(y) for y in b[1]]
    n = max(len(a[0]), len(b[0]))
    sa, sb = (1,) * (n - len(a[0])) + a[0], (1,) * (n - len(b[0])) + b[0]
    if any(p != q and p != 1 and q != 1 for p, q in zip(sa, sb)):
        return False
    shape = [q if p == 1 else p for p, q in zip(sa, sb)]

    def flat(index, s):
        k = 0
        for i, d in zip(index, s):
            k = k * d + (i if d != 1 else 0)
        return k

    index = [0] * n
    for _ in range(math.prod(shape)):
        if not close(a[1][flat(index, sa)], ys[flat(index, sb)]):
            return False
        for d in reversed(range(n)):
            index[d] += 1
            if index[d] < shape[d]:
                break
            index[d] = 0
    return True
