#!/usr/bin/env bash
# bench/compact/loop_depend.sh BUILD_DIR — depend clauses in compact loops
# (docs/compact.md, "depend clauses in compact loops"): extract + analyze of
# a chain `depend(in: a[i-1]) depend(out: a[i])` of 10^6 iterations, kept
# compact with its items indexed by the iteration and bounded without
# unrolling, against the same program with 4,000 iterations, which the front
# end unrolls (at most 4096).  WCETs by line (wcet_by_line.py), so the
# bounds are not 0; they differ in shape too: the compact loop keeps its at-most
# reading (a test node per iteration), the constant count unrolled has none.  Wall time and peak memory of every step (GNU
# /usr/bin/time), the load average when it started, and the bounds.
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
ompdag="$build/cli/ompdag"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chain() { # N: the program with N - 1 iterations, in its own directory
    mkdir -p "$tmp/$1"
    cat >"$tmp/$1/chain.c" <<SRC
double a[$1];
void work(int);
void f(void) {
#pragma omp parallel
#pragma omp single
  {
    for (int i = 1; i < $1; i++) {
#pragma omp task depend(in: a[i - 1]) depend(out: a[i])
      work(i);
    }
#pragma omp taskwait
  }
}
SRC
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC')"
for n in 1000001 4001; do
    chain "$n"
    (cd "$tmp/$n" && /usr/bin/time -f "  extract: %e s %M KB" "$ompdag" extract chain.c -o g.json)
    echo "$((n - 1)) iterations: $(wc -c <"$tmp/$n/g.json") bytes"
    python3 "$(dirname "$0")/wcet_by_line.py" "$tmp/$n/g.json" # WCETs by line, as annotate
    /usr/bin/time -f "  analyze: %e s %M KB" "$ompdag" analyze "$tmp/$n/g.json" --threads 4 |
        grep -E 'bound|nodes'
done
