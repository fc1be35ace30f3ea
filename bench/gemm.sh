#!/usr/bin/env bash
# bench/run.sh gemm: the GEMM template against OpenBLAS in the same run.
# One JSON object per line (see bench/run.sh). SHAPES_QUICK=1 runs only the
# smaller shapes.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
"$root/scripts/build.sh" wrapper-run >/dev/null
if [[ ! -f /usr/include/x86_64-linux-gnu/cblas.h && ! -f /usr/include/cblas.h ]]; then
  echo "bench/run.sh gemm needs OpenBLAS: apt-get install libopenblas-dev" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O3 -march=native -fopenmp -o "$work/gemm_ref" "$root/bench/gemm_ref.c" -lopenblas -lm
all=$(nproc)
# OpenBLAS references: its own detection (OPENBLAS_CORETYPE unset), its
# AVX2 kernels (Haswell) and, on AVX-512 hosts, its AVX-512 ones (SkylakeX):
# each wins on some shapes; the fastest is the reference.
cores=(auto Haswell)
grep -qw avx512f /proc/cpuinfo && cores+=(SkylakeX)

# workload M N K: the program, its epilogue, and its timing.
program() { # name M N K epilogue
  local m=$2 n=$3 k=$4
  if [[ $5 == gelu ]]; then
    cat <<MLIR
func.func @main(%a: tensor<${m}x${k}xf32>, %b: tensor<${k}x${n}xf32>, %bias: tensor<${n}xf32>) -> tensor<${m}x${n}xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<${m}x${k}xf32>, tensor<${k}x${n}xf32>) -> tensor<${m}x${n}xf32>
  %d = tensor_program.add %c, %bias : (tensor<${m}x${n}xf32>, tensor<${n}xf32>) -> tensor<${m}x${n}xf32>
  %g = tensor_program.gelu %d : tensor<${m}x${n}xf32>
  return %g : tensor<${m}x${n}xf32>
}
MLIR
  else
    cat <<MLIR
func.func @main(%a: tensor<${m}x${k}xf32>, %b: tensor<${k}x${n}xf32>) -> tensor<${m}x${n}xf32> {
  %c = tensor_program.matmul %a, %b : (tensor<${m}x${k}xf32>, tensor<${k}x${n}xf32>) -> tensor<${m}x${n}xf32>
  return %c : tensor<${m}x${n}xf32>
}
MLIR
  fi
}

run() { # workload M N K epilogue
  local w=$1 m=$2 n=$3 k=$4 epi=$5
  local flops=$((2 * m * n * k))
  local reps=20
  ((flops > 2000000000)) && reps=5
  ((flops > 20000000000)) && reps=2
  program "$@" > "$work/p.mlir"
  for t in 1 "$all"; do
    local par=true
    [[ $t == 1 ]] && par=false
    # Three rounds, interleaved, best of each side: this machine's timings
    # move by tens of percent between processes (memory placement, huge
    # pages), and one slow process should not decide a ratio.
    local ms=1e30 ref_ms=1e30 ref_gflops=0 ref_core= round core c_ms c_gflops
    for round in 1 2 3; do
      out=$("$build/bin/wrapper-run" "$work/p.mlir" --print=false \
            --benchmark="$reps" --num-threads="$t" --parallel=$par 2>&1)
      c_ms=$(sed -nE 's/^benchmark: .* min ([0-9.]+) ms.*/\1/p' <<<"$out")
      if [[ -z $c_ms ]]; then
        echo "{\"workload\": \"$w\", \"error\": \"$(tail -1 <<<"$out")\"}"
        continue 2
      fi
      awk -v a="$c_ms" -v b="$ms" 'BEGIN { exit !(a < b) }' && ms=$c_ms
      for core in "${cores[@]}"; do
        local setting=(-u OPENBLAS_CORETYPE)
        [[ $core != auto ]] && setting=("OPENBLAS_CORETYPE=$core")
        read -r c_ms c_gflops < <(env "${setting[@]}" \
          "$work/gemm_ref" "$m" "$n" "$k" "$t" "$reps" \
          $([[ $epi == gelu ]] && echo epilogue))
        if awk -v a="$c_ms" -v b="$ref_ms" 'BEGIN { exit !(a < b) }'; then
          ref_ms=$c_ms ref_gflops=$c_gflops ref_core=$core
        fi
      done
    done
    awk -v w="$w" -v s="${m}x${n}x${k}" -v t="$t" -v ms="$ms" -v f="$flops" \
        -v rms="$ref_ms" -v rg="$ref_gflops" -v e="$epi" -v core="$ref_core" 'BEGIN {
      g = f / (ms * 1e6);
      ref = "openblas[" core "]" ((e == "gelu") ? " + separate bias/gelu" : "");
      printf "{\"workload\": \"%s\", \"shape\": \"%s\", \"threads\": %d, \"ms\": %.3f, \"gflops\": %.1f, \"ref\": \"%s %.1f GFLOP/s (%.3f ms)\", \"ratio\": %.3f}\n",
        w, s, t, ms, g, ref, rg, rms, g / rg }'
  done
}

for s in 512 1024 2048 4096; do
  [[ ${SHAPES_QUICK:-0} == 1 && $s -gt 1024 ]] && continue
  run gemm_square "$s" "$s" "$s" none
done
for n in 4096 11008; do
  for m in 1 8 32 128; do
    [[ ${SHAPES_QUICK:-0} == 1 && $n -gt 4096 ]] && continue
    run gemm_inference "$m" "$n" 4096 none
    run linear_bias_gelu "$m" "$n" 4096 gelu
  done
done
