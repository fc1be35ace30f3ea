#!/usr/bin/env bash
# The reliability checks for a given time (issue 26): rounds of
#  1. 50 random programs differentially (scripts/differential.sh, new seeds
#     each round: 6 compiler configurations each vs the interpreter);
#  2. the reliability tests (python/tests/test_reliability.py: 8 threads
#     bit for bit, per-thread errors, resident memory over 20000 calls and
#     its leak detector, bad inputs at the boundary);
#  3. one zoo model (the next one each round) under every compiler
#     configuration vs eager (scripts/zoo-differential.py), and 20000 calls
#     of squeezenet1_1 with the resident memory growth under 16 MiB
#     (scripts/memory-growth.py);
#  4. faults at a model.so's boundary (test/Tools/wrapper-compile/
#     fault-injection.c: each allocation of a call refused in turn, 200
#     threads cancelled inside calls);
#  5. each fuzz target for 20 s (scripts/fuzz.sh; the sanitizer build);
#  6. on a machine with a GPU (nvidia-smi lists one): the CUDA tests
#     (python/tests/test_cuda.py, driver errors injected at each call in
#     turn included) and 10^4 calls of gpt2 on CUDA tensors with flat host
#     and device memory,
# until SECONDS (default 3600) have passed; a round that started finishes.
#
#   scripts/soak.sh [SECONDS]
#
# Prints a line per stage and, last, "soak: R rounds in S s: P programs,
# T reliability tests, M model configurations, C model calls with flat
# memory, I faults injected and survived, K threads cancelled, F fuzz runs;
# N failures";
# exits non-zero on any failure. Logs of failures are kept in $OUT
# (default build/soak).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
seconds=${1:-3600}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "usage: scripts/soak.sh [SECONDS]" >&2; exit 2; }
out=${OUT:-$build/soak}
mkdir -p "$out"
python=$("$root/scripts/setup-python.sh") || { echo "soak: no Python environment" >&2; exit 1; }
models=$(cd "$root/python/tests" && "$python" -c 'from zoo import ZOO; print(" ".join(n for n, _, _ in ZOO))')
read -r -a models <<<"$models"

start=$(date +%s)
rounds=0 programs=0 tests=0 configs=0 calls=0 fuzzes=0 failures=0
injected=0 cancelled=0
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
faults=$build/test/Tools/wrapper-compile/Output/fault-injection.c.tmp/faults
stage() { # name log command...: runs, reports, keeps the log of a failure
  local name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then
    echo "  ok: $name"
    rm -f "$log"
  else
    echo "  FAILED: $name (log: $log)"
    failures=$((failures + 1))
  fi
}
while (($(date +%s) - start < seconds)); do
  rounds=$((rounds + 1))
  echo "== round $rounds ($(($(date +%s) - start)) s)"
  first=$((100000 + (rounds - 1) * 50))
  stage "50 programs from seed $first" "$out/differential-$rounds.log" \
    env OUT="$out/differential-failures" "$root/scripts/differential.sh" 50 "$first"
  programs=$((programs + 50))
  log="$out/reliability-$rounds.log"
  stage "reliability tests" "$log" env WRAPPER_BUILD_DIR="$build" PYTHONPATH="$root/python" \
    "$python" -m pytest -q -p no:cacheprovider "$root/python/tests/test_reliability.py"
  tests=$((tests + $(cd "$root/python/tests" && grep -c '^def test' test_reliability.py)))
  model=${models[$(((rounds - 1) % ${#models[@]}))]}
  stage "$model under every configuration" "$out/zoo-$rounds.log" \
    env WRAPPER_BUILD_DIR="$build" PYTHONPATH="$root/python" \
    "$python" "$root/scripts/zoo-differential.py" --models "$model" --batches 1,3
  configs=$((configs + $(cd "$root/python/tests" && "$python" -c 'from zoo import ALL_CONFIGS; print(len(ALL_CONFIGS) + 1)')))
  stage "squeezenet1_1: resident memory over 20000 calls" "$out/memory-$rounds.log" \
    env WRAPPER_BUILD_DIR="$build" PYTHONPATH="$root/python" \
    "$python" "$root/scripts/memory-growth.py" --model squeezenet1_1 --calls 20000
  calls=$((calls + 20000))
  stage "faults at the model boundary" "$out/faults-$rounds.log" \
    /usr/lib/llvm-22/bin/lit -v "$build/test/Tools/wrapper-compile/fault-injection.c"
  if [[ -x $faults ]]; then # the binary lit built: its counts
    counts=$(KMP_BLOCKTIME=0 "$faults" 2>/dev/null)
    injected=$((injected + $(sed -n 's/^allocation failures: \([0-9]*\) injected.*/\1/p' <<<"$counts")))
    cancelled=$((cancelled + $(sed -n 's/^cancelled threads: \([0-9]*\),.*/\1/p' <<<"$counts")))
  fi
  if ((gpu)); then
    stage "CUDA tests" "$out/cuda-$rounds.log" env WRAPPER_REQUIRE_CUDA=1 \
      WRAPPER_BUILD_DIR="$build" PYTHONPATH="$root/python" \
      "$python" -m pytest -q -p no:cacheprovider "$root/python/tests/test_cuda.py"
    stage "gpt2 on CUDA: memory over 10000 calls" "$out/cuda-memory-$rounds.log" \
      env WRAPPER_BUILD_DIR="$build" PYTHONPATH="$root/python" \
      "$python" "$root/scripts/memory-growth.py" --device cuda --model gpt2 --calls 10000
    calls=$((calls + 10000))
  fi
  stage "fuzz targets (20 s each)" "$out/fuzz-$rounds.log" "$root/scripts/fuzz.sh" 20
  fuzzes=$((fuzzes + $(sed -n "s/.*targets: //p" "$root/scripts/fuzz.sh" | head -1 | wc -w)))
done
echo "soak: $rounds rounds in $(($(date +%s) - start)) s: $programs programs," \
  "$tests reliability tests, $configs model configurations, $calls model calls" \
  "with flat memory, $injected faults injected and survived, $cancelled" \
  "threads cancelled, $fuzzes fuzz runs;" \
  "$failures failures"
((failures == 0))
