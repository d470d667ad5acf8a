#!/usr/bin/env bash
# A free takes its place in the order when the real free returned (issue 30, item 1). The tracker
# untracks a pointer before the real free (so an address the driver hands to another thread is
# never confused), but the driver still holds the memory until its free returns: with FAKECUDA_GATE=free the fake holds thread A's free (64 MiB) inside the driver
# while the main thread allocates 64 MiB; the driver held 128 MiB at once, and the report must say
# so (before: 64 MiB, the FREE was placed before the real free ran). For cuMemCreate /
# cuMemRelease and cuMemAlloc / cuMemFree, on the inline path and the general one
# (CUMEMTRACK_FAST=0). The fake's ground truth has the driver's own peak (its line "peak 0 BYTES").
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
[ -x "$P/drv_free_overlap" ] || { echo "test programs not built (make test-programs)"; exit 77; }
for mode in vmm mem; do
    for fast in 1 0; do
        n=fo_${mode}_$fast
        CUMEMTRACK_FAST=$fast FAKECUDA_GATE=free traced $n "$P/drv_free_overlap" $mode ||
            { cat $n.err; die "$n: drv_free_overlap exited $?"; }
        grep -q "fakecuda: gate" $n.err && { cat $n.err; die "$n: the gate timed out"; }
        check $n
        want=$(awk '$1 == "driver-peak" { print $2 }' $n.out)
        truth=$(awk '$1 == "peak" && $2 == 0 { print $3 }' $n.gt)
        [ "$want" = "$truth" ] || die "$n: the fake's own peak $truth is not the program's $want"
        python3 - $n.json "$want" <<'PY' || { cat $n.txt; die "$n: peak differs from the driver's"; }
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
assert d[0]['peak_bytes'] == int(sys.argv[2]), (d[0]['peak_bytes'], sys.argv[2])
assert r['processes'][0]['exit'] == 'clean', r['processes'][0]
PY
        # in the merged order A's FREE comes after main's ALLOC: ALLOC ALLOC FREE FREE
        [ "$(awk '$3 == "ALLOC" || $3 == "FREE" { printf "%s ", $3 }' $n.txt)" = "ALLOC ALLOC FREE FREE " ] ||
            { cat $n.txt; die "$n: A's FREE is not placed when its real free returned"; }
    done
done
echo PASS
