#!/usr/bin/env bash
# bench/run.sh vectorize: MLIR-level vectorization (--vectorize=true, the
# default) against the scalar loops LLVM's loop vectorizer gets with
# --vectorize=false, on the memory-bound workloads (bench/workloads/*.mlir,
# 4096 x 4096) and the kernel kinds of bench/workloads/kernels/ (ViT-sized
# softmax and layer norm, rank-4 attention softmax and its 2-D twin, bias +
# relu, column sum, row max, transpose, bf16 cast + gelu), one thread and
# all threads.
#
# Runs are interleaved (vector, scalar, vector, ...) ROUNDS times (default
# 5); each run is `wrapper-run --benchmark=REPS` (default 20) and reports its
# median; printed are the median over rounds and the spread (min and max of
# the rounds' medians), one JSON object per line, with speedup = scalar ms /
# vector ms.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
rounds=${ROUNDS:-5}
reps=${REPS:-20}
"$root/scripts/build.sh" wrapper-run >/dev/null

# The median of the numbers on stdin, and their min and max.
stats() { sort -g | awk '{ v[NR] = $1 } END {
  m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
  printf "%.4f %.4f %.4f\n", m, v[1], v[NR] }'; }

run() { # file threads vectorize -> median ms of one run
  "$build/bin/wrapper-run" "$1" --print=false --benchmark="$reps" \
    --num-threads="$2" --parallel=$([[ $2 == 1 ]] && echo false || echo true) \
    --vectorize="$3" 2>&1 |
    sed -nE 's/^benchmark: .* median ([0-9.]+) ms.*/\1/p'
}

all=$(nproc)
files=("$root"/bench/workloads/{add_chain,softmax,layer_norm,gelu}.mlir
       "$root"/bench/workloads/kernels/*.mlir)
for file in "${files[@]}"; do
  name=$(basename "$file" .mlir)
  for t in 1 "$all"; do
    vector=() scalar=()
    for ((r = 0; r < rounds; r++)); do
      vector+=("$(run "$file" "$t" true)")
      scalar+=("$(run "$file" "$t" false)")
    done
    read -r vm vlo vhi < <(printf '%s\n' "${vector[@]}" | stats)
    read -r sm slo shi < <(printf '%s\n' "${scalar[@]}" | stats)
    awk -v w="$name" -v t="$t" -v vm="$vm" -v vlo="$vlo" -v vhi="$vhi" \
        -v sm="$sm" -v slo="$slo" -v shi="$shi" 'BEGIN {
      printf "{\"workload\": \"%s\", \"threads\": %d, \"vector_ms\": %s, \"vector_spread\": [%s, %s], \"scalar_ms\": %s, \"scalar_spread\": [%s, %s], \"speedup\": %.2f}\n",
        w, t, vm, vlo, vhi, sm, slo, shi, sm / vm }'
  done
done
