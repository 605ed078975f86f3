"""HumanEval-X's own verdicts on a samples file, to compare with execscope's (issue 44 fidelity).

    python3 scripts/humanevalx_native.py HUMANEVAL_X_FILE SAMPLES.jsonl OUT.jsonl \
        [--compare EXECSCOPE_RESULTS.jsonl] [--workers N]

HUMANEVAL_X_FILE is one language's file as published (`humaneval_{cpp,go,java,js,rust}.jsonl.gz`);
SAMPLES has one `{"task_id", "generation"}` per line (a generation continues the task's `prompt`,
as HumanEval-X's generation files do; `"generation"` absent and `"canonical": true` takes the
task's own `canonical_solution`; `"solution"` is a whole program, e.g. a built bundle's mutant,
that the native test follows). Each sample is assembled and run the way HumanEval-X's
evaluator does (CodeGeeX `codegeex/benchmark/humaneval-x/evaluate_humaneval_x.py` and
`execution.py`, read, not copied): the prompt, the generation and the task's native `test`
program in one file, outside any sandbox, 10 s per step; C++: HumanEval-X's helper includes the
prompt lacks, `g++ -std=c++11`, a pass is exit status 0; JavaScript: `node`, a pass is empty stdout
and stderr; Java: `javac` then `java Main`, exit 0; Go: the task's `test_setup`, the helper
packages the generation uses, `go test` in GOPATH mode with Debian's testify
(`golang-github-stretchr-testify-dev`), exit 0; Rust: `rustc --test` (HumanEval-X builds a cargo
project with the rand, regex and md5 crates; a task whose program needs them does not compile
here and is reported as such), exit 0. OUT gets one line per sample: task_id, line, passed,
native (the reason). With --compare (execscope's `<pool>_results.jsonl` of `audit --pool
SAMPLES`), prints the agreement and every differing sample.
"""

import gzip
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

CPP_HELPERS = [
    "#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>",
    "#include<vector>", "#include<string>", "#include<climits>", "#include<cstring>",
    "#include<iostream>",
]
GO_HELPERS = ["math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand",
              "crypto/md5"]
STEP = 10


def read_tasks(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return {t["task_id"]: t for t in (json.loads(line) for line in f if line.strip())}


def program(task, generation, lang, solution=None):
    prompt, test = task["prompt"], task["test"]
    if solution is not None:
        # A whole program (a mutant of a built bundle, a sample's `solution`): the native test
        # after it, as after prompt + generation.
        return solution + "\n" + test
    if lang == "cpp":
        helpers = "".join(h + "\n" for h in CPP_HELPERS if h not in prompt)
        return helpers + "\n" + prompt + generation + "\n" + test
    if lang == "go":
        prompt = prompt.replace(task["import"], "")
        setup = task["test_setup"]
        used = [f'"{p}"' for p in GO_HELPERS if p not in setup and p.split("/")[-1] + "." in generation]
        extra = ("import (\n" + "    ".join(p + "\n" for p in used) + ")\n") if used else ""
        return setup + "\n" + extra + prompt + generation + "\n" + test
    if lang == "rust":
        # Rust's prompt is the docstring alone; the signature (and its `use`s) is the declaration.
        # Without Cargo the rand, regex and md5 crates are not there: their `use` lines go (a
        # program that needs them does not compile, as under execscope).
        decl = task["declaration"]
        for line in ("use rand::Rng;\n", "use regex::Regex;\n", "use md5;\n"):
            decl = decl.replace(line, "")
        return prompt + decl + generation + "\n" + test
    return prompt + generation + "\n" + test


def run(cmd, cwd, env=None):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=STEP, env=env)
    except subprocess.TimeoutExpired:
        return None


