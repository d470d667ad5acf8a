#!/usr/bin/env bash
# cumemtrack timeline on synthetic dumps (two ranks, two GPUs, a marker, an OOM): text table, CSV
# rows and their ISO-8601 wall clock (from the header's start_realtime_ns), the Perfetto / Chrome
# trace JSON checked against the trace event format's required fields; usage and bad-input exits.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
mkdir job
# rank 0: starts at 2023-11-14T22:13:20Z (1700000000 s), clock 1 ms; GPU 0
cat >r0.script <<'S'
header pid=100 host=n1 rank=0 world=2 cmd="train.py" start_real=1700000000000000000 start_clock=1000000
api id=1 name=cuMemAlloc_v2
device ord=0 uuid=GPU-00000000-0000-0000-0000-00000000000a name="G0" pci=0000:10:00.0 total=1G
module id=1 base=0x400000 path=/nonexistent/train seg=0x0:0x10000:5
stack id=1 0x401234 0x401300
alloc dev=0 ptr=0x1000 size=1M stack=1 api=cuMemAlloc_v2 t=2500000
alloc dev=0 ptr=0x200000 size=2M stack=1 api=cuMemAlloc_v2 t=3000000
marker label="epoch, \"one\"" t=3500000
free dev=0 ptr=0x1000 t=4000000
oom dev=0 size=4G stack=1 api=cuMemAlloc_v2 t=5000000
exit clean status=0 t=6000000
S
# rank 1: starts 1 s later; GPU 1
cat >r1.script <<'S'
header pid=101 host=n1 rank=1 world=2 cmd="train.py" start_real=1700000001000000000 start_clock=1000000
device ord=0 uuid=GPU-00000000-0000-0000-0000-00000000000b name="G1" pci=0000:20:00.0 total=1G
alloc dev=0 ptr=0x1000 size=3M t=2000000
exit clean status=0 t=3000000
S
"$MKDUMP" r0.script job/r0.cmt && "$MKDUMP" r1.script job/r1.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" timeline --csv job
cp out.txt tl.csv
cat >want.csv <<'W'
time,wallclock,host,pid,device,uuid,live,event
0.001500000,2023-11-14T22:13:20.001500Z,n1,100,0,GPU-00000000-0000-0000-0000-00000000000a,1048576,alloc
0.002000000,2023-11-14T22:13:20.002000Z,n1,100,0,GPU-00000000-0000-0000-0000-00000000000a,3145728,alloc
0.002500000,2023-11-14T22:13:20.002500Z,n1,100,,,,"marker:epoch, ""one"""
0.003000000,2023-11-14T22:13:20.003000Z,n1,100,0,GPU-00000000-0000-0000-0000-00000000000a,2097152,free
0.004000000,2023-11-14T22:13:20.004000Z,n1,100,0,GPU-00000000-0000-0000-0000-00000000000a,2097152,oom:cuMemAlloc_v2:4.00 GiB
0.001000000,2023-11-14T22:13:21.001000Z,n1,101,0,GPU-00000000-0000-0000-0000-00000000000b,3145728,alloc
W
diff -u want.csv tl.csv || fail "CSV rows"
expect_rc 0 "$CMT_BIN" timeline job/r0.cmt
grep -Eq "^ +0\.002000 +100 +0 +GPU-0+-0000-0000-0000-00000000000a +3\.00 MiB +alloc$" out.txt || { cat out.txt; fail "text table"; }
grep -q "marker:epoch" out.txt || fail "text marker"
expect_rc 0 "$CMT_BIN" timeline --perfetto -o trace.json job
[ -s trace.json ] || fail "no trace written"
python3 - <<'P' || fail "trace event JSON"
import json
d = json.load(open("trace.json"))
ev = d["traceEvents"]
assert isinstance(ev, list) and ev
for e in ev:
    for k in ("name", "ph", "ts", "pid"):
        assert k in e, (k, e)
    assert isinstance(e["ts"], (int, float)) and isinstance(e["pid"], int) and isinstance(e["name"], str), e
    assert e["ph"] in ("C", "i", "M"), e
    if e["ph"] in ("i", "M"): assert "tid" in e, e
    if e["ph"] == "C":
        assert e.get("args") and all(isinstance(v, (int, float)) for v in e["args"].values()), e
    if e["ph"] == "i": assert e.get("s") in ("g", "p", "t"), e
    if e["ph"] == "M": assert e["name"] in ("process_name", "thread_name", "process_sort_index") and "args" in e, e
c = [e for e in ev if e["ph"] == "C"]
assert [e["args"]["live_bytes"] for e in c if e["pid"] == 100] == [1048576, 3145728, 2097152], c
r1 = [e for e in c if e["pid"] == 101]
assert len(r1) == 1 and abs(r1[0]["ts"] - 1001000) < 1, r1   # 1 s later + 1 ms, microseconds
assert abs(c[0]["ts"] - 1500) < 1, c[0]
inst = [e for e in ev if e["ph"] == "i"]
assert {e["cat"] for e in inst} == {"oom", "marker", "stack"}, inst
st = [e for e in inst if e["cat"] == "stack" and e["pid"] == 100]   # each allocation's stack
assert [e["name"] for e in st] == ["alloc", "alloc", "free"] and all(e["args"]["stack"] for e in st), st
assert any(e["name"] == 'epoch, "one"' for e in inst), inst
oom = [e for e in inst if e["cat"] == "oom"][0]
assert oom["args"]["requested_bytes"] == 4 << 30 and oom["args"]["live_bytes"] == 2097152, oom
names = {e["pid"]: e["args"]["name"] for e in ev if e["name"] == "process_name"}
assert set(names) == {100, 101} and names[101].startswith("rank 1 pid 101"), names
P
expect_rc 0 "$CMT_BIN" timeline --help; grep -q "usage: cumemtrack timeline" out.txt || fail "--help"
expect_rc 2 "$CMT_BIN" timeline
expect_rc 2 "$CMT_BIN" timeline --bogus job
expect_rc 3 "$CMT_BIN" timeline nothere.cmt; grep -q "nothere.cmt" err.txt || fail "missing file not named"
head -c 5000 job/r0.cmt >bad.cmt; printf '\x7f\x7f\x7f\x7f' | dd of=bad.cmt bs=1 seek=4128 conv=notrunc 2>/dev/null
"$CMT_BIN" timeline --csv bad.cmt >/dev/null 2>err.txt; rc=$?
[ $rc = 3 ] || fail "bad dump: exit $rc, want 3 (bad input)"
grep -q "bad.cmt" err.txt || fail "bad dump not named"
echo ok
