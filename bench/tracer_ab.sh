#!/usr/bin/env bash
# bench/tracer_ab.sh — the tracer side by side with another build of it (e.g. main's), on the
# pattern of `make bench` section 1 (cuMemAlloc_v2+cuMemFree_v2 pairs on the fake driver,
# FAKECUDA_FAST=1, one call site). Every repetition runs every configuration one after another;
# "added" = tracked - untracked CPU ns/pair (user + sys) of the same repetition; printed as median (min-max).
# PATTERN (cmtbench's: one, sites:N, depths:N) picks the call sites. Asserts nothing.
# Usage: bench/tracer_ab.sh OTHER_LIB [REPS] [PAIRS] [DEPTHS] [THREADS] [PATTERN]
set -u
OTHER=${1:?usage: bench/tracer_ab.sh OTHER_LIB [REPS] [PAIRS] [DEPTHS] [THREADS]}
REPS=${2:-5}
N=${3:-300000}
DEPTHS=${4:-0 32}
THREADS=${5:-1}
PATTERN=${6:-one}
B=${BUILD:-build}
ROOT=$(pwd)
BIN=$ROOT/$B/bench/cmtbench
LIB=$ROOT/$B/libcumemtrack.so
export FAKECUDA_FAST=1 CUMEMTRACK_QUIET=1
export LD_LIBRARY_PATH=$ROOT/$B/tests/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cmtab.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# CPU ns per pair (user + sys over the timed loop): less disturbed than wall time by other load
ns() { awk '{ for (i = 1; i < NF; i++) { if ($i == "user_ns") u = $(i + 1); if ($i == "sys_ns") s = $(i + 1) } } END { print u + s }'; }
for ((r = 0; r < REPS; r++)); do
    for d in $DEPTHS; do
        u=$("$BIN" pairs cuda "$d" "$N" "$THREADS" 0 "$PATTERN" | ns)
        o=$(CUMEMTRACK_OUTPUT=$TMP/o.cmt CUMEMTRACK_DEPTH=$d LD_PRELOAD=$OTHER "$BIN" pairs cuda "$d" "$N" "$THREADS" 0 "$PATTERN" | ns)
        m=$(CUMEMTRACK_OUTPUT=$TMP/m.cmt CUMEMTRACK_DEPTH=$d LD_PRELOAD=$LIB "$BIN" pairs cuda "$d" "$N" "$THREADS" 0 "$PATTERN" | ns)
        rm -f "$TMP"/*.cmt*
        echo "$u" >>"$TMP/untracked_$d"
        awk -v a="$o" -v b="$u" 'BEGIN { print a - b }' >>"$TMP/other_$d"
        awk -v a="$m" -v b="$u" 'BEGIN { print a - b }' >>"$TMP/this_$d"
    done
done
fig() { sort -g "$1" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf("%.1f (%.1f-%.1f)", m, v[1], v[NR]) }'; }
for d in $DEPTHS; do
    echo "depth $d threads $THREADS pattern $PATTERN: untracked $(fig "$TMP/untracked_$d") ns/pair; added: other $(fig "$TMP/other_$d"), this $(fig "$TMP/this_$d")"
done
