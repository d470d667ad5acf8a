#!/usr/bin/env bash
# timeline --csv --follow (issue 25 item 8): every row's gpu_live_bytes is the GPU's live bytes, every
# process of the host together, at that row's time, not in the order the records arrive. Two
# processes of one host share a GPU and allocate in turns (a at 10, 30, 50 ms, b at 20, 40, 60 ms,
# each freeing at 70/80 ms); --follow reads a's dump, then b's, so in arrival order b's rows would
# see a's last bytes. Each one has a marker and an OOM between its allocations: those rows carry the
# GPU's bytes too (the process uses one GPU). A third process on another host (its own GPU there)
# never adds in. The rows --follow writes are those of `timeline --csv` on the same dumps (gpu_live_bytes
# from the merged series, gpumerge.h) and the hand-computed totals; rows come in time order.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
U=GPU-aaaaaaaa-0000-0000-0000-000000000000
proc() { # proc PID HOST T1 T2 T3 TMARK TOOM TFREE (ms on the host clock; every process starts at 1 ms)
    cat <<S
header pid=$1 host=$2 start_clock=1000000 start_real=1700000000001000000
device ord=0 uuid=$U name=G pci=0000:10:00.0 total=80G
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=1M stack=1 t=$(( $3 * 1000000 ))
alloc dev=0 ptr=0x200 size=1M stack=1 t=$(( $4 * 1000000 ))
marker label=mark-$1 t=$(( $6 * 1000000 ))
oom dev=0 size=4G stack=1 t=$(( $7 * 1000000 ))
alloc dev=0 ptr=0x300 size=1M stack=1 t=$(( $5 * 1000000 ))
free dev=0 ptr=0x100 t=$(( $8 * 1000000 ))
free dev=0 ptr=0x200 t=$(( $8 * 1000000 + 1 ))
free dev=0 ptr=0x300 t=$(( $8 * 1000000 + 2 ))
exit clean t=$(( $8 * 1000000 + 3 ))
S
}
mkdir job
proc 501 n1 10 30 50 35 36 70 >a.script
proc 502 n1 20 40 60 45 46 80 >b.script
proc 503 n2 15 25 55 33 34 75 >c.script
for x in a b c; do "$MKDUMP" $x.script job/$x.cmt || fail mkdump; done
expect_rc 0 "$CMT_BIN" timeline --follow --csv job; cp out.txt follow.csv
expect_rc 0 "$CMT_BIN" timeline --csv job; cp out.txt after.csv
python3 - <<'P' || fail "gpu_live_bytes at each row's time"
import csv
M = 1 << 20
rows = list(csv.DictReader(open("follow.csv")))
key = lambda r: (r["pid"], r["time_ns"], r["event"])
# what each row must say (ms, host n1: a and b together; host n2: c alone)
want = {
    ("501", 10, "alloc"): 1, ("502", 20, "alloc"): 2, ("501", 30, "alloc"): 3, ("501", 35, "marker"): 3,
    ("501", 36, "oom"): 3, ("502", 40, "alloc"): 4, ("502", 45, "marker"): 4, ("502", 46, "oom"): 4,
    ("501", 50, "alloc"): 5, ("502", 60, "alloc"): 6,
    ("503", 15, "alloc"): 1, ("503", 25, "alloc"): 2, ("503", 33, "marker"): 2, ("503", 34, "oom"): 2,
    ("503", 55, "alloc"): 3,
}
got = {}
for r in rows:
    ms = int(r["time_ns"]) // 1000000 + 1
    if (r["pid"], ms, r["event"]) in want:
        assert r["gpu_live_bytes"] != "", ("empty", r)
        got[(r["pid"], ms, r["event"])] = int(r["gpu_live_bytes"]) / M
assert got == {k: float(v) for k, v in want.items()}, sorted((k, got.get(k), v) for k, v in want.items() if got.get(k) != v)
# the frees: a's three at 70 ms leave b's 3 MiB, b's at 80 ms leave nothing
fr = [(r["pid"], int(r["gpu_live_bytes"]) // M) for r in rows if r["event"] == "free" and r["pid"] != "503"]
assert fr == [("501", 5), ("501", 4), ("501", 3), ("502", 2), ("502", 1), ("502", 0)], fr
# per host, time order (host clock: every process starts at 1 ms)
for host in ("n1", "n2"):
    t = [int(r["time_ns"]) for r in rows if r["host"] == host]
    assert t == sorted(t), (host, t)
# the rows of the finished dumps, gpu_live_bytes included (that one from the merged series)
after = list(csv.DictReader(open("after.csv")))
assert sorted(map(lambda r: tuple(r.values()), rows)) == sorted(map(lambda r: tuple(r.values()), after)), \
    [(a, b) for a, b in zip(sorted(map(lambda r: tuple(r.values()), rows)), sorted(map(lambda r: tuple(r.values()), after))) if a != b][:5]
P
echo PASS
