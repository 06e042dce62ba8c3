#!/usr/bin/env bash
# scripts/advisor-measure.sh DIR — the measuring half of `make advisor-model`
# (docs/advise.md, "Training"); scripts/advisor-model.sh calls it.
#
# DIR holds the training programs (tree_walk fib_cutoff dc_sum loop_chunks,
# built with clang -fopenmp -g -O1) and libompdag_probe.so; $STATS is a
# trace-statistics command (`ompdag advise --trace-stats`).  Programs run
# under the probe through the OMPT environment (OMP_TOOL_LIBRARIES), as
# `ompdag run` does, so the measuring needs nothing but the programs, the
# probe and $STATS.
#
# Writes DIR/manifest.tsv (meta, overhead, sample and grid lines) and, per
# sample, DIR/NAME.trace: the default setting's run, which the caller
# annotates into DIR/NAME.annotated.json (the path the sample line names).
set -Eeuo pipefail
W=$(cd "${1:?usage: advisor-measure.sh DIR}" && pwd)
STATS=${STATS:?set STATS to a trace-statistics command}
THREADS=${THREADS:-2}
PROCS=${PROCS:-3}
REPS=${REPS:-12}
NEAR=${NEAR:-25}
M="$W/manifest.tsv"
trap 'echo "advisor-measure: failed at line $LINENO" >&2' ERR
export OMP_TOOL=enabled OMP_TOOL_LIBRARIES="$W/libompdag_probe.so"

load() { cut -d' ' -f1-3 /proc/loadavg; }
{
    printf 'meta\tdate\t%s\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
    printf 'meta\tmachine\t%s, %s cores\n' \
        "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')" "$(nproc)"
    printf 'meta\tload_at_start\t%s\n' "$(load)"
    printf 'meta\tthreads\t%s\n' "$THREADS"
    printf 'meta\tcommand\tmake advisor-model (PROCS=%s REPS=%s NEAR=%s)\n' "$PROCS" "$REPS" "$NEAR"
    printf 'near\t%s\n' "$NEAR"
} >"$M"

# traced TRACE THREADS PROG ARGS...: one run of a program under the probe.
traced() {
    local trace=$1 threads=$2
    shift 2
    rm -f "$trace"
    OMPDAG_TRACE="$trace" OMP_NUM_THREADS="$threads" "$@" >/dev/null
}

# Per-task overhead: 1024 empty tasks on one thread, fastest region / tasks.
traced "$W/overhead.trace" 1 "$W/loop_chunks" 1024 1 0 1 "$REPS"
read -r _ _ region tasks _ < <($STATS "$W/overhead.trace")
rm -f "$W/overhead.trace"
overhead=$(awk -v r="$region" -v t="$tasks" 'BEGIN { printf "%.1f", r / t }')
printf 'overhead\t%s\n' "$overhead" >>"$M"
echo "== per-task overhead under the probe, 1 thread: $overhead ns"

# run_point NAME PROGRAM SETTING ARGS...: one run of one grid point (ARGS hold
# @ for the setting); appends "SETTING REGION_NS GRAIN_NS TASKS" to NAME.runs.
run_point() {
    local name=$1 prog=$2 setting=$3
    shift 3
    local args=("${@/@/$setting}") region tasks grain
    traced "$W/g.trace" "$THREADS" "$W/$prog" "${args[@]}" "$REPS"
    read -r _ _ region tasks grain < <($STATS "$W/g.trace")
    rm -f "$W/g.trace"
    echo "$setting $region $grain $tasks" >>"$W/$name.runs"
}

# sample NAME PROGRAM SHAPE DEFAULT "SETTINGS" ARGS...
# The default setting's run (3 regions) gives the features.  The grid is
# swept $PROCS times, every setting once per sweep, so that a burst of load
# hits all settings alike; each setting keeps its fastest region.
sample() {
    local name=$1 prog=$2 shape=$3 dflt=$4 settings=$5
    shift 5
    local args=("${@/@/$dflt}")
    traced "$W/$name.trace" "$THREADS" "$W/$prog" "${args[@]}" 3
    printf 'sample\t%s\t%s\t%s\t%s\t%s\n' "$name" "$prog" "$shape" "$dflt" \
        "$name.annotated.json" >>"$M"
    rm -f "$W/$name.runs"
    for ((i = 0; i < PROCS; i++)); do
        for s in $settings; do run_point "$name" "$prog" "$s" "$@"; done
    done
    sort -k1,1n -k2,2n "$W/$name.runs" | awk -v n="$name" '
        !($1 in seen) { seen[$1] = 1; printf "grid\t%s\t%s\t%s\t%s\t%s\n", n, $1, $2, $3, $4 }' >>"$M"
    echo "   $name: $(grep -c "^grid	$name	" "$M") settings; load $(load)"
}

echo "== measuring (threads $THREADS, $PROCS sweeps x $REPS regions per setting; load $(load))"
R="1 2 3 4 5 6 7 8 10"
sample tw-d6-w100 tree_walk recursive 5 "1 2 3 4 5" 6 @ 100
sample tw-d8-w2 tree_walk recursive 7 "1 2 3 4 5 6 7" 8 @ 2
sample tw-d9-w5 tree_walk recursive 7 "1 2 3 4 5 6 7 8" 9 @ 5
sample tw-d11-w1 tree_walk recursive 7 "$R" 11 @ 1
sample fib-22 fib_cutoff recursive 7 "$R" 22 @
sample fib-25 fib_cutoff recursive 7 "$R" 25 @
sample fib-28 fib_cutoff recursive 7 "$R" 28 @
sample dc-16-c20 dc_sum recursive 7 "$R" 65536 @ 20
sample dc-18-c5 dc_sum recursive 7 "$R" 262144 @ 5
sample dc-13-c200 dc_sum recursive 7 "$R" 8192 @ 200
sample lc-c1 loop_chunks loop 1 "1 2 4 8 16 64 256 512" 1024 @ 1 1
sample lc-c4 loop_chunks loop 1 "1 2 4 8 16 64 256 512" 1024 @ 4 1
sample lc-c1-skew8 loop_chunks loop 1 "1 2 4 8 16 64 256 512" 1024 @ 1 8
sample lc-c16 loop_chunks loop 1 "1 2 4 8 16 64 256 512" 1024 @ 16 1
printf 'meta\tload_at_end\t%s\n' "$(load)" >>"$M"
