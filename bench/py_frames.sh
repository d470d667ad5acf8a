#!/usr/bin/env bash
# py_frames.sh — the "Python frames" figures of BENCHMARKS.md: ns per cudaMalloc+cudaFree pair
# made from a Python stack PF_DEPTH (20) frames deep (bench/py_pairs.py through the C extension
# tests/python/cmt_pyext.c, on the runtime double over the fake driver, FAKECUDA_FAST=1), untracked,
# tracked with CUMEMTRACK_PYTHON=0 and tracked with Python frames (CUMEMTRACK_DEPTH 64), side by
# side in each of BENCH_REPS (7) repetitions; the cost per Python frame is (with - without) / the
# Python frames on the stack, target <= 30 ns. Prints a Markdown section on stdout, or appends it
# to FILE. usage: bench/py_frames.sh [FILE]  (needs `make all test-programs`; make bench calls it)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
B=${BUILD:-$root/build}
reps=${BENCH_REPS:-7} depth=${PF_DEPTH:-20} pairs=${PF_PAIRS:-200000}
for f in "$B/libcumemtrack.so" "$B/tests/fakecuda/libcuda.so.1" "$B/tests/fakert/libcudart.so.13"; do
    [ -e "$f" ] || { echo "py_frames.sh: $f missing (make all test-programs)" >&2; exit 1; }
done
py=
for c in "$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"/versions/3.1[1-9]*/bin/python3 /usr/bin/python3.11 python3; do
    command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; assert sys.version_info >= (3, 8)' 2>/dev/null && { py=$c; break; }
done
out() { if [ $# -gt 0 ] && [ -n "${FILE:-}" ]; then cat >>"$FILE"; else cat; fi; }
FILE=${1:-}
if [ -z "$py" ]; then
    printf '\n## Python frames\n\nNot measured: no CPython 3.8+ found.\n' | out x
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cmt-pyframes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$B/libcumemtrack.so" "$tmp/"
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
suf=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cc -shared -fPIC -O2 -I"$inc" "$root/tests/python/cmt_pyext.c" -o "$tmp/cmt_pyext$suf" \
    -L"$B/tests/fakert" -l:libcudart.so.13
export LD_LIBRARY_PATH=$B/tests/fakert:$B/tests/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export FAKECUDA_FAST=1 CUMEMTRACK_QUIET=1 PYTHONPATH=$tmp PYTHONDONTWRITEBYTECODE=1
unset CUMEMTRACK_DEPTH CUMEMTRACK_PYTHON LD_PRELOAD
run() { # ENV...: one run, prints "ns frames"
    rm -f "$tmp"/*.cmt*
    env "$@" "$py" "$root/bench/py_pairs.py" "$pairs" "$depth" | awk '{ print $2, $4 }'
}
: >"$tmp/r"
for i in $(seq 1 "$reps"); do
    read -r u frames < <(run X=1)
    read -r off _ < <(run LD_PRELOAD="$tmp/libcumemtrack.so" CUMEMTRACK_OUTPUT="$tmp/a.cmt" CUMEMTRACK_PYTHON=0)
    read -r on _ < <(run LD_PRELOAD="$tmp/libcumemtrack.so" CUMEMTRACK_OUTPUT="$tmp/b.cmt")
    echo "$u $off $on $frames" >>"$tmp/r"
done
# median (min-max) of a column expression over the repetitions
fig() { awk "{ print $1 }" "$tmp/r" | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f (%.1f–%.1f)", m, v[1], v[NR] }'; }
med() { awk "{ print $1 }" "$tmp/r" | sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
per=$(med '($3 - $2) / $4')
verdict=$(awk -v v="$per" 'BEGIN { if (v <= 30) print "met"; else printf "**missed** by %.1f%%", (v / 30 - 1) * 100 }')
frames=$(awk 'NR == 1 { print $4 }' "$tmp/r")
{
    printf '\n## Python frames\n\n'
    printf 'cudaMalloc(4096)+cudaFree pairs from a C extension called %s Python frames deep\n' "$frames"
    printf '(%s, %s pairs a run, best of 5 loops a run), median (min–max) over %s repetitions;\n' \
        "$("$py" -c 'import platform; print("CPython " + platform.python_version())')" "$pairs" "$reps"
    printf 'per Python frame = (with − without Python frames) ÷ %s, per repetition.\n\n' "$frames"
    printf '| configuration | ns / pair | per Python frame | target | |\n|---|---|---|---|---|\n'
    printf '| no tracker | %s | | | |\n' "$(fig '$1')"
    printf '| tracker, CUMEMTRACK_PYTHON=0 | %s | | | |\n' "$(fig '$2')"
    printf '| tracker, Python frames | %s | %s | ≤ 30 ns | %s |\n' "$(fig '$3')" "$(fig '($3 - $2) / $4')" "$verdict"
} | out x
