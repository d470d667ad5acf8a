# A cuGetProcAddress result for a version newer than the tracker's headers that matches no known
# variant is passed through untouched (the application's call works, its allocation is simply not
# seen) and counted: an UNMATCHED_PROC record and the unmatched_proc anomaly. Known variants reached
# through newer versions (drv_getproc at 99999) are still matched by pointer (e2e_programs).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
FAKECUDA_FUTURE_VARIANT=1 traced f "$P/drv_future" || { cat f.err; die "drv_future failed"; }
grep -q "expect-alloc 2" f.out || die "the program's calls did not work"
"$CMT_BIN" dump f.cmt >f.txt || die "dump unreadable"
grep -q 'UNMATCHED_PROC name="cuMemAlloc" version=14000' f.txt || die "no UNMATCHED_PROC record"
[ "$(grep -c ' ALLOC ' f.txt)" = 1 ] && grep -q ' ALLOC .*size=1024 ' f.txt || die "expected only the known variant's allocation"
"$CMT_BIN" report --json f.cmt | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r["anomalies"]["unmatched_proc"] == 1, r["anomalies"]' \
    || die "unmatched_proc not counted"
echo PASS
