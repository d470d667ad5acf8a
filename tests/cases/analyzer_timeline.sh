#!/usr/bin/env bash
# cumemtrack timeline on synthetic dumps (two ranks, two GPUs, a marker, NVTX ranges, an OOM): text
# table, CSV rows (numeric columns hold numbers only: bytes in their own column, unix_ns from the
# header's start_realtime_ns; gpu_live_bytes on marker and range rows too: their process's one GPU's),
# NVTX range pops that close their push (no empty-named marker), the
# Perfetto / Chrome trace JSON checked against the trace event format's required fields (ranges as
# B/E slices, marks as instants); usage and bad-input exits.
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
marker label=step flags=1 domain=train t=3600000
marker label=fwd flags=1 domain=train t=3700000
writer 2
marker label=load flags=1 domain=train t=3750000
writer 1
marker label= flags=2 domain=train t=3800000
writer 2
marker label= flags=2 domain=train t=3850000
writer 1
marker label= flags=2 domain=train t=3900000
free dev=0 ptr=0x1000 t=4000000
oom dev=0 size=4G stack=1 api=cuMemAlloc_v2 t=5000000
exit clean status=0 t=6000000
S
# rank 1: starts 1 s later; GPU 1
cat >r1.script <<'S'
header pid=101 host=n1 rank=1 world=2 cmd="train.py" start_real=1700000001000000000 start_clock=1000000
device ord=0 uuid=GPU-00000000-0000-0000-0000-00000000000b name="G1" pci=0000:20:00.0 total=1G
alloc dev=0 ptr=0x1000 size=3M t=2000000
free dev=0 ptr=0x1000 t=2200000
retrack dev=0 ptr=0x1000 size=3M result=1 t=2300000
exit clean status=0 t=3000000
S
"$MKDUMP" r0.script job/r0.cmt && "$MKDUMP" r1.script job/r1.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" timeline --csv job
cp out.txt tl.csv
cat >want.csv <<'W'
time_ns,unix_ns,host,pid,rank,device,uuid,live_bytes,event,api,bytes,label,gpu_live_bytes
1500000,1700000000001500000,n1,100,0,0,GPU-00000000-0000-0000-0000-00000000000a,1048576,alloc,cuMemAlloc_v2,1048576,,1048576
2000000,1700000000002000000,n1,100,0,0,GPU-00000000-0000-0000-0000-00000000000a,3145728,alloc,cuMemAlloc_v2,2097152,,3145728
2500000,1700000000002500000,n1,100,0,,,,marker,,,"epoch, ""one""",3145728
2600000,1700000000002600000,n1,100,0,,,,range_begin,,,step,3145728
2700000,1700000000002700000,n1,100,0,,,,range_begin,,,fwd,3145728
2750000,1700000000002750000,n1,100,0,,,,range_begin,,,load,3145728
2800000,1700000000002800000,n1,100,0,,,,range_end,,,fwd,3145728
2850000,1700000000002850000,n1,100,0,,,,range_end,,,load,3145728
2900000,1700000000002900000,n1,100,0,,,,range_end,,,step,3145728
3000000,1700000000003000000,n1,100,0,0,GPU-00000000-0000-0000-0000-00000000000a,2097152,free,,,,2097152
4000000,1700000000004000000,n1,100,0,0,GPU-00000000-0000-0000-0000-00000000000a,2097152,oom,cuMemAlloc_v2,4294967296,,2097152
1000000,1700000001001000000,n1,101,1,0,GPU-00000000-0000-0000-0000-00000000000b,3145728,alloc,,3145728,,3145728
1200000,1700000001001200000,n1,101,1,0,GPU-00000000-0000-0000-0000-00000000000b,0,free,,,,0
1300000,1700000001001300000,n1,101,1,0,GPU-00000000-0000-0000-0000-00000000000b,3145728,retrack,,,,3145728
W
diff -u want.csv tl.csv || fail "CSV rows"
python3 - <<'P' || fail "CSV numeric columns"
import csv
rows = list(csv.DictReader(open("tl.csv")))
for r in rows:
    for k in ("time_ns", "unix_ns", "pid", "rank", "device", "live_bytes", "bytes", "gpu_live_bytes"):
        assert r[k] == "" or r[k].isdigit(), (k, r)
assert not [r for r in rows if r["event"] in ("marker", "range_begin") and r["label"] == ""], rows
P
expect_rc 0 "$CMT_BIN" timeline job/r0.cmt
grep -Eq "^ +0\.002000 +100 +0 +GPU-0+-0000-0000-0000-00000000000a +3\.00 MiB +alloc$" out.txt || { cat out.txt; fail "text table"; }
grep -q "marker:epoch" out.txt || fail "text marker"
grep -q "range_end:fwd" out.txt || fail "text range end (the pop names its push)"
grep -Eq "marker:$" out.txt && fail "an empty-named marker in the text table"
# the report's markers: seconds since the process start, as the timeline's (marker at 3.5 ms,
# the process started at 1 ms), the label quoted with its quotes escaped
expect_rc 0 "$CMT_BIN" report --no-symbols job/r0.cmt
grep -Fq 'first "epoch, \"one\"" mark at t=0.002500s: 3.00 MiB live on GPUs' out.txt ||
    { cat out.txt; fail "report: the first marker's time or label"; }
