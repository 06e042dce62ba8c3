#!/bin/sh
# Regression: check_exports.cmake printed its failures through
# message(FATAL_ERROR), which wraps text at word boundaries; whether
# "exports N" and "symbol(s)" stayed on one line depended on how long the
# archive's path was, and under CI's build-asan path the *_detects_leaks
# tests stopped matching. This runs the module check on copies of a leaky
# archive under paths 20 to 120 characters long (every third length: the
# wrap broke a band of about ten lengths) and requires the one-line failure
# each time.
#   check_exports_paths.sh CMAKE NM ARCHIVE CHECK_SCRIPT
set -u
cmake=$1 nm=$2 archive=$3 script=$4
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
status=0
n=20
while [ $n -le 120 ]; do
  pad=$((n - ${#tmp} - 7)) # "/" + pad + "/lib.a"
  [ $pad -lt 1 ] && pad=1
  dir=$tmp/$(printf "%${pad}s" "" | tr ' ' a)
  mkdir -p "$dir" && cp "$archive" "$dir/lib.a" || exit 1
  out=$("$cmake" -DNM="$nm" -DMODE=module -DPREFIXES=rta -DLIB="$dir/lib.a" -P "$script" 2>&1)
  if ! printf '%s\n' "$out" | grep -q "exports [0-9]* symbol(s) outside .*strpool_add"; then
    echo "path length $n: no one-line failure for the leaky archive:" >&2
    printf '%s\n' "$out" >&2
    status=1
  fi
  rm -rf "$dir"
  n=$((n + 3))
done
[ $status -eq 0 ] && echo "exports check: one-line failure at every third path length 20..120"
exit $status
