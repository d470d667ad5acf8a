#!/usr/bin/env bash
# Context teardown scope (issue 13, items 1-4): a primary reset/last release ends the primary
# context only; a refused cuCtxDestroy ends nothing; VMM memory belongs to no context; more
# contexts over a process's life than the tracker's table holds at once are all seen; fixed tables
# (pools, VMM undo records) count what they cannot hold.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
no_unknown_frees() {
    python3 - "$1.json" <<'PY' || die "$1: anomalies in the report"
import json, sys
r = json.load(open(sys.argv[1]))
bad = {k: v for k, v in r['anomalies'].items() if v and k != 'captured_allocations'}
assert not bad, bad
PY
}
traced drv_ctxscope "$P/drv_ctxscope" || { cat drv_ctxscope.err; die "drv_ctxscope exited"; }
check drv_ctxscope
no_unknown_frees drv_ctxscope
# the TEARDOWN records name the primary context they end
"$CMT_BIN" dump drv_ctxscope.cmt | awk '$3 == "TEARDOWN" && / ctx=0 / { bad = 1 } END { exit bad }' ||
    die "drv_ctxscope: a TEARDOWN names no context"
# the report agrees: the created contexts' memory was freed by the program, not leaked at teardown
python3 - drv_ctxscope.json <<'PY' || die "drv_ctxscope: report leaks"
import json, sys
r = json.load(open(sys.argv[1]))
got = sorted((l['device'], l['bytes'], l['at']) for l in r['leaks'])
assert got == [(0, 1100, 'teardown'), (1, 1200, 'teardown'), (2, 1400, 'teardown')], got
PY
echo "ok drv_ctxscope"
# 5000 contexts, one per job, each destroyed: every job's memory ends with its context
traced drv_manyctx "$P/drv_manyctx" || { cat drv_manyctx.err; die "drv_manyctx exited"; }
check drv_manyctx
no_unknown_frees drv_manyctx
echo "ok drv_manyctx"
# fixed tables count what they cannot hold: 1100 pools alive at once, the table holds 1024
traced drv_manypools "$P/drv_manypools" || { cat drv_manypools.err; die "drv_manypools exited"; }
check drv_manypools
python3 - drv_manypools.json <<'PY' || die "drv_manypools: pools the table could not hold are not counted"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['anomalies']['table_full'] == 76, r['anomalies']
PY
echo "ok drv_manypools"
# one unmap over 70 mappings (70 handles freed): 6 mappings and 6 handles more than the 64 undo
# records kept, counted
traced drv_manymaps "$P/drv_manymaps" || { cat drv_manymaps.err; die "drv_manymaps exited"; }
check drv_manymaps
python3 - drv_manymaps.json <<'PY' || die "drv_manymaps: VMM undo records not kept are not counted"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['anomalies']['table_full'] == 12, r['anomalies']  # 6 mappings + 6 handles not kept
PY
echo "ok drv_manymaps"
echo PASS
