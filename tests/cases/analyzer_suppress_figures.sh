#!/usr/bin/env bash
# Issue 25 item 7: a leak matched by --suppressions is in no leak figure, whichever output shows it:
# the summary, check's budget, the text devices table's LEAKED, JSON devices[].leaked_bytes,
# host.leaked_bytes and imbalance.gpus[].leaked_bytes, the HTML page's GPUs and processes, and diff's
# per-GPU leaked bytes. Two processes of one host share GPU 0; each leaks through the application
# (module /nonexistent/app) and through a library the suppression names (libnoise.so), on two GPUs
# and in pinned host memory.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
U0=GPU-50000000-0000-0000-0000-000000000000 U1=GPU-51000000-0000-0000-0000-000000000000
mkdir job
proc() { # proc PID: 1 MiB (app) + 2 MiB (libnoise) on GPU 0, 4 MiB (libnoise) on GPU 1, 8 KiB pinned (app)
    cat <<S
header pid=$1 host=n1 rank=-1 world=1 cmd="app"
device ord=0 uuid=$U0 name=G pci=0000:10:00.0 total=80G
device ord=1 uuid=$U1 name=G pci=0000:11:00.0 total=80G
module id=1 base=0x400000 path=/nonexistent/app seg=0x0:0x10000:5
module id=2 base=0x7f0000000000 path=/nonexistent/libnoise.so seg=0x0:0x10000:5
stack id=1 0x401234 0x401300
stack id=2 0x7f0000001000 0x401300
alloc dev=0 ptr=0x10000000 size=1M kind=device stack=1
alloc dev=0 ptr=0x20000000 size=2M kind=device stack=2
alloc dev=1 ptr=0x30000000 size=4M kind=device stack=2
alloc dev=-1 ptr=0x600000 size=8K kind=host-pinned stack=1
exit clean status=0
S
}
proc 601 >a.script; proc 602 >b.script
"$MKDUMP" a.script job/a.cmt && "$MKDUMP" b.script job/b.cmt || fail mkdump
printf 'leak:*libnoise*\n' >supp.txt
M=$((1 << 20)) K=8192
expect_rc 0 "$CMT_BIN" report --json --no-symbols --suppressions supp.txt job; cp out.txt r.json
expect_rc 0 "$CMT_BIN" report --no-symbols --suppressions supp.txt job; cp out.txt r.txt
expect_rc 0 "$CMT_BIN" report --html --no-symbols --suppressions supp.txt -o r.html job
expect_rc 0 "$CMT_BIN" diff --json --no-symbols --suppressions supp.txt job job; cp out.txt d.json
python3 - $M $K <<'P' || fail "a suppressed leak counted in a figure"
import json, re, sys
M, K = int(sys.argv[1]), int(sys.argv[2])
d = json.load(open("r.json"))
assert d["summary"]["leaked_bytes"] == 2 * (M + K) and d["summary"]["suppressed_bytes"] == 2 * 6 * M, d["summary"]
dev = {(x["pid"], x["ordinal"]): x["leaked_bytes"] for x in d["devices"]}
assert dev == {(601, 0): M, (601, 1): 0, (602, 0): M, (602, 1): 0}, dev
assert d["host"]["leaked_bytes"] == 2 * K, d["host"]
assert {g["uuid"][:6]: g["leaked_bytes"] for g in d["imbalance"]["gpus"]} == {"GPU-50": 2 * M, "GPU-51": 0}, d["imbalance"]
# the text table: LEAKED per process and device
rows = [l.split() for l in open("r.txt").read().split("\ndevices\n")[1].split("\n\n")[0].splitlines()[1:]]
txt = {(r[0], r[1]): " ".join(r[6:8]) for r in rows if r[1] != "host"}
assert txt == {("601", "0"): "1.00 MiB", ("601", "1"): "0 B", ("602", "0"): "1.00 MiB", ("602", "1"): "0 B"}, txt
# the HTML page's data
h = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open("r.html").read(), re.S).group(1))
assert {g["uuid"][:6]: g["leaked"] for g in h["gpus"]} == {"GPU-50": 2 * M, "GPU-51": 0}, h["gpus"]
assert {g["uuid"][:6]: g["leaked"] for g in h["imbalance"]["gpus"]} == {"GPU-50": 2 * M, "GPU-51": 0}
assert [p["leaked"] for p in h["processes"]] == [M, M], h["processes"]
assert h["summary"]["leaked_bytes"] == 2 * (M + K)
# diff: the per-GPU leaked bytes of both runs
dd = json.load(open("d.json"))
lk = {(g["uuid"][:6], g[run]["leaked_bytes"]) for g in dd["devices"] for run in ("old", "new")}
assert lk == {("GPU-50", 2 * M), ("GPU-51", 0)}, lk
assert dd["old"]["leaked_bytes"] == dd["new"]["leaked_bytes"] == 2 * (M + K), dd["old"]
P
# check: the budget counts what the summary counts
expect_rc 0 "$CMT_BIN" check --no-symbols --suppressions supp.txt --max-leak-bytes $((2 * (M + K))) job
expect_rc 1 "$CMT_BIN" check --no-symbols --suppressions supp.txt --max-leak-bytes $((2 * (M + K) - 1)) job
echo PASS
