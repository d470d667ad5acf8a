#!/usr/bin/env bash
# Installs the Debian packages cumemtrack needs to build and test (apt-get when root; otherwise
# prints the exact command). Usage: scripts/deps.sh [extra-package...]
set -u
pkgs=(gcc make binutils uthash-dev libunwind8 libdw-dev libelf-dev python3 python3-dev tmux "$@") # python3-dev: the Python-frames tests build a C extension and check layouts against its headers; tmux: top's interactive test; binutils: objdump checks the shipped prefetch
pkgs+=(python3-pytest python3-pytest-xdist g++ libgtest-dev) # the pytest plugin's tests (xdist: the merge of workers); g++ and GoogleTest: the per-test listener example
missing=()
for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "cumemtrack: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || true
    apt-get install -y -qq "${missing[@]}" >/dev/null || { echo "cumemtrack: apt-get install ${missing[*]} failed" >&2; exit 1; }
else
    echo "cumemtrack: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
