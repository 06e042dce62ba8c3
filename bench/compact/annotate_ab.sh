#!/usr/bin/env bash
# bench/compact/annotate_ab.sh OLD_OMPDAG NEW_OMPDAG GRAPH TRACE [N] — two
# `ompdag` binaries' annotate on the same graph and trace, run alternately N
# times each (default 6) so that both see the same machine, with the same
# flags (--unobserved zero; more in $ANNOTATE_FLAGS).  Prints each run's wall
# seconds, then per binary the mean, the minimum, the mean CPU (user + sys)
# and sys seconds and the peak RSS, and the ratio of the means (old / new).
# Exit status 1 when the two write different graphs: a faster annotate
# must write the same bytes.
#
# The fib(30) figures of docs/compact.md: a baseline binary built from an
# earlier commit in a scratch worktree, against build/cli/ompdag, on the
# fib.json and fib.trace that bench/compact/e2e.sh makes (kept by hand).
set -euo pipefail
old=${1:?OLD_OMPDAG}
new=${2:?NEW_OMPDAG}
graph=${3:?GRAPH}
trace=${4:?TRACE}
n=${5:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
run() { # run LABEL BINARY: one annotate, "LABEL wall user sys peak_kb" on stdout
  /usr/bin/time -o "$tmp/time" -f "$1 %e %U %S %M" \
    "$2" annotate "$graph" "$trace" --unobserved zero ${ANNOTATE_FLAGS:-} -o "$tmp/$1.json" \
    >/dev/null 2>"$tmp/err" || {
    cat "$tmp/err" >&2
    exit 2
  }
  cat "$tmp/time"
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%Y-%m-%d %H:%M UTC'), $n runs each"
for _ in $(seq "$n"); do
  run old "$old"
  run new "$new"
done | awk '
  { t[$1] = t[$1] " " $2; s[$1] += $2; c[$1] += $3 + $4; sy[$1] += $4; k[$1]++
    if (!($1 in mn) || $2 < mn[$1]) mn[$1] = $2
    if ($5 > pk[$1]) pk[$1] = $5 }
  END {
    for (b in t)
      printf "%s:%s\n  mean %.2f s, min %.2f s, cpu %.2f s, sys %.2f s, peak %d MB\n",
             b, t[b], s[b] / k[b], mn[b], c[b] / k[b], sy[b] / k[b], pk[b] / 1024
    printf "old / new: %.2fx on the mean\n", (s["old"] / k["old"]) / (s["new"] / k["new"])
  }'
if cmp -s "$tmp/old.json" "$tmp/new.json"; then
  echo "outputs: identical"
else
  echo "outputs: DIFFERENT" >&2
  exit 1
fi
