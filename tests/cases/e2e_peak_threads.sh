#!/usr/bin/env bash
# The reported peak is the driver's under concurrency (issue 30, item 1), tried as HAMi-core's
# test_mem_create does: 4 threads each allocate 32 MiB and free it, 20 times, at once, with
# cuMemCreate / cuMemRelease and with cuMemAlloc / cuMemFree. The fake spends FAKECUDA_FREE_US
# inside each free before the memory is released (a real driver synchronises there), and its
# ground truth says the most it held at once (its line "peak 0 BYTES"). The report's device-0 peak must be
# that figure: before, each FREE's bytes ended when the free began, while other threads'
# allocations returned during it, and the peak read 1 or 2 allocations where the driver held 4.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
[ -x "$P/drv_memcreate" ] || { echo "test programs not built (make test-programs)"; exit 77; }
for mode in vmm mem; do
    n=mc_$mode
    FAKECUDA_FREE_US=3000 traced $n "$P/drv_memcreate" $mode 4 20 32 || { cat $n.err; die "$n: exited $?"; }
    check $n
    truth=$(awk '$1 == "peak" && $2 == 0 { print $3 }' $n.gt)
    [ -n "$truth" ] || die "$n: no 'peak 0' line in the ground truth"
    python3 - $n.json "$truth" <<'PY' || die "$n: the reported peak is not the driver's"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
print("reported", d[0]['peak_bytes'], "driver", sys.argv[2])
assert d[0]['peak_bytes'] == int(sys.argv[2]), (d[0]['peak_bytes'], sys.argv[2])
PY
done
echo PASS
