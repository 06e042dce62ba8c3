#!/usr/bin/env bash
# tests/cli/demo_passes.sh BUILD — `make demo`'s script (scripts/demo.sh) on
# this build, its files in a temp directory: it must end with the deadline
# check passing (exit 0), on min(nproc, 4) threads, every run's interference
# counted, the region's verdict line printed (issue 22 item 10).
set -uo pipefail
BUILD=$1
SRC=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompdag-demo-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "demo_passes: $*" >&2; cat "$tmp/out" >&2; exit 1; }

cd "$SRC" && OMPDAG_DEMO_OUT="$tmp/demo" ./scripts/demo.sh "$BUILD" > "$tmp/out" 2>&1
status=$?
threads=$(nproc)
threads=$((threads < 4 ? threads : 4))
[ "$status" -eq 0 ] || fail "exit status $status, not 0"
grep -q "^region: pass: .* on $threads threads, deadline 10 ms" "$tmp/out" ||
  fail "no 'region: pass ... on $threads threads' verdict line"
grep -q '^(ompdag check exit status: 0)$' "$tmp/out" || fail "no check exit status 0"
runs=$(grep -c '^  run [01] (branch \(then\|else\)): [0-9]* of 1 region run(s), [0-9]* of [0-9]* thread-run(s) interfered$' "$tmp/out")
[ "$runs" -eq 6 ] || fail "$runs runs with an interference count, not 6"
[ -s "$tmp/demo/fig2.report.html" ] && [ -s "$tmp/demo/fig2.svg" ] || fail "no HTML report or SVG"
echo "demo passes on $threads thread(s)"
