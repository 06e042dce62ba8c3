#!/usr/bin/env bash
# tests/bfs/mpi_cli_test.sh MPIEXEC OMPDAG — `ompdag bfs` under mpirun (issue 30):
# the report names the ranks and the bytes per level; searches on 2, 3 and 4
# ranks find the levels and directions one process finds (Kronecker, uniform
# and a file); -np 1 is a one-process run; a bad file on one rank stops every
# rank with one clear error and no hang; a usage error is printed once;
# `ompdag experiment` over 3 ranks writes the CSV one process writes, and
# `analyze --device` over 3 ranks prints one process's bounds; `resources`
# over 3 ranks of one node lists one node, and `map` maps over HOST:TARGET.
# Every mpirun is bounded by `timeout`, so a hang fails the test instead of
# holding ctest.  Writes only into its own temporary directory.
set -u
mpiexec=$1
ompdag=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompdag-mpi-cli-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() {
    echo "FAIL: $1"
    fail=1
}
run() { timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root "$@"; }

# The columns that do not depend on timing: source, levels, valid, directions.
one_process_searches() { awk '$1 ~ /^[0-9]+$/ && NF >= 7 {print $2, $5, $6, $7}' "$1"; }
distributed_searches() { awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $2, $5, $6, $8}' "$1"; }

same_as_one_process() { # NAME NP GRAPH...
    local name=$1 np=$2
    shift 2
    "$ompdag" bfs --sources 4 --validate "$@" >"$tmp/one.txt" 2>&1
    run -np "$np" "$ompdag" bfs --sources 4 --validate "$@" >"$tmp/many.txt" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name: mpirun -np $np exited $rc"
        cat "$tmp/many.txt"
        return
    fi
    one_process_searches "$tmp/one.txt" >"$tmp/one.cols"
    distributed_searches "$tmp/many.txt" >"$tmp/many.cols"
    if [ -s "$tmp/one.cols" ] && cmp -s "$tmp/one.cols" "$tmp/many.cols"; then
        ok "$name: $np ranks find the levels and directions of one process"
    else
        bad "$name: $np ranks differ from one process"
        diff "$tmp/one.cols" "$tmp/many.cols"
    fi
    grep -q "split over $np MPI ranks" "$tmp/many.txt" || bad "$name: the ranks are not named"
    grep -q "validation: 4 of 4 searches valid" "$tmp/many.txt" || bad "$name: not all valid"
    grep -q "levels of search 0, with the bytes sent between the $np ranks" "$tmp/many.txt" ||
        bad "$name: no per-level communication"
    [ "$(grep -c '^engine cpu on' "$tmp/many.txt")" -eq 1 ] || bad "$name: report not printed once"
    case $name in file*) grep -q "^file read in parallel: rank 0 read [0-9]* bytes" "$tmp/many.txt" ||
        bad "$name: the parallel read is not reported" ;;
    esac
}

same_as_one_process kron:10 2 --graph kron:10
same_as_one_process uniform:11 4 --graph uniform:11
{
    echo "# vertices 200"
    for v in $(seq 0 149); do echo "$v $((v + 1))"; echo "$v $(((v * 7 + 3) % 150))"; done
    for v in $(seq 160 198); do echo "$v $((160 + (v * 13) % 39))"; done
} >"$tmp/good.el"
same_as_one_process file 3 --graph "$tmp/good.el"

# JSON: ranks, bytes per level, one document.
run -np 2 "$ompdag" bfs --graph kron:10 --sources 2 --format json >"$tmp/j" 2>"$tmp/je"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '"ranks": 2' "$tmp/j")" -eq 1 ] &&
    [ "$(grep -c '"level_bytes": \[[0-9]' "$tmp/j")" -eq 2 ] && grep -q '"mean_comm_bytes"' "$tmp/j"; then
    ok "json names the ranks and the bytes per level"
else
    bad "json (rc $rc)"
    cat "$tmp/j" "$tmp/je"
fi
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j" || bad "json does not parse"
fi

# -np 1 is a one-process run.
run -np 1 "$ompdag" bfs --graph kron:10 --sources 2 >"$tmp/np1.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && ! grep -q "MPI ranks" "$tmp/np1.txt" && grep -q "^engine cpu: 2 searches" "$tmp/np1.txt"; then
    ok "-np 1 runs as one process"
