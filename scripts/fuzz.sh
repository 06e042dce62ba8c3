#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [BUILD_DIR]: builds every libFuzzer target (fuzz/)
# (fuzz_* with -DOMPDAG_FUZZ=ON, clang) and runs each for SECONDS (default 60)
# on a copy of its corpus (fuzz/corpus/<name without fuzz_>/, else the part
# before the first '_': fuzz_trace_reader -> fuzz/corpus/trace).
# A crash, leak or sanitizer report fails the script.  `make fuzz` and
# .ci/run (briefly) call it.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
build=${2:-build-fuzz}
cc=$(command -v clang || true)
if [ -z "$cc" ] && command -v llvm-config > /dev/null; then cc=$(llvm-config --bindir)/clang; fi
[ -x "$cc" ] || { echo "fuzz: clang not found" >&2; exit 2; }
CC=$cc cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DOMPDAG_FUZZ=ON > /dev/null
build=$(cd "$build" && pwd)
targets=$(cmake --build "$build" --target help | sed -n 's/^\.\.\. \(fuzz_[a-z_]*\).*/\1/p' |
  grep -v '_replay$' | sort -u)
[ -n "$targets" ] || { echo "fuzz: no fuzz targets" >&2; exit 2; }
# shellcheck disable=SC2086
cmake --build "$build" -j "${JOBS:-2}" --target $targets > /dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for t in $targets; do
  bin=$(find "$build" -type f -name "$t" -perm -u+x | head -1)
  corpus=$work/$t
  mkdir -p "$corpus"
  name=${t#fuzz_}
  for src_corpus in "fuzz/corpus/$name" "fuzz/corpus/${name%%_*}"; do
    if [ -d "$src_corpus" ]; then cp "$src_corpus"/* "$corpus"/; break; fi
  done
  echo "fuzz: $t for ${secs}s ($(ls "$corpus" | wc -l) seeds)"
  (cd "$work" && "$bin" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 "$corpus" \
    > "$work/$t.log" 2>&1) || { tail -40 "$work/$t.log"; echo "fuzz: $t FAILED"; exit 1; }
  grep -E '^stat::number_of_executed_units' "$work/$t.log" | sed "s/^/  /"
done
