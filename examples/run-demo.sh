#!/usr/bin/env bash
# Plans every bundled example with the given planner executable and explains the refusals.
# Exit 0/1 from the planner are answers (planned / refused on purpose); 2 or more means an
# example is broken, which fails the demo after every example has run.
set -uo pipefail
planner=${1:-planner}
if [[ $planner == */* ]]; then
  planner="$(cd "$(dirname "$planner")" && pwd)/$(basename "$planner")"
fi
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
broken=0

# Says what a planner exit code means.
verdict() {
  case $1 in
    0) echo "   -> planned / proven" ;;
    1) echo "   -> refused (a valid answer; the diagnostics say why)" ;;
    *) echo "   -> ERROR: exit $1"; broken=1 ;;
  esac
}

run() {
  "$planner" "$@"
  verdict $?
}

heading() { printf '\n=== %s ===\n' "$1"; }

"$planner" --version

heading "PyPTO programs (NZ layout)"
for file in pypto/*.py; do
  echo "-- planner plan $file"
  run plan "$file" -o "$out/$(basename "$file")"
done

heading "TT-Lang kernels (compute-kernel configuration)"
for file in ttlang/*.mlir; do
  echo "-- planner plan $file"
  run plan "$file" -o "$out/$(basename "$file")"
done

heading "JSON requests, one per method"
for file in json/*.json; do
  method=$(sed -n 's/^  "method": "\(.*\)",$/\1/p' "$file")
  echo "-- planner call $method $file"
  "$planner" call "$method" "$file" >"$out/result.json"
  code=$?
  head -n 12 "$out/result.json"
  [ "$(wc -l <"$out/result.json")" -le 12 ] || echo "   ... ($(wc -l <"$out/result.json") lines)"
  verdict $code
done

heading "An explained kernel-config conflict"
for file in ttlang/*conflict*.mlir; do
  echo "-- planner explain-conflict $file --graph conflict.dot"
  run explain-conflict "$file" --graph "$out/conflict.dot"
  cat "$out/conflict.dot"
done

heading "An explained NZ refusal"
for file in pypto/refused*.py json/layout-plan-refused.json; do
  [ -e "$file" ] || continue
  echo "-- planner explain-conflict $file"
  run explain-conflict "$file"
done

heading "Which ND weights may become pl.NZ"
run suggest pypto/suggest_weights.py

heading "A model library: a builder file and its config module"
run suggest pypto/model_lib/decode_layers.py

heading "Where the elements of an NZ tensor land"
run layout show "[64, 64] FP16"

exit $broken
