#!/bin/sh
# tests/install/check_sizes_detects.sh SCRIPT — shows scripts/check-sizes.sh
# failing: in its own temporary directory, a file of 1,001 lines, a function
# of 121 lines, the same function with its reason written above it (passes),
# and a .size-pending line for a file within its limit (refused as stale).
set -u
check=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
awk 'BEGIN { for (i = 0; i < 1001; ++i) print "int x" i ";" }' >"$dir/big.c"
body() { awk 'BEGIN { for (i = 0; i < 118; ++i) print "    ++n;" }'; }
{ echo "int long_one(int n)"; echo "{"; body; echo "}"; } >"$dir/long.c"
{ echo "/* Over 120 lines: one table, kept whole. */"; echo "int explained(int n)"; echo "{"
  body; echo "}"; } >"$dir/reason.c"
echo "small.c # stale" >"$dir/.size-pending"
echo "int small;" >"$dir/small.c"
"$check" "$dir"
echo "rc=$?"
