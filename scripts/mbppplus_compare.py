"""Compares execscope's verdicts on a samples pool with EvalPlus's own evaluator's.

    python3 scripts/mbppplus_compare.py SAMPLES.jsonl EVALPLUS_RESULTS.json AUDIT_VIEW.json

SAMPLES is the pool both judged (`scripts/mbppplus_pool.py`); EVALPLUS_RESULTS is what
`evalplus.evaluate --dataset mbpp --samples SAMPLES` wrote (`samples_eval_results.json`);
AUDIT_VIEW is `audit-view.json` from `execscope audit --pool SAMPLES --tasks TASKS --out DIR`.

A sample is matched by (task_id, program text). Base: execscope's `P_b` against EvalPlus's
`base_status == "pass"`. Plus: execscope's `P+` (base and plus inputs) against EvalPlus's
`base_status == plus_status == "pass"`, the conjunction EvalPlus's MBPP+ pass@k counts. Prints
the agreement and every differing sample with both sides' evidence; exits 1 when a sample is
missing from either side.
"""

import json
import sys


def load_samples(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def evalplus_verdicts(path):
    out = {}
    for task_id, rows in json.load(open(path, encoding="utf-8"))["eval"].items():
        for r in rows:
            base = r["base_status"] == "pass"
            out[(task_id, r["solution"])] = {
                "base": base,
                "plus": base and r["plus_status"] == "pass",
                "status": f"base {r['base_status']}, plus {r['plus_status']}",
                "failed": (r["base_fail_tests"] or []) + (r["plus_fail_tests"] or []),
            }
    return out


def execscope_verdicts(path):
    view = json.load(open(path, encoding="utf-8"))
    names = view["evidence_names"]
    out = {}
    for task in view["tasks"]:
        for c in task["candidates"]:
            ev = dict(zip(names, [v for _, v in c["evidence"]]))
            bad = [t for t in c["tests"] if not str(t.get("outcome", "pass")).startswith("pass")]
            out[(task["task_id"], c["code"])] = {
                "base": ev["P_b"]["ok"],
                "plus": ev["P+"]["ok"],
                "status": f"P_b {ev['P_b']}, P+ {ev['P+']}",
                "failed": bad[:3],
            }
    return out


def main(samples_path, ep_path, es_path):
    samples = load_samples(samples_path)
    ep, es = evalplus_verdicts(ep_path), execscope_verdicts(es_path)
    missing = [(s["task_id"], i) for i, s in enumerate(samples)
               if (s["task_id"], s["solution"]) not in ep or (s["task_id"], s["solution"]) not in es]
    agree = {"base": 0, "plus": 0}
    passes = {"base": [0, 0], "plus": [0, 0]}
    diffs = []
    for i, s in enumerate(samples):
        key = (s["task_id"], s["solution"])
        if key not in ep or key not in es:
            continue
        a, b = es[key], ep[key]
        for suite in ("base", "plus"):
            agree[suite] += a[suite] == b[suite]
            passes[suite][0] += a[suite]
            passes[suite][1] += b[suite]
        if a["base"] != b["base"] or a["plus"] != b["plus"]:
            diffs.append((i, s, a, b))
    n = len(samples) - len(missing)
    print(f"{n} samples judged by both ({len(missing)} missing from one side)")
    for suite in ("base", "plus"):
        print(f"{suite}: agree {agree[suite]}/{n} ({100.0 * agree[suite] / max(n, 1):.2f} %); "
              f"pass here {passes[suite][0]}, pass in EvalPlus {passes[suite][1]}")
    for i, s, a, b in diffs:
        print(f"\n--- sample {i} ({s['task_id']}): execscope base={a['base']} plus={a['plus']}, "
              f"EvalPlus base={b['base']} plus={b['plus']}")
        print(f"execscope: {a['status']}; first failing tests: {json.dumps(a['failed'])[:600]}")
        print(f"EvalPlus: {b['status']}; failing inputs: {json.dumps(b['failed'])[:300]}")
        print(s["solution"])
    for task_id, i in missing:
        print(f"missing: sample {i} of {task_id}")
    return 1 if missing else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
