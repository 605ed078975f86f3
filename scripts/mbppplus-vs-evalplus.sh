#!/bin/sh
# MBPP+ verdicts of execscope against EvalPlus's own evaluator, on one pool of correct and buggy
# solutions, both timed (issue 29; docs/formats.md, "MBPP+ against EvalPlus's evaluator").
#
#   scripts/mbppplus-vs-evalplus.sh [N] [OUT]     (N = first N MBPP+ tasks, default 30;
#                                                  OUT defaults to target/mbppplus-cmp)
#
# 1. the first N records of ../shared/data/sources/MbppPlus-767efcc.jsonl (never copied into the
#    repository: OUT is under target/), built with `execscope build --operators paper` (its
#    mutants: every single-edit mutant the build executed or settled, kept or dropped);
# 2. the pool: each task's reference solution and its distinct mutants (scripts/mbppplus_pool.py);
# 3. EvalPlus's evaluator (`pip install evalplus` into target/evalplus-venv, never the system
#    interpreter) on that pool with MBPP_OVERRIDE_PATH naming the same N records, its cache under
#    OUT (XDG_CACHE_HOME), and `execscope audit --pool` on the same pool and records;
# 4. the verdicts compared per sample, base and plus (scripts/mbppplus_compare.py).
# Every step runs under `nice -n 10`; a rerun resumes the build from OUT's memo.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-30}
out=${2:-$root/target/mbppplus-cmp}
data=${MBPPPLUS:-$root/../shared/data/sources/MbppPlus-767efcc.jsonl}
if [ ! -f "$data" ]; then
    echo "no MBPP+ file at $data: put the shared data beside the repository (../shared/data) or set MBPPPLUS" >&2
    exit 1
fi
mkdir -p "$out/ep"
out=$(cd "$out" && pwd)
venv=$root/target/evalplus-venv
if [ ! -x "$venv/bin/evalplus.evaluate" ]; then
    python3 -m venv "$venv"
    nice -n 10 "$venv/bin/pip" install --quiet evalplus
fi
cargo build --bin execscope --manifest-path "$root/Cargo.toml"
bin=$root/target/debug/execscope
head -n "$n" "$data" > "$out/tasks.jsonl"
nice -n 10 "$bin" build "$out/tasks.jsonl" --operators paper --out "$out/bundle" > "$out/build.log"
python3 "$root/scripts/mbppplus_pool.py" "$out/tasks.jsonl" "$out/bundle" "$out/ep/samples.jsonl"
rm -f "$out/ep/samples_eval_results.json" "$out/ep/samples.eval_results.json"
start=$(date +%s)
MBPP_OVERRIDE_PATH="$out/tasks.jsonl" XDG_CACHE_HOME="$out/ep-cache" \
    nice -n 10 "$venv/bin/evalplus.evaluate" --dataset mbpp --samples "$out/ep/samples.jsonl" \
    --parallel 2 --i_just_wanna_run > "$out/evalplus.log" 2>&1
mid=$(date +%s)
nice -n 10 "$bin" audit --pool "$out/ep/samples.jsonl" --tasks "$out/tasks.jsonl" --workers 2 \
    --out "$out/audit" > "$out/audit.log" 2>&1
end=$(date +%s)
results=$out/ep/samples_eval_results.json
[ -f "$results" ] || results=$out/ep/samples.eval_results.json
echo "EvalPlus evaluator: $((mid - start)) s; execscope audit: $((end - mid)) s (2 workers each)"
python3 "$root/scripts/mbppplus_compare.py" "$out/ep/samples.jsonl" "$results" "$out/audit/audit-view.json"
