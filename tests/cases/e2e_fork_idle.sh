#!/usr/bin/env bash
# A forked child that never calls CUDA leaves no dump (issue 13, item 6), although the runtime's
# exit-time cuDevicePrimaryCtxRelease runs in it (shared and static runtime; exit() and _exit()).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
for v in shared static; do
    mkdir -p $v && cd $v
    FAKECUDA_GROUND_TRUTH=$PWD/gt.%p LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/d.%p.cmt \
        "$P/rt_forkidle.$v" >out 2>err || { cat err; die "rt_forkidle.$v exited $?"; }
    parent=$(awk '$1 == "parent-pid" { print $2 }' out)
    [ "$(ls d.*)" = "d.$parent.cmt" ] || die "rt_forkidle.$v: dumps other than the parent's: $(ls d.*)"
    "$CMT_BIN" dump "d.$parent.cmt" >d.txt || die "rt_forkidle.$v: parent dump unreadable"
    "$CMT_BIN" report --json "d.$parent.cmt" >d.json || die "report"
    python3 "$CHECK" d.txt "gt.$parent" out d.json || die "rt_forkidle.$v: parent dump differs"
    cd ..
    echo "ok $v"
done
echo PASS
