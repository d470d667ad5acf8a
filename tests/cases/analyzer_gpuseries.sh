#!/usr/bin/env bash
# Issue 15 item 7: a GPU shared by processes of one host is one merged series (analyzer/model/gpumerge.h)
# everywhere: the JSON report's imbalance.gpus[].peak_bytes, the HTML per-GPU chart (its total line,
# its peak label: the embedded data, and the page in headless Chromium when there is one) and
# `timeline` (the text table's GPU peak, the CSV's gpu_live_bytes, OOM rows included, the Perfetto
# per-GPU counter).
# Two processes holding 100 MiB each at different times peak at 100 MiB, not 200; overlapping, at
# 200 MiB; on two hosts they are two groups, never merged in time (their peaks add). The processes
# start at different times: their series are merged on the host's clock, not since each start.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
M=$((100 << 20))
gpu() {   # gpu PID HOST START T_ALLOC T_FREE: 100 MiB on one GPU from T_ALLOC to T_FREE (ms, host clock)
    cat <<S
header pid=$1 host=$2 start_clock=$(( $3 * 1000000 )) start_real=$(( 1700000000000000000 + $3 * 1000000 ))
device ord=0 uuid=GPU-aaaaaaaa-0000-0000-0000-000000000000 name=G pci=0000:10:00.0 total=80G
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=100M stack=1 t=$(( $4 * 1000000 ))
free dev=0 ptr=0x100 t=$(( $5 * 1000000 ))
exit clean t=$(( $5 * 1000000 + 1 ))
S
}
# a and b: one host, 10-20 ms and 30-40 ms (b starts at 25 ms: since each start they would overlap);
# c: 15-35 ms, overlapping both; d: the same as b on another host, overlapping a on its own clock
gpu 501 n1 1 10 20 >a.script; gpu 502 n1 25 30 40 >b.script; gpu 503 n1 1 15 35 >c.script
gpu 504 n2 1 12 18 >d.script
for x in a b c d; do "$MKDUMP" $x.script $x.cmt || fail mkdump; done

# check CASE PEAK PERHOST DUMPS...: every output agrees on the GPU's peak (PEAK) and, per host, the
# merged series' maximum (PERHOST, space-separated, in host order)
check() {
    local case=$1 peak=$2 perhost=$3; shift 3
    expect_rc 0 "$CMT_BIN" report --json --no-symbols "$@"; cp out.txt $case.json
    expect_rc 0 "$CMT_BIN" report --html --no-symbols -o $case.html "$@"
    expect_rc 0 "$CMT_BIN" timeline "$@"; cp out.txt $case.txt
    expect_rc 0 "$CMT_BIN" timeline --csv "$@"; cp out.txt $case.csv
    expect_rc 0 "$CMT_BIN" timeline --perfetto "$@"; cp out.txt $case.trace
    python3 - $case $peak "$perhost" <<'P' || fail "$case: the outputs disagree on the GPU's merged peak"
import csv, json, re, sys
case, peak, perhost = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3].split()]
g = json.load(open(case + ".json"))["imbalance"]["gpus"][0]
assert g["peak_bytes"] == peak, ("json", g)
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open(case + ".html").read(), re.S).group(1))
hg = d["gpus"][0]
assert hg["peak"] == peak and d["imbalance"]["gpus"][0]["peak"] == peak, ("html peak", hg["peak"])
assert [m["peak"] for m in hg["merged"]] == perhost, ("html merged peaks", hg["merged"])
assert [max(m["pts"][1::4]) for m in hg["merged"]] == perhost, ("html merged series", hg["merged"])
assert sum(m["peak"] for m in hg["merged"]) == peak
for m in hg["merged"]:   # the processes live at the peak hold it
    assert sum(b for _, b in m["peak_procs"]) == m["peak"], m
txt = open(case + ".txt").read()
row = re.search(r"^GPU-aaaaaaaa-0000-0000-0000-000000000000 +(\S+ \S+)", txt.split("GPU PEAKS")[1], re.M)
assert row and row.group(1) == "%d MiB" % (peak >> 20), ("text", txt)
rows = list(csv.DictReader(open(case + ".csv")))
col = [int(r["gpu_live_bytes"]) for r in rows if r["gpu_live_bytes"]]
assert len(col) == len(rows) and max(col) == max(perhost), ("csv", rows)
for r in rows:   # the GPU total is never below the row's own bytes
    assert int(r["gpu_live_bytes"]) >= int(r["live_bytes"]), r
