#!/usr/bin/env bash
# Reduces a program that the differential test flagged:
# scripts/reduce-program.py shrinks it (removing ops, rewiring their uses to
# earlier values of the same type) while
# `wrapper-run --differential --seed SEED --dynamic-size SIZE` still fails on
# it, and writes the result to OUTPUT. Check the reduced program in as a
# test (test/Integration/CPU/, with the same wrapper-run line) once fixed.
#
#   scripts/reduce-program.sh PROGRAM SEED SIZE OUTPUT
#
# WRAPPER_RUN_FLAGS adds flags to the wrapper-run line (the test of this
# script uses --rtol=0 --atol=0 to make rounding differences "failures").
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}
(($# == 4)) || { sed -n '2,10p' "$0" >&2; exit 2; }
program=$1 seed=$2 size=$3 output=$4
test=$(mktemp --suffix=.sh)
trap 'rm -f "$test"' EXIT
# Interesting (exit status 1, mlir-reduce's convention): the differential
# run fails (a mismatch or a compilation failure), not merely on a refusal
# of the input.
cat > "$test" <<SCRIPT
#!/usr/bin/env bash
out=\$("$build/bin/wrapper-run" "\$1" --differential --seed $seed --dynamic-size $size ${WRAPPER_RUN_FLAGS:-} 2>&1)
if grep -qE "MISMATCH|compilation failed|run failed" <<<"\$out"; then exit 1; fi
exit 0
SCRIPT
chmod +x "$test"
if "$test" "$program"; then
  echo "reduce-program: $program does not fail" >&2
  exit 1
fi
python3 "$root/scripts/reduce-program.py" "$program" "$output" -- "$test"
