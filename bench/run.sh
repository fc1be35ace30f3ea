#!/usr/bin/env bash
# Benchmarks, each against a reference measured in the same run, printed as
# one JSON object per line.
#
#   bench/run.sh cpu     memory-bound workloads (bench/workloads/*.mlir) at
#                        4096 x 4096 f32 against memcpy bandwidth, one thread
#                        and all threads; compile time through the pipeline.
#
#   bench/run.sh gemm    f32 GEMM through the GEMM template against OpenBLAS
#                        cblas_sgemm (bench/gemm_ref.c, Debian's
#                        libopenblas-dev), one thread and all threads: square
#                        512 to 4096 and inference shapes (M = 1, 8, 32, 128
#                        with K x N = 4096 x 4096 and 4096 x 11008), plus
#                        matmul + bias + gelu (fused epilogue) against
#                        OpenBLAS followed by a separate bias + gelu loop.
#
#   bench/run.sh vectorize  MLIR-level vectorization against scalar loops
#                        left to LLVM (--vectorize=false), per kernel kind
#                        (bench/vectorize.sh), interleaved, medians and
#                        spreads.
#
#   bench/run.sh conv    convolution layers of ResNet-50 and MobileNet-V3 at
#                        224x224, each compiled alone, against oneDNN through
#                        torch.nn.functional.conv2d in the same process
#                        (bench/conv.py; arguments after "conv" go to it,
#                        e.g. --batch 8 --threads 1).
#
#   bench/run.sh cuda    memory-bound workloads on an NVIDIA GPU against the
#                        device-to-device copy bandwidth and torch.compile
#                        (Inductor), and the host overhead per kernel call
#                        against a bare cuLaunchKernel loop (bench/cuda.sh).
#
# Fields: workload, shape, threads, ms (best of the runs), bytes (moved at
# least once), gbps (bytes / ms), ref ("memcpy" and its GB/s), ratio
# (gbps / memcpy GB/s); compile lines give pipeline_ms and jit_ms. GEMM
# lines give gflops and the reference's, ratio = gflops / reference gflops.
# REPS (default 10) sets the number of timed runs (GEMM: fewer on the large
# shapes).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
reps=${REPS:-10}
what=${1:-cpu}

case $what in
cpu) ;;
gemm) exec "$root/bench/gemm.sh" ;;
cuda) exec "$root/bench/cuda.sh" ;;
vectorize) exec "$root/bench/vectorize.sh" ;;
conv)
  shift
  "$root/scripts/build.sh" wrapper-compile >/dev/null
  WRAPPER_BUILD_DIR=$build PYTHONPATH=$root/python exec "$root/.venv/bin/python" \
    "$root/bench/conv.py" "$@" ;;
*) echo "usage: bench/run.sh cpu|gemm|vectorize|conv|cuda" >&2; exit 2 ;;
esac

"$root/scripts/build.sh" wrapper-run >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -pthread -o "$work/membw" "$root/bench/membw.c"

n=$((4096 * 4096))
all=$(nproc)
declare -A copy_gbps
for t in 1 "$all"; do
  read -r ms gbps < <("$work/membw" "$n" "$t" "$reps")
  copy_gbps[$t]=$gbps
  printf '{"workload": "memcpy", "shape": "4096x4096xf32", "threads": %d, "ms": %s, "gbps": %s, "ref": "self", "ratio": 1.0}\n' \
    "$t" "$ms" "$gbps"
done

# workload -> bytes that must move at least once (inputs read + output written)
declare -A bytes=(
  [add_chain]=$((4 * n * 4))
  [softmax]=$((2 * n * 4))
  [layer_norm]=$((2 * n * 4))
  [gelu]=$((2 * n * 4))
  [dynamic_softmax]=$((2 * n * 4))
)
for w in add_chain softmax layer_norm gelu dynamic_softmax; do
  file=$root/bench/workloads/$w.mlir
  shape=4096x4096xf32
  [[ $w == dynamic_* ]] && shape="?x4096xf32 (4096)"
  for t in 1 "$all"; do
    out=$("$build/bin/wrapper-run" "$file" --print=false --benchmark="$reps" \
          --dynamic-size=4096 --num-threads="$t" --parallel=$([[ $t == 1 ]] && echo false || echo true) \
          --time 2>&1)
    ms=$(sed -nE 's/^benchmark: .* min ([0-9.]+) ms.*/\1/p' <<<"$out")
    if [[ $t == 1 ]]; then
      pipeline=$(sed -nE 's/^compile: pipeline ([0-9.e+-]+) ms.*/\1/p' <<<"$out")
      jit=$(sed -nE 's/^compile: .*LLVM JIT ([0-9.e+-]+) ms.*/\1/p' <<<"$out")
      printf '{"workload": "%s", "compile": true, "pipeline_ms": %.1f, "jit_ms": %.1f, "ref": "target 500 ms", "ratio": %.3f}\n' \
        "$w" "$pipeline" "$jit" "$(awk -v p="$pipeline" 'BEGIN { print p / 500 }')"
    fi
    awk -v w="$w" -v s="$shape" -v t="$t" -v ms="$ms" -v b="${bytes[$w]}" -v ref="${copy_gbps[$t]}" 'BEGIN {
      gbps = b / (ms * 1e6);
      printf "{\"workload\": \"%s\", \"shape\": \"%s\", \"threads\": %d, \"ms\": %.3f, \"bytes\": %d, \"gbps\": %.2f, \"ref\": \"memcpy %.2f GB/s\", \"ratio\": %.3f}\n",
        w, s, t, ms, b, gbps, ref, gbps / ref }'
  done
done
