#!/usr/bin/env bash
# scripts/ci-install.sh BUILD_DIR: ompdag as a user gets it (called by .ci/run).
#   1. cmake --install BUILD_DIR into a fresh prefix, and cpack -G DEB (the
#      package's contents are checked, and `dpkg -i --dry-run` must accept it);
#   2. the build tree is moved out of the way (restored on exit), so nothing
#      can come from it;
#   3. examples/consumer is built against the prefix with find_package AND,
#      separately, with pkg-config alone;
#   4. with the INSTALLED command: extract -> run -> annotate -> check on the
#      consumer's OpenMP program, whose build then runs the plugin's
#      compile-time deadline check and whose CTest runs `ompdag check`.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
build=$(cd "${1:-build}" && pwd)
work=$(mktemp -d)
moved=""
cleanup() {
  if [ -n "$moved" ] && [ -d "$moved" ]; then mv "$moved" "$build"; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { printf '\n== ci-install: %s\n' "$*"; }

clang=$(sed -n 's/^OMPDAG_CLANG:FILEPATH=//p' "$build/CMakeCache.txt")
have_plugin=0
[ -e "$build/plugin/libompdag_plugin.so" ] && have_plugin=1

step "1. cmake --install into a fresh prefix; cpack -G DEB"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
rm -f "$build/install_manifest.txt"
(cd "$build" && cpack -G DEB -B "$work/deb" > "$work/cpack.log") || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/deb/ompdag_*.deb)
echo "package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB)"
dpkg-deb -I "$deb" | sed -n 's/^ \(Depends\|Recommends\|Suggests\):/  \1:/p'
dpkg-deb -c "$deb" > "$work/deb.contents"
for f in ./usr/bin/ompdag ./usr/lib/ompdag/libompdag_probe.so ./usr/lib/libompdag.a \
         ./usr/include/ompdag/condag.h ./usr/lib/cmake/ompdag/ompdagConfig.cmake \
         ./usr/lib/pkgconfig/ompdag.pc ./usr/share/doc/ompdag/README.md; do
  grep -q " $f\$" "$work/deb.contents" || { echo "package lacks $f"; exit 1; }
done
dpkg-deb -x "$deb" "$work/debroot"
"$work/debroot/usr/bin/ompdag" --version
if [ "$(id -u)" -eq 0 ]; then
  dpkg -i --dry-run "$deb" > /dev/null
  echo "dpkg -i --dry-run: accepted"
fi

step "2. the build tree is moved away"
moved=$work/build-moved
mv "$build" "$moved"
ompdag=$prefix/bin/ompdag
"$ompdag" --version

step "3a. examples/consumer with find_package(ompdag CONFIG)"
cons_cc=()
[ "$have_plugin" = 1 ] && cons_cc=(-DCMAKE_C_COMPILER="$clang")
cp -r "$prefix/share/doc/ompdag/examples" "$work/examples"
consumer=$work/examples/consumer
cmake -S "$consumer" -B "$work/cons" -DCMAKE_PREFIX_PATH="$prefix" "${cons_cc[@]}" > "$work/cons.log"
cmake --build "$work/cons" > /dev/null
(cd "$work/cons" && ctest --output-on-failure)

step "3b. examples/consumer with pkg-config"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig make -s -C "$consumer" BUILD="$work"
"$work/bound" "$work/examples/condag/figure5.json" 2 | grep -q "m\*R = 13 "
echo "pkg-config build: bound gives m*R = 13 on figure 5, m = 2"

if [ "$have_plugin" = 0 ] || [ ! -x "$work/cons/pipeline" ]; then
  echo "no clang plugin in this build: the installed pipeline check is skipped"
  exit 0
fi

step "4. installed ompdag: extract -> run -> annotate -> check"
src_c=$consumer/pipeline.c
"$ompdag" extract "$src_c" -o "$work/pipeline.json"
traces=()
# Clean runs (SCHED_FIFO, pinned, 2 threads) where permitted: a calibration
# from interfered runs only gives no verdict (check says unmeasured).
rt=(--rt --threads 2)
chrt -f 1 true 2> /dev/null || rt=(--threads 2) # SCHED_FIFO permitted?
for i in 1 2 3; do
  "$ompdag" run --quiet "${rt[@]}" --trace "$work/p$i.trace" -- "$work/cons/pipeline" > /dev/null
  traces+=("$work/p$i.trace")
done
"$ompdag" annotate "$work/pipeline.json" "${traces[@]}" -o "$work/pipeline.annotated.json"
"$ompdag" check "$work/pipeline.annotated.json" --threads 2
if "$ompdag" check "$work/pipeline.annotated.json" --threads 2 --deadline pipeline=1us --quiet; then
  echo "check passed a 1 us deadline"; exit 1
fi
# The same WCETs in the consumer's build: the plugin checks the deadline at
# compile time, CTest runs `ompdag check`.
cmake -S "$consumer" -B "$work/cons" -DPIPELINE_WCET="$work/pipeline.annotated.json" > /dev/null
cmake --build "$work/cons" > /dev/null
(cd "$work/cons" && ctest --output-on-failure -R ompdag_timing_pipeline)
echo "ci-install: all passed"
