"""Single-edit mutants of HumanEval-X canonicals, as whole-program `solution` rows (issue 44's
mutant agreement: the same rows go to `execscope audit --pool` and to
`scripts/humanevalx_native.py --compare`).

    python3 scripts/humanevalx_mutants.py HUMANEVAL_X_FILE FIRST PER OUT.jsonl

For each of the first FIRST records: declaration + canonical_solution with one edit of the
solution: an `if`/`while` condition negated, a comparison flipped (`<` and `<=`, `>` and `>=`),
an integer literal plus one, a unary `!` dropped; the edits taken round-robin over these four
kinds, duplicates left out, at most PER per task. Deterministic (read by regular expressions,
written for JavaScript's syntax; other languages' canonicals get the same edits where they match;
Go's `if cond {` without parentheses is negated as `if !(cond) {`). Go's rows are `generation`s
(the mutated `canonical_solution`, continuing the prompt) rather than whole programs: the native
harness puts the test's `package main` and imports before a Go program, which a whole `solution`
would duplicate.
"""
import gzip, json, re, sys
recs = [json.loads(l) for l in gzip.open(sys.argv[1])]
first, per = int(sys.argv[2]), int(sys.argv[3])
out = open(sys.argv[4], "w")
n = 0
for r in recs[:first]:
    decl, sol = r["declaration"], r["canonical_solution"]
    cats = [[], [], [], []]
    muts = cats[0]
    for m in re.finditer(r"\b(if|while) \((.*)\) *\{", sol):
        a, b = m.span(2)
        muts.append(sol[:a] + "!(" + sol[a:b] + ")" + sol[b:])
    go = r["task_id"].startswith("Go/")
    for m in re.finditer(r"\bif ([^({\n][^{\n]*?) *\{", sol) if go else ():
        a, b = m.span(1)
        muts.append(sol[:a] + "!(" + sol[a:b] + ")" + sol[b:])
    muts = cats[1]
    for m in re.finditer(r"(?<![<>=!])(<=|>=|<|>)(?![<>=])", sol):
        flip = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}[m.group(1)]
        muts.append(sol[:m.start()] + flip + sol[m.end():])
    muts = cats[2]
    for m in re.finditer(r"(?<![\w.])(\d+)(?![\w.])", sol):
        muts.append(sol[:m.start()] + str(int(m.group(1)) + 1) + sol[m.end():])
    muts = cats[3]
    for m in re.finditer(r"(?<![\w)\]!=])!(?!=)", sol):
        muts.append(sol[:m.start()] + sol[m.end():])
    muts = [c[i] for i in range(max(map(len, cats))) for c in cats if i < len(c)]
    seen = set()
    k = 0
    for s in muts:
        if s in seen or s == sol:
            continue
        seen.add(s)
        row = {"task_id": r["task_id"]}
        if go:
            row["generation"] = s
        else:
            row["solution"] = decl + s
        out.write(json.dumps(row) + "\n")
        k += 1
        n += 1
        if k >= per:
            break
print(n, "mutants")
