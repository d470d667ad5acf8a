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
    # test cases run in parallel (tests/run.sh) and some install what they need: one install at a
    # time (and apt waits for dpkg's lock rather than failing on it)
    exec 9>"${TMPDIR:-/tmp}/cumemtrack-deps.lock"
    command -v flock >/dev/null && flock 9
    missing=($(for p in "${missing[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done))
    [ ${#missing[@]} -eq 0 ] && exit 0
    echo "cumemtrack: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null || true
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null ||
        { echo "cumemtrack: apt-get install ${missing[*]} failed" >&2; exit 1; }
else
    echo "cumemtrack: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
