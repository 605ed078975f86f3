def _es_poly(xs, x):
    # HumanEval/32's polynomial, the trusted side of EvalPlus's find_zero oracle.
    import math
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])
