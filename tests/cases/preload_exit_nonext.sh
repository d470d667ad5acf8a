#!/usr/bin/env bash
# exit/_exit wrappers whose next definition cannot be found (issue 13, item 10): like the exec
# wrappers, they check, and the process still ends with its status (and its EXIT record).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
LIB=$CMT_TESTBIN/unit/libcumemtrack_nonext.so
[ -f "$LIB" ] || die "$LIB not built (make test-programs)"
for how in exit _exit return; do
    rm -f n.$how.cmt
    LD_PRELOAD=$LIB CUMEMTRACK_OUTPUT=$PWD/n.$how.cmt "$P/drv_status" 5 $how >n.$how.out 2>n.$how.err
    rc=$?
    [ $rc = 5 ] || { cat n.$how.err; die "drv_status 5 $how exited $rc"; }
    "$CMT_BIN" dump n.$how.cmt | grep -q ' EXIT .*status=5' || die "$how: no EXIT record with status 5"
    echo "ok $how"
done
echo PASS
