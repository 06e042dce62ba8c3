#!/usr/bin/env bash
# bench/compact/compact.sh BUILD_DIR BOTS_DIR [OLD_OMPDAG] — compact graphs
# (docs/compact.md) on BOTS fib (BOTS_DIR/omp-tasks/fib, copied to a temp
# dir, never vendored): extract + analyze at several --recursion-bound values,
# wall time and peak memory (GNU time), against the unrolled path measured in
# the same run:
#   unrolled analyze : the same graph unfolded by `ompdag expand`, analysed;
#   unrolled extract : OLD_OMPDAG (an ompdag built before compact graphs, e.g.
#                      main before the merge), when given; bound 14 only unless
#                      OLD_ALL=1 (bound 17 takes minutes and gigabytes).
set -euo pipefail
build=${1:?BUILD_DIR}
bots=${2:?BOTS_DIR}
old=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
ompdag="$(cd "$build" && pwd)/cli/ompdag"
bots=$(cd "$bots" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$bots/omp-tasks/fib" "$bots/common" "$tmp/"
cd "$tmp"
measure() { # label cmd... -> "label seconds MB"
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || {
    echo "$label FAILED: $(tail -1 "$tmp/err")"
    return 0
  }
  read -r s kb <"$tmp/time"
  printf "| %s | %s | %.0f |\n" "$label" "$s" "$((kb / 1024))"
}
echo "compact graphs on BOTS fib.c, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| step | seconds | peak MB |"
echo "| --- | --- | --- |"
for b in 14 17 20 40; do
  measure "extract --recursion-bound $b (compact)" "$ompdag" extract fib/fib.c -o "c$b.json" \
    --recursion-bound "$b" -- -I common -I fib
  measure "analyze --threads 4 (compact, bound $b)" "$ompdag" analyze "c$b.json" --threads 4
  grep -m1 "nodes" "$tmp/out" | sed 's/^/    /' || true
done
# WCETs by code location (as annotate gives them), so the bounds compared below are not 0.
for b in 14 17; do
  python3 "$here/wcet_by_line.py" "c$b.json"
done
for b in 14 17; do
  measure "expand (bound $b)" "$ompdag" expand "c$b.json" -o "x$b.json"
  measure "analyze --threads 4 (unrolled, bound $b)" "$ompdag" analyze "x$b.json" --threads 4
  if [ -n "$old" ] && { [ "$b" = 14 ] || [ -n "${OLD_ALL:-}" ]; }; then
    measure "extract --recursion-bound $b (unrolled, old ompdag)" "$old" extract fib/fib.c \
      -o "o$b.json" --recursion-bound "$b" --node-limit 10000000 -- -I common -I fib
  fi
done
# The bound must not depend on the path: compact and unrolled agree bit for bit.
for b in 14 17; do
  c=$("$ompdag" analyze "c$b.json" --threads 4 --format json | grep -m1 bound_times_m)
  x=$("$ompdag" analyze "x$b.json" --threads 4 --format json | grep -m1 bound_times_m)
  [ "$c" = "$x" ] && echo "bound $b: compact == unrolled ($c)" || { echo "MISMATCH $c / $x"; exit 1; }
done