def judge(task, generation, lang, solution=None):
    src = program(task, generation, lang, solution)
    with tempfile.TemporaryDirectory(prefix="hx-native-") as d:
        if lang == "js":
            open(os.path.join(d, "test.js"), "w").write(src)
            r = run(["node", "test.js"], d)
            if r is None:
                return False, "timed out"
            if r.stderr or r.stdout:
                return False, "failed: output " + (r.stderr or r.stdout).decode(errors="replace")[:120]
            return True, "passed"
        if lang == "cpp":
            open(os.path.join(d, "test.cpp"), "w").write(src)
            libs = ["-lcrypto", "-lssl"] if task["task_id"].endswith("/162") else []
            c = run(["g++", "-std=c++11", "test.cpp"] + libs, d)
            if c is None or c.returncode != 0:
                return False, "failed: compilation error"
            r = run(["./a.out"], d)
        elif lang == "java":
            open(os.path.join(d, "Main.java"), "w").write(src)
            c = run(["javac", "Main.java"], d)
            if c is None or c.returncode != 0:
                return False, "failed: compilation error"
            r = run(["java", "-cp", d, "Main"], d)
        elif lang == "go":
            open(os.path.join(d, "main_test.go"), "w").write(src)
            # One build cache for the run (the harness's machine has a warm one): a cold cache
            # per sample compiles the standard library's testing packages every time.
            cache = os.environ.get("GOCACHE") or os.path.join(tempfile.gettempdir(), "hx-native-gocache")
            env = dict(os.environ, GO111MODULE="off", GOPATH="/usr/share/gocode", GOCACHE=cache, GOFLAGS="")
            r = run(["go", "test", f"-timeout={STEP}s", "main_test.go"], d, env)
        elif lang == "rust":
            open(os.path.join(d, "main.rs"), "w").write(src)
            c = run(["rustc", "--edition", "2021", "--test", "-o", "t", "main.rs"], d)
            if c is None or c.returncode != 0:
                return False, "failed: compilation error"
            r = run(["./t"], d)
        else:
            sys.exit(f"unknown language {lang!r}")
        if r is None:
            return False, "timed out"
        return r.returncode == 0, "passed" if r.returncode == 0 else f"failed: exit {r.returncode}"


def language_of(task_id):
    prefix = task_id.split("/")[0].lower()
    return {"javascript": "js"}.get(prefix, prefix)


def main(argv):
    args, opts = [], {}
    it = iter(argv)
    for a in it:
        if a.startswith("--"):
            opts[a[2:]] = next(it)
        else:
            args.append(a)
    if len(args) != 3:
        sys.exit(__doc__)
    tasks = read_tasks(args[0])
    samples = [json.loads(line) for line in open(args[1], encoding="utf-8") if line.strip()]
    work = []
    for n, s in enumerate(samples, 1):
        t = tasks.get(s["task_id"])
        if t is None:
            sys.exit(f"{args[1]}:{n}: task {s['task_id']!r} is not in {args[0]}")
        gen = t["canonical_solution"] if s.get("canonical") else s.get("generation")
        work.append((n, t, gen, language_of(t["task_id"]), s.get("solution")))
    with ThreadPoolExecutor(int(opts.get("workers", os.cpu_count() or 1))) as ex:
        verdicts = list(ex.map(lambda w: judge(w[1], w[2], w[3], w[4]), work))
    with open(args[2], "w", encoding="utf-8") as out:
        for (n, t, _, _, _), (ok, why) in zip(work, verdicts):
            out.write(json.dumps({"task_id": t["task_id"], "line": n, "passed": ok, "native": why}) + "\n")
    print(f"native: {sum(ok for ok, _ in verdicts)} of {len(verdicts)} pass")
    if "compare" in opts:
        ours = [json.loads(line) for line in open(opts["compare"], encoding="utf-8") if line.strip()]
        if len(ours) != len(verdicts):
            sys.exit(f"{opts['compare']}: {len(ours)} rows, {len(verdicts)} samples")
        diff = [(w, v, o) for w, v, o in zip(work, verdicts, ours) if v[0] != bool(o["passed"])]
        agree = len(verdicts) - len(diff)
        print(f"agree {agree}/{len(verdicts)} ({100 * agree / len(verdicts):.2f} %)")
        for (n, t, _, _, _), (ok, why), o in diff:
            print(f"  line {n} {t['task_id']}: native {'pass' if ok else why[:80]!r}; "
                  f"execscope {o.get('result', '')[:100]!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
