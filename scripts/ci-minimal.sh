#!/usr/bin/env bash
# scripts/ci-minimal.sh [BUILD_DIR]: ompdag built WITHOUT its optional
# dependencies (libclang, libdw, hwloc, MPI; -DOMPDAG_WITH_*=OFF) still builds and
# every other command works; the commands that need one say which (.ci/run).
# Also checks that the full build's `ompdag` does not link LLVM, so it runs
# on machines without it: BUILD_DIR (default build) is the full build.
set -euo pipefail
cd "$(dirname "$0")/.."
full=${1:-build}
min=$(mktemp -d)
trap 'rm -rf "$min"' EXIT

if ldd "$full/cli/ompdag" | grep -Ei 'libclang|libLLVM'; then
  echo "ci-minimal: $full/cli/ompdag links LLVM"; exit 1
fi
echo "ci-minimal: the full ompdag links no libclang/libLLVM"

# No CUDA either (a machine without nvcc): CMAKE_CUDA_COMPILER=NOTFOUND skips the probe for it.
cmake -S . -B "$min" -DOMPDAG_WERROR=ON -DOMPDAG_WITH_LIBCLANG=OFF -DOMPDAG_WITH_LIBDW=OFF \
  -DOMPDAG_WITH_HWLOC=OFF -DOMPDAG_WITH_MPI=OFF -DCMAKE_CUDA_COMPILER=NOTFOUND > "$min/configure.log" 2>&1 || { cat "$min/configure.log"; exit 1; }
cmake --build "$min" -j "${JOBS:-2}" --target ompdag ompdag_probe > "$min/build.log" 2>&1 ||
  { tail -40 "$min/build.log"; exit 1; }
o=$min/cli/ompdag
if ldd "$o" | grep -Ei 'libclang|libLLVM|libdw|libhwloc|libmpi'; then
  echo "ci-minimal: the minimal ompdag links an optional library"; exit 1
fi
"$o" --version
"$o" validate examples/condag/fib.json
"$o" analyze examples/condag/figure5.json --threads 2 | grep -q 'm\*R = 13' ||
  { echo "ci-minimal: analyze"; exit 1; }
"$o" report examples/condag/fib.json --threads 4 > /dev/null
"$o" resources > /dev/null
"$o" gen --seed 1 -o "$min/g.json" && "$o" analyze "$min/g.json" --threads 4 > /dev/null

expect_refusal() { # CMD-NAME WORD ARGS...: exits non-zero and names WORD
  local name=$1 word=$2
  shift 2
  local out
  if out=$("$o" "$name" "$@" 2>&1); then echo "ci-minimal: $name succeeded without $word"; exit 1; fi
  echo "$out" | grep -q "$word" || { echo "ci-minimal: $name does not name $word: $out"; exit 1; }
  echo "ci-minimal: $name says: $(echo "$out" | head -1)"
}
expect_refusal extract libclang examples/fig2_branch_sync.c -o "$min/x.json"
expect_refusal bfs MPI --graph kron:4 --distributed
"$o" bfs --graph kron:8 --sources 2 --validate > /dev/null
# run works without libdw (it cannot tell libgomp programs apart, and says
# so); annotate needs libdw and must say it.
clang=$(sed -n 's/^OMPDAG_CLANG:FILEPATH=//p' "$min/CMakeCache.txt")
if [ -n "$clang" ] && [ -e "$min/runtime-probe/libompdag_probe.so" ]; then
  "$clang" -fopenmp -g -O1 -Iexamples examples/fig2_branch_sync.c -o "$min/fig2"
  "$o" run --quiet --trace "$min/fig2.trace" -- "$min/fig2" 1 > /dev/null 2> "$min/run.err" ||
    { cat "$min/run.err"; exit 1; }
  [ -s "$min/fig2.trace" ] || { echo "ci-minimal: run wrote no trace"; exit 1; }
  expect_refusal annotate libdw examples/condag/fib.json "$min/fig2.trace" -o "$min/a.json"
fi
echo "ci-minimal: all passed"
