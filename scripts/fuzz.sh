#!/usr/bin/env bash
# Builds the libFuzzer targets (in the sanitizer build, build-asan/, with
# AddressSanitizer and UndefinedBehaviorSanitizer) and runs each for SECONDS (default 60) on a
# corpus made of fuzz/corpus/<target> plus the test suite's modules, after
# replaying fuzz/regressions/<target> (inputs that once crashed).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]   targets: parse pipeline npy schema shim
#                                            package
#
# A crash stops the target and leaves its input as crash-* in
# build-asan/findings/<target>: reduce it, fix the bug and add the input to
# fuzz/regressions/<target>. Exits non-zero when a target found something.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(parse pipeline npy schema shim package)
build=${FUZZ_BUILD_DIR:-$root/build-asan}

"$root/scripts/setup.sh"
if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DWRAPPER_ENABLE_FUZZERS=ON >/dev/null
fi
ninja -C "$build" -j"$(nproc)" \
  "${targets[@]/#/wrapper-fuzz-}" >/dev/null

# As in scripts/sanitize.sh: no leak checks, no user poisoning (the LLVM
# libraries are not instrumented).
export ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0
status=0
for target in "${targets[@]}"; do
  corpus=$build/corpus/$target
  findings=$build/findings/$target
  mkdir -p "$corpus" "$findings"
  cp -f "$root"/fuzz/corpus/"$target"/* "$corpus"/ 2>/dev/null || true
  case $target in
  parse)
    find "$root/test" -name '*.mlir' -not -path '*/Inputs/*' |
      while read -r f; do cp -f "$f" "$corpus/$(echo "$f" | md5sum | cut -c1-16)"; done ;;
  pipeline)
    # One copy of each test module per pipeline (the first byte picks it).
    i=0
    find "$root/test/Dialect" "$root/test/Integration" -name '*.mlir' |
      while read -r f; do
        i=$((i + 1))
        { printf "\\x$(printf %02x $((i % 15)))"; cat "$f"; } > "$corpus/t$i"
      done ;;
  esac
  if compgen -G "$root/fuzz/regressions/$target/*" >/dev/null; then
    echo "== $target: replaying fuzz/regressions/$target"
    "$build/bin/wrapper-fuzz-$target" "$root"/fuzz/regressions/"$target"/* \
      >/dev/null 2>"$findings/replay.log" || {
        echo "FAIL: a regression input crashes again (see $findings/replay.log)"
        status=1
      }
  fi
  echo "== $target: fuzzing for ${seconds}s"
  if "$build/bin/wrapper-fuzz-$target" "$corpus" -max_total_time="$seconds" \
      -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
      -artifact_prefix="$findings/" -print_final_stats=1 \
      >"$findings/log.txt" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::new_units_added" \
      "$findings/log.txt" | sed "s/^/  $target: /"
  else
    echo "FAIL: $target found a crash (see $findings/log.txt):"
    ls "$findings"/crash-* "$findings"/timeout-* "$findings"/oom-* 2>/dev/null || true
    status=1
  fi
done
exit $status
