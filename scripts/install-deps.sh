#!/usr/bin/env bash
# Installs the Debian packages ompdag needs, and only those that are missing.
# Idempotent: a machine that has everything makes no apt call at all.
#
# LLVM comes through Debian's default-version packages (clang, libclang-dev,
# ...), so no version is written here; a requirement is met by the default
# package or by any versioned one (pattern after ':'), e.g. libclang-14-dev.
# Optional ones (libclang, libdw, hwloc, Open MPI) can be left out: the build then drops
# only the commands that need them (see README, "Optional dependencies").
set -euo pipefail

requirements=(
  cmake make gcc binutils pkg-config
  "clang:clang-[0-9]*" "llvm:llvm-[0-9]*" "libclang-dev:libclang-[0-9]*-dev"
  "libclang-rt-dev:libclang-rt-[0-9]*-dev" "libomp-dev:libomp-[0-9]*-dev"
  "clang-format:clang-format-[0-9]*"
  libcriterion-dev libjansson-dev libdw-dev libhwloc-dev
  graphviz gnuplot-nox chromium
  libopenmpi-dev openmpi-bin # optional: ompdag bfs under mpirun (docs/bfs.md)
)

installed() { # PATTERN: some installed package matches
  dpkg-query -W -f='${Package} ${Status}\n' "$1" 2>/dev/null | grep -q " install ok installed$"
}

missing=()
for r in "${requirements[@]}"; do
  name=${r%%:*}
  alt=${r#*:}
  installed "$name" && continue
  [ "$alt" != "$r" ] && installed "$alt" && continue
  missing+=("$name")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
