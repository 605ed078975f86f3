#!/usr/bin/env python3
"""Independent reference for tests/significance_ties.rs: the exact McNemar p-value averaged over
the orders of score ties.

Usage: python3 tests/significance_ties.py IN.json OUT.json

IN holds cases {"a": [...], "b": [...], "alpha": x}: per-query pass probabilities of two systems.
Each query's outcome for a system is an independent Bernoulli draw with that probability (one
uniformly random order of every score tie per query and system). This script enumerates every
joint outcome of every query whose outcome is uncertain (itertools.product, exact Fractions for the
weights), counts the discordant queries, and evaluates the exact two-sided McNemar test from
binomial coefficients (math.comb). Standard library only; nothing mirrors the Rust code.
"""
import itertools
import json
import math
import sys
from fractions import Fraction


def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1))
    return min(1.0, float(Fraction(2 * tail, 2 ** n)))


def case(a, b, alpha):
    a = [Fraction(x).limit_denominator(10**12) for x in a]
    b = [Fraction(x).limit_denominator(10**12) for x in b]
    choices = []
    for x, y in zip(a, b):
        opts = []
        for ox in (1, 0):
            for oy in (1, 0):
                w = (x if ox else 1 - x) * (y if oy else 1 - y)
                if w:
                    opts.append((w, ox, oy))
        choices.append(opts)
    mean_p = Fraction(0)
    rejecting = Fraction(0)
    for combo in itertools.product(*choices):
        w = Fraction(1)
        a_only = b_only = 0
        for wi, ox, oy in combo:
            w *= wi
            a_only += ox and not oy
            b_only += oy and not ox
        p = mcnemar(a_only, b_only)
        mean_p += w * Fraction(p)
        if p <= alpha:
            rejecting += w
    return {"mean_p": float(mean_p), "rejecting": float(rejecting)}


def main():
    cases = json.load(open(sys.argv[1]))
    out = [case(c["a"], c["b"], c["alpha"]) for c in cases]
    json.dump(out, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
