#!/usr/bin/env bash
# bench/bfs/mpi_bench.sh — the distributed BFS (issue 30 item 5) against the
# Graph500 reference MPI BFS (graph500/graph500, src/graph500_reference_bfs),
# on the same machine, scale and edge factor, at 1, 2 and 4 ranks.  Prints
# harmonic-mean and median TEPS of both, their ratios, and the ratio of the
# distributed engine to `ompdag bfs --engine cpu` in one process (all
# threads).  At one rank ompdag runs what `mpirun -np 1 ompdag bfs` runs,
# the one-process engine (FORCE_DISTRIBUTED=1: the distributed one).
# PARTITION=2d (or RxC) runs ompdag's 2-D top-down engine instead, at every
# rank count (one rank: a 1 x 1 grid); `bytes/search` is then its expand +
# fold volume.
#
# usage: bench/bfs/mpi_bench.sh [BUILD] [--reference PATH] [--scale 16]
#            [--edge-factor 16] [--ranks "1 2 4"] [--sources 64]
# The reference is not vendored: fetch graph500/graph500, build src/ with
# `make CFLAGS="... -fcommon"` (GCC >= 10) outside this repository, and give
# the binary with --reference or GRAPH500_BFS=PATH.  Without it only the
# ompdag figures are printed.  Both draw Graph500 Kronecker graphs of the
# same scale and edge factor, not the same graph (different generators);
# the reference runs its 64 roots with SKIP_VALIDATION=1 (timed searches
# only), ompdag --sources searches.  Not part of the tests.
set -uo pipefail
BUILD=build
[ $# -gt 0 ] && [ "${1#--}" = "$1" ] && BUILD=$1 && shift
REF=${GRAPH500_BFS:-}
SCALE=16
EF=16
RANKS="1 2 4"
SOURCES=64
while [ $# -gt 0 ]; do
    case $1 in
    --reference) REF=$2; shift 2 ;;
    --scale) SCALE=$2; shift 2 ;;
    --edge-factor) EF=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --sources) SOURCES=$2; shift 2 ;;
    *) echo "mpi_bench.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
OMPDAG=$BUILD/cli/ompdag
MPIRUN=${MPIRUN:-mpirun}
command -v "$MPIRUN" >/dev/null || { echo "mpi_bench.sh: no mpirun (scripts/install-deps.sh installs Open MPI)"; exit 0; }
[ -x "$OMPDAG" ] || { echo "mpi_bench.sh: no $OMPDAG (build it first)" >&2; exit 2; }
if ! "$OMPDAG" bfs --help 2>&1 | grep -q -- --distributed; then
    echo "mpi_bench.sh: $OMPDAG has no distributed BFS"; exit 2
fi
if ! "$OMPDAG" bfs --graph kron:4 --sources 1 --distributed >/dev/null 2>&1 &&
    ! timeout 60 "$MPIRUN" --allow-run-as-root -np 1 "$OMPDAG" bfs --graph kron:4 --sources 1 --distributed >/dev/null 2>&1; then
    echo "mpi_bench.sh: $OMPDAG was built without MPI (rebuild with libopenmpi-dev)"; exit 0
fi
if [ -n "$REF" ] && [ ! -x "$REF" ]; then
    echo "mpi_bench.sh: reference '$REF' is not an executable" >&2; exit 2
fi
# A loaded machine: threads that spin while waiting measure other people's work.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# Every run of both codes: --bind-to none and mpi_yield_when_idle.  On a
# machine shared with other work a rank pinned to a busy core waits a whole
# time slice while its peer spins in a collective, taking the core it needs:
# at 2 ranks, kron 16, the slowest of 64 searches took 72-280 ms spinning
# against 6 ms yielding (harmonic mean 0.03-0.29 against 0.68-0.76 GTEPS).
# MPIRUN_FLAGS adds options.
mpi() { # NP CMD...
    timeout 600 "$MPIRUN" --oversubscribe --allow-run-as-root --bind-to none \
        --mca mpi_yield_when_idle 1 ${MPIRUN_FLAGS:-} -np "$@"
}
json_hmean() { sed -n 's/.*"harmonic_mean_teps": \([0-9.e+-]*\).*/\1/p' | tail -1; }
json_median() { sed -n 's/.*"median_teps": \([0-9.e+-]*\).*/\1/p' | tail -1; }
json_bytes() { sed -n 's/.*"mean_comm_bytes": \([0-9.e+-]*\).*/\1/p' | tail -1; }
num() { awk -v x="$1" 'BEGIN { if (x + 0 > 0) printf "%.4g", x; else printf "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else printf "-" }'; }

echo "BFS under MPI (ompdag --partition ${PARTITION:-1d}): Kronecker scale $SCALE, edge factor $EF, $SOURCES searches; $(nproc) cores, $(date -u +%Y-%m-%d)"
echo "(TEPS: harmonic mean, the Graph500 figure, then median; on a loaded machine one"
echo " descheduled rank drags the harmonic mean, the median shows the typical search)"
oneout=$("$OMPDAG" bfs --graph "kron:$SCALE" --edge-factor "$EF" --sources "$SOURCES" --format json)
one=$(echo "$oneout" | json_hmean)
onemed=$(echo "$oneout" | json_median)
echo "ompdag bfs --engine cpu, one process ($(nproc) threads): $one TEPS (median $onemed)"
printf '%5s  %11s %11s  %11s %11s  %8s %8s  %8s %8s  %10s\n' ranks ref_hmean ref_median \
    ompdag_hmean ompdag_median vs_ref vs_ref_md vs_1proc vs_1p_md bytes/search
for p in $RANKS; do
    ref=- refmed=-
    if [ -n "$REF" ]; then
        refout=$(SKIP_VALIDATION=1 mpi "$p" "$REF" "$SCALE" "$EF" 2>/dev/null)
        ref=$(echo "$refout" | sed -n 's/.*harmonic_mean_TEPS: *! *\([0-9.e+-]*\).*/\1/p' | tail -1)
        refmed=$(echo "$refout" | sed -n 's/.*median_TEPS: *\([0-9.e+-]*\).*/\1/p' | tail -1)
        [ -n "$ref" ] || ref=-
        [ -n "$refmed" ] || refmed=-
    fi
    # one rank: what `mpirun -np 1 ompdag bfs` runs, the one-process engine
    dist=(--distributed)
    [ "$p" -eq 1 ] && [ -z "${FORCE_DISTRIBUTED:-}" ] && dist=()
    [ -n "${PARTITION:-}" ] && dist=(--partition "$PARTITION")
    out=$(mpi "$p" "$OMPDAG" bfs --graph "kron:$SCALE" --edge-factor "$EF" --sources "$SOURCES" \
        "${dist[@]}" --format json)
    bytes=$(echo "$out" | json_bytes)
    [ -n "$bytes" ] || bytes=0
    ours=$(echo "$out" | json_hmean)
    med=$(echo "$out" | json_median)
    printf '%5s  %11s %11s  %11s %11s  %8s %8s  %8s %8s  %10s\n' "$p" "$(num "$ref")" \
        "$(num "$refmed")" "$(num "$ours")" "$(num "$med")" "$(ratio "$ours" "$ref")" "$(ratio "$med" "$refmed")" \
        "$(ratio "$ours" "$one")" "$(ratio "$med" "$onemed")" "${bytes:--}"
done
