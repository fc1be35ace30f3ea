#!/usr/bin/env bash
# The sanitizer build: the whole project with AddressSanitizer and
# UndefinedBehaviorSanitizer (and libFuzzer coverage, so that the fuzz
# targets come from the same build) in build-asan/, then the whole lit
# suite and the unit tests under it. Tests that link programs outside the
# build (the g++ C++-emission test) are marked UNSUPPORTED there.
#
#   scripts/sanitize.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${SANITIZE_BUILD_DIR:-$root/build-asan}
"$root/scripts/setup.sh" || exit 1
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DWRAPPER_ENABLE_FUZZERS=ON >/dev/null || exit 1
fi
ninja -C "$build" -j"$(nproc)" all >/dev/null || {
  ninja -C "$build" all 2>&1 | grep -E "error|FAILED" | head -20
  exit 1
}
# LeakSanitizer off: the JIT and MLIR's contexts keep allocations alive to
# exit by design. User poisoning off: Debian's LLVM/MLIR libraries are not
# instrumented, and LLVM headers compiled into our instrumented code poison
# allocator memory that the uninstrumented library code then writes
# (use-after-poison reports that are not bugs). Everything else (heap
# errors, UB) aborts the test.
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
/usr/lib/llvm-22/bin/lit -s "$build/test" "$build/test/Unit"
