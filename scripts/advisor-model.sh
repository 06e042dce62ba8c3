#!/usr/bin/env bash
# scripts/advisor-model.sh [BUILD_DIR] [OUT_MODEL] — `make advisor-model`.
#
# Trains the task-granularity advisor (docs/advise.md) on this machine:
#  1. builds the training family examples/advisor/*.c (clang -fopenmp -g -O1:
#     the probe needs LLVM's libomp, and -O1 keeps directive addresses on their
#     lines for annotate) and extracts each program's con-DAGs;
#  2. scripts/advisor-measure.sh: the per-task overhead, and per sample
#     (program + problem size) the default setting's run and $PROCS sweeps of
#     the grid of settings (cutoff depth or loop chunk) under the probe;
#  3. annotates each default run: the sample's features;
#  4. `ompdag advise --build-model` turns the manifest into the model file:
#     best-known scheme = the fastest setting; grain range of the settings
#     within $NEAR % of it;
#  5. prints `ompdag advise --validate`.
set -Eeuo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
OUT=${2:-$ROOT/advisor/advisor-model.json}
CLANG=${CLANG:-clang-14}
W="$BUILD/advisor-train"
trap 'echo "advisor-model: failed at line $LINENO" >&2' ERR

[ -x "$BUILD/cli/ompdag" ] || { echo "advisor-model: $BUILD/cli/ompdag not built (make build)" >&2; exit 1; }
[ -f "$BUILD/runtime-probe/libompdag_probe.so" ] || { echo "advisor-model: the probe is not built" >&2; exit 1; }
command -v "$CLANG" >/dev/null || { echo "advisor-model: $CLANG not found" >&2; exit 1; }
rm -rf "$W"
mkdir -p "$W"
# Private copies: a rebuild of $BUILD during the minutes of training must not
# pull the binaries away under it.
cp "$BUILD/cli/ompdag" "$BUILD/runtime-probe/libompdag_probe.so" "$W/"
OMPDAG="$W/ompdag"

echo "== advisor-model: building examples/advisor with $CLANG -fopenmp -g -O1"
for p in tree_walk fib_cutoff dc_sum loop_chunks; do
    "$CLANG" -fopenmp -g -O1 -o "$W/$p" "$ROOT/examples/advisor/$p.c"
    "$OMPDAG" extract "$ROOT/examples/advisor/$p.c" -o "$W/$p.json"
done

STATS="$OMPDAG advise --trace-stats" "$ROOT/scripts/advisor-measure.sh" "$W"

echo "== annotating the default runs"
while IFS=$'\t' read -r kw name prog _ _ annotated; do
    [ "$kw" = sample ] || continue
    "$OMPDAG" annotate "$W/$prog.json" "$W/$name.trace" --unobserved zero -o "$W/$annotated" \
        >/dev/null 2>"$W/$name.annotate.log" || { cat "$W/$name.annotate.log" >&2; exit 1; }
done <"$W/manifest.tsv"

"$OMPDAG" advise --build-model "$W/manifest.tsv" -o "$OUT"
echo "== wrote $OUT ($(grep -c '^sample' "$W/manifest.tsv") samples); manifest $W/manifest.tsv"
"$OMPDAG" advise --validate --model "$OUT"
