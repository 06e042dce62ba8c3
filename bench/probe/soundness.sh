#!/usr/bin/env bash
# bench/probe/soundness.sh BUILD_DIR — 20 runs of tests/probe/progs/tasks.c
# (alternating both branches) at OMP_NUM_THREADS=2 and 4 under the probe,
# annotated with the max estimator (+20%), exact bound on m threads vs every
# observed region response.  The bound is computed for min(threads, cores)
# processors: Theorem 1 assumes m dedicated processors, and 4 threads on a
# 2-core box are not 4 processors.  The whole region (fork/join included) is
# compared with the region bound (bound + measured fork/join).  Prints a table;
# exit status 3 if any clean run exceeded its bound.
set -euo pipefail
build=${1:-build}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
cores=$(nproc)
echo "| threads | bound m | task-system bound (us) | clean runs | max task-system response (us) | over bound | min / mean bound÷observed | region bound (us) | max region response (us) | over region bound | min / mean region bound÷observed |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for m in 2 4; do
  traces=()
  for i in $(seq 1 20); do
    OMP_NUM_THREADS=$m "$build/cli/ompdag" run --quiet --trace "$tmp/m$m-$i.trace" -- \
      "$build/bench/probe/tasks" $((i % 2)) 1
    traces+=("$tmp/m$m-$i.trace")
  done
  mb=$(( m < cores ? m : cores ))
  line=$("$build/bench/probe/probe_soundness" "$mb" 20 "$src/tests/probe/data/tasks.json" "${traces[@]}") || status=$?
  read -r mm bound rbound rr rw rb rmin rmean tr tw tb tmin tmean <<<"$line"
  awk -v t="$m" -v m="$mm" -v b="$bound" -v rbd="$rbound" -v n="$tr" -v tw="$tw" -v tb="$tb" -v tmin="$tmin" -v tmean="$tmean" \
      -v rw="$rw" -v rb="$rb" -v rmin="$rmin" -v rmean="$rmean" \
    'function us(x) { return x == "-" ? "-" : sprintf("%.1f", x / 1000) }
     BEGIN { printf "| %s | %s | %.1f | %s | %s | %s | %s / %s | %.1f | %s | %s | %s / %s |\n", t, m, b / 1000, n, us(tw), tb, tmin, tmean, rbd / 1000, us(rw), rb, rmin, rmean }'
done
exit $status
