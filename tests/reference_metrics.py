#!/usr/bin/env python3
"""Independent reference for execscope's retrieval metrics (row tie rule), written from
docs/metrics.md with numpy only. Usage: reference_metrics.py BUNDLE OUT.json

For every dense system (npz arrays picked by name or by row count), scores are cosine over
L2-normalised float64 vectors (or raw dot per results/invocation_table.json), the ranking is a
stable sort of -score (ties by corpus row), PASS comes from the execution cache keyed by
sha256(code) and sha256(json.dumps(tests, separators=(",", ":"))), with the label fallback.
"""
import hashlib
import json
import math
import sys
from pathlib import Path

import numpy as np

KS = [1, 3, 5, 10]


def jsonl(p):
    with open(p, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def sha(s):
    return hashlib.sha256(s.encode("utf-8")).hexdigest()


def main(root, out):
    root = Path(root)
    queries = jsonl(root / "data/queries.jsonl")
    corpus = jsonl(root / "data/corpus.jsonl")
    cache = {}
    cache_path = root / "data/execution_cache.jsonl"
    if cache_path.exists():
        for r in jsonl(cache_path):
            cache[(r["code_sha256"], r["tests_sha256"])] = r["passes_all_tests"]
    row_of = {c["corpus_id"]: i for i, c in enumerate(corpus)}
    code_keys = [sha(c["code"]) for c in corpus]
    sims = {}
    inv = root / "results/invocation_table.json"
    if inv.exists():
        for s in json.load(open(inv))["systems"]:
            sims[s["id"]] = s.get("similarity", "cos")
    passing = []
    relevant = []
    for q in queries:
        tkey = sha(json.dumps(q["test_suite"], separators=(",", ":")))
        correct = {row_of[c] for c in q["correct_corpus_ids"]}
        relevant.append(correct)
        ok = set()
        for i, ck in enumerate(code_keys):
            v = cache.get((ck, tkey))
            if v is None:
                v = i in correct
            if v:
                ok.add(i)
        passing.append(ok)
    result = {}
    for npz in sorted((root / "embeddings").glob("*.npz")):
        z = np.load(npz)
        arrays = {k: z[k] for k in z.files if z[k].ndim == 2}
        qm = arrays.get("queries")
        cm = arrays.get("corpus")
        if qm is None or cm is None:
            for a in arrays.values():
                if a.shape[0] == len(queries) and qm is None:
                    qm = a
                elif a.shape[0] == len(corpus):
                    cm = a
        qm = qm.astype(np.float64)
        cm = cm.astype(np.float64)
        if sims.get(npz.stem, "cos") in ("cos", "cosine"):
            qm = qm / np.linalg.norm(qm, axis=1, keepdims=True)
            cm = cm / np.linalg.norm(cm, axis=1, keepdims=True)
        scores = qm @ cm.T
        agg = {f"{m}@{k}": 0.0 for m in ("exec", "execp", "ndcg") for k in KS}
        agg["mrr"] = 0.0
        for qi in range(len(queries)):
            order = np.argsort(-scores[qi], kind="stable")
            p = passing[qi]
            rel = relevant[qi]
            for k in KS:
                top = order[:k]
                hits = sum(1 for c in top if c in p)
                agg[f"exec@{k}"] += 1.0 if hits else 0.0
                agg[f"execp@{k}"] += hits / k
                rels = [1 if c in rel else 0 for c in top]
                dcg = sum(r / math.log2(i + 2) for i, r in enumerate(rels))
                ideal = sorted(rels, reverse=True)
                idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
                agg[f"ndcg@{k}"] += dcg / idcg if idcg > 0 else 0.0
            first = next((i for i, c in enumerate(order) if c in p), None)
            agg["mrr"] += 0.0 if first is None else 1.0 / (first + 1)
        result[npz.stem] = {k: v / len(queries) for k, v in agg.items()}
    Path(out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
