#!/usr/bin/env bash
# The main job: builds the project, then runs a wrapper-opt pipeline over the
# example model (examples/mlp_block.mlir) and prints the result, with the
# pass timing report.
#   scripts/run-example.sh [example.mlir] [extra wrapper-opt flags...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
example=${1:-$root/examples/mlp_block.mlir}
shift || true

"$root/scripts/build.sh" wrapper-opt >/dev/null

echo "== $example through --canonicalize --cse"
"$build/bin/wrapper-opt" "$example" --canonicalize --cse --mlir-timing "$@"
