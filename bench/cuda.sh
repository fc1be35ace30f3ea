#!/usr/bin/env bash
# bench/run.sh cuda: memory-bound workloads on the GPU against references
# measured in the same run, one JSON object per line.
#
#   copy       device-to-device copy bandwidth of the largest tensor
#              (bench/cuda_ref.c through the runtime's stream)
#   workloads  add_chain, softmax, layer_norm, rms_norm, gelu at SIZES x
#              SIZES (default 4096 16384) in DTYPES (default f32 bf16),
#              through wrapper-run --target=cuda --benchmark (calls back to
#              back on device-resident inputs, one wait at the end); gbps =
#              bytes that must move (full-size inputs read + output written)
#              per second, ratio = gbps / copy gbps, ratio_same_size =
#              gbps / the bandwidth of a copy moving the same bytes, and
#              where PyTorch with
#              CUDA is present inductor_ms (torch.compile, timed the same
#              way) and vs_inductor = inductor_ms / ms (> 1: faster)
#   linear     a linear layer (matmul through cuBLAS, bias + relu) at
#              MATMUL_SIZES (default 4096) in DTYPES: tflops = 2 s^3 / time,
#              and vs_inductor as above (Inductor calls cuBLAS too, with its
#              own epilogue kernel); f32 products in full f32 on both sides
#              (torch's allow_tf32 off, our allow-tf32 off)
#   mlp_block  x + gelu(layer_norm(x) @ w1) @ w2 at MATMUL_SIZES in DTYPES:
#              a host graph of three kernels and two cuBLAS products,
#              tflops = 4 s^3 / time, vs_inductor as above
#   launch     host overhead per kernel call: a one-kernel program (256
#              elements) called back to back against a bare cuLaunchKernel
#              loop of a same-sized kernel; overhead_us = ours - bare
#
# BUILD_DIR (default build/) holds bin/wrapper-run and lib/; NO_BUILD=1
# uses it as it is (a packed tool bundle on the GPU machine). REPS (default
# 20) timed calls per workload; PYTHON (default python3) runs Inductor.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
reps=${REPS:-20}
sizes=${SIZES:-"4096 16384"}
dtypes=${DTYPES:-"f32 bf16"}
workloads=${WORKLOADS:-"add_chain softmax layer_norm rms_norm gelu"}
matmul_sizes=${MATMUL_SIZES:-4096}
python=${PYTHON:-python3}

[[ -n ${NO_BUILD:-} ]] || "$root/scripts/build.sh" wrapper-run WrapperCudaRuntime >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -I"$root/include" -o "$work/cuda_ref" "$root/bench/cuda_ref.c" \
  -L"$build/lib" -lwrapper_cuda_runtime -lwrapper_runtime -ldl \
  -Wl,-rpath,"$build/lib"

# full-size tensors moved per workload: inputs read + the output written
declare -A tensors=([add_chain]=4 [softmax]=2 [layer_norm]=2 [rms_norm]=2 [gelu]=2)
declare -A bytes_of=([f32]=4 [bf16]=2)

largest=0
for s in $sizes; do ((s > largest)) && largest=$s; done
read -r copy_ms copy_gbps < <("$work/cuda_ref" copy $((largest * largest * 4)) "$reps")
printf '{"workload": "copy", "shape": "%dx%dxf32", "ms": %s, "gbps": %s, "ref": "self", "ratio": 1.0}\n' \
  "$largest" "$largest" "$copy_ms" "$copy_gbps"

# Inductor, once for every configuration (its compile caches are cold).
specs=()
for w in $workloads; do for s in $sizes; do for t in $dtypes; do specs+=("$w:$s:$t"); done; done; done
gemm_specs=()
for s in $matmul_sizes; do for t in $dtypes; do
  gemm_specs+=("linear:$s:$t" "mlp_block:$s:$t"); done; done
declare -A inductor
if "$python" -c 'import torch' 2>/dev/null; then
  while read -r w s t ms; do inductor[$w:$s:$t]=$ms; done < <(
    "$python" "$root/bench/cuda_inductor.py" "$reps" "${specs[@]}" "${gemm_specs[@]}")
fi

