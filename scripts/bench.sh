#!/usr/bin/env bash
# `make bench`: every module's benchmark, each printing ratios against its
# named baseline (see the README's performance table).  Not part of the tests.
set -uo pipefail
BUILD=${1:-build}
status=0
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
[ -x "$BUILD/bench/offload/bench_offload" ] && run "$BUILD/bench/offload/bench_offload"
[ -f bench/advise/heldout.sh ] && [ -x "$BUILD/cli/ompdag" ] && run bash bench/advise/heldout.sh "$BUILD"
exit $status
