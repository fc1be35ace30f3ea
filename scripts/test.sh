#!/usr/bin/env bash
# Builds the project and runs every test: the lit suite (round-trip, invalid,
# pass and conversion tests, and the C++ unit tests), then installs the
# package and builds the downstream example against it; the Python
# package's tests (pytest, with torch from PyPI in .venv); the wheel in a
# fresh virtual environment (scripts/test-package.sh); the shell and
# Python blocks of README.md and docs/ (scripts/doctest.py); then the
# reliability stages: the differential test (500 random programs x 6
# configurations), the sanitizer build with the whole suite under
# ASan/UBSan, and each fuzz target briefly (FUZZ_SECONDS, default 30).
# WRAPPER_QUICK=1 skips the reliability stages (a quick local run).
# Prints "N passed, N failed" last; exits non-zero when anything fails.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
start=$(date +%s)

"$root/scripts/build.sh" all mlir-doc || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0

# The Python environment (torch, NumPy, pytest in .venv; made once by
# scripts/setup-python.sh). lit's Python-driven tests run with it too
# (%python in test/lit.cfg.py): PATH's python3 may have no NumPy.
if ! python=$("$root/scripts/setup-python.sh"); then
  echo "FAIL: cannot set up the Python environment (.venv with torch)"
  failed=$((failed + 1))
  python=python3
fi
export WRAPPER_PYTHON=$python

log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" "$build/test/Unit" | tee "$log"
lit_status=${PIPESTATUS[0]}
p=$(sed -nE 's/^ *Passed *: *([0-9]+).*/\1/p' "$log" | tail -1)
f=$(awk '/^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:/ {
          sub(/.*: */, ""); n += $1 } END { print n + 0 }' "$log")
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
if ((lit_status != 0 && ${f:-0} == 0)); then failed=$((failed + 1)); fi
rm -f "$log"

# A stage: one pass or one failure.
stage() {
  local name=$1
  shift
  echo "== $name"
  if "$@"; then
    echo "PASS: $name"
    passed=$((passed + 1))
  else
    echo "FAIL: $name"
    failed=$((failed + 1))
  fi
}

# The installed package, consumed by a downstream project.
echo "== downstream example against the installed package"
prefix=$build/install
downstream=$build/downstream
# A fresh install and configuration each time (a stale cache from another
# source path would refuse to configure); the steps' output is shown only
# when one fails.
rm -rf "$prefix" "$downstream"
log=$(mktemp)
if cmake --install "$build" --prefix "$prefix" >"$log" 2>&1 &&
   cmake -G Ninja -S "$root/examples/downstream" -B "$downstream" \
     -DWrapper_DIR="$prefix/lib/cmake/wrapper" \
     -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 >>"$log" 2>&1 &&
   ninja -C "$downstream" >>"$log" 2>&1 &&
   "$downstream/downstream-opt" "$root/examples/downstream/roundtrip.mlir" |
     "$downstream/downstream-opt" |
     /usr/lib/llvm-22/bin/FileCheck "$root/examples/downstream/roundtrip.mlir" >>"$log" 2>&1 &&
   "$downstream/downstream-opt" "$root/examples/downstream/strategy.mlir" \
     --tensor-program-fuse=strategy=first-two |
     /usr/lib/llvm-22/bin/FileCheck "$root/examples/downstream/strategy.mlir" >>"$log" 2>&1
then
  echo "PASS: downstream example builds against the installed package, round-trips and fuses with its own strategy"
  passed=$((passed + 1))
else
  tail -30 "$log"
  echo "FAIL: downstream example"
  failed=$((failed + 1))
fi
rm -f "$log"

# The Python package against the build tree, as pytest counts it, in the
# virtual environment with torch (scripts/setup-python.sh makes it once).
echo "== python package (pytest python/tests)"
log=$(mktemp)
WRAPPER_REQUIRE_TORCH=1 PYTHONPATH=$root/python WRAPPER_BUILD_DIR=$build \
  "$python" -m pytest -q -p no:cacheprovider "$root/python/tests" 2>&1 | tee "$log"
pytest_status=${PIPESTATUS[0]}
# The summary line: "9 passed in 2.4s", "1 failed, 8 passed, 1 error in ...".
summary=$(grep -E '^[=[:space:]]*[0-9]+ (passed|failed|errors?)' "$log" | tail -1)
p=$(grep -oE '[0-9]+ passed' <<<"$summary" | awk '{ n += $1 } END { print n + 0 }')
f=$(grep -oE '[0-9]+ (failed|errors?)' <<<"$summary" | awk '{ n += $1 } END { print n + 0 }')
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
if ((pytest_status != 0 && ${f:-0} == 0)); then failed=$((failed + 1)); fi
rm -f "$log"

# The documentation's shell and Python blocks, run as written (one test
# per block; docs/Testing.md, "Tested documentation").
echo "== documentation (scripts/doctest.py)"
log=$(mktemp)
WRAPPER_PYTHON=$python BUILD_DIR=$build "$python" "$root/scripts/doctest.py" 2>&1 | tee "$log"
doctest_status=${PIPESTATUS[0]}
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
p=$(grep -oE '^[0-9]+' <<<"$summary")
f=$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '[0-9]+')
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
if ((doctest_status != 0 && ${f:-0} == 0)); then failed=$((failed + 1)); fi
rm -f "$log"

# The Python package as a new user installs it: the wheel (the compiler
# bundled) in a fresh virtual environment, used with an empty environment.
stage "Python wheel in a fresh virtual environment (scripts/test-package.sh)" \
  "$root/scripts/test-package.sh" "$python"

# The reliability stages, each one pass or one failure.
if [[ ${WRAPPER_QUICK:-0} != 1 ]]; then
  stage "differential test (500 programs)" "$root/scripts/differential.sh" 500
  stage "sanitizer build and test suite" "$root/scripts/sanitize.sh"
  stage "fuzz targets (${FUZZ_SECONDS:-30} s each)" \
    "$root/scripts/fuzz.sh" "${FUZZ_SECONDS:-30}"
fi

echo "test time: $(($(date +%s) - start)) s"
echo "$passed passed, $failed failed"
((failed == 0))
