#!/usr/bin/env bash
# scripts/advisor-model.sh [BUILD_DIR] [OUT_MODEL] — `make advisor-model`.
#
# Trains the task-granularity advisor (docs/advise.md) on this machine:
#  1. builds the training family examples/advisor/*.c (clang -fopenmp -g -O1:
#     the probe needs LLVM's libomp, and -O1 keeps directive addresses on their
#     lines for annotate) and extracts each program's con-DAGs;
#  2. calibrates the per-task runtime overhead: empty tasks, one thread;
#  3. per sample (program + problem size), runs the default setting under the
#     probe and annotates it: the sample's features;
#  4. sweeps the sample's grid (cutoff depth or loop chunk) $PROCS times under
#     the probe, $REPS regions per run, and keeps per setting the fastest
#     region with its mean task grain and tasks per region;
#  5. `ompdag advise --build-model` turns the manifest into the model file:
#     best-known scheme = the fastest setting; grain range of the settings
#     within $NEAR % of it.
# Then prints `ompdag advise --validate`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT=${2:-$ROOT/advisor/advisor-model.json}
OMPDAG="$BUILD/cli/ompdag"
CLANG=${CLANG:-clang-14}
THREADS=${THREADS:-2}
PROCS=${PROCS:-3}
REPS=${REPS:-12}
NEAR=${NEAR:-25}
W="$BUILD/advisor-train"

[ -x "$OMPDAG" ] || { echo "advisor-model: $OMPDAG not built (make build)" >&2; exit 1; }
command -v "$CLANG" >/dev/null || { echo "advisor-model: $CLANG not found" >&2; exit 1; }
rm -rf "$W"
mkdir -p "$W"
M="$W/manifest.tsv"
trap 'echo "advisor-model: failed at line $LINENO" >&2' ERR
# Private copies: a rebuild of $BUILD during the minutes of training must not
# pull the binaries away under it.
PROBE_LIB="$BUILD/runtime-probe/libompdag_probe.so"
[ -f "$PROBE_LIB" ] || { echo "advisor-model: $PROBE_LIB not built" >&2; exit 1; }
cp "$OMPDAG" "$W/ompdag"
cp "$PROBE_LIB" "$W/libompdag_probe.so"
OMPDAG="$W/ompdag"
export OMPDAG_PROBE_LIB="$W/libompdag_probe.so"
export OMP_NUM_THREADS=$THREADS

echo "== advisor-model: building examples/advisor with $CLANG -fopenmp -g -O1"
for p in tree_walk fib_cutoff dc_sum loop_chunks; do
    "$CLANG" -fopenmp -g -O1 -I "$ROOT/examples" -o "$W/$p" "$ROOT/examples/advisor/$p.c"
    "$OMPDAG" extract "$ROOT/examples/advisor/$p.c" -o "$W/$p.json" -- -I "$ROOT/examples"
done

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

# Per-task overhead: 4096 tasks with no work on one thread, fastest region.
OMP_NUM_THREADS=1 "$OMPDAG" run --trace "$W/overhead.trace" -- "$W/loop_chunks" 4096 1 0 1 "$REPS" >/dev/null 2>&1
read -r _ _ region tasks _ < <("$OMPDAG" advise --trace-stats "$W/overhead.trace")
overhead=$(awk -v r="$region" -v t="$tasks" 'BEGIN { printf "%.1f", r / t }')
printf 'overhead\t%s\n' "$overhead" >>"$M"
echo "== per-task overhead under the probe, 1 thread: $overhead ns"

# run_point NAME PROGRAM SETTING ARGS...: one run of one grid point (ARGS hold
# @ for the setting); appends "SETTING REGION_NS GRAIN_NS TASKS" to $W/NAME.runs.
run_point() {
    local name=$1 prog=$2 setting=$3
    shift 3
    local args=("${@/@/$setting}") region tasks grain
    "$OMPDAG" run --trace "$W/g.trace" -- "$W/$prog" "${args[@]}" "$REPS" >/dev/null 2>&1
    read -r _ _ region tasks grain < <("$OMPDAG" advise --trace-stats "$W/g.trace")
    rm -f "$W/g.trace"
    echo "$setting $region $grain $tasks" >>"$W/$name.runs"
}

# sample NAME PROGRAM SHAPE DEFAULT "SETTINGS" ARGS...
# The features come from the default setting, annotated.  The grid is swept
# $PROCS times, every setting once per sweep, so that a burst of load hits
# all settings alike; each setting keeps its fastest region over all sweeps.
sample() {
    local name=$1 prog=$2 shape=$3 dflt=$4 settings=$5
    shift 5
    local args=("${@/@/$dflt}")
    "$OMPDAG" run --trace "$W/$name.trace" -- "$W/$prog" "${args[@]}" 3 >/dev/null 2>&1
    "$OMPDAG" annotate "$W/$prog.json" "$W/$name.trace" --unobserved zero \
        -o "$W/$name.annotated.json" >/dev/null 2>&1
    rm -f "$W/$name.trace"
    printf 'sample\t%s\t%s\t%s\t%s\t%s\n' "$name" "$prog" "$shape" "$dflt" \
        "$W/$name.annotated.json" >>"$M"
    for ((i = 0; i < PROCS; i++)); do
        for s in $settings; do run_point "$name" "$prog" "$s" "$@"; done
    done
    sort -k1,1n -k2,2n "$W/$name.runs" | awk -v n="$name" '
        !($1 in seen) { seen[$1] = 1; printf "grid\t%s\t%s\t%s\t%s\t%s\n", n, $1, $2, $3, $4 }' >>"$M"
    echo "   $name: $(grep -c "^grid	$name	" "$M") settings; load $(load)"
}

echo "== measuring (threads $THREADS, $PROCS processes x $REPS regions per setting; load $(load))"
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
sample lc-2048-c1 loop_chunks loop 1 "1 2 4 8 16 64 256 1024" 2048 @ 1 1
sample lc-128-c20 loop_chunks loop 1 "1 2 4 8 16 32 64" 128 @ 20 1
sample lc-256-c2-skew loop_chunks loop 1 "1 2 4 8 16 32 64 128" 256 @ 2 8
sample lc-24-c100 loop_chunks loop 1 "1 2 3 4 6 8 12" 24 @ 100 1
printf 'meta\tload_at_end\t%s\n' "$(load)" >>"$M"

"$OMPDAG" advise --build-model "$M" -o "$OUT"
echo "== wrote $OUT ($(grep -c '^sample' "$M") samples); manifest $M"
"$OMPDAG" advise --validate --model "$OUT"
