#!/usr/bin/env bash
# The main job: builds the project, then compiles the example model
# (examples/mlp_block.mlir: linear, gelu, linear, residual, layer_norm with a
# dynamic batch) through --wrapper-cpu-pipeline, runs it on the CPU with
# seeded random inputs, prints its output and checks it against the
# reference interpreter.
#   scripts/run-example.sh [model.mlir] [extra wrapper-run flags...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/mlp_block.mlir}
shift || true

"$root/scripts/build.sh" wrapper-opt wrapper-run >/dev/null

echo "== compiling $example with --wrapper-cpu-pipeline"
"$build/bin/wrapper-opt" "$example" --wrapper-cpu-pipeline --mlir-timing \
  -o /dev/null 2>&1 | sed -n '/Total Execution Time/p'
echo "== running it on the CPU (batch of 4, seed 0) and checking it against the reference interpreter"
"$build/bin/wrapper-run" "$example" --seed=0 --dynamic-size=4 --verify --time "$@"
