#!/usr/bin/env bash
# Event order is the driver's (issue 13, item 11): an allocation's place is the moment the real
# call returned (a free's, since issue 30, too: tests/cases/e2e_free_overlap.sh). FAKECUDA_GATE holds the first creating thread at
# its next driver entry after its cuMemCreate returned; if the tracker did slow work (context
# look-up, stack capture) through the driver after the real call and before taking the sequence
# number, the other thread's create+release would be ordered first, and the peak would be low.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
FAKECUDA_GATE=1 traced ov "$P/drv_overlap" || { cat ov.err; die "drv_overlap exited $?"; }
grep -q "fakecuda: gate" ov.err && { cat ov.err; die "the gate timed out"; }
check ov
want=$(awk '$1 == "driver-peak" { print $2 }' ov.out)
python3 - ov.json "$want" <<'PY' || die "peak differs from the driver's"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
assert d[0]['peak_bytes'] == int(sys.argv[2]), (d[0]['peak_bytes'], sys.argv[2])
PY
echo PASS
