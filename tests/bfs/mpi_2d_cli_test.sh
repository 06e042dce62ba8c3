#!/usr/bin/env bash
# tests/bfs/mpi_2d_cli_test.sh MPIEXEC OMPDAG — `ompdag bfs --partition 2d`
# under mpirun (bfs_mpi_2d.c): on 1, 2, 3 and 4 ranks the report names the
# ranks, the R x C grid and the bytes per level, every search validates, and
# the levels per search equal the 1-D engine's (Kronecker, uniform, a file);
# RxC picks the grid; a grid that is not the rank count, a bad file on one
# rank, --engine gpu and --partition on one rank only each stop every rank
# with one error; a malformed grid, and --partition 2d outside mpirun, are
# refused.  Every mpirun is bounded
# by `timeout`.  Writes only into its own temporary directory.
set -u
mpiexec=$1
ompdag=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ompdag-mpi-2d-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $1"; }
bad() {
    echo "FAIL: $1"
    fail=1
}
run() { timeout 60 "$mpiexec" --oversubscribe --allow-run-as-root "$@"; }

# source, levels and valid of each search (directions differ: 2-D is top-down only)
searches() { awk '$1 ~ /^[0-9]+$/ && NF >= 8 {print $2, $5, $6}' "$1"; }

same_as_1d() { # NAME NP GRID GRAPH-OPTIONS... ; GRID is what --partition asks, then "R x C" wanted
    local name=$1 np=$2 ask=$3 want=$4
    shift 4
    run -np "$np" "$ompdag" bfs --distributed --sources 4 --validate "$@" >"$tmp/1d.txt" 2>&1
    run -np "$np" "$ompdag" bfs --sources 4 --validate --partition "$ask" "$@" >"$tmp/2d.txt" 2>&1
    local rc=$?
    if [ $rc -ne 0 ]; then
        bad "$name: 2-D on $np ranks exited $rc"
        cat "$tmp/2d.txt"
        return
    fi
    searches "$tmp/1d.txt" >"$tmp/1d.cols"
    searches "$tmp/2d.txt" >"$tmp/2d.cols"
    if [ "$(wc -l <"$tmp/2d.cols")" -eq 4 ] && cmp -s "$tmp/1d.cols" "$tmp/2d.cols"; then
        ok "$name: 2-D on $np ranks ($want) finds the 1-D engine's levels"
    else
        bad "$name: 2-D on $np ranks differs from 1-D"
        diff "$tmp/1d.cols" "$tmp/2d.cols"
    fi
    grep -q "split over $np MPI ranks" "$tmp/2d.txt" || bad "$name: the ranks are not named"
    grep -q "^2-D partition: a $want grid of the ranks" "$tmp/2d.txt" ||
        bad "$name: the grid is not $want"
    grep -q "validation: 4 of 4 searches valid" "$tmp/2d.txt" || bad "$name: not all valid"
    grep -q "levels of search 0, with the bytes sent between the $np ranks" "$tmp/2d.txt" ||
        bad "$name: no per-level communication"
    [ "$(grep -c '^engine cpu on' "$tmp/2d.txt")" -eq 1 ] || bad "$name: report not printed once"
    awk '$2 == "TD" && NF == 4' "$tmp/2d.txt" | grep -q . || bad "$name: no top-down level rows"
    ! awk '$2 == "BU"' "$tmp/2d.txt" | grep -q . || bad "$name: a bottom-up level in 2-D"
}

{
    echo "# vertices 200"
    for v in $(seq 0 149); do echo "$v $((v + 1))"; echo "$v $(((v * 7 + 3) % 150))"; done
    for v in $(seq 160 198); do echo "$v $((160 + (v * 13) % 39))"; done
} >"$tmp/good.el"
same_as_1d kron:10 1 2d "1 x 1" --graph kron:10
same_as_1d kron:10 2 2d "1 x 2" --graph kron:10
same_as_1d uniform:11 4 2d "2 x 2" --graph uniform:11
same_as_1d kron:10 4 4x1 "4 x 1" --graph kron:10
same_as_1d file 3 2d "1 x 3" --graph "$tmp/good.el"
same_as_1d file 3 3x1 "3 x 1" --graph "$tmp/good.el"

# JSON names the grid.
run -np 4 "$ompdag" bfs --graph kron:9 --sources 2 --partition 2d --format json >"$tmp/j" 2>"$tmp/je"
rc=$?
if [ $rc -eq 0 ] && grep -q '"grid_rows": 2, "grid_cols": 2, "grid_moved_bytes": [1-9]' "$tmp/j"; then
    ok "json names the 2 x 2 grid and the bytes moved to make it"
else
    bad "json of a 2-D run (rc $rc)"
    cat "$tmp/j" "$tmp/je"
fi
if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/j" || bad "json does not parse"
fi

expect_one_error() { # NAME WANT-RC PATTERN mpirun-args...
    local name=$1 want=$2 pattern=$3
    shift 3
    run "$@" >"$tmp/e.out" 2>"$tmp/e.err"
    local rc=$?
    if [ $rc -eq "$want" ] && [ "$(grep -c -- "$pattern" "$tmp/e.err")" -eq 1 ] &&
        ! grep -q "^engine" "$tmp/e.out"; then
        ok "$name: one error"
    else
        bad "$name (rc $rc, wanted $want; 124 is a hang)"
        cat "$tmp/e.out" "$tmp/e.err"
    fi
}
expect_one_error "a 3 x 3 grid on 4 ranks" 1 "rank 0: dbfs 2-D: a 3 x 3 grid needs 9 ranks, not 4" \
    -np 4 "$ompdag" bfs --graph kron:8 --partition 3x3
printf '0 1\n1 x\n' >"$tmp/bad.el"
expect_one_error "2-D with a bad file on rank 1" 1 "rank 1: .*bad.el:2" \
    -np 1 "$ompdag" bfs --graph "$tmp/good.el" --partition 2d : \
    -np 1 "$ompdag" bfs --graph "$tmp/bad.el" --partition 2d
expect_one_error "--partition 2d --engine gpu" 2 "partition 2d runs on the cpu" \
    -np 2 "$ompdag" bfs --graph kron:8 --partition 2d --engine gpu
expect_one_error "--partition on one rank only" 2 "give every rank the same options" \
    -np 1 "$ompdag" bfs --graph kron:8 --partition 2d : -np 1 "$ompdag" bfs --graph kron:8

# A malformed grid is an option error (every process parses its options
# before MPI starts, as for any bad option).
"$ompdag" bfs --graph kron:8 --partition 2x >"$tmp/o.out" 2>"$tmp/o.err"
rc=$?
[ $rc -eq 2 ] && grep -q "partition is 1d, 2d or a grid RxC (such as 2x3), not '2x'" "$tmp/o.err" &&
    ok "--partition 2x is refused" ||
    { bad "--partition 2x (rc $rc)"; cat "$tmp/o.out" "$tmp/o.err"; }
"$ompdag" bfs --graph kron:8 --partition 2d >"$tmp/o.out" 2>"$tmp/o.err"
rc=$?
[ $rc -eq 2 ] && grep -q "partition 2d runs under mpirun" "$tmp/o.err" &&
    ok "--partition 2d outside mpirun is refused" ||
    { bad "--partition 2d outside mpirun (rc $rc)"; cat "$tmp/o.out" "$tmp/o.err"; }
exit $fail
