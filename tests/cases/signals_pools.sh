# Pool allocators report sub-allocations through the NVTX memory-heap API: the report shows the
# heap inside its device allocation, with the regions still registered at the end grouped by the
# stack that registered them (leaky_user), and none from the regions given back (tidy_user).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/p.cmt "$CMT_TESTBIN/signals/sig_pool" >p.out || die "sig_pool failed"
grep -q "regions-leaked 3" p.out || die "output changed"
"$CMT_BIN" report --json p.cmt >p.json || die "report failed"
python3 - <<'PY' || die "pools section wrong"
import json
r = json.load(open('p.json'))
assert len(r['pools']) == 1, r['pools']
p = r['pools'][0]
assert p['name'] == 'toy pool' and p['bytes'] == 1 << 20 and p['device'] == 0 and p['uuid'], p
assert p['regions_registered'] == 10 and p['regions_live'] == 3 and p['live_bytes'] == 12288, p
assert len(p['leaks']) == 1 and p['leaks'][0]['bytes'] == 12288 and p['leaks'][0]['regions'] == 3, p['leaks']
fns = [f['function'] for f in p['leaks'][0]['frames']]
assert 'leaky_user' in fns and 'tidy_user' not in fns, fns
# at the device level the pool is one 1 MiB allocation made in pool_create
assert any(l['bytes'] == 1 << 20 and any(f['function'] == 'pool_create' for f in l['frames']) for l in r['leaks']), r['leaks']
PY
"$CMT_BIN" report p.cmt | grep -q '^pools' || die "text report lacks the pools section"
# without the tracker the program is unchanged
"$CMT_TESTBIN/signals/sig_pool" | grep -q "regions-leaked 3" || die "sig_pool without the tracker"
echo PASS
