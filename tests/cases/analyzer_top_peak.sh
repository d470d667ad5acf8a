#!/usr/bin/env bash
# cumemtrack top's process PEAK on synthetic dumps: the most GPU bytes the process held at one
# moment, all its devices together, exact (replay.h gpu_peak) even when it happened between two
# refreshes (--once: one refresh, at the end). A process that freed 10 MiB on GPU 0 and then holds
# 1 MiB on GPU 1 peaked at 10 MiB (not 1 MiB: the live total at the refresh); one that held 3 MiB on
# GPU 0 and 5 MiB on GPU 1 together, then 6 MiB on GPU 0 alone, peaked at 8 MiB (not the largest
# device peak, 6, nor their sum, 11). An allocation seen again without a free replaces the old one.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
mkdir job
devs='device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name="G0" pci=0000:10:00.0 total=80G
device ord=1 uuid=GPU-11111111-2222-3333-4444-666666666666 name="G1" pci=0000:20:00.0 total=80G
ctx idx=1 dev=0 handle=0xabc
ctx idx=2 dev=1 handle=0xabd
stack id=1 0x401234'
cat >a.script <<S
header pid=700 host=h1 cmd="twogpu"
$devs
alloc dev=0 ptr=0x1000 size=10M kind=device stack=1 ctx=1
free dev=0 ptr=0x1000
alloc dev=1 ptr=0x2000 size=1M kind=device stack=1 ctx=2
exit clean status=0
S
cat >b.script <<S
header pid=701 host=h1 cmd="sum"
$devs
alloc dev=0 ptr=0x1000 size=3M kind=device stack=1 ctx=1
alloc dev=1 ptr=0x2000 size=5M kind=device stack=1 ctx=2
free dev=0 ptr=0x1000
free dev=1 ptr=0x2000
alloc dev=0 ptr=0x3000 size=6M kind=device stack=1 ctx=1
free dev=0 ptr=0x3000
alloc dev=1 ptr=0x4000 size=2M kind=device stack=1 ctx=2
alloc dev=1 ptr=0x4000 size=2M kind=device stack=1 ctx=2
exit clean status=0
S
"$MKDUMP" a.script job/a.cmt || fail mkdump
"$MKDUMP" b.script job/b.cmt || fail mkdump
LD_LIBRARY_PATH=/nonexistent "$CMT_BIN" top --once job >t.txt 2>t.err || { cat t.err; fail "top --once"; }
cat t.txt
grep -Eq "^  h1 +700 +- +1\.00 MiB +10\.0 MiB " t.txt || fail "pid 700: live 1 MiB, peak 10 MiB"
grep -Eq "^  h1 +701 +- +2\.00 MiB +8\.00 MiB " t.txt || fail "pid 701: live 2 MiB, peak 8 MiB"
LD_LIBRARY_PATH=/nonexistent "$CMT_BIN" top --json --once job >t.json 2>t.err || { cat t.err; fail "top --json"; }
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/top-schema.json" t.json || fail schema
python3 - t.json <<'P' || fail "JSON peaks"
import json, sys
d = json.load(open(sys.argv[1]))
got = {p["pid"]: (p["live_bytes"], p["peak_bytes"]) for p in d["processes"]}
M = 1 << 20
want = {700: (1 * M, 10 * M), 701: (2 * M, 8 * M)}
assert got == want, (got, want)
# a process's peak is never below the peak of a GPU only it used
gpus = {g["uuid"]: g["peak_bytes"] for g in d["gpus"]}
assert gpus["GPU-11111111-2222-3333-4444-555555555555"] == 10 * M, gpus
P
echo ok
