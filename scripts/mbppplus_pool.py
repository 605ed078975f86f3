"""A pool of correct and buggy MBPP+ solutions, as an EvalPlus `samples.jsonl`.

    python3 scripts/mbppplus_pool.py [--corpus-only] TASKS.jsonl BUNDLE OUT.jsonl

TASKS is the MBPP+ file the bundle was built from (`execscope build TASKS --out BUNDLE`). Per task,
in file order: its reference solution (`prompt` + `canonical_solution`, as EvalPlus joins them),
then every single-edit mutant the build executed or settled, kept or dropped (rebuilt from
`build_report.json`'s `dropped` rows: the canonical with bytes `start..end` replaced by `after`)
and the distractors the bundle kept (its corpus), each distinct program once. Every row is
`{"task_id", "solution"}`: both EvalPlus's evaluator and `execscope audit --pool` take
`solution` as the whole program. Deterministic: the same inputs give the same bytes.

With `--corpus-only`, only the bundle's kept tasks and what its corpus holds for them: each
kept task's reference and its distractors (the pool of issue 46's side-by-side timing).
"""

import json
import sys


def main(tasks_path, bundle, out_path, corpus_only=False):
    tasks = [json.loads(line) for line in open(tasks_path, encoding="utf-8") if line.strip()]
    report = json.load(open(f"{bundle}/build_report.json", encoding="utf-8"))
    corpus = [json.loads(line) for line in open(f"{bundle}/data/corpus.jsonl", encoding="utf-8")]
    if corpus_only:
        kept = {c["source_entry_id"] for c in corpus}
        tasks = [t for t in tasks if t["task_id"] in kept]
        report = {"dropped": []}
    by_task = {}
    for t in tasks:
        by_task[t["task_id"]] = [(t["prompt"] + t["canonical_solution"]).encode("utf-8")]
    for d in report["dropped"]:
        canonical = by_task[d["task_id"]][0]
        start, end = d["start"], d["end"]
        if canonical[start:end] != d["before"].encode("utf-8"):
            sys.exit(f"{bundle}/build_report.json: {d['task_id']} {d['operator']}@{d['line']}: "
                     f"bytes {start}..{end} are not {d['before']!r}: not the canonical it was built from")
        by_task[d["task_id"]].append(canonical[:start] + d["after"].encode("utf-8") + canonical[end:])
    for c in corpus:
        if c["label"] != "correct":
            by_task[c["source_entry_id"]].append(c["code"].encode("utf-8"))
    rows = []
    for t in tasks:
        seen = set()
        for code in by_task[t["task_id"]]:
            if code not in seen:
                seen.add(code)
                rows.append({"task_id": t["task_id"], "solution": code.decode("utf-8")})
    with open(out_path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    print(f"{out_path}: {len(rows)} solutions of {len(tasks)} tasks "
          f"({len(tasks)} references, {len(rows) - len(tasks)} mutants)")


if __name__ == "__main__":
    args = sys.argv[1:]
    only = "--corpus-only" in args
    args = [a for a in args if a != "--corpus-only"]
    if len(args) != 3:
        sys.exit(__doc__)
    main(*args, corpus_only=only)