else
    bad "-np 1 (rc $rc)"
    cat "$tmp/np1.txt"
fi

# A bad file on one rank (MPMD: rank 1 gets another file): one clear error, no hang.
printf '0 1\n1 x\n' >"$tmp/bad.el"
run -np 1 "$ompdag" bfs --graph "$tmp/good.el" : -np 1 "$ompdag" bfs --graph "$tmp/bad.el" \
    >"$tmp/f.out" 2>"$tmp/f.err"
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c "rank 1: .*bad.el:2" "$tmp/f.err")" -eq 1 ] &&
    ! grep -q "^engine" "$tmp/f.out"; then
    ok "a bad file on rank 1 stops both ranks with one error"
else
    bad "bad file on one rank (rc $rc; 124 is a hang)"
    cat "$tmp/f.out" "$tmp/f.err"
fi

# The same file read in parallel (each rank its byte range): a bad line near
# the end is reported by the last rank with the file:line one process gives.
{ cat "$tmp/good.el"; echo "5 7 x"; } >"$tmp/late.el"
"$ompdag" bfs --graph "$tmp/late.el" >/dev/null 2>"$tmp/late1.err"
run -np 3 "$ompdag" bfs --graph "$tmp/late.el" >"$tmp/late.out" 2>"$tmp/late.err"
rc=$?
line=$(grep -o 'late.el:[0-9]*: .*' "$tmp/late1.err")
if [ $rc -eq 1 ] && [ -n "$line" ] && [ "$(grep -c "rank 2: .*$line" "$tmp/late.err")" -eq 1 ]; then
    ok "a file read by byte range: the last rank reports one process's error ($line)"
else
    bad "bad line read by the last rank (rc $rc, one process: '$line')"
    cat "$tmp/late.out" "$tmp/late.err"
fi

# --engine gpu under mpirun: each rank binds a GPU of its node; a rank with
# none (this build box) stops every rank with one error naming the reason.
# Where every rank has a device the search runs (not run here: no GPU).
run -np 2 "$ompdag" bfs --graph kron:8 --sources 2 --engine gpu >"$tmp/gpu.out" 2>"$tmp/gpu.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^engine gpu on 2 ranks" "$tmp/gpu.out"; then
    ok "--engine gpu on 2 ranks ran on the ranks' GPUs"
elif [ $rc -eq 1 ] && [ "$(grep -c "rank [01]: no GPU for this rank" "$tmp/gpu.err")" -eq 1 ]; then
    ok "--engine gpu on 2 ranks without a GPU: one error ($(grep -o 'no GPU for this rank: .*' "$tmp/gpu.err" | head -1))"
else
    bad "--engine gpu under mpirun (rc $rc)"
    cat "$tmp/gpu.out" "$tmp/gpu.err"
fi

# Ranks that read different graphs are refused.
run -np 1 "$ompdag" bfs --graph "$tmp/good.el" : -np 1 "$ompdag" bfs --graph kron:4 \
    >"$tmp/d.out" 2>"$tmp/d.err"
rc=$?
[ $rc -eq 2 ] && [ "$(grep -c "different --graph kinds" "$tmp/d.err")" -eq 1 ] &&
    ok "ranks on different kinds of graph stop with one error" ||
    { bad "ranks on different graphs (rc $rc)"; cat "$tmp/d.out" "$tmp/d.err"; }

# experiment (issue 30 item 2): the sweep over 3 ranks writes the CSV of one
# process (timing columns aside), and rank 0 alone writes it.
for sweep in tasks p-dep; do
    "$ompdag" experiment --sweep $sweep --graphs 5 --no-plot --out "$tmp/exp1" 2>/dev/null
    run -np 3 "$ompdag" experiment --sweep $sweep --graphs 5 --no-plot --out "$tmp/exp3" \
        2>"$tmp/exp3.err"
    rc=$?
    same=1
    # graphs.csv: all but alg0_us/exact_us (11, 12); summary.csv: all but the times (11-13)
    cmp -s <(cut -d, -f1-10,13- "$tmp/exp1/$sweep-graphs.csv") \
        <(cut -d, -f1-10,13- "$tmp/exp3/$sweep-graphs.csv") || same=0
    cmp -s <(cut -d, -f1-10,14- "$tmp/exp1/$sweep-summary.csv") \
        <(cut -d, -f1-10,14- "$tmp/exp3/$sweep-summary.csv") || same=0
    if [ $rc -eq 0 ] && [ $same -eq 1 ] && [ "$(grep -c "wrote" "$tmp/exp3.err")" -eq 1 ] &&
        grep -q "split over 3 ranks" "$tmp/exp3.err"; then
        ok "experiment --sweep $sweep on 3 ranks writes one process's CSV"
    else
        bad "experiment --sweep $sweep on 3 ranks (rc $rc, same $same)"
        cat "$tmp/exp3.err"
        diff "$tmp/exp1/$sweep-graphs.csv" "$tmp/exp3/$sweep-graphs.csv" | head
    fi
