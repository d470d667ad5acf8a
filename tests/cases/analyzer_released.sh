#!/usr/bin/env bash
# A FREE flagged DEFERRED (format 2.3, issue 30 item 1) ends its allocation at once (pairing,
# double frees) but its bytes only at its RELEASED record, or at the next ALLOC/RETRACK of the
# same key (the driver handed the address out again, so it had released it), or at the end.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
DEV='device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name=G pci=0000:10:00.0 total=1G'
run() { # NAME: NAME.script -> NAME.json (report --json)
    "$MKDUMP" "$1.script" "$1.cmt" || fail "mkdump $1"
    expect_rc 0 "$CMT_BIN" report --json --no-symbols "$1.cmt"
    cp out.txt "$1.json"
}
val() { # NAME PYTHON-EXPR over r (the JSON report)
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1.json" "$2"
}
# 1. another thread allocates while thread 1's free of X is in the driver: both held at once
cat >overlap.script <<S
header pid=1
$DEV
stack id=1 0x1000
writer 1
alloc dev=0 ptr=0x100 size=1M stack=1
free dev=0 ptr=0x100 flags=0x80
writer 2
alloc dev=0 ptr=0x200 size=2M stack=1
writer 1
released space=0 ptr=0x100
writer 2
free dev=0 ptr=0x200 flags=0x80
released space=0 ptr=0x200
exit clean
S
run overlap
[ "$(val overlap "r['devices'][0]['peak_bytes']")" = 3145728 ] || fail "overlap: peak $(val overlap "r['devices'][0]['peak_bytes']"), want 3 MiB"
[ "$(val overlap "r['devices'][0]['leaked_bytes']")" = 0 ] || fail "overlap: leak"
# the same without the flag (a 2.2 dump): the bytes end at the FREE
sed 's/ flags=0x80//; /^released/d' overlap.script >plain.script
run plain
[ "$(val plain "r['devices'][0]['peak_bytes']")" = 2097152 ] || fail "plain: peak, want 2 MiB"
# 2. the address is handed out again (to another thread) before the free returned: the pending
#    bytes end at that ALLOC (never both at one address), and the pairing is the tracker's order
cat >reuse.script <<S
header pid=2
$DEV
stack id=1 0x1000
writer 1
alloc dev=0 ptr=0x100 size=1M stack=1
free dev=0 ptr=0x100 flags=0x80
writer 2
alloc dev=0 ptr=0x100 size=4M stack=1
writer 1
released space=0 ptr=0x100
writer 2
free dev=0 ptr=0x100 flags=0x80
released space=0 ptr=0x100
exit clean
S
run reuse
[ "$(val reuse "r['devices'][0]['peak_bytes']")" = 4194304 ] || fail "reuse: peak $(val reuse "r['devices'][0]['peak_bytes']"), want 4 MiB"
[ "$(val reuse "sum(r['anomalies'].values())")" = 0 ] || fail "reuse: anomalies $(val reuse "r['anomalies']")"
[ "$(val reuse "r['devices'][0]['leaked_bytes']")" = 0 ] || fail "reuse: leak"
# 3. a free that never returned (the dump ends): not a leak; a double free is still one; a
#    refused free (RETRACK) keeps the bytes once
cat >ends.script <<S
header pid=3
$DEV
stack id=1 0x1000
alloc dev=0 ptr=0x100 size=1M stack=1
alloc dev=0 ptr=0x200 size=1M stack=1
alloc dev=0 ptr=0x300 size=1M stack=1
free dev=0 ptr=0x100 flags=0x80
free dev=0 ptr=0x200 flags=0x80
released space=0 ptr=0x200
free dev=-2 ptr=0x200 flags=0x8
free dev=0 ptr=0x300 flags=0x80
retrack dev=0 ptr=0x300 size=1M stack=1 result=1
exit clean
S
run ends
[ "$(val ends "r['devices'][0]['peak_bytes']")" = 3145728 ] || fail "ends: peak"
[ "$(val ends "r['devices'][0]['leaked_bytes']")" = 1048576 ] || fail "ends: leaked $(val ends "r['devices'][0]['leaked_bytes']"), want the retracked 1 MiB"
[ "$(val ends "r['anomalies'].get('double_free', 0)")" = 1 ] || fail "ends: double free not seen"
# 4. the timeline sees the free when its bytes end
expect_rc 0 "$CMT_BIN" timeline --csv overlap.cmt
python3 - out.txt <<'PY' || fail "timeline: live bytes"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r.get("gpu_live_bytes")]
live = [int(r["gpu_live_bytes"]) for r in rows]
assert max(live) == 3 << 20, live
assert [r["event"] for r in rows] == ["alloc", "alloc", "free", "free"], [r["event"] for r in rows]
PY
echo PASS
