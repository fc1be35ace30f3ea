#!/usr/bin/env bash
# The differential test: random tensor_program programs
# (scripts/gen-program.py), each compiled with every fusion setting and
# memory-planning strategy and compared with the reference interpreter
# (wrapper-run --differential), in parallel on all cores.
#
#   scripts/differential.sh [COUNT [FIRST_SEED]]   default 500 from seed 1
#
# Every third program has a dynamic leading dimension (bound to a size drawn
# from the seed); the fusion strategy rotates with the seed (greedy, cost,
# horizontal, none; docs/Fusion.md). A failing program is kept in $OUT (default
# build/differential-failures) with the output of the run; the script exits
# non-zero when any program fails. Reduce a failure with
# scripts/reduce-program.sh.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
count=${1:-500}
first=${2:-1}
out=${OUT:-$build/differential-failures}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run_one() {
  local seed=$1 dynamic="" size=$(( ($1 % 6) + 1 ))
  local strategies=(greedy cost horizontal none)
  local strategy=${strategies[$(( $1 % 4 ))]}
  (( seed % 3 == 0 )) && dynamic=--dynamic
  local program="$work/p$seed.mlir"
  python3 "$root/scripts/gen-program.py" "$seed" $dynamic > "$program"
  if "$build/bin/wrapper-run" "$program" --differential --seed "$seed" \
      --dynamic-size "$size" --fuse-strategy "$strategy" \
      > "$work/r$seed.txt" 2>&1; then
    echo ok
  else
    cp "$program" "$out/seed-$seed.mlir"
    cp "$work/r$seed.txt" "$out/seed-$seed.txt"
    echo "FAIL seed $seed (dynamic size $size, --fuse-strategy=$strategy): $out/seed-$seed.mlir" >&2
    echo fail
  fi
}
export -f run_one
export root build work out

start=$(date +%s)
results=$(seq "$first" $((first + count - 1)) |
  xargs -P "$(nproc)" -I{} bash -c 'run_one {}')
failed=$(grep -c fail <<<"$results")
elapsed=$(( $(date +%s) - start ))
echo "differential: $count programs x 6 configurations, $failed failed, ${elapsed}s"
(( failed == 0 ))