done

# analyze --device over 3 ranks: the bounds of a batch of 7 files, printed
# once, equal one process's; a missing file stops every rank.
batch=()
for k in 1 2 3 4 5 6 7; do
    "$ompdag" gen --seed $k -o "$tmp/g$k.json" && batch+=("$tmp/g$k.json")
done
"$ompdag" analyze --device cpu "${batch[@]}" --threads 2,4 --format json >"$tmp/a1.json" 2>&1
run -np 3 "$ompdag" analyze --device cpu "${batch[@]}" --threads 2,4 --format json \
    >"$tmp/a3.json" 2>"$tmp/a3.err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$tmp/a1.json" ] && cmp -s "$tmp/a1.json" "$tmp/a3.json"; then
    ok "analyze --device on 3 ranks prints one process's bounds"
else
    bad "analyze --device on 3 ranks (rc $rc)"
    diff "$tmp/a1.json" "$tmp/a3.json" | head
    cat "$tmp/a3.err"
fi
run -np 2 "$ompdag" analyze --device cpu "${batch[@]}" "$tmp/missing.json" --threads 2 \
    >/dev/null 2>"$tmp/a2.err"
rc=$?
[ $rc -eq 1 ] && ok "analyze --device with a missing file stops both ranks" ||
    { bad "analyze --device with a missing file (rc $rc; 124 is a hang)"; cat "$tmp/a2.err"; }

# resources (issue 30 item 3): one entry per node, written once.
run -np 3 "$ompdag" resources --format json >"$tmp/r.json" 2>"$tmp/r.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '"nodes"' "$tmp/r.json")" -eq 1 ] &&
    grep -q '"ranks": 3' "$tmp/r.json"; then
    ok "resources on 3 ranks of one node: one node entry"
else
    bad "resources on 3 ranks (rc $rc)"
    cat "$tmp/r.json" "$tmp/r.err"
fi
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert len(d["nodes"]) == 1' \
        "$tmp/r.json" || bad "resources JSON"
fi

# map over every node's targets, named HOST:TARGET, written once.
run -np 3 "$ompdag" map "$tmp/g1.json" >"$tmp/map.json" 2>"$tmp/map.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '"ompdag-mapping"' "$tmp/map.json")" -eq 1 ] &&
    grep -q "\"resource\": \"$(hostname):numa0\"" "$tmp/map.json"; then
    ok "map on 3 ranks: the node's targets named by host, one mapping"
else
    bad "map on 3 ranks (rc $rc)"
    cat "$tmp/map.json" "$tmp/map.err"
fi

# An option only one rank rejects (MPMD) stops every rank, no hang.
run -np 1 "$ompdag" bfs --graph kron:8 : -np 1 "$ompdag" bfs --graph kron:8 --engine gpu-sim \
    >"$tmp/m.out" 2>"$tmp/m.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(grep -c "give every rank the same options" "$tmp/m.err")" -eq 1 ]; then
    ok "an option given to one rank only: one error"
else
    bad "an option given to one rank only (rc $rc; 124 is a hang)"
    cat "$tmp/m.out" "$tmp/m.err"
fi

# A usage error of the distributed run is printed once.
run -np 2 "$ompdag" bfs --graph kron:8 --engine gpu-sim >"$tmp/u.out" 2>"$tmp/u.err"
rc=$?
if [ $rc -eq 2 ] && [ "$(grep -c "engine is cpu" "$tmp/u.err")" -eq 1 ]; then
    ok "--engine gpu-sim under 2 ranks: one usage error"
else
    bad "usage error under mpirun (rc $rc)"
    cat "$tmp/u.out" "$tmp/u.err"
fi
exit $fail
