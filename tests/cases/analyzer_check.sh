#!/usr/bin/env bash
# check exit codes: 0 pass, 1 leaks over budget / regression against a baseline, 2 usage, 3 bad
# input; suppressions counted per pattern; size suffixes. (basic.cmt frees an unknown pointer:
# --allow-anomalies lets check judge its leaks; analyzer_trust tests the anomaly gate.)
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
g=$CMT_ROOT/tests/golden
"$MKDUMP" "$g/basic.script" basic.cmt || fail mkdump
# a clean run: everything freed
clean_dump
expect_rc 0 "$CMT_BIN" check --allow-anomalies clean.cmt
expect_rc 1 "$CMT_BIN" check --allow-anomalies --no-symbols basic.cmt
grep -q "check failed: 1.50 MiB leaked" err.txt || fail "no reason printed"
grep -q "train+0x1234" err.txt || fail "no offending stack printed"
grep -q "(pid [0-9]*, live at exit):" err.txt || fail "the leak does not say when it was live"
# a process that died: its leaks are what was live when it died, in the report's words
"$MKDUMP" "$g/died.script" died.cmt || fail "mkdump died"
expect_rc 1 "$CMT_BIN" check --allow-anomalies --no-symbols died.cmt
grep -q "(pid 400, live when it died):" err.txt || fail "died: $(cat err.txt)"
expect_rc 0 "$CMT_BIN" check --allow-anomalies --max-leak-bytes 2M basic.cmt
expect_rc 1 "$CMT_BIN" check --allow-anomalies --max-leak-bytes 1000K basic.cmt
expect_rc 0 "$CMT_BIN" check --allow-anomalies --max-leak-bytes 1575K basic.cmt   # 1.5 MiB + 4 KiB host = 1540 KiB
expect_rc 2 "$CMT_BIN" check --allow-anomalies --max-leak-bytes lots basic.cmt
expect_rc 2 "$CMT_BIN" check
expect_rc 2 "$CMT_BIN" check --allow-anomalies --bogus basic.cmt
expect_rc 2 "$CMT_BIN" check --allow-anomalies --max-peak-growth 10 basic.cmt
# a growth limit that is no finite percentage is refused, not taken as "no limit"
for v in nan inf 1e400 -5 10x; do
    expect_rc 2 "$CMT_BIN" check --allow-anomalies --baseline basic.cmt --max-peak-growth "$v" basic.cmt
    grep -q "not a percentage" err.txt || fail "--max-peak-growth $v: $(cat err.txt)"
done
expect_rc 2 "$CMT_BIN" frobnicate
expect_rc 3 "$CMT_BIN" check --allow-anomalies missing.cmt
: >empty.cmt; expect_rc 3 "$CMT_BIN" check --allow-anomalies empty.cmt
expect_rc 0 "$CMT_BIN" --version
# the dump format it names is the one it writes and reads (it printed a hard-coded 1.0)
fmt=$(sed -n 's/^#define CMT_VERSION_MAJOR \([0-9]*\).*/\1/p; s/^#define CMT_VERSION_MINOR \([0-9]*\).*/.\1/p' \
    "$CMT_ROOT/include/cmt_format.h" | tr -d '\n')
grep -q "(dump format $fmt)" out.txt || fail "--version: $(cat out.txt), format $fmt"
expect_rc 0 "$CMT_BIN" check --allow-anomalies --help; grep -q max-peak-growth out.txt || fail "check --help"
expect_rc 0 "$CMT_BIN" report --help
expect_rc 0 "$CMT_BIN" dump --help
# suppressions: module match removes the device leak (stack 1 frames in /nonexistent/train)
cat >supp.txt <<'S'
# comment