# Times workload spec "w:s:t" (its file with 4096 -> s, f32 -> t): sets
# w, s, t and ms, the mean per call.
time_workload() {
  IFS=: read -r w s t <<<"$1"
  local file=$work/$w-$s-$t.mlir out
  sed -e "s/4096/$s/g" -e "s/xf32>/x$t>/g" "$root/bench/workloads/$w.mlir" >"$file"
  out=$("$build/bin/wrapper-run" "$file" --target=cuda --print=false --benchmark="$reps" 2>&1) || {
    echo "$out" >&2; exit 1; }
  ms=$(sed -nE 's/^benchmark: .* mean ([0-9.]+) ms.*/\1/p' <<<"$out")
}

# Copies moving the same bytes as each workload (read + written), for the
# same-size ratio: small tensors do not reach the largest copy's bandwidth.
declare -A same_copy
for spec in "${specs[@]}"; do
  IFS=: read -r w s t <<<"$spec"
  moved=$((tensors[$w] * s * s * bytes_of[$t]))
  [[ -n ${same_copy[$moved]:-} ]] ||
    same_copy[$moved]=$("$work/cuda_ref" copy $((moved / 2)) "$reps" | cut -d' ' -f2)
done

for spec in "${specs[@]}"; do
  time_workload "$spec"
  moved=$((tensors[$w] * s * s * bytes_of[$t]))
  awk -v w="$w" -v s="$s" -v t="$t" -v ms="$ms" -v b="$moved" -v ref="$copy_gbps" \
      -v same="${same_copy[$moved]}" -v ind="${inductor[$spec]:-n/a}" 'BEGIN {
    gbps = b / (ms * 1e6);
    vs = (ind == "n/a") ? "null" : sprintf("%.3f", ind / ms);
    ind = (ind == "n/a") ? "null" : ind;
    printf "{\"workload\": \"%s\", \"shape\": \"%sx%sx%s\", \"ms\": %.4f, \"bytes\": %d, \"gbps\": %.1f, \"ref\": \"copy %.1f GB/s\", \"ratio\": %.3f, \"same_size_copy_gbps\": %.1f, \"ratio_same_size\": %.3f, \"inductor_ms\": %s, \"vs_inductor\": %s}\n",
      w, s, s, t, ms, b, gbps, ref, gbps / ref, same, gbps / same, ind, vs }'
done

# Matrix products (cuBLAS) with their epilogue.
for spec in "${gemm_specs[@]}"; do
  time_workload "$spec"
  awk -v w="$w" -v s="$s" -v t="$t" -v ms="$ms" -v ind="${inductor[$spec]:-n/a}" 'BEGIN {
    tflops = (w == "mlp_block" ? 4 : 2) * s * s * s / (ms * 1e9);
    vs = (ind == "n/a") ? "null" : sprintf("%.3f", ind / ms);
    ind = (ind == "n/a") ? "null" : ind;
    printf "{\"workload\": \"%s\", \"shape\": \"%sx%sx%s\", \"ms\": %.4f, \"tflops\": %.1f, \"inductor_ms\": %s, \"vs_inductor\": %s}\n",
      w, s, s, t, ms, tflops, ind, vs }'
done

# Host overhead per kernel call.
cat >"$work/tiny.mlir" <<'MLIR'
func.func @main(%a: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<256xf32> {
  %0 = tensor_program.add %a, %b : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32>
  return %0 : tensor<256xf32>
}
MLIR
calls=$((reps * 1000))
bare=$("$work/cuda_ref" launch 256 "$calls")
out=$("$build/bin/wrapper-run" "$work/tiny.mlir" --target=cuda --print=false --benchmark="$calls" 2>&1) || {
  echo "$out" >&2; exit 1; }
ours=$(sed -nE 's/^benchmark: .*\(([0-9.]+) us\) per run.*/\1/p' <<<"$out")
awk -v o="$ours" -v b="$bare" 'BEGIN {
  printf "{\"workload\": \"launch\", \"shape\": \"256xf32, 1 kernel\", \"us_per_call\": %.3f, \"ref\": \"bare cuLaunchKernel %.3f us\", \"overhead_us\": %.3f, \"ratio\": %.3f}\n",
    o, b, o - b, o / b }'
