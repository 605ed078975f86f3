#!/bin/sh
# The mutation catalogue on a public benchmark (issue 32, item 5; docs/analysis.md, "HumanEval
# through the whole catalogue"): HumanEval's tasks (../shared/data/humaneval-tasks.jsonl, in
# execscope's task format) built with every mutation family, embedded with the four offline
# models, then deception and test-suite strength by family.
#
#   scripts/humaneval-demo.sh [OUT]          (OUT defaults to target/humaneval-demo)
#
# Needs python3 and the embedding environment (`execscope embed` creates it on first use, or
# run crates/embed/assets/setup-embed.sh; $EXECSCOPE_EMBED_ENV names another folder). TASKS
# overrides the task file. The build and the embeddings run under `nice -n 10`; a rerun resumes
# the build from OUT's memo (docs/scale.md) and each embedding from its partial file.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tasks=${TASKS:-$root/../shared/data/humaneval-tasks.jsonl}
out=${1:-$root/target/humaneval-demo}
if [ ! -f "$tasks" ]; then
    echo "no task file at $tasks: put the shared data beside the repository (../shared/data) or set TASKS" >&2
    exit 1
fi
cargo build --release --bin execscope --manifest-path "$root/Cargo.toml"
bin=$root/target/release/execscope
nice -n 10 "$bin" build "$tasks" --operators all --out "$out"
for model in all-MiniLM-L6-v2 paraphrase-MiniLM-L3-v2 all-mpnet-base-v2 multilingual-e5-small; do
    nice -n 10 "$bin" embed "$out" --model "$model"
done
"$bin" report "$out" --table bugtypes
"$bin" report "$out" --table suites