leak:nothing_matches_this
leak:*nonexistent/tr*
S
expect_rc 0 "$CMT_BIN" check --allow-anomalies --suppressions supp.txt --no-symbols basic.cmt
"$CMT_BIN" report --json --no-symbols --suppressions supp.txt basic.cmt >supp.json || fail report
python3 - <<'PY' || fail "suppression counts"
import json
d=json.load(open('supp.json'))
s={x['pattern']:x for x in d['suppressions']}
assert s['nothing_matches_this']['leaks']==0, s
assert s['*nonexistent/tr*']['leaks']==2 and s['*nonexistent/tr*']['bytes']==1572864+4096, s
assert d['summary']['leaked_bytes']==0 and d['leaks']==[], d['summary']
# a suppressed leak is in no leak figure: the devices' and the GPUs' neither
assert all(x['leaked_bytes']==0 for x in d['devices']), d['devices']
assert all(g['leaked_bytes']==0 for g in d['imbalance']['gpus']), d['imbalance']
PY
"$CMT_BIN" report --no-symbols --suppressions supp.txt basic.cmt >supp.txt.out || fail "text report"
devrows() { awk '/^devices/ { on = 1; next } on && /^$/ { exit } on' "$1"; }
"$CMT_BIN" report --no-symbols basic.cmt >nosupp.txt.out || fail "text report"
devrows nosupp.txt.out | grep -q "1.50 MiB" || fail "the devices table does not show the leak"
devrows supp.txt.out | grep -q "1.50 MiB" && fail "the devices table still shows the suppressed leak"
printf 'bogus line\n' >badsupp.txt; expect_rc 2 "$CMT_BIN" check --allow-anomalies --suppressions badsupp.txt basic.cmt
# baseline: same run passes; more leaks fail; peak growth over PCT fails
expect_rc 0 "$CMT_BIN" check --allow-anomalies --baseline basic.cmt --no-symbols basic.cmt
sed 's/^exit clean.*/alloc dev=0 ptr=0x7f0000300000 size=1M kind=device stack=2 ctx=1 api=cuMemAlloc_v2\nexit clean/' "$g/basic.script" >more.script
"$MKDUMP" more.script more.cmt
expect_rc 1 "$CMT_BIN" check --allow-anomalies --baseline basic.cmt --no-symbols more.cmt
grep -q "leaked bytes grew" err.txt || fail "no growth reason"
grep -q "new .*train+0x2000" err.txt || fail "no new stack chain"
expect_rc 0 "$CMT_BIN" check --allow-anomalies --baseline more.cmt --no-symbols basic.cmt
# peak: more.cmt peaks at 3 MiB like basic (the extra 1M comes after frees): same peak
expect_rc 0 "$CMT_BIN" check --allow-anomalies --baseline more.cmt --max-peak-growth 5 --no-symbols more.cmt
sed 's/size=2M/size=4M/' "$g/basic.script" >bigpeak.script; "$MKDUMP" bigpeak.script bigpeak.cmt
expect_rc 1 "$CMT_BIN" check --allow-anomalies --baseline basic.cmt --max-peak-growth 50 --max-leak-bytes 1G --no-symbols bigpeak.cmt
grep -q "peak on GPU-11111111-2222-3333-4444-555555555555 grew 66.7%" err.txt || { cat err.txt; fail "peak reason"; }
expect_rc 0 "$CMT_BIN" check --allow-anomalies --baseline basic.cmt --max-peak-growth 70 --max-leak-bytes 1G --no-symbols bigpeak.cmt
expect_rc 3 "$CMT_BIN" check --allow-anomalies --baseline empty.cmt basic.cmt
# a free the driver refused of a pointer it never allocated (the tracker writes the FREE, marked
# unknown, then the call's FAILED) freed nothing: no unknown_free, so the gate can trust the figures;
# an unknown free that went through, or whose FAILED came from another thread or call, still counts
uf() { # NAME: the free of 0x1008 by writer 1, then $2 (a FAILED line, maybe after "writer 2")
    cat >"$1.script" <<S
header pid=800 host=h1 cmd="badfree"
api id=1 name=cuMemAlloc_v2
api id=2 name=cuMemFree_v2
api id=3 name=cuMemFreeHost
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name="G0" pci=0000:10:00.0 total=80G
ctx idx=1 dev=0 handle=0xabc
stack id=1 0x401234
alloc dev=0 ptr=0x1000 size=1M kind=device stack=1 ctx=1 api=cuMemAlloc_v2
free dev=-2 ptr=0x1008 api=cuMemFree_v2 flags=0x8
$2
writer 1
free dev=0 ptr=0x1000 api=cuMemFree_v2
exit clean status=0
S
    "$MKDUMP" "$1.script" "$1.cmt" || fail "mkdump $1"
    "$CMT_BIN" report --json --no-symbols "$1.cmt" >"$1.json" || fail "report $1"
}
an() { python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["anomalies"]; print(a["unknown_free"], a["failed_calls"])' "$1.json"; }
uf refused "failed dev=-2 size=0 stack=1 api=cuMemFree_v2 result=1"
[ "$(an refused)" = "0 1" ] || fail "refused unknown free: unknown_free failed_calls = $(an refused)"
expect_rc 0 "$CMT_BIN" check --no-symbols refused.cmt
uf through ""
[ "$(an through)" = "1 0" ] || fail "unknown free: $(an through)"
expect_rc 1 "$CMT_BIN" check --no-symbols through.cmt
grep -q "unknown_free" err.txt || fail "the unknown free is not the reason: $(cat err.txt)"
uf otherthread "writer 2
failed dev=-2 size=0 stack=1 api=cuMemFree_v2 result=1"
[ "$(an otherthread)" = "1 1" ] || fail "another thread's FAILED: $(an otherthread)"
uf othercall "failed dev=-2 size=0 stack=1 api=cuMemFreeHost result=1"
[ "$(an othercall)" = "1 1" ] || fail "another call's FAILED: $(an othercall)"
echo ok
