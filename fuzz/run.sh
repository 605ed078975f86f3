#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser of untrusted input, on the stable toolchain.
#
#   fuzz/run.sh [--seconds N] [--jobs J] [TARGET ...]     (default: every target, 60 s each)
#
# Builds the targets in fuzz_targets/ with libFuzzer (the libfuzzer-sys crate compiles it from
# source with the system C++ compiler) and LLVM's SanitizerCoverage instrumentation: the same
# rustc flags `cargo fuzz build --sanitizer none` passes, so no nightly toolchain and no
# cargo-fuzz binary are needed (with cargo-fuzz installed, `cargo fuzz run <target> -s none`
# under RUSTC_BOOTSTRAP=1 is equivalent). Debug assertions and overflow checks are on.
#
# Each target's corpus lives in fuzz/corpus/<target>/ (seeded by seed.sh from the embedded bundle
# and the test fixtures on first use; the fuzzer adds the inputs that reach new code). A panic,
# a hang (> 10 s on one input) or an allocation over 2 GiB is a crash: the input is saved under
# fuzz/artifacts/<target>/ and the run exits non-zero. Replay it with
# `fuzz/run.sh --replay fuzz/artifacts/<target>/<file> <target>`, then make it a test (see
# docs/testing.md "Fuzzing").
#
# The last line per target is a summary: executions, seconds, executions per second, corpus size.
set -euo pipefail
cd "$(dirname "$0")"

ALL=(jsonl stacked npz npy_header sums invocation_table task_file pool mutate build_report)
SECONDS_EACH=60
JOBS=1
REPLAY=""
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_EACH="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --replay) REPLAY="$2"; shift 2 ;;
    --build-only) SECONDS_EACH=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) TARGETS+=("$1"); shift ;;
  esac
done
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")
for t in "${TARGETS[@]}"; do
  [[ " ${ALL[*]} " == *" $t "* ]] || { echo "unknown fuzz target '$t' (targets: ${ALL[*]})" >&2; exit 2; }
done

# The fuzz workspace resolves to the same dependency versions as the main crate.
[ -f Cargo.lock ] || cp ../Cargo.lock Cargo.lock

TRIPLE="$(rustc -vV | sed -n 's/^host: //p')"
# SanitizerCoverage as cargo-fuzz sets it up; `--target` keeps the flags off build scripts.
export RUSTFLAGS="${RUSTFLAGS:-} -Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 --cfg fuzzing \
 -Cllvm-args=-simplifycfg-branch-fold-threshold=0 \
 -Cllvm-args=-sanitizer-coverage-stack-depth \
 -Cdebug-assertions -Coverflow-checks"
bins=()
for t in "${TARGETS[@]}"; do bins+=(--bin "$t"); done
cargo build --release --target "$TRIPLE" "${bins[@]}"
BIN="target/$TRIPLE/release"

if [ -n "$REPLAY" ]; then
  exec "$BIN/${TARGETS[0]}" "$REPLAY"
fi
[ "$SECONDS_EACH" = 0 ] && exit 0

[ -d corpus ] || sh ./seed.sh
status=0
for t in "${TARGETS[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t.log"
  set +e
  parallel=()
  # libFuzzer's -jobs mode (child processes logging to fuzz-<n>.log) only when asked for.
  [ "$JOBS" -gt 1 ] && parallel=(-jobs="$JOBS" -workers="$JOBS")
  "$BIN/$t" "corpus/$t" \
    -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    "${parallel[@]}" -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"$log" 2>&1
  rc=$?
  set -e
  if [ "$JOBS" -gt 1 ]; then cat fuzz-*.log >>"$log" 2>/dev/null || true; rm -f fuzz-*.log; fi
  # (A crash ends the run before the final statistics: then the counts are 0.)
  execs="$( { grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" || true; } | awk '{s += $2} END {print s + 0}')"
  secs="$( { grep -o 'Done [0-9]* runs in [0-9]* second' "$log" || true; } | awk '{s = ($5 > s ? $5 : s)} END {print s + 0}')"
  [ "$secs" -gt 0 ] || secs="$SECONDS_EACH"
  files="$(find "corpus/$t" -type f | wc -l)"
  if [ $rc -ne 0 ]; then
    status=1
    echo "fuzz $t: FAILED (exit $rc); see fuzz/$log and fuzz/artifacts/$t/"
    grep -E '^(==[0-9]+== ERROR|thread .* panicked|SUMMARY)' "$log" | head -5 || true
  fi
  echo "fuzz $t: $execs executions in $secs s ($((execs / secs))/s), corpus $files inputs"
done
exit $status
