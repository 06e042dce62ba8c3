#!/usr/bin/env bash
# bench/probe/bots.sh BUILD_DIR [RUNS] — issue 12's acceptance run: the
# manual-cutoff variants of BOTS fib, nqueens, sort, strassen and
# sparselu_single (BOTS_DIR, default /work/src/bots; copied, never modified),
# built with clang -O2 -g, extracted, run RUNS times (default 10) under the
# probe at OMP_NUM_THREADS=2, annotated (max + 20%, dispatch delays calibrated
# from the same traces), and the exact bound at m = 2 compared with every
# clean (not interfered) observed task-system response.  Prints one markdown
# row per program: bound ÷ clean observed max is the tightness (>= 1 when the
# bound holds); interfered runs are counted apart.  Beside it (issue 23 item
# 6, docs/report.md "breakdown") the floor — min / median / max over the
# clean runs of Graham's bound of each run's own DAG ÷ its response, >= 1
# always — and the breakdown: tasks in the worst flow / tasks run, volume ÷
# observed work, the dispatch delays' share of Graham's bound, the margin, the
# top outlier location (max ÷ median) and the factor to attack first.
# Runs use `ompdag run --rt --threads 2` (SCHED_FIFO, pinned) where SCHED_FIFO
# is permitted, else `--threads 2`; RUN_PREFIX is put before each traced run;
# MARGIN (PCT, default annotate's 20) is passed to annotate --margin.  Annotate
# runs without --unobserved zero; only where some node is never observed is it
# rerun with it, and the row says so (the graph is then unsafe).  ASSUME=1
# extracts for the input run (`extract --assume` of the cutoff and size, issue
# 23 item 5) where the program has one.  Annotate runs with --per-instance
# (compact graphs unfolded, so WCETs and delays are kept per task instance)
# and records the input's DAG (docs/probe.md#input): the row gives the bound
# for the task structure of these runs ÷ the clean observed max beside the
# all-inputs bound's ratio.  Exit status 3 when a clean run exceeds either
# bound ('refuted'), 1 when a step fails.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
runs=${2:-10}
bots=${BOTS_DIR:-/work/src/bots}
ompdag="$build/cli/ompdag"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && echo "kept $tmp" >&2 || rm -rf "$tmp"' EXIT
# shellcheck source=bench/bots_env.sh
source "$(dirname "$0")/../bots_env.sh"
bots_setup "$bots" "$tmp"
status=0
rt=(--rt --threads 2)
chrt -f 1 true 2> /dev/null || rt=(--threads 2) # SCHED_FIFO permitted?
# The input each program is run with, as extract --assume flags (ASSUME=1).
assume_for() {
  [ "${ASSUME:-0}" = 1 ] || return 0
  case "$1" in
    fib) echo "--assume n=20 --assume bots_cutoff_value=3" ;;
    nqueens) echo "--assume size=6 --assume bots_cutoff_value=3" ;;
    strassen) echo "--assume n=128 --assume bots_cutoff_value=2 --assume bots_app_cutoff_value=32" ;;
  esac
}
echo "| program | input | recursion bound | segments mapped / unmapped | runs (clean / interfered) | bound m=2 (us) | clean observed max (us) | bound ÷ observed | input bound (us) | input bound ÷ observed | interfered max (us) | start / wake delay (us) | verdict | floor min / median / max | tasks flow / run | vol ÷ work | delays % | margin % | top outlier | attack first |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
# name  dir  sources  cutoff-define  recursion-bound  program arguments
# (sort and sparselu_single have no cutoff variants: their own thresholds are
# the manual cutoff.)  The sources are used as they are: the front end takes
# BOTS' stacked directives, and loops with run-time trip counts get the
# default `--loop-bound LB` (at most LB iterations), named per program below.
# ONLY="fib sort" runs those programs alone; SPARSELU_N (default 8) sizes sparselu_single
slu=${SPARSELU_N:-8}
while read -r name dir srcs def rb lb args; do
  case " ${ONLY:-$name} " in *" $name "*) ;; *) continue ;; esac
  cd "$tmp/omp-tasks/$dir"
  [ "$def" = "-" ] && def=""
  prog="$tmp/$name"
  if ! clang-14 -fopenmp -g -O2 $def -I"$tmp/common" -I. $srcs \
      "${bots_link[@]}" -o "$prog" -lm \
      2>"$tmp/$name.cc"; then
    echo "| $name | $args | $rb | build failed: $(grep -m1 error "$tmp/$name.cc") | | | | | | | |"; status=1; continue
  fi
  main=${srcs%% *}
  # shellcheck disable=SC2046
  if ! "$ompdag" extract "$main" --recursion-bound "$rb" --loop-bound "$lb" $(assume_for "$name") \
      -o "$tmp/$name.json" -- $def \
      -I"$tmp/common" -I. 2>"$tmp/$name.ex"; then
    echo "| $name | $args | $rb | extract refused: $(head -c 160 "$tmp/$name.ex" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  traces=()
  for i in $(seq 1 "$runs"); do
    ${RUN_PREFIX:-} "$ompdag" run --quiet "${rt[@]}" --trace "$tmp/$name-$i.trace" -- "$prog" $args -v 0 >/dev/null
    traces+=("$tmp/$name-$i.trace")
  done
  unobs=""
  annotate() { "$ompdag" annotate "$tmp/$name.json" "${traces[@]}" ${MARGIN:+--margin "$MARGIN"} --per-instance "$@" \
                 -o "$tmp/$name.a.json" 2>"$tmp/$name.an"; }
  ok=1
  if ! annotate; then
    ok=0
    if grep -q "never observed" "$tmp/$name.an"; then
      unobs=" (--unobserved zero)"
      annotate --unobserved zero && ok=1
    fi
  fi
  if [ "$ok" = 0 ]; then
    echo "| $name | $args | $rb | annotate failed: $(head -c 200 "$tmp/$name.an" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  mapped=$(sed -n 's/.* \([0-9]*\) mapped to .*, \([0-9]*\) unmapped/\1 \/ \2/p' "$tmp/$name.an")
  if ! "$ompdag" report "$tmp/$name.a.json" --threads 2 --format json >"$tmp/$name.r.json" \
      2>"$tmp/$name.rp"; then
    echo "| $name | $args | $rb | report failed: $(head -c 200 "$tmp/$name.rp" | tr '\n|' '  ') | | | | | | | |"; status=1; continue
  fi
  row=$(python3 - "$tmp/$name.r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["regions"][0]
ro = r["assumptions"]["runtime_overheads"] or {}
obs, b = r["observed_max_ns"], r["bound_ns"]
runs, intf = r["observed_runs"], r["runs_interfered"]
ratio = "%.2f" % (b / obs) if obs else "n/a (no clean run)"
ratio += " (%s)" % r.get("tied_rule", "?")
ib = r.get("input_bound_ns")
iratio = ("%.2f (%s)" % (ib / obs, r.get("input_tied_rule", "?")) if ib is not None and obs
          else "not recorded: %s" % (r.get("input_why") or "-")[:80])
ibound = "%.1f" % (ib / 1e3) if ib is not None else "-"
refuted = obs and ib is not None and obs > ib
im = r["observed_interfered_max_ns"]
bd = r.get("breakdown") or {}
fl = bd.get("floor") or {}
def num(v, f="%.2f"):
    return f % v if isinstance(v, (int, float)) else "-"
floor = "%s / %s / %s%s" % (num(fl.get("min")), num(fl.get("median")), num(fl.get("max")),
                            " BELOW 1 in %d run(s)" % fl["below_one"] if fl.get("below_one") else "")
tasks = "%s / %s" % (bd.get("flow_tasks", "-") if bd.get("flow_tasks") is not None else "-",
                     bd.get("observed_tasks", "-") if bd.get("observed_tasks") is not None else "-")
vw = num(bd["vol_ns"] / bd["observed_work_ns"]) if bd.get("vol_ns") and bd.get("observed_work_ns") else "-"
share = num(100 * bd["delay_share"], "%.1f") if bd.get("delay_share") is not None else "-"
out = (bd.get("outliers") or [])
top = "%s %.3g×" % (out[0]["place"], out[0]["ratio"]) if out else "-"
print("%d / %d | %.1f | %s | %s | %s | %s | %s | %.1f / %.1f | %s | %s | %s | %s | %s | %s | %s | %s" % (
    runs - intf, intf, b / 1e3, "%.1f" % (obs / 1e3) if obs else "-", ratio, ibound,
    iratio + (" REFUTED" if refuted else ""),
    "%.1f" % (im / 1e3) if im else "-", ro.get("start_delay_ns", 0) / 1e3,
    ro.get("wake_delay_ns", 0) / 1e3, r["verdict"], floor, tasks, vw, share,
    num(bd.get("margin_pct"), "%.3g"), top, bd.get("largest") or "-"))
PY
)
  echo "| $name$unobs | $args $(assume_for "$name") | $rb | $mapped | $row |"
  case "$row" in *refuted*|*REFUTED*) status=3 ;; esac
done <<LIST
fib fib fib.c -DMANUAL_CUTOFF 3 1 -n 20 -x 3
nqueens nqueens nqueens.c -DMANUAL_CUTOFF 4 6 -n 6 -x 3
sort sort sort.c - 4 1 -n 32768 -y 2048 -a 2048 -b 20
strassen strassen strassen.c -DMANUAL_CUTOFF 2 1 -n 128 -x 2 -y 32
sparselu_single sparselu/sparselu_single sparselu.c - 1 $slu -n $slu -m 8
LIST
exit $status
