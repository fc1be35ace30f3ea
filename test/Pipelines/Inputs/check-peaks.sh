#!/usr/bin/env bash
# For every program in $2 (a directory of tensor_program tests), plans the
# host graph with each strategy and checks that the static peak never rises
# and that the lifetime checker accepts the result. Prints one line per
# program and strategy, then a summary.
#   check-peaks.sh <wrapper-opt> <dir>
set -uo pipefail
opt=$1 dir=$2
checked=0 above=0 failed=0
for f in "$dir"/*.mlir; do
  for s in reuse pool; do
    out=$("$opt" "$f" --tensor-program-decompose=activations=false \
      --canonicalize --tensor-program-fuse --convert-tensor-program-to-wrapper \
      "--wrapper-plan-memory=strategy=$s report=true" --wrapper-verify-lifetimes \
      2>&1 >/dev/null)
    if [[ $? -ne 0 ]]; then
      echo "FAILED: $(basename "$f") $s: $out"
      failed=$((failed + 1))
      continue
    fi
    while read -r before after; do
      checked=$((checked + 1))
      echo "$(basename "$f") $s: static peak $before -> $after"
      if (( after > before )); then above=$((above + 1)); fi
    done < <(sed -nE 's/.*static peak ([0-9]+) -> ([0-9]+) bytes.*/\1 \2/p' <<<"$out")
  done
done
echo "checked $checked graphs, $above above the unplanned peak, $failed failed"
