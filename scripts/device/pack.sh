#!/usr/bin/env bash
# Packs .device/bundle.tar.xz for the GPU machine (see docs/Testing.md,
# "On the GPU machine"): the tools named, the build's libraries with
# libMLIR.so (which the tools share), and the extras the machine lacks:
# FileCheck, not and count, lit, the build's lit.site.cfg.py, libomp and
# MLIR's runner libraries.
#   scripts/device/pack.sh            # all tools: GPU lit tests, cuda-integration.sh and the Python package (swap_weights too)
#   scripts/device/pack.sh run        # wrapper-run, wrapper-cuda-check, run_model
#   scripts/device/pack.sh compile    # wrapper-compile, wrapper-opt, run_model, train_model
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case ${1:-all} in
  all) tools="wrapper-run wrapper-compile wrapper-opt wrapper-cuda-check run_model train_model swap_weights" ;;
  run) tools="wrapper-run wrapper-cuda-check run_model" ;;
  compile) tools="wrapper-compile wrapper-opt run_model train_model" ;;
  *) echo "usage: $0 [all|run|compile]" >&2; exit 2 ;;
esac
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/llvmbin" "$stage/libs" "$stage/test"
cp /usr/lib/llvm-22/bin/{FileCheck,not,count} "$stage/llvmbin/"
cp -r /usr/lib/llvm-22/utils/lit "$stage/lit"
cp "$root/build/test/lit.site.cfg.py" "$stage/test/"
for lib in libomp.so libmlir_apfloat_wrappers.so.22.1 libmlir_float16_utils.so.22.1; do
  cp -L "/usr/lib/llvm-22/lib/$lib" "$stage/libs/"
done
cp -L /usr/lib/llvm-22/lib/libomp.so "$stage/libs/libomp.so.5"
cd "$root"
bash "$root/../shared/scripts/pack-for-device.sh" -t "$tools" \
  "$stage/llvmbin" "$stage/lit" "$stage/test" "$stage/libs"
