#!/usr/bin/env bash
# `make bench`: every module's benchmark, each printing ratios against its
# named baseline (see the README's performance table).  Not part of the tests.
set -uo pipefail
# usage: scripts/bench.sh [BUILD] [GAPBS_BFS]  (or `make bench GAPBS_BFS=PATH`):
# with a GAP benchmark suite `bfs` binary, bench_bfs runs it on the same
# graphs and prints every engine's ratio to it (vs_gapbs) beside the ratios
# to the CPU engines (vs_base: cpu-topdown, vs_cpu: cpu).
BUILD=${1:-build}
GAPBS=${2:-${GAPBS_BFS:-}}
status=0
if [ -n "$GAPBS" ]; then
  if [ ! -x "$GAPBS" ]; then
    echo "bench.sh: GAPBS_BFS '$GAPBS' is not an executable (build gapbs's bfs and give its path)" >&2
    exit 2
  fi
  export GAPBS_BFS="$GAPBS"
else
  unset GAPBS_BFS
  echo "bench.sh: no gapbs binary given (make bench GAPBS_BFS=/path/to/gapbs/bfs): BFS ratios are against the CPU engines only"
fi
run() {
  printf '\n\033[1m== %s\033[0m\n' "$*"
  "$@" || { echo "(benchmark failed: $*)"; status=1; }
}
[ -x "$BUILD/bench/analysis/bench_rta" ] && run "$BUILD/bench/analysis/bench_rta" "$BUILD/cli/ompdag"
[ -x "$BUILD/bench/plugin/bench_plugin" ] && run "$BUILD/bench/plugin/bench_plugin" "$BUILD"
[ -f bench/probe/overhead.sh ] && [ -x "$BUILD/bench/probe/fib" ] && run bash bench/probe/overhead.sh "$BUILD"
[ -x "$BUILD/bench/report/bench_report" ] && run "$BUILD/bench/report/bench_report"
[ -x "$BUILD/bench/scale/bench_linear" ] && run "$BUILD/bench/scale/bench_linear"
[ -x "$BUILD/bench/bfs/bench_bfs" ] && run "$BUILD/bench/bfs/bench_bfs"
# BFS under MPI against the Graph500 reference (GRAPH500_BFS=PATH); skips itself without MPI.
[ -f bench/bfs/mpi_bench.sh ] && command -v mpirun >/dev/null && run bash bench/bfs/mpi_bench.sh "$BUILD"
[ -x "$BUILD/bench/offload/bench_offload" ] && run "$BUILD/bench/offload/bench_offload"
[ -f bench/advise/heldout.sh ] && [ -x "$BUILD/cli/ompdag" ] && run bash bench/advise/heldout.sh "$BUILD"
exit $status
