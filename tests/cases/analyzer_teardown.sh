#!/usr/bin/env bash
# TEARDOWN replay (issue 13, items 1 and 4): a TEARDOWN naming a context ends that context's
# allocations only; one naming no context (ctx 0: older dumps) ends those of the device's
# contexts; memory of no context (VMM handles) is never ended by a teardown.
source "$CMT_ROOT/tests/cases/analyzer_lib.sh.inc"
cat >td.script <<'S'
header pid=300 host=n1 cmd="td"
api id=1 name=cuMemAlloc_v2
api id=2 name=cuMemCreate
api id=3 name=cuMemRelease
api id=4 name=cuDevicePrimaryCtxReset
api id=5 name=cuCtxDestroy_v2
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name="G" pci=0000:10:00.0 total=80G
ctx idx=1 dev=0 handle=0xa1
ctx idx=2 dev=0 handle=0xa2
alloc dev=0 ptr=0x7f0000000000 size=1M kind=device ctx=1 api=cuMemAlloc_v2
alloc dev=0 ptr=0x7f0000100000 size=2M kind=device ctx=2 api=cuMemAlloc_v2
alloc dev=0 ptr=0x1000 size=4M kind=vmm ctx=0 flags=0x2 api=cuMemCreate
teardown dev=0 ctx=1 api=cuDevicePrimaryCtxReset flags=0x10
teardown dev=0 ctx=0 api=cuDevicePrimaryCtxReset flags=0x10
free dev=0 ptr=0x1000 flags=0x2 api=cuMemRelease
exit clean status=0
S
"$MKDUMP" td.script td.cmt || fail "mkdump"
"$CMT_BIN" report --json td.cmt >td.json || fail "report"
python3 - td.json <<'PY' || fail "teardown replay"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['anomalies']['unknown_free'] == 0, r['anomalies']
got = [(l['bytes'], l['allocations'], l['at']) for l in r['leaks']]
assert sum(g[0] for g in got) == 3 << 20 and sum(g[1] for g in got) == 2, got
assert all(g[2] == 'teardown' for g in got), got
PY
# the timeline's teardown rows name the call that ended the memory (README: api, when the dump names it)
"$CMT_BIN" timeline --csv td.cmt >td.csv || fail "timeline"
python3 - td.csv <<'PY' || fail "timeline teardown rows"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["event"] == "teardown"]
assert [(r["api"], r["live_bytes"]) for r in rows] == [("cuDevicePrimaryCtxReset", str(6 << 20)),
                                                       ("cuDevicePrimaryCtxReset", str(4 << 20))], rows
PY
echo PASS
