#!/usr/bin/env bash
# bench/plugin/bench_plugin.sh — cost of the front end and of the plugin.
#
#   bench_plugin.sh OMPDAG_BIN PLUGIN_SO [CLANG] [REPS]
#
# For every example plus one generated file with 200 parallel regions:
#   extract   = `ompdag extract FILE`            vs  `clang -fsyntax-only`
#   plugin    = `clang -O2 -c` with -fplugin     vs  plain `clang -O2 -c`
# Prints the median of REPS runs (ms) and the ratios.  The target is a
# plugin overhead of at most 25% on the build.
set -euo pipefail
OMPDAG=${1:?usage: bench_plugin.sh OMPDAG_BIN PLUGIN_SO [CLANG] [REPS]}
PLUGIN=${2:?usage: bench_plugin.sh OMPDAG_BIN PLUGIN_SO [CLANG] [REPS]}
CLANG=${3:-clang-14}
REPS=${4:-7}
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$(cd "$HERE/../../examples" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# A larger input: 200 functions, each a region with a loop of tasks, a
# branch and a helper call.
gen="$TMP/many_regions.c"
{
  echo '#include "work.h"'
  echo 'static void helper(int n) {'
  echo '#pragma omp task'
  echo '    work(n);'
  echo '#pragma omp taskwait'
  echo '}'
  for i in $(seq 1 200); do
    cat <<C
void region_$i(int n) {
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < 4; ++i) {
#pragma omp task firstprivate(i)
            work(i + $i);
        }
        if (n > $i) {
#pragma omp task
            helper(n);
        } else {
            work(n);
        }
#pragma omp taskwait
    }
}
C
  done
  echo 'int main(void) { region_1(3); report("many"); return 0; }'
} > "$gen"

# median_ms CMD... : runs CMD REPS times, prints the median wall time in ms.
median_ms() {
  local t=()
  for _ in $(seq 1 "$REPS"); do
    local s e
    s=$(date +%s%N)
    "$@" > /dev/null 2>&1
    e=$(date +%s%N)
    t+=($(( (e - s) / 1000 )))
  done
  printf '%s\n' "${t[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]/1000}'
}

printf '%-22s %10s %10s %7s   %10s %10s %7s\n' file extract_ms syntax_ms ratio plugin_ms plain_ms overhead
for f in "$EXAMPLES"/*.c "$gen"; do
  inc=(-I "$EXAMPLES")
  ex=$(median_ms "$OMPDAG" extract "$f" -o "$TMP/x.json" -- "${inc[@]}")
  sy=$(median_ms "$CLANG" -fopenmp -fsyntax-only "${inc[@]}" "$f")
  pl=$(median_ms "$CLANG" -fopenmp -O2 "${inc[@]}" -fplugin="$PLUGIN" \
         -fplugin-arg-ompdag-out="$TMP/out" -c "$f" -o "$TMP/a.o")
  pn=$(median_ms "$CLANG" -fopenmp -O2 "${inc[@]}" -c "$f" -o "$TMP/b.o")
  awk -v f="$(basename "$f")" -v ex="$ex" -v sy="$sy" -v pl="$pl" -v pn="$pn" 'BEGIN {
    printf "%-22s %10.1f %10.1f %6.2fx   %10.1f %10.1f %6.1f%%\n", f, ex, sy, ex / sy, pl, pn,
           100 * (pl - pn) / pn }'
done
