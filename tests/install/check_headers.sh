#!/usr/bin/env bash
# check_headers.sh INCLUDE_DIR CC CXX HEADER...: every public header compiles
# on its own as C11 (-pedantic) and, when a C++ compiler exists, as C++11 and
# C++17 (extern "C", no C-only constructs such as _Static_assert).
set -euo pipefail
inc=$1 cc=$2 cxx=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for h in "$@"; do
  printf '#include <ompdag/%s>\n#include <ompdag/%s>\nint main(void) { return 0; }\n' "$h" "$h" \
    > "$tmp/t.c"
  "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.c" ||
    { echo "FAIL: $h as C11"; fail=1; }
  if [ -n "$cxx" ]; then
    cp "$tmp/t.c" "$tmp/t.cpp"
    for std in c++11 c++17; do
      "$cxx" -std=$std -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/t.cpp" ||
        { echo "FAIL: $h as $std"; fail=1; }
    done
  fi
  # No jansson (or other third-party) type in the public API.
  if grep -nw 'json_t' "$inc/ompdag/$h"; then
    echo "FAIL: $h names a jansson type"; fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "$# headers compile as C11${cxx:+ and C++}"
exit $fail
