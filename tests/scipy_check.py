#!/usr/bin/env python3
"""Independent reference values for tests/stats_scipy.rs, computed with SciPy and numpy.

Usage: python3 tests/scipy_check.py IN.json OUT.json

IN holds the inputs the Rust test generated (including the exact bootstrap resample plan as
lists of indices); OUT receives SciPy/numpy's answers, which the Rust test compares with its own.
Nothing here imports or mirrors the Rust code: p-values come from scipy.stats.binomtest, Wilson
bounds from binomtest(...).proportion_ci(method="wilson"), correlations from scipy.stats.spearmanr,
quantiles from numpy.percentile (default "linear" = type 7) over means taken by fancy indexing.
"""
import json
import math
import sys
import warnings

try:
    import numpy as np
    from scipy import stats
except ImportError as e:  # the Rust test turns this exit code into a clear failure
    sys.stderr.write(
        f"scipy/numpy not importable ({e}); run `pip install scipy numpy`\n"
    )
    sys.exit(3)


def num(x):
    """JSON-safe float: NaN becomes null."""
    x = float(x)
    return None if math.isnan(x) else x


def holm(p):
    """Holm adjusted p by its textbook definition: max over j <= i of min(1, (m - j) p_(j))."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for pos, i in enumerate(order):
        out[i] = max(min(1.0, (m - j) * p[order[j]]) for j in range(pos + 1))
    return out


def plan_means(values, idx):
    """Replicate means of `values` under the resample plan `idx` (B x n index matrix)."""
    return np.asarray(values, dtype=float)[idx].mean(axis=1)


def main(inp, outp):
    with open(inp) as f:
        data = json.load(f)
    out = {}
    out["binom"] = [stats.binomtest(k, n, p).pvalue for k, n, p in data["binom"]]
    out["mcnemar"] = [
        1.0 if b + c == 0 else stats.binomtest(b, b + c, 0.5).pvalue
        for b, c in data["mcnemar"]
    ]
    wil = []
    for k, n in data["wilson"]:
        ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        wil.append([ci.low, ci.high])
    out["wilson"] = wil
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input warns and returns nan
        out["spearman"] = [num(stats.spearmanr(c["x"], c["y"]).statistic) for c in data["spearman"]]
    out["percentile"] = [
        [float(np.percentile(np.asarray(c["x"], dtype=float), 100.0 * q)) for q in c["q"]]
        for c in data["percentile"]
    ]
    out["holm"] = [holm(p) for p in data["holm"]]

    plan = data["plan"]
    idx = np.asarray(plan["indices"], dtype=np.int64)
    assert idx.shape == (plan["b"], plan["n"]), idx.shape
    out["mean_ci"] = []
    for v in plan["vectors"]:
        m = plan_means(v, idx)
        lo, hi = np.percentile(m, [2.5, 97.5])
        out["mean_ci"].append([float(np.mean(v)), float(lo), float(hi)])
    out["paired"] = []
    for a, b in plan["pairs"]:
        va, vb = np.asarray(plan["vectors"][a]), np.asarray(plan["vectors"][b])
        d = plan_means(va - vb, idx)
        lo, hi = np.percentile(d, [2.5, 97.5])
        out["paired"].append([float(np.mean(va - vb)), float(lo), float(hi)])

    out["cluster"] = []
    for c in data["cluster"]:
        cidx = np.asarray(c["indices"], dtype=np.int64)
        numr, den = np.asarray(c["num"], dtype=float), np.asarray(c["den"], dtype=float)
        est = None if den.sum() == 0 else float(numr.sum() / den.sum())
        sn, sd = numr[cidx].sum(axis=1), den[cidx].sum(axis=1)
        ok = sd != 0
        undefined = int((~ok).sum())
        held = est is None or undefined > 0.05 * len(sd)
        lo = hi = None
        if not held:
            lo, hi = (float(x) for x in np.percentile(sn[ok] / sd[ok], [2.5, 97.5]))
        out["cluster"].append(
            {"estimate": est, "low": lo, "high": hi, "undefined": undefined, "held": bool(held)}
        )

    with open(outp, "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: scipy_check.py IN.json OUT.json\n")
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
