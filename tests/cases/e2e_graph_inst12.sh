#!/usr/bin/env bash
# cuGraphInstantiate looked up at CUDA version 12000 or later is the 3-argument function
# (phGraphExec, hGraph, flags: cuda.h's cuGraphInstantiateWithFlags), at 11000 the 5-argument one:
# the tracker hands out the wrapper of the variant the driver returned, so the flags reach the
# driver and the tracker (drv_graph_inst12: AUTO_FREE_ON_LAUNCH through the 12000 look-up, each
# relaunch freeing the last launch's memory; flags 0 refusing the relaunch; the 5-argument form).
# Peaks and leaks must equal the fake driver's, and no look-up goes unmatched, whether the look-ups
# return the driver's own functions (FAKECUDA_OWN_PROCS=1, as a real driver) or the exported ones.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
# FAKECUDA_OWN_PROCS=1: the look-ups return the driver's own functions, as a real driver's do (the
# tracker must recognise them); 0: the exported ones, which bind to the tracker's wrappers
for own in 1 0; do
    export FAKECUDA_OWN_PROCS=$own
    traced inst "$P/drv_graph_inst12" || { rc=$?; cat inst.err inst.out; die "drv_graph_inst12 exited $rc (own $own)"; }
    check inst --peaks
    grep -q "UNMATCHED_PROC" inst.txt && die "a cuGraphInstantiate look-up was not matched (own $own)"
    python3 - inst.json <<'PY' || die "graph instantiation by version (own $own)"
import json, sys
r = json.load(open(sys.argv[1]))
MiB = 1 << 20
peaks = {x['ordinal']: x['peak_bytes'] for x in r['devices']}
assert peaks == {0: 4 * MiB, 1: 2 * MiB, 2: 1 * MiB}, peaks
assert [(l['kind'], l['device'], l['bytes']) for l in r['leaks']] == [('graph', 1, 2 * MiB)], r['leaks']
PY
done
# the same program without the tracker: the fake's own answer
LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR "$P/drv_graph_inst12" >plain.out || die "drv_graph_inst12 without the tracker"
echo PASS
