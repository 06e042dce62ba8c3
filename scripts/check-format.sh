#!/usr/bin/env bash
# scripts/check-format.sh [--fix]: every C, C++ and CUDA source git knows of
# (tracked, or new and not ignored) must be formatted with .clang-format,
# except those listed in .clang-format-pending (files that predate the
# check).  --fix formats the offending files in place instead of failing.
# Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
[ "${1:-}" = "--fix" ] && fix=1
cf=$(command -v clang-format || true)
if [ -z "$cf" ] && command -v llvm-config > /dev/null; then
  cf=$(llvm-config --bindir)/clang-format
fi
[ -x "$cf" ] || { echo "check-format: clang-format not found" >&2; exit 2; }

pending=$(mktemp)
trap 'rm -f "$pending"' EXIT
grep -v '^#' .clang-format-pending | sed '/^$/d' | sort > "$pending"
bad=()
checked=0
while IFS= read -r f; do
  [ -f "$f" ] || continue
  if grep -qxF "$f" "$pending"; then continue; fi
  checked=$((checked + 1))
  if ! "$cf" --dry-run -Werror "$f" > /dev/null 2>&1; then
    if [ $fix = 1 ]; then "$cf" -i "$f"; echo "formatted $f"; else bad+=("$f"); fi
  fi
done < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cpp' '*.cu' '*.cuh' | sort -u)

if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted with .clang-format (run scripts/check-format.sh --fix):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "check-format: $checked files clean ($(wc -l < "$pending") pending in .clang-format-pending)"
