#!/usr/bin/env bash
# The follow-mode reader over dumps written while it reads them: `timeline --follow --csv` watches
# an empty directory, then a traced threaded program (tests/progs/drv_fastbench: 3 writers
# allocating and freeing as fast as the fake driver goes, many blocks, staging blocks copied while
# they are read) writes its dump there. The follower ends by itself when the program has exited,
# and its rows must be exactly those of `timeline --csv` over the finished dump: every record once,
# in sequence order (a record read before an earlier one of another writer would change the live
# bytes of the rows). Then top --json --once counts every record and the live bytes `report` says.
set -u
. "$(dirname "$0")/e2e_lib.sh.inc"
CMT_BIN=${CMT_BIN:-$CMT_ROOT/build/cumemtrack}
F=$P/drv_fastbench
[ -x "$F" ] || die "missing $F (make test-programs)"
trap 'kill -9 $tp $fp 2>/dev/null' EXIT
mkdir job
"$CMT_BIN" timeline --follow --csv job >got.csv 2>got.err &
tp=$!
FAKECUDA_FAST=1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/job/fb.cmt "$F" 100000 3 >f.out 2>f.err &
fp=$!
wait $fp || die "drv_fastbench failed"
wait $tp || { cat got.err; die "timeline --follow failed"; }
nblocks=$(( ($(stat -c %s job/fb.cmt) - 4096) / 65536 ))
[ "$nblocks" -ge 8 ] || die "want many blocks, got $nblocks"
"$CMT_BIN" timeline --csv job >want.csv || die "timeline --csv"
[ "$(wc -l <want.csv)" -gt 100000 ] || die "too few rows to mean anything"
cmp -s want.csv got.csv || { diff want.csv got.csv | head -5; die "followed rows differ from the finished dump's"; }
"$CMT_BIN" top --once --json job >top.json || die "top --json"
"$CMT_BIN" report --json job >rep.json || die "report"
python3 - <<'P' || die "top's figures"
import json
t = json.load(open("top.json")); r = json.load(open("rep.json"))
p = t["processes"][0]
assert p["state"] == "exited", p
leaked = sum(l["bytes"] for l in r["leaks"] if l["device"] is not None and l["device"] >= 0)
assert p["live_bytes"] == leaked, (p["live_bytes"], leaked)
print("records", t["events"], "live", p["live_bytes"])
P
echo PASS
