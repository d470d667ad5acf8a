#!/usr/bin/env bash
# Imported memory (issue 13, item 9): another process's allocation mapped with cuIpcOpenMemHandle
# (opened twice: one mapping) or cuMemImportFromShareableHandle is recorded as kind imported: not
# this process's allocation, no unknown_free when released, kept out of its leaks and peaks, and
# listed per device (text and JSON `imported`). Two processes (fork) on the fake driver.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
FAKECUDA_GROUND_TRUTH=$PWD/gt.%p LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/d.%p.cmt \
    "$P/drv_ipc" >out 2>err || { cat err; die "drv_ipc exited $?"; }
child=$(awk '$1 == "child-pid" { print $2 }' out)
parent=$(awk '$1 == "parent-pid" { print $2 }' out)
awk -v c="$child" '$1 == "child-pid" { on = 1; next } $1 == "parent-pid" { on = 0 } on' out >child.out
for pid in $child $parent; do
    "$CMT_BIN" dump "d.$pid.cmt" >"$pid.txt" || die "$pid: dump unreadable"
    "$CMT_BIN" report --json "d.$pid.cmt" >"$pid.json" || die "$pid: report"
    "$CMT_BIN" report "d.$pid.cmt" >"$pid.report" || die "$pid: text report"
done
python3 "$CHECK" "$child.txt" "gt.$child" child.out "$child.json" || die "child: dump differs from its driver"
[ "$(grep -c ' ALLOC .*kind=imported' "$child.txt")" = 2 ] || die "child: expected 2 imported records (one per mapping)"
python3 - "$child.json" <<'PY' || die "child: imported memory counted as its own"
import json, sys
r = json.load(open(sys.argv[1]))
assert all(v == 0 for k, v in r['anomalies'].items()), r['anomalies']
assert [(l['kind'], l['bytes']) for l in r['leaks']] == [('device', 1000)], r['leaks']
d = {x['ordinal']: x for x in r['devices']}
assert d[0]['peak_bytes'] == 1000 and d[0]['leaked_bytes'] == 1000, d[0]
imp = sorted((x['device'], x['imports'], x['open'], x['open_bytes']) for x in r['imported'])
assert imp == [(0, 2, 1, 4 << 20)], imp
PY
grep -q "^imported " "$child.report" || die "child: the text report does not list imported memory"
python3 - "$parent.json" <<'PY' || die "parent: report"
import json, sys
r = json.load(open(sys.argv[1]))
assert not r['leaks'] and not r['imported'], (r['leaks'], r['imported'])
# the one failed call: opening its own IPC handle, refused by the driver
assert all(v == (1 if k == 'failed_calls' else 0) for k, v in r['anomalies'].items()), r['anomalies']
PY
echo PASS
