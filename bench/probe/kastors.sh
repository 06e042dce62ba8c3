#!/usr/bin/env bash
# bench/probe/kastors.sh BUILD_DIR [RUNS] — issue 13's end-to-end check on the
# KASTORS `depend` programs (KASTORS_DIR, default /work/src/kastors-benchmark;
# copied, never modified in place): jacobi-task-dep, sparselu-task-dep and
# strassen-task-dep, built with clang -O2 -g, extracted, run RUNS times
# (default 3; each run is KASTORS's warm-up plus one timed iteration, then its
# 5 s sleep) under the probe at OMP_NUM_THREADS=2, annotated, and reported at
# m = 2.  Prints one markdown row per program: the runtime's dependence order
# against the graph's D-edges (annotate's depend_check: pairs the runtime
# enforced and how many the graph implies, D-edges respected or extra,
# disagreements) and the bound against every clean observed run.  In the
# copy, `#pragma ompdag loop_bound(N)` lines are added before the loops whose
# trip count is an input (the flags column).  Exit status 3 when a clean run
# exceeds its bound or the runtime's order disagrees with a graph, 1 when a
# step fails.  RUN_PREFIX (e.g. "chrt -f 1") is put before each traced run:
# on a shared machine SCHED_FIFO keeps other processes from preempting the
# OpenMP threads, so that some runs are clean (not interfered); runs use
# `ompdag run --rt --threads 2` where SCHED_FIFO is permitted.  Annotate runs
# with --per-instance and MARGIN (PCT) and records the input's DAG: the row gives
# the bound for the task structure of these runs ÷ the clean max and the floor.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
runs=${2:-3}
src=${KASTORS_DIR:-/work/src/kastors-benchmark}
ompdag="$build/cli/ompdag"
rt=(--rt --threads 2)
chrt -f 1 true 2> /dev/null || rt=(--threads 2) # SCHED_FIFO permitted?
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
[ -n "${KEEP:-}" ] && echo "scratch: $tmp" >&2
cp -r "$src" "$tmp/k"
k="$tmp/k"
# loop_bound lines (the inputs below: jacobi -n JN -r 2, sparselu -n SN; JACOBI_N and
# SPARSELU_N, default 16 and 4, give larger inputs)
jn=${JACOBI_N:-16}
sn=${SPARSELU_N:-4}
sed -i "s|^\( *\)for (it = itold + 1; it <= itnew; it++) {|#pragma ompdag loop_bound(2)\n&|;
        s|^\( *\)for (i = 0; i < nx; i++) {|#pragma ompdag loop_bound($jn)\n&|" \
  "$k/jacobi/src/jacobi-task-dep.c"
sed -i "s|^\( *\)for (kk=0; kk<matrix_size; kk++)\$|#pragma ompdag loop_bound($sn)\n&|;
        s|^\( *\)for (jj=kk+1; jj<matrix_size; jj++)\$|#pragma ompdag loop_bound($((sn - 1)))\n&|;
        s|^\( *\)for (ii=kk+1; ii<matrix_size; ii++)\$|#pragma ompdag loop_bound($((sn - 1)))\n&|" \
  "$k/sparselu/src/sparselu-task-dep.c"
status=0
echo "| program | input | nodes / tasks / vars | runtime pairs (implied by the graph) | D-edges between tasks that ran: respected / extra / unchecked | disagreements | runs clean / interfered | bound m=2 (us) | without dispatch delays (us) | clean observed max (us) | bound ÷ observed | without delays ÷ observed | input bound ÷ observed (rule) | floor median | verdict |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# name  dir  region source  other sources  defines  extract flags  program arguments
while IFS='|' read -r name dir main others defs xflags args; do
  cd "$k/$dir"
  prog="$tmp/$name"
  if ! clang-14 -fopenmp -g -O2 $defs -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -Iinclude \
      -I"$k/common" "src/$main" $others "$k/common/main.c" -o "$prog" -lm -lnuma \
      2>"$tmp/$name.cc"; then
    echo "| $name | $args | build failed: $(grep -m1 error "$tmp/$name.cc" | tr '|' ' ') |||||||||||"
    status=1; continue
  fi
  # every source in a compilation database, so calls into them are followed
  python3 - "$k/$dir" "$defs -D_POSIX_C_SOURCE=200809L -D_XOPEN_SOURCE=700 -Iinclude -I$k/common" \
      "src/$main" $others <<'PY'
import json, sys
d, flags, files = sys.argv[1], sys.argv[2], sys.argv[3:]
json.dump([{"directory": d, "file": f, "command": f"clang-14 -fopenmp {flags} -c {f}"}
           for f in files], open(f"{d}/compile_commands.json", "w"))
PY
  if ! "$ompdag" extract -p . "src/$main" $xflags -o "$tmp/$name.json" 2>"$tmp/$name.ex"; then
    echo "| $name | $args | extract refused: $(head -c 160 "$tmp/$name.ex" | tr '\n|' '  ') |||||||||||"
    status=1; continue
  fi
  traces=()
  for i in $(seq 1 "$runs"); do
    ${RUN_PREFIX:-} "$ompdag" run --quiet "${rt[@]}" --trace "$tmp/$name-$i.trace" -- "$prog" $args \
      >/dev/null
    traces+=("$tmp/$name-$i.trace")
  done
  if ! "$ompdag" annotate "$tmp/$name.json" "${traces[@]}" --unobserved zero --per-instance \
      ${MARGIN:+--margin "$MARGIN"} -o "$tmp/$name.a.json" 2>"$tmp/$name.an"; then
    echo "| $name | $args | annotate failed: $(head -c 200 "$tmp/$name.an" | tr '\n|' '  ') |||||||||||"
    status=1; continue
  fi
  "$ompdag" report "$tmp/$name.a.json" --threads 2 --format json >"$tmp/$name.r.json"
  # the same without the measured dispatch delays (annotate --no-overheads)
  "$ompdag" annotate "$tmp/$name.json" "${traces[@]}" --unobserved zero --no-overheads -q --per-instance \
    -o "$tmp/$name.n.json"
  "$ompdag" report "$tmp/$name.n.json" --threads 2 --format json >"$tmp/$name.nr.json"
  row=$(python3 - "$tmp/$name.a.json" "$tmp/$name.r.json" "$tmp/$name.nr.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))["graphs"][0]
r = json.load(open(sys.argv[2]))["regions"][0]
nov = json.load(open(sys.argv[3]))["regions"][0]["bound_ns"]
dc = g.get("depend_check", {})
vars_ = {d["var"] for n in g["nodes"] for d in n.get("depend", [])}
tasks = len({n["task"] for n in g["nodes"]})
obs = r.get("observed_max_ns")
bound = r["bound_ns"]
runs = r.get("observed_runs", 0)
inter = r.get("runs_interfered", 0)
ratio = f"{bound / obs:.2f} ({r.get('tied_rule', '?')})" if obs else "n/a"
ib = r.get("input_bound_ns")
iratio = (f"{ib / obs:.2f} ({r.get('input_tied_rule', '?')})" if ib is not None and obs
          else "not recorded: " + (r.get("input_why") or "-")[:60])
fl = (r.get("breakdown") or {}).get("floor") or {}
fmed = f"{fl['median']:.2f}" if isinstance(fl.get("median"), (int, float)) else "-"
bad = dc.get("unsafe_disagreements", 0)
print(f"{len(g['nodes'])} / {tasks} / {len(vars_)} | {dc.get('runtime_pairs', 0)} "
      f"({dc.get('pairs_implied', 0)}) | {dc.get('dedges_respected', 0)} / "
      f"{dc.get('dedges_extra', 0)} / {dc.get('dedges_unchecked', 0)} | {bad} | "
      f"{runs - inter} / {inter} | {bound / 1000:.1f} | {nov / 1000:.1f} | "
      f"{obs / 1000:.1f} | {ratio} | {nov / obs:.2f} | {iratio} | {fmed} | " if obs else
      f"{len(g['nodes'])} / {tasks} / {len(vars_)} | {dc.get('runtime_pairs', 0)} "
      f"({dc.get('pairs_implied', 0)}) | {dc.get('dedges_respected', 0)} / "
      f"{dc.get('dedges_extra', 0)} / {dc.get('dedges_unchecked', 0)} | {bad} | "
      f"{runs - inter} / {inter} | {bound / 1000:.1f} | {nov / 1000:.1f} | — | n/a | n/a | n/a | - | ", end="")
v = ("refuted" if r.get("refuted") or (obs and ib is not None and obs > ib)
     else ("DISAGREES" if bad else "holds"))
print(v)
sys.exit(3 if v != "holds" else 0)
PY
  ) || status=3
  echo "| $name | \`$args\` | $row |"
done <<EOF
jacobi-task-dep|jacobi|jacobi-task-dep.c|src/poisson-task.c src/jacobi-seq.c|-DMSIZE -DBSIZE -DTITER||-n $jn -b 4 -r 2 -i 1
sparselu-task-dep|sparselu|sparselu-task-dep.c|src/sparselu.c src/sparselu-seq.c|-DMSIZE -DSMSIZE||-n $sn -m 64 -i 1
strassen-task-dep|strassen|strassen-task-dep.c|src/strassen.c src/strassen-seq.c|-DMSIZE -DCUTOFF_SIZE -DCUTOFF_DEPTH|--recursion-bound 2|-n 128 -s 64 -d 2 -i 1
EOF
exit $status
