#!/bin/sh
# Seed each target's corpus from the embedded bundle and the test fixtures (run from fuzz/).
set -eu
top=..
mk() { mkdir -p "corpus/$1"; }
for t in jsonl stacked npz npy_header sums invocation_table task_file pool mutate build_report; do mk "$t"; done
for f in queries corpus distractor_metadata execution_cache; do
  head -n 8 "$top/data/bundle/data/$f.jsonl" > "corpus/jsonl/$f"
done
head -n 6 "$top/data/bundle/data/stacked_distractors.jsonl" > corpus/stacked/head
cp "$top"/tests/fixtures/tiny/embeddings/*.npz "$top/tests/fixtures/npy/variants.npz" corpus/npz/
cp "$top/data/bundle/SHA256SUMS" corpus/sums/bundle
cp "$top/tests/fixtures/tiny/SHA256SUMS" corpus/sums/tiny
cp "$top/data/bundle/results/invocation_table.json" corpus/invocation_table/bundle
cp "$top/tests/fixtures/tiny/results/invocation_table.json" corpus/invocation_table/tiny
head -n 3 "$top/data/tasks.jsonl" > corpus/task_file/head
cp "$top/tests/fixtures/tasks_gates.jsonl" corpus/task_file/gates
head -n 6 "$top/tests/fixtures/audit/pool.jsonl" > corpus/pool/pool
head -n 4 "$top/tests/fixtures/audit/tasks.jsonl" > corpus/pool/tasks
printf '\223NUMPY\001\000v\000{'"'"'descr'"'"': '"'"'<f4'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (3, 4), }\n' > corpus/npy_header/f4
cp "$top/tests/build/mutate_cpython_check.py" corpus/mutate/checker.py
python3 -c 'import json,sys
for i, l in enumerate(open(sys.argv[1])):
    if i < 8: open("corpus/mutate/canonical%d.py" % i, "w").write(json.loads(l)["canonical"])' "$top/data/tasks.jsonl"
cp "$top/tests/fixtures/build_report_small.json" corpus/build_report/small
