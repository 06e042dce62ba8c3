#!/usr/bin/env bash
# bench/probe/delays_ab.sh NEW_BUILD BASE_BUILD RUNS — bound ÷ clean observed max at m = 2,
# --margin 0, before (BASE: delays folded, start + wake) and after (NEW: chain only,
# start + wake + cont), on the same traces of tests/probe/progs programs.
# BASE_BUILD is a build of a tree before issue 23 (delays folded into WCETs), e.g.
#   git archive 5705322 | tar -x -C /tmp/base && cmake -S /tmp/base -B /tmp/base/build \
#     -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build /tmp/base/build --target ompdag ompdag_probe
# Traces are recorded once, with NEW_BUILD's probe; both binaries annotate and report them
# (docs/overheads.md, "Effect").  Not part of the tests: timings depend on the machine.
set -uo pipefail
new=$(cd "$1" && pwd)/cli/ompdag; base=$(cd "$2" && pwd)/cli/ompdag; runs=${3:-15}
src=$(cd "$(dirname "$0")/../.." && pwd)/tests/probe/progs; bin=$(cd "$1" && pwd)/tests/probe/progs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "| program | args | runs clean/interfered | before: bound us | before ÷ obs | after: bound us | after ÷ obs | clean obs max us | start/wake/cont delay us (after) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
while IFS='|' read -r name exe xflags args; do
  "$new" extract "$src/$name.c" $xflags -o "$tmp/$name.json" 2>"$tmp/$name.ex" || { echo "| $name | extract failed: $(head -c 120 $tmp/$name.ex) |"; continue; }
  tr=()
  for i in $(seq 1 "$runs"); do
    OMP_NUM_THREADS=2 "$new" run --quiet --trace "$tmp/$name-$i.trace" -- "$bin/$exe" $args >/dev/null 2>&1
    tr+=("$tmp/$name-$i.trace")
  done
  for v in base new; do
    b=${!v}
    "$b" annotate "$tmp/$name.json" "${tr[@]}" --margin 0 --unobserved zero -o "$tmp/$name.$v.json" 2>"$tmp/$name.$v.an" || { echo "| $name | $v annotate failed: $(head -c 200 $tmp/$name.$v.an | tr '\n|' '  ') |"; continue 2; }
    "$b" report "$tmp/$name.$v.json" --threads 2 --format json >"$tmp/$name.$v.r.json" 2>"$tmp/$name.$v.rp" || { echo "| $name | $v report failed: $(head -c 200 $tmp/$name.$v.rp | tr '\n|' '  ') |"; continue 2; }
  done
  python3 - "$tmp/$name.base.r.json" "$tmp/$name.new.r.json" "$name" "$args" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["regions"]; n = json.load(open(sys.argv[2]))["regions"]
for i, (rb, rn) in enumerate(zip(b, n)):
    obs = rn["observed_max_ns"]; ro = rn["assumptions"]["runtime_overheads"] or {}
    f = lambda r: "%.2f" % (r["bound_ns"] / obs) if obs else "n/a"
    print("| %s%s | %s | %d / %d | %.1f | %s | %.1f | %s | %s | %.1f / %.1f / %.1f |" % (
        sys.argv[3], "" if len(n) == 1 else " r%d" % i, sys.argv[4] or "-",
        rn["observed_runs"] - rn["runs_interfered"], rn["runs_interfered"],
        rb["bound_ns"] / 1e3, f(rb), rn["bound_ns"] / 1e3, f(rn),
        "%.1f" % (obs / 1e3) if obs else "-", ro.get("start_delay_ns", 0) / 1e3,
        ro.get("wake_delay_ns", 0) / 1e3, ro.get("cont_delay_ns", 0) / 1e3))
PY
done <<'LIST'
tasks|tasks||1 20
tree|o2/tree||200
untied|untied|--loop-bound 50|50
rec|rec|--recursion-bound 3|3 20
rec2|rec2||2 2
depend|depend||
LIST
