#!/usr/bin/env bash
# bench/probe/many_regions.sh BUILD [RUNS] [BASE_OMPDAG] — annotate's cost per region
# instance (issue 26 item 11): bench/probe/many_regions.c runs RUNS (default 50000)
# parallel regions of two tasks each under the probe; annotate of that trace is
# timed, and against BASE_OMPDAG (another build's binary) on the same trace when
# given.  Prints seconds and µs per region instance.
set -euo pipefail
build=$(cd "${1:-build}" && pwd); runs=${2:-50000}; base=${3:-}
clang=$(sed -n 's/^OMPDAG_CLANG:FILEPATH=//p' "$build/CMakeCache.txt"); clang=${clang:-clang-14}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
src=$(cd "$(dirname "$0")" && pwd)/many_regions.c
"$clang" -fopenmp -g -O1 "$src" -o "$tmp/many"
"$build/cli/ompdag" extract "$src" -o "$tmp/many.json"
"$build/cli/ompdag" run --quiet --trace "$tmp/many.trace" -- "$tmp/many" "$runs"
for bin in "$build/cli/ompdag" ${base:+"$base"}; do
  s=$( { /usr/bin/time -f "%e" "$bin" annotate "$tmp/many.json" "$tmp/many.trace" -o /dev/null --quiet; } 2>&1 | tail -1)
  echo "$bin: $runs region runs annotated in $s s ($(python3 -c "print(round($s * 1e6 / $runs, 1))") µs per run)"
done
