#!/usr/bin/env bash
# check_exports_declared.sh BUILD_DIR NM CC KNOWN [--hide NAME]
#
# The installed libompdag.a exports exactly what the installed headers
# declare: libclang's rule ("every public function carries CINDEX_LINKAGE,
# the library exports nothing else").  The library already keeps only
# ompdag_* global (objcopy, cmake/OmpdagInstall.cmake; test install_exports);
# this test asks the next question: is each of those names declared in a
# header a user gets?  A global that no installed header declares is an
# internal function a user can still link against and come to depend on.
#
# How: `cmake --install --component dev` of BUILD_DIR into a temporary prefix
# (the tree a user gets: scripts/ci-install.sh installs the same), then
#   exported = nm -g --defined-only PREFIX/LIBDIR/libompdag.a
#   declared = every ompdag_* identifier in the preprocessed text of the
#              installed headers (cc -E: comments and inactive #if branches
#              do not count, macros are expanded)
# and every exported name must be declared, or listed in KNOWN (one name and
# its reason per line, '#' comments).  KNOWN can only shrink: a listed name
# that is no longer exported, or is now declared, is an error too, so a fix
# must take its line out.
#
# --hide NAME takes one name out of the declared set, as if its header had
# lost the declaration (test exports_declared_detects_leaks: the check must
# then fail and name it).
set -euo pipefail
build=$(cd "$1" && pwd) nm=$2 cc=$3 known=$4
hide=
if [ "${5:-}" = --hide ]; then hide=${6:?--hide needs a symbol name}; fi
tmp=$(mktemp -d)

# `cmake --install` (re)writes the build's install manifest: put back what was there.
manifests=("$build/install_manifest.txt" "$build/install_manifest_dev.txt")
for m in "${manifests[@]}"; do
  [ -e "$m" ] && cp -p "$m" "$tmp/$(basename "$m").saved"
done
restore() {
  for m in "${manifests[@]}"; do
    if [ -e "$tmp/$(basename "$m").saved" ]; then cp -p "$tmp/$(basename "$m").saved" "$m"; else rm -f "$m"; fi
  done
  rm -rf "$tmp"
}
trap restore EXIT

cmake --install "$build" --prefix "$tmp/prefix" --component dev > "$tmp/install.log"
lib=$(find "$tmp/prefix" -name libompdag.a | head -1)
[ -n "$lib" ] || { echo "FAIL: no libompdag.a installed (build target ompdag_combined_lib)"; exit 1; }
inc=$tmp/prefix/include

# Exported: defined globals of the archive (nm -P: "NAME TYPE VALUE SIZE").
"$nm" -g --defined-only -P "$lib" | awk 'NF >= 2 && $1 !~ /:$/ { print $1 }' | sort -u > "$tmp/exported"

# Declared: ompdag_* identifiers of the installed headers, preprocessed.
: > "$tmp/all.c"
for h in "$inc"/ompdag/*.h; do
  echo "#include <ompdag/$(basename "$h")>" >> "$tmp/all.c"
done
"$cc" -std=c11 -E -P -I"$inc" "$tmp/all.c" | grep -o '\bompdag_[A-Za-z0-9_]*' |
  grep -vx "${hide:-(none)}" | sort -u > "$tmp/declared"

# Known exceptions: the first word of each non-comment line.
sed -e 's/#.*//' "$known" | awk 'NF { print $1 }' | sort -u > "$tmp/known"

comm -23 "$tmp/exported" "$tmp/declared" > "$tmp/undeclared"
comm -23 "$tmp/undeclared" "$tmp/known" > "$tmp/leaks"
comm -13 "$tmp/undeclared" "$tmp/known" > "$tmp/stale"

fail=0
if [ -s "$tmp/leaks" ]; then
  echo "FAIL: libompdag.a exports $(wc -l < "$tmp/leaks") symbol(s) no installed header declares:" \
    $(cat "$tmp/leaks")
  echo "  declare it in an installed header, make it static, or give it its module's prefix" \
    "(condag_, rta_, advise_, ...: only ompdag_* stays global in the installed library)"
  fail=1
fi
if [ -s "$tmp/stale" ]; then
  echo "FAIL: $(basename "$known") lists $(wc -l < "$tmp/stale") name(s) that are no longer" \
    "exported undeclared; take their lines out (the list only shrinks):" $(cat "$tmp/stale")
  fail=1
fi
[ $fail -eq 0 ] && echo "libompdag.a: $(wc -l < "$tmp/exported") global symbols," \
  "$(wc -l < "$tmp/known") known exception(s), every other one declared in an installed header"
exit $fail
