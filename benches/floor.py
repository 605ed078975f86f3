"""The floor for benches/rank.rs: what nothing can rank without.

For every `embeddings/*.npz` of a bundle: load both matrices with numpy and do one float32 GEMM
(queries · corpusᵀ) through numpy's OpenBLAS. No normalisation, no BM25, no metric. Prints
`floor_seconds <best of N runs>`, then the GEMMs alone (`gemm_seconds`, best of N) and one
939 × 768 · 768 × 4,695 product (`gemm768_seconds`, best of 5), for comparing OpenBLAS with the
Rust GEMM of benches/rank.rs (`gemm_768`).

Usage: python floor.py <bundle dir> [runs]
"""

import glob
import os
import sys
import time

import numpy as np


def once(root):
    gemm = 0.0
    for path in sorted(glob.glob(os.path.join(root, "embeddings", "*.npz"))):
        with np.load(path) as z:
            q = np.asarray(z["queries"], dtype=np.float32)
            c = np.asarray(z["corpus"], dtype=np.float32)
        t = time.perf_counter()
        s = q @ c.T
        gemm += time.perf_counter() - t
        del s, q, c
    return gemm


def main():
    root = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    best, best_gemm = float("inf"), float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        gemm = once(root)
        best = min(best, time.perf_counter() - t)
        best_gemm = min(best_gemm, gemm)
    print(f"floor_seconds {best:.6f}")
    print(f"gemm_seconds {best_gemm:.6f}")
    rng = np.random.default_rng(1)
    q = rng.random((939, 768), dtype=np.float32)
    c = rng.random((4695, 768), dtype=np.float32)
    one = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        s = q @ c.T
        one = min(one, time.perf_counter() - t)
    print(f"gemm768_seconds {one:.6f}")


if __name__ == "__main__":
    main()
