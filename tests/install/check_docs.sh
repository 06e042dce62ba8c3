#!/usr/bin/env bash
# check_docs.sh SOURCE_DIR [FILE...]: the user-facing text (README.md and
# docs/*.md, which are installed with the package) stands on its own:
#   - every relative link points to a file of the repository;
#   - nothing points outside it (the contract is docs/condag.md; a clone or
#     an installed package has no ../shared/ or /work/);
#   - papers are cited by author and year, not by the project's internal
#     numbers ("seed 004") or issue numbers ("issue 12").
# FILE... checks other files instead (the test docs_detects_outside_links
# gives it one that must fail).
set -uo pipefail
src=$(cd "$1" && pwd)
shift
cd "$src"
if [ $# -gt 0 ]; then files=("$@"); else files=(README.md docs/*.md); fi
fail=0
for f in "${files[@]}"; do
  dir=$(dirname "$f")
  # [text](target) with a relative target, the #fragment dropped
  while IFS= read -r target; do
    case $target in http://* | https://* | mailto:* | '#'*) continue ;; esac
    path=${target%%#*}
    [ -n "$path" ] || continue
    if [ ! -e "$dir/$path" ]; then
      echo "FAIL: $f links to $target, which does not exist"
      fail=1
    fi
  done < <(grep -o '](\([^) ]*\))' "$f" | sed 's/^](//; s/)$//')
  if grep -n -e 'shared/spec' -e 'shared/measurements' -e '\.\./shared/' -e '/work/' "$f"; then
    echo "FAIL: $f points outside the repository (the contract is docs/condag.md)"
    fail=1
  fi
  if grep -n -i -E '\bseeds? [0-9]{3}\b|\bseed `[0-9]{3}_|\bissues? [0-9]+\b|\bseed (§|Fig|Alg)' "$f"; then
    echo "FAIL: $f cites internal numbers; cite the paper by author and year"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "${#files[@]} files: links resolve, nothing points outside, no internal numbers"
exit $fail