ev = json.load(open(case + ".trace"))["traceEvents"]
tr = {}
for e in ev:
    if e["ph"] == "C" and e["cat"] == "gpu":
        tr.setdefault(e["pid"], []).append(e["args"]["live_bytes"])
assert sorted(max(v) for v in tr.values()) == sorted(perhost), ("perfetto", tr)
P
}
check apart $M "$M" a.cmt b.cmt
check overlap $((2 * M)) "$((2 * M))" a.cmt b.cmt c.cmt
check hosts $((2 * M)) "$M $M" a.cmt d.cmt
# the CSV's GPU column row by row (a, c, b on n1: 100, 100, 200, 100, 200, 100 MiB after each change)
python3 - <<'P' || fail "gpu_live_bytes after each change"
import csv
rows = [(r["pid"], r["event"], int(r["gpu_live_bytes"]) >> 20) for r in csv.DictReader(open("overlap.csv"))]
assert rows == [("501", "alloc", 100), ("501", "free", 100), ("502", "alloc", 200), ("502", "free", 0),
                ("503", "alloc", 200), ("503", "free", 100)], rows
P
# an OOM between the series' changes: its GPU total is the merged series' at its time (e on n1 at
# 16 ms, holding nothing itself: a and c hold 100 MiB each then; before any change: 0)
cat >e.script <<S
header pid=505 host=n1 start_clock=1000000 start_real=1700000001000000
device ord=0 uuid=GPU-aaaaaaaa-0000-0000-0000-000000000000 name=G pci=0000:10:00.0 total=80G
stack id=1 0x1000
oom dev=0 size=1G stack=1 t=5000000
oom dev=0 size=1G stack=1 t=16000000
exit clean t=16000001
S
"$MKDUMP" e.script e.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" timeline --csv a.cmt c.cmt e.cmt
python3 - out.txt <<'P' || fail "OOM rows: gpu_live_bytes"
import csv, sys
r = [(x["live_bytes"], x["gpu_live_bytes"]) for x in csv.DictReader(open(sys.argv[1])) if x["event"] == "oom"]
assert r == [("0", "0"), ("0", str(200 << 20))], r
P
# one dump: the column is the row's own bytes, and the Perfetto GPU track its series
expect_rc 0 "$CMT_BIN" timeline --csv a.cmt
python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); assert [x["gpu_live_bytes"] for x in r] == [x["live_bytes"] for x in r] == [str(100 << 20), "0"], r' out.txt ||
    fail "one dump: gpu_live_bytes"
expect_rc 0 "$CMT_BIN" timeline --perfetto a.cmt
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["traceEvents"]; v=[x["args"]["live_bytes"] for x in e if x.get("cat")=="gpu"]; assert v == [0, 100 << 20, 0], v' out.txt ||
    fail "one dump: perfetto GPU track"

# the page itself: the GPU's total line, its peak marked with the processes live then
CHROME=
for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
if [ -n "$CHROME" ]; then
    prof=$(mktemp -d)
    for case in apart overlap hosts; do
        timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
            --disable-component-update --disable-sync --disable-dev-shm-usage --user-data-dir="$prof" \
            --dump-dom "file://$PWD/$case.html" >$case.dom 2>/dev/null || fail "chromium $case"
        grep -q 'data-rendered="ok"' $case.dom || fail "$case: the page did not render"
    done
    rm -rf "$prof"
    python3 - <<'P' || fail "HTML chart: the GPU's total line or peak label"
import re
def labels(case):
    h = open(case + ".dom").read()
    assert h.count('class="gpu-total"') == {"apart": 1, "overlap": 1, "hosts": 2}[case], case
    return re.findall(r'class="gpu-peak-label"[^>]*>([^<]*)<', h)
l = labels("apart")
assert l == ["GPU peak 100 MiB (pid 501 100 MiB)"], l
l = labels("overlap")
assert len(l) == 1 and l[0].startswith("GPU peak 200 MiB (pid 50") and l[0].count("100 MiB") == 2, l
l = labels("hosts")
assert l == ["n1 peak 100 MiB (pid 501 100 MiB)", "n2 peak 100 MiB (pid 504 100 MiB)"], l
h = open("hosts.dom").read()
assert "GPU peak (all processes at one moment; hosts add up) 200 MiB" in h, "legend"
P
else
    echo "no chromium: the page's embedded data checked only"
fi
echo ok