# a refused free's retrack is a live change like any other: its name alone, no label
expect_rc 0 "$CMT_BIN" timeline job/r1.cmt
grep -Eq "^ +0\.001300 +101 +0 +GPU-0+-0000-0000-0000-00000000000b +3\.00 MiB +retrack$" out.txt ||
    { cat out.txt; fail "text table: retrack row"; }
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
    assert e["ph"] in ("C", "i", "M", "B", "E"), e
    if e["ph"] in ("i", "M"): assert "tid" in e, e
    if e["ph"] == "C":
        assert e.get("args") and all(isinstance(v, (int, float)) for v in e["args"].values()), e
    if e["ph"] == "i": assert e.get("s") in ("g", "p", "t"), e
    if e["ph"] == "M": assert e["name"] in ("process_name", "thread_name", "process_sort_index") and "args" in e, e
c = [e for e in ev if e["ph"] == "C"]
assert [e["args"]["live_bytes"] for e in c if e["pid"] == 100] == [1048576, 3145728, 2097152], c
r1 = [e for e in c if e["pid"] == 101]
assert [e["args"]["live_bytes"] for e in r1] == [3145728, 0, 3145728], r1   # alloc, free, retrack
assert abs(r1[0]["ts"] - 1001000) < 1, r1   # 1 s later + 1 ms, microseconds
assert abs(c[0]["ts"] - 1500) < 1, c[0]
inst = [e for e in ev if e["ph"] == "i"]
assert {e["cat"] for e in inst} == {"oom", "marker", "stack"}, inst
assert [e["name"] for e in inst if e["cat"] == "marker"] == ['epoch, "one"'], inst   # ranges are no instants
sl = [(e["ph"], e["name"], e["ts"], e["tid"]) for e in ev if e["ph"] in ("B", "E")]
# NVTX ranges nest per thread (dump stream): thread 2's pop closes its own push, not thread 1's
assert sl == [("B", "step", 2600, 1), ("B", "fwd", 2700, 1), ("B", "load", 2750, 2), ("E", "fwd", 2800, 1),
              ("E", "load", 2850, 2), ("E", "step", 2900, 1)], sl
tn = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e["name"] == "thread_name"}
assert tn[(100, 1)] == "NVTX ranges (thread 1)" and tn[(100, 2)] == "NVTX ranges (thread 2)" and (101, 1) not in tn, tn
st = [e for e in inst if e["cat"] == "stack" and e["pid"] == 100]   # each allocation's stack
assert [e["name"] for e in st] == ["alloc", "alloc", "free"] and all(e["args"]["stack"] for e in st), st
assert any(e["name"] == 'epoch, "one"' for e in inst), inst
oom = [e for e in inst if e["cat"] == "oom"][0]
assert oom["args"]["requested_bytes"] == 4 << 30 and oom["args"]["live_bytes"] == 2097152, oom
names = {e["pid"]: e["args"]["name"] for e in ev if e["name"] == "process_name" and e["pid"] < 1 << 30}
assert set(names) == {100, 101} and names[101].startswith("rank 1 pid 101"), names
# one track per physical GPU (its processes' total): two GPUs, one process each here
gt = {e["pid"]: e["args"]["name"] for e in ev if e["name"] == "process_name" and e["pid"] >= 1 << 30}
assert sorted(gt.values()) == ["GPU GPU-00000000-0000-0000-0000-00000000000a on n1: all processes (1)",
                               "GPU GPU-00000000-0000-0000-0000-00000000000b on n1: all processes (1)"], gt
g = [e for e in c if e["cat"] == "gpu"]
assert [e["args"]["live_bytes"] for e in g if "0a" in e["name"][-2:]] == [0, 1048576, 3145728, 2097152], g
P
# the HTML report's markers: a range pop closes its push (no empty-named marker of its own)
expect_rc 0 "$CMT_BIN" report --html --no-symbols -o r0.html job/r0.cmt
python3 - <<'P' || fail "HTML markers of NVTX ranges"
import json, re
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open("r0.html").read(), re.S).group(1))
m = [(x["label"], x["kind"], x["t"], x.get("t_end")) for x in d["markers"]]
assert m == [('epoch, "one"', "mark", 2500, None), ("step", "range", 2600, 2900), ("fwd", "range", 2700, 2800),
             ("load", "range", 2750, 2850)], m
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
