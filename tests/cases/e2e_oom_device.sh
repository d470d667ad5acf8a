#!/usr/bin/env bash
# OOM attribution (issue 13, item 5): a failed stream-ordered allocation belongs to the device of
# the pool that would have served it (the stream's device; the pool's location, default pools
# included), a failed cuMemCreate to its location's device; the OOM's "live then" is that device's.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
FAKECUDA_MEM_MB=64 traced oomdev "$P/drv_oomdev" || { cat oomdev.err; die "drv_oomdev exited $?"; }
check oomdev
python3 - oomdev.json <<'PY' || die "OOMs attributed to the wrong device"
import json, sys
r = json.load(open(sys.argv[1]))
got = [(o['api'], o['device'], o['live_bytes']) for o in r['oom']]
want = [('cuMemAllocAsync', 1, 2 << 20), ('cuMemAllocFromPoolAsync', 2, 3 << 20), ('cuMemCreate', 3, 4 << 20)]
assert got == want, got
PY
echo PASS
