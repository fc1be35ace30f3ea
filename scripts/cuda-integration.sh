#!/usr/bin/env bash
# Runs every CPU integration program (test/Integration/CPU/*.mlir) on the
# GPU: wrapper-run --target=cuda --verify against the reference interpreter,
# each entry its RUN lines name, with a dynamic size of 3. Prints one line per
# program (ok, FAIL with the reason, or refused by the CUDA pipeline) and a
# count. Needs a CUDA device; run it on the GPU machine. Flags after the
# wrapper-run path go to every run (--wrapper-host=false, --plan-memory=pool).
#   scripts/cuda-integration.sh [wrapper-run [flags...]]
# With --compile-only, each program only goes through
# wrapper-opt --wrapper-cuda-pipeline, with the pipeline options given (no
# GPU needed; lit runs this in CI). A program with a line
# "// CUDA-REFUSES: <reason>" must be refused by the CUDA pipeline (an
# error, counted as refused; compiling it is a failure).
#   scripts/cuda-integration.sh --compile-only [wrapper-opt [options]]
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == --compile-only ]]; then
  opt=${2:-wrapper-opt}
  pipeline=--wrapper-cuda-pipeline${3:+="$3"}
  ok=0 failed=0 refused=0
  for program in "$root"/test/Integration/CPU/*.mlir; do
    if grep -q '^// CUDA-REFUSES:' "$program"; then
      if "$opt" "$program" "$pipeline" -o /dev/null >/dev/null 2>&1; then
        echo "FAIL     ${program##*/}: compiled, but it is marked CUDA-REFUSES"
        failed=$((failed + 1))
      else
        echo "refused  ${program##*/} ($(grep -m1 -o 'CUDA-REFUSES: .*' "$program" | cut -c15-))"
        refused=$((refused + 1))
      fi
      continue
    fi
    if out=$("$opt" "$program" "$pipeline" -o /dev/null 2>&1); then
      echo "compiled ${program##*/}"
      ok=$((ok + 1))
    else
      echo "FAIL     ${program##*/}: $(grep -m1 'error' <<<"$out" | cut -c1-200)"
      failed=$((failed + 1))
    fi
  done
  echo "cuda compile: $ok compiled, $refused refused as marked, $failed failed"
  exit $((failed != 0))
fi
run=${1:-wrapper-run}
(($#)) && shift
ok=0 failed=0 refused=0
for program in "$root"/test/Integration/CPU/*.mlir; do
  # The entries its RUN lines name (or the one public function).
  entries=$(grep -o -- '--entry=[A-Za-z_0-9]*' "$program" | sort -u)
  for entry in ${entries:-""}; do
  name=${program##*/}${entry:+ ${entry#--entry=}}
  if grep -q '^// CUDA-REFUSES:' "$program"; then
    echo "refused  $name: marked CUDA-REFUSES"
    refused=$((refused + 1))
    continue
  fi
  out=$("$run" "$program" $entry --target=cuda --verify --print=false --dynamic-size 3 "$@" 2>&1)
  status=$?
  if ((status == 0)) && ! grep -q FAIL <<<"$out"; then
    echo "ok       $name"
    ok=$((ok + 1))
  elif grep -q "not supported on CUDA yet\|compiles tensor_program functions\|does not support" <<<"$out"; then
    echo "refused  $name: $(grep -m1 -o 'error: .*' <<<"$out" | cut -c1-110)"
    refused=$((refused + 1))
  else
    echo "FAIL     $name: $(grep -m1 -E 'error|FAIL' <<<"$out" | cut -c1-160)"
    failed=$((failed + 1))
  fi
  done
done
echo "cuda integration: $ok ok, $refused refused, $failed failed"
((failed == 0))
