#!/usr/bin/env bash
# bench/probe/bots.sh BUILD_DIR [RUNS] — issue 12's acceptance run: the
# manual-cutoff variants of BOTS fib, nqueens, sort, strassen and
# sparselu_single (BOTS_DIR, default /work/src/bots; copied, never modified),
# built with clang -O2 -g, extracted, run RUNS times (default 10) under the
# probe at OMP_NUM_THREADS=2, annotated (max + 20%, dispatch delays calibrated
# from the same traces), and the exact bound at m = 2 compared with every
# clean (not interfered) observed task-system response.  Prints one markdown
# row per program: bound ÷ clean observed max is the tightness (>= 1 when the
# bound holds); interfered runs are counted apart.  Exit status 3 when a
# clean run exceeds its bound ('refuted'), 1 when a step fails.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
runs=${2:-10}
bots=${BOTS_DIR:-/work/src/bots}
ompdag="$build/cli/ompdag"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$bots/common" "$bots/omp-tasks" "$tmp/"
info=('-DCDATE="ompdag"' '-DCC="clang-14"' '-DLD="clang-14"' '-DCMESSAGE=""' '-DLDFLAGS=""'
      '-DCFLAGS="-O2 -g"')
status=0
echo "| program | input | recursion bound | segments mapped / unmapped | runs (clean / interfered) | bound m=2 (us) | clean observed max (us) | bound ÷ observed | interfered max (us) | start / wake delay (us) | verdict |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# name  dir  sources  cutoff-define  recursion-bound  program arguments
# (sort and sparselu_single have no cutoff variants: their own thresholds are
# the manual cutoff.  nqueens's loop over the board has a run-time trip count
# and strassen, sort and sparselu put a task directly on `single`: the front
# end needs '#pragma ompdag loop_bound(N)' and a block there, which the patch
# below adds to the temporary copy only.)
python3 - "$tmp/omp-tasks" <<'PY'
import re, sys
root = sys.argv[1]
def patch(path, fn):
    with open(path) as f:
        lines = f.read().split("\n")
    with open(path, "w") as f:
        f.write("\n".join(fn(lines)))
def loop_bound(lines):  # nqueens: the board loop runs n = 6 times (-n 6)
    out = []
    for l in lines:
        if re.match(r"\s*for \(i = 0; i < n; i\+\+\) \{", l):
            out.append("#pragma ompdag loop_bound(6)")
        out.append(l)
    return out
def task_block(lines):  # `single` + `task` on one statement: give the task a block
    out, i = [], 0
    while i < len(lines):
        if "#pragma omp single" in lines[i] and i + 1 < len(lines) and \
                re.match(r"\s*#pragma omp task untied\s*$", lines[i + 1]):
            out += [lines[i], "{", lines[i + 1]]
            i += 2
            depth, seen = 0, False
            while i < len(lines):
                l = lines[i]
                out.append(l)
                depth += l.count("{") - l.count("}")
                seen = seen or "{" in l
                i += 1
                if (seen and depth == 0) or (not seen and l.rstrip().endswith(";")):
                    break
            out.append("}")
            continue
        out.append(lines[i])
        i += 1
    return out
patch(root + "/nqueens/nqueens.c", loop_bound)
for f in ("strassen/strassen.c", "sort/sort.c", "sparselu/sparselu_single/sparselu.c"):
    patch(root + "/" + f, task_block)
PY
while read -r name dir srcs def rb args; do
  cd "$tmp/omp-tasks/$dir"
  [ "$def" = "-" ] && def=""
  prog="$tmp/$name"
  if ! clang-14 -fopenmp -g -O2 $def -I"$tmp/common" -I. $srcs \
      "$tmp/common/bots_main.c" "$tmp/common/bots_common.c" "${info[@]}" -o "$prog" -lm \
      2>"$tmp/$name.cc"; then
    echo "| $name | $args | $rb | build failed: $(grep -m1 error "$tmp/$name.cc") | | | | | | | |"; status=1; continue
  fi
  main=${srcs%% *}
  if ! "$ompdag" extract "$main" --recursion-bound "$rb" -o "$tmp/$name.json" -- $def \
      -I"$tmp/common" -I. 2>"$tmp/$name.ex"; then
    echo "| $name | $args | $rb | extract refused: $(head -c 160 "$tmp/$name.ex" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  traces=()
  for i in $(seq 1 "$runs"); do
    OMP_NUM_THREADS=2 "$ompdag" run --quiet --trace "$tmp/$name-$i.trace" -- "$prog" $args -v 0 >/dev/null
    traces+=("$tmp/$name-$i.trace")
  done
  if ! "$ompdag" annotate "$tmp/$name.json" "${traces[@]}" --unobserved zero -o "$tmp/$name.a.json" \
      2>"$tmp/$name.an"; then
    echo "| $name | $args | $rb | annotate failed: $(head -c 200 "$tmp/$name.an" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  mapped=$(sed -n 's/.* \([0-9]*\) mapped to .*, \([0-9]*\) unmapped/\1 \/ \2/p' "$tmp/$name.an")
  "$ompdag" report "$tmp/$name.a.json" --threads 2 --format json >"$tmp/$name.r.json"
  row=$(python3 - "$tmp/$name.r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["regions"][0]
ro = r["assumptions"]["runtime_overheads"] or {}
obs, b = r["observed_max_ns"], r["bound_ns"]
runs, intf = r["observed_runs"], r["runs_interfered"]
ratio = "%.2f" % (b / obs) if obs else "n/a (no clean run)"
im = r["observed_interfered_max_ns"]
print("%d / %d | %.1f | %s | %s | %s | %.1f / %.1f | %s" % (
    runs - intf, intf, b / 1e3, "%.1f" % (obs / 1e3) if obs else "-", ratio,
    "%.1f" % (im / 1e3) if im else "-", ro.get("start_delay_ns", 0) / 1e3,
    ro.get("wake_delay_ns", 0) / 1e3, r["verdict"]))
PY
)
  echo "| $name | $args | $rb | $mapped | $row |"
  case "$row" in *refuted*) status=3 ;; esac
done <<'LIST'
fib fib fib.c -DMANUAL_CUTOFF 3 -n 20 -x 3
nqueens nqueens nqueens.c -DMANUAL_CUTOFF 4 -n 6 -x 3
sort sort sort.c - 3 -n 32768 -y 2048 -a 2048 -b 20
strassen strassen strassen.c -DMANUAL_CUTOFF 2 -n 128 -x 2 -y 32
sparselu_single sparselu/sparselu_single sparselu.c - 1 -n 8 -m 8
LIST
exit $status
