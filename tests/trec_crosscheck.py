"""Independent cross-checks of `execscope fuse` and `execscope export` (tests/systems_trec.rs).

  trec_crosscheck.py rrf A.npy B.npy FUSED.npz K
      RRF of two score matrices with competition ranks (scipy's rankdata, method="min"),
      summed in float64 and rounded to float32; prints the number of cells that differ from
      the fused system's `scores` and the largest difference.
  trec_crosscheck.py trec DIR [TOOL ...]
      Reads DIR/manifest.json and evaluates every system's runs with each TOOL (default both):
      `pytrec` is pytrec_eval (trec_eval's own code): success.k, P.k and recip_rank on the pass
      qrels, ndcg_cut.k on the relevant qrels, and success.k, P.k and recip_rank again on the
      graded qrels at relevance_level=2 (named graded_<measure>); `ranx` is ranx: hit_rate@k,
      precision@k and mrr on the pass qrels, ndcg@k on the relevant qrels, reported under
      trec_eval's names (success_k, P_k, recip_rank, ndcg_cut_k). A tool that cannot be imported
      is left out. Prints {tool: {system: {query: {measure: value}}}} as JSON.
"""
import json
import sys

import numpy as np


def rrf(a_path, b_path, fused_path, k):
    from scipy.stats import rankdata

    k = float(k)
    parts = [np.load(a_path), np.load(b_path)]
    fused = np.load(fused_path)["scores"]
    total = np.zeros(parts[0].shape, dtype=np.float64)
    for m in parts:
        ranks = rankdata(-m.astype(np.float64), method="min", axis=1)
        total = total + 1.0 / (k + ranks)
    want = total.astype(np.float32)
    diff = np.abs(want.astype(np.float64) - fused.astype(np.float64))
    print(int((want != fused).sum()), float(diff.max()))


def read_qrels(path):
    q = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, rel = line.split()
            q.setdefault(qid, {})[doc] = int(rel)
    return q


def read_run(path):
    r = {}
    with open(path) as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            r.setdefault(qid, {})[doc] = float(score)
    return r


def pytrec(d, m):
    import pytrec_eval

    ks = ",".join(str(k) for k in m["ks"])
    passq = read_qrels(f"{d}/{m['qrels']['pass']}")
    relq = read_qrels(f"{d}/{m['qrels']['relevant']}")
    ev_pass = pytrec_eval.RelevanceEvaluator(passq, {f"success.{ks}", f"P.{ks}", "recip_rank"})
    ev_rel = pytrec_eval.RelevanceEvaluator(relq, {f"ndcg_cut.{ks}"})
    # Graded qrels read at relevance level 2: only passing snippets count as relevant.
    gradedq = read_qrels(f"{d}/{m['qrels']['graded']}")
    ev_graded = pytrec_eval.RelevanceEvaluator(
        gradedq, {f"success.{ks}", f"P.{ks}", "recip_rank"}, relevance_level=2
    )
    out = {}
    for s in m["systems"]:
        res = {}
        run = read_run(f"{d}/{s['run']}")
        for qid, vals in ev_pass.evaluate(run).items():
            res.setdefault(qid, {}).update(vals)
        for qid, vals in ev_graded.evaluate(run).items():
            res.setdefault(qid, {}).update({f"graded_{k}": v for k, v in vals.items()})
        for qid, vals in ev_rel.evaluate(read_run(f"{d}/{s['ndcg_run']}")).items():
            res.setdefault(qid, {}).update(vals)
        out[s["id"]] = res
    return out


def ranx_eval(d, m):
    import warnings

    warnings.filterwarnings("ignore")
    from ranx import Qrels, Run, evaluate

    ks = m["ks"]
    names = {f"hit_rate@{k}": f"success_{k}" for k in ks}
    names.update({f"precision@{k}": f"P_{k}" for k in ks})
    names["mrr"] = "recip_rank"
    ndcg = {f"ndcg@{k}": f"ndcg_cut_{k}" for k in ks}

    def scores(qrels_file, run_file, metrics, res):
        qrels = Qrels.from_dict(read_qrels(f"{d}/{qrels_file}"))
        run = Run.from_dict(read_run(f"{d}/{run_file}"))
        evaluate(qrels, run, list(metrics), make_comparable=True)
        for metric, per_query in run.scores.items():
            for qid, v in per_query.items():
                res.setdefault(qid, {})[metrics[metric]] = float(v)

    out = {}
    for s in m["systems"]:
        res = {}
        scores(m["qrels"]["pass"], s["run"], names, res)
        scores(m["qrels"]["relevant"], s["ndcg_run"], ndcg, res)
        out[s["id"]] = res
    return out


def trec(d, tools):
    with open(f"{d}/manifest.json") as f:
        m = json.load(f)
    out = {}
    for tool, fn in [("pytrec", pytrec), ("ranx", ranx_eval)]:
        if tool not in tools:
            continue
        try:
            out[tool] = fn(d, m)
        except ImportError:
            pass
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    if sys.argv[1] == "rrf":
        rrf(*sys.argv[2:6])
    else:
        trec(sys.argv[2], sys.argv[3:] or ["pytrec", "ranx"])
