#!/usr/bin/env bash
# The main job: builds the project, then
#  1. compiles the example program (examples/mlp_block.mlir: linear, gelu,
#     linear, residual, layer_norm with a dynamic batch) through
#     --wrapper-cpu-pipeline, runs it on the CPU with seeded random inputs,
#     prints its output and checks it against the reference interpreter;
#  2. compiles a real model, torchvision's resnet18 with random weights,
#     through torch.compile(backend="wrapper") (the Python environment of
#     scripts/setup-python.sh), and prints its agreement with eager PyTorch
#     and its time per call against eager's (examples/resnet18.py).
#   scripts/run-example.sh [model.mlir] [extra wrapper-run flags...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/mlp_block.mlir}
shift || true

"$root/scripts/build.sh" wrapper-opt wrapper-run wrapper-compile WrapperRuntime >/dev/null

echo "== compiling $example with --wrapper-cpu-pipeline"
"$build/bin/wrapper-opt" "$example" --wrapper-cpu-pipeline --mlir-timing \
  -o /dev/null 2>&1 | sed -n '/Total Execution Time/p'
echo "== running it on the CPU (batch of 4, seed 0) and checking it against the reference interpreter"
"$build/bin/wrapper-run" "$example" --seed=0 --dynamic-size=4 --verify --time "$@"

echo "== resnet18 (torchvision, random weights) through torch.compile(backend=\"wrapper\")"
python=$("$root/scripts/setup-python.sh")
WRAPPER_BUILD_DIR=$build PYTHONPATH=$root/python "$python" "$root/examples/resnet18.py"
