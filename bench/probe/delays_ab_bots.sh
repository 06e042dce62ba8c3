#!/usr/bin/env bash
# bench/probe/delays_ab_bots.sh NEW_BUILD BASE_BUILD RUNS — bench/probe/bots.sh's programs and inputs,
# --margin 0, m = 2: bound ÷ clean observed max before (BASE binary: delays folded) and after
# (NEW: chain only, continuation class) on the same traces.
# BASE_BUILD is a build of a tree before issue 23 (delays folded into WCETs), e.g.
#   git archive 5705322 | tar -x -C /tmp/base && cmake -S /tmp/base -B /tmp/base/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/base/build --target ompdag ompdag_probe
# Traces are recorded once, with NEW_BUILD's probe; both binaries annotate and report them
# (docs/overheads.md, "Effect").  Not part of the tests: timings depend on the machine.
set -uo pipefail
build=$(cd "$1" && pwd); basebin=$(cd "$2" && pwd)/cli/ompdag
runs=${3:-10}; status=0
bots=${BOTS_DIR:-/work/src/bots}
ompdag="$build/cli/ompdag"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$(dirname "$0")/../bots_env.sh"
bots_setup "$bots" "$tmp"
echo "| program | input | runs clean / interfered | before bound (us) | before ÷ obs | after bound (us) | after ÷ obs | clean obs max (us) | start / wake / cont delay (us) | verdict after |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
while read -r name dir srcs def rb lb args; do
  cd "$tmp/omp-tasks/$dir"
  [ "$def" = "-" ] && def=""
  prog="$tmp/$name"
  if ! clang-14 -fopenmp -g -O2 $def -I"$tmp/common" -I. $srcs \
      "${bots_link[@]}" -o "$prog" -lm \
      2>"$tmp/$name.cc"; then
    echo "| $name | $args | $rb | build failed: $(grep -m1 error "$tmp/$name.cc") | | | | | | | |"; status=1; continue
  fi
  main=${srcs%% *}
  if ! "$ompdag" extract "$main" --recursion-bound "$rb" --loop-bound "$lb" -o "$tmp/$name.json" -- $def \
      -I"$tmp/common" -I. 2>"$tmp/$name.ex"; then
    echo "| $name | $args | $rb | extract refused: $(head -c 160 "$tmp/$name.ex" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  traces=()
  for i in $(seq 1 "$runs"); do
    OMP_NUM_THREADS=2 "$ompdag" run --quiet --trace "$tmp/$name-$i.trace" -- "$prog" $args -v 0 >/dev/null
    traces+=("$tmp/$name-$i.trace")
  done
  "$basebin" annotate "$tmp/$name.json" "${traces[@]}" --unobserved zero --margin 0 -o "$tmp/$name.b.json" 2>"$tmp/$name.bn" || echo "base annotate failed $name" >&2
  "$basebin" report "$tmp/$name.b.json" --threads 2 --format json >"$tmp/$name.br.json" 2>/dev/null || echo "base report failed $name" >&2
  if ! "$ompdag" annotate "$tmp/$name.json" "${traces[@]}" --unobserved zero --margin 0 -o "$tmp/$name.a.json" \
      2>"$tmp/$name.an"; then
    echo "| $name | $args | $rb | annotate failed: $(head -c 200 "$tmp/$name.an" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  mapped=$(sed -n 's/.* \([0-9]*\) mapped to .*, \([0-9]*\) unmapped/\1 \/ \2/p' "$tmp/$name.an")
  if ! "$ompdag" report "$tmp/$name.a.json" --threads 2 --format json >"$tmp/$name.r.json" \
      2>"$tmp/$name.rp"; then
    echo "| $name | $args | $rb | report failed: $(head -c 200 "$tmp/$name.rp" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  row=$(python3 - "$tmp/$name.r.json" "$tmp/$name.br.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["regions"][0]
try:
    rb = json.load(open(sys.argv[2]))["regions"][0]["bound_ns"]
except Exception:
    rb = None
ro = r["assumptions"]["runtime_overheads"] or {}
obs, b = r["observed_max_ns"], r["bound_ns"]
runs, intf = r["observed_runs"], r["runs_interfered"]
f = lambda x: ("%.2f" % (x / obs)) if obs and x else "n/a"
print("%d / %d | %s | %s | %.1f | %s | %s | %.1f / %.1f / %.1f | %s" % (
    runs - intf, intf, "%.1f" % (rb / 1e3) if rb else "-", f(rb), b / 1e3, f(b),
    "%.1f" % (obs / 1e3) if obs else "-", ro.get("start_delay_ns", 0) / 1e3,
    ro.get("wake_delay_ns", 0) / 1e3, ro.get("cont_delay_ns", 0) / 1e3, r["verdict"]))
PY
)
  echo "| $name | $args | $row |"
  case "$row" in *refuted*) status=3 ;; esac
done <<'LIST'
fib fib fib.c -DMANUAL_CUTOFF 3 1 -n 20 -x 3
nqueens nqueens nqueens.c -DMANUAL_CUTOFF 4 6 -n 6 -x 3
sort sort sort.c - 4 1 -n 32768 -y 2048 -a 2048 -b 20
strassen strassen strassen.c -DMANUAL_CUTOFF 2 1 -n 128 -x 2 -y 32
sparselu_single sparselu/sparselu_single sparselu.c - 1 8 -n 8 -m 8
LIST
exit $status
