#!/usr/bin/env bash
# A device first used without a current context still gets its identity in the dump (issue 13,
# item 12): UUID, PCI bus id, name, total memory; the report lists it.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
traced noctx "$P/drv_noctxdev" || { cat noctx.err; die "drv_noctxdev exited $?"; }
check noctx
for d in 1 2; do
    grep -q " DEVICE ord=$d .*name=\"Fake CUDA Device $d\"" noctx.txt || die "no identity for device $d"
done
python3 - noctx.json <<'PY' || die "the report lacks the devices"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
assert set(d) == {1, 2}, d.keys()
assert d[2]['uuid'] == 'GPU-facec0da-0258-4000-8000-2a2b2c2d2e2f' and d[2]['total_bytes'] == 16 << 30, d[2]
assert d[2]['pci_bus_id'] == '0000:30:00.0' and d[2]['leaked_bytes'] == 2 << 20, d[2]
PY
echo PASS
