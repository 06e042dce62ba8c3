#!/usr/bin/env bash
# bench/probe/overhead.sh BUILD_DIR [REPS] — probe overhead on recursive fib
# with a cutoff, at three task sizes.  Each configuration runs the same binary
# (bench/probe/fib, clang -O2) in three modes, interleaved, REPS times (median
# reported):
#   baseline : OMP_TOOL=disabled (no tool)
#   empty    : libompdag_probe.so with OMPDAG_PROBE_EMPTY=1 (OMPT on, no callbacks)
#   probe    : libompdag_probe.so recording to a trace file
# Task size = baseline CPU time (threads x wall) / tasks.
set -euo pipefail
build=${1:-build}
reps=${2:-5}
threads=${OMP_NUM_THREADS:-2}
fib="$build/bench/probe/fib"
probe="$build/runtime-probe/libompdag_probe.so"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
run_mode() { # mode n cutoff -> "wall_ns tasks cpu_ms" (cpu = user + sys of the process)
  local TIMEFORMAT='%U %S'
  local t
  t=$( { time (case $1 in
    baseline) OMP_NUM_THREADS=$threads OMP_TOOL=disabled "$fib" "$2" "$3" ;;
    empty) OMP_NUM_THREADS=$threads OMP_TOOL_LIBRARIES="$probe" OMPDAG_PROBE_EMPTY=1 "$fib" "$2" "$3" ;;
    probe) OMP_NUM_THREADS=$threads OMP_TOOL_LIBRARIES="$probe" OMPDAG_TRACE="$tmp/t.trace" "$fib" "$2" "$3" ;;
  esac >"$tmp/out") ; } 2>&1 )
  read -r wall tasks _ <"$tmp/out"
  echo "$wall $tasks $(echo "$t" | awk '{printf "%.0f", ($1 + $2) * 1000}')"
}
echo "probe overhead, fib with cutoff, $threads threads, median of $reps runs, $(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| task size | tasks | baseline (ms) | empty tool (ms) | probe (ms) | probe / empty | probe / baseline | CPU probe / empty | trace MB |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for spec in "35 12" "37 17" "41 25"; do
  set -- $spec
  n=$1 c=$2
  for m in baseline empty probe; do : >"$tmp/$m"; : >"$tmp/$m.cpu"; done
  tasks=0
  for r in $(seq 1 "$reps"); do
    for mode in baseline empty probe; do
      read -r ns tasks cpu < <(run_mode $mode "$n" "$c")
      echo "$ns" >>"$tmp/$mode"
      echo "$cpu" >>"$tmp/$mode.cpu"
    done
  done
  b=$(median <"$tmp/baseline"); e=$(median <"$tmp/empty"); p=$(median <"$tmp/probe")
  ec=$(median <"$tmp/empty.cpu"); pc=$(median <"$tmp/probe.cpu")
  bytes=$(stat -c %s "$tmp/t.trace")
  awk -v b="$b" -v e="$e" -v p="$p" -v t="$tasks" -v th="$threads" -v by="$bytes" \
      -v ec="$ec" -v pc="$pc" 'BEGIN {
    printf "| %.1f us | %d | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f | %.1f |\n",
      b * th / t / 1000, t, b / 1e6, e / 1e6, p / 1e6, p / e, p / b, (ec > 0 ? pc / ec : 0), by / 1e6 }'
done
