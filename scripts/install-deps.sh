#!/usr/bin/env bash
# Installs the Debian packages ompdag needs, and only those that are missing.
# Idempotent: a machine that has everything makes no apt call at all.
set -euo pipefail

packages=(
  cmake make gcc clang-14 llvm-14 libclang-14-dev libclang-rt-14-dev libomp-14-dev libomp-dev
  libcriterion-dev libjansson-dev libdw-dev libhwloc-dev
  graphviz gnuplot-nox pkg-config chromium
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
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
