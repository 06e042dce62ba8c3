#!/usr/bin/env bash
# bench/advise/heldout.sh [BUILD] — the advisor on configurations held out of
# its training set (docs/advise.md, "Held-out configurations"): for each, the
# default setting's run is annotated and advised, then the default and the
# advised setting (the predicted cutoff or chunk, rounded) are timed under the
# probe, interleaved ($ROUNDS rounds x $REPS regions), fastest region each.
# Prints the advised setting's speedup over the default (the named baseline,
# measured in the same script).
set -Eeuo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
CLANG=${CLANG:-clang-14}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-12}
W=$(mktemp -d "${TMPDIR:-/tmp}/ompdag-heldout-XXXXXX")
trap 'rm -rf "$W"' EXIT
trap 'echo "heldout: failed at line $LINENO" >&2' ERR
cp "$BUILD/cli/ompdag" "$BUILD/runtime-probe/libompdag_probe.so" "$W/"
export OMPDAG_PROBE_LIB="$W/libompdag_probe.so" OMP_NUM_THREADS=$THREADS
O="$W/ompdag"
for p in tree_walk fib_cutoff dc_sum loop_chunks; do
    "$CLANG" -fopenmp -g -O1 -o "$W/$p" "$ROOT/examples/advisor/$p.c"
    "$O" extract "$ROOT/examples/advisor/$p.c" -o "$W/$p.json"
done

fastest() { # PROG ARGS... -> fastest region ns of one run
    "$O" run --trace "$W/t.trace" -- "$@" >/dev/null 2>&1
    "$O" advise --trace-stats "$W/t.trace" | cut -f3
}

printf '%-28s %8s %9s %12s %12s %8s  %s\n' config default advised "default ns" "advised ns" speedup \
    "verdict (grain)"
# config NAME PROGRAM DEFAULT ARGS... (ARGS hold @ for the setting)
config() {
    local name=$1 prog=$2 dflt=$3
    shift 3
    "$O" run --trace "$W/d.trace" -- "$W/$prog" "${@/@/$dflt}" 3 >/dev/null 2>&1
    "$O" annotate "$W/$prog.json" "$W/d.trace" --unobserved zero -o "$W/d.json" >/dev/null 2>&1
    local line
    line=$("$O" advise "$W/d.json" --format json | python3 -c '
import json, sys
t = max((t for r in json.load(sys.stdin)["regions"] for t in r["tasks"]),
        key=lambda t: t["tasks_per_run"])
p = t["predicted"]
c = p.get("cutoff_depth", p.get("chunk"))
print(max(1, round(c)), t["verdict"], round(t["grain_ns"] / 1000, 1))')
    read -r adv verdict grain <<<"$line"
    local td="" ta="" t
    for ((r = 0; r < ROUNDS; r++)); do
        t=$(fastest "$W/$prog" "${@/@/$dflt}" "$REPS")
        if [ -z "$td" ] || [ "$t" -lt "$td" ]; then td=$t; fi
        t=$(fastest "$W/$prog" "${@/@/$adv}" "$REPS")
        if [ -z "$ta" ] || [ "$t" -lt "$ta" ]; then ta=$t; fi
    done
    printf '%-28s %8s %9s %12s %12s %7.2fx  %s (%s us)\n' "$name" "$dflt" "$adv" "$td" "$ta" \
        "$(awk -v a="$td" -v b="$ta" 'BEGIN { print a / b }')" "$verdict" "$grain"
}

echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $THREADS threads"
config "tree_walk depth 7, 3 units" tree_walk 6 7 @ 3
config "tree_walk depth 6, 4 units" tree_walk 5 6 @ 4
config "fib_cutoff n=24" fib_cutoff 7 24 @
config "dc_sum 2^17, cost 10" dc_sum 7 131072 @ 10
config "loop_chunks 1024 x 2 units" loop_chunks 1 1024 @ 2 1
config "loop_chunks 1024 x 8, skew 4" loop_chunks 1 1024 @ 8 4
echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
