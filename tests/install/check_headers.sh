#!/usr/bin/env bash
# check_headers.sh INCLUDE_DIR CC CXX HEADER...: every header under
# INCLUDE_DIR/ompdag (installed or not, internal/ too) compiles on its own as
# C11 (-pedantic) and, when a C++ compiler exists, as C++11 and C++17 (extern
# "C", no C-only constructs such as _Static_assert).  The installed ones
# (HEADER...) must not name a jansson type, nor an ompdag struct that only an
# uninstalled header declares.
set -euo pipefail
inc=$1 cc=$2 cxx=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
all=$(cd "$inc" && find ompdag -name '*.h' | sort)
for h in $all; do
  # Internal headers are compiled as the project compiles (POSIX APIs on).
  defs=()
  case $h in ompdag/internal/*) defs=(-D_GNU_SOURCE) ;; esac
  printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$h" "$h" > "$tmp/t.c"
  "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -fsyntax-only "${defs[@]}" -I"$inc" "$tmp/t.c" ||
    { echo "FAIL: $h as C11"; fail=1; }
  if [ -n "$cxx" ]; then
    cp "$tmp/t.c" "$tmp/t.cpp"
    for std in c++11 c++17; do
      "$cxx" -std=$std -Wall -Wextra -Werror -fsyntax-only "${defs[@]}" -I"$inc" "$tmp/t.cpp" ||
        { echo "FAIL: $h as $std"; fail=1; }
    done
  fi
done
# No jansson (or other third-party) type in the installed API.
for h in "$@"; do
  if grep -nw 'json_t' "$inc/ompdag/$h"; then
    echo "FAIL: $h names a jansson type"; fail=1
  fi
done
# Every ompdag type an installed header names is declared in an installed
# header: `struct ompdag_x *` compiles as an incomplete type even when only
# an uninstalled header declares it, and a user then has a name with no API.
for h in "$@"; do
  for t in $(grep -o 'struct ompdag_[A-Za-z0-9_]*' "$inc/ompdag/$h" | sort -u | sed 's/^struct //'); do
    found=0
    for d in "$@"; do
      if grep -Eq "(typedef struct $t( |\{|$)|^struct $t \{)" "$inc/ompdag/$d"; then found=1; break; fi
    done
    if [ $found -eq 0 ]; then
      echo "FAIL: $h names struct $t, which no installed header declares"; fail=1
    fi
  done
done
[ "$fail" -eq 0 ] && echo "$(echo "$all" | wc -w) headers compile as C11${cxx:+ and C++11/17}; $# installed ones name no jansson type"
exit $fail
