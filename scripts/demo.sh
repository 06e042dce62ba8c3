#!/usr/bin/env bash
# `make demo`: ompdag's main job, end to end, on a bundled example
# (examples/fig2_branch_sync.c, the seed's Figure 2 program):
#   1. extract its task graph from the C source (libclang front end)
#   2. build it with clang -fopenmp -g and run it under the OMPT probe,
#      once per branch outcome, to measure every task segment
#   3. annotate the graph with WCETs (high-water mark + 20 %)
#   4. compute the exact bound (and the RTAS'19 baseline) on 2 and 4 threads
#   5. check a deadline, and write HTML/SVG reports
set -euo pipefail
BUILD=${1:-build}
OMPDAG=$BUILD/cli/ompdag
OUT=$BUILD/demo
SRC=examples/fig2_branch_sync.c
# The clang of the LLVM the build found (cmake/OmpdagLLVM.cmake).
CLANG=$(sed -n 's/^OMPDAG_CLANG:FILEPATH=//p' "$BUILD/CMakeCache.txt")
CLANG=${CLANG:-clang}
mkdir -p "$OUT"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "1. extract the con-DAG of $SRC"
"$OMPDAG" extract "$SRC" -o "$OUT/fig2.condag.json"
"$OMPDAG" validate "$OUT/fig2.condag.json"

step "2. build with clang -fopenmp -g, run under the OMPT probe (both branch outcomes)"
"$CLANG" -fopenmp -g -O2 -Iexamples "$SRC" -o "$OUT/fig2"
traces=()
for exp in 1 0 1 0 1 0; do
  t="$OUT/fig2.$exp.${#traces[@]}.trace"
  "$OMPDAG" run --quiet --trace "$t" -- "$OUT/fig2" "$exp" > /dev/null
  traces+=("$t")
done
echo "${#traces[@]} traces in $OUT"

step "3. annotate WCETs (max estimator, 20 % margin)"
"$OMPDAG" annotate "$OUT/fig2.condag.json" "${traces[@]}" -o "$OUT/fig2.annotated.json"

step "4. exact bound vs the RTAS'19 baseline"
"$OMPDAG" analyze "$OUT/fig2.annotated.json" --threads 2,4 --algorithm exact,alg0

step "5. deadline check and reports"
set +e
"$OMPDAG" check "$OUT/fig2.annotated.json" --threads 4 --deadline region=10ms
echo "(ompdag check exit status: $?)"
set -e
"$OMPDAG" report "$OUT/fig2.annotated.json" --threads 2,4 --deadline region=10ms
"$OMPDAG" report "$OUT/fig2.annotated.json" --threads 2,4 --deadline region=10ms \
  --format html -o "$OUT/fig2.report.html"
"$OMPDAG" dot "$OUT/fig2.annotated.json" --flow worst --threads 4 --svg -o "$OUT/fig2.svg"
echo
echo "wrote $OUT/fig2.report.html and $OUT/fig2.svg"
