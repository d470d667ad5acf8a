#!/usr/bin/env bash
# Another library's pthread_atfork child handler, registered before the tracker's, calls CUDA in
# the forked child before the tracker's own handler runs (issue 13, item 7: the cause of the
# "parent's dump holds a child's allocation" failure in docs/reliability.md). The child's
# allocation must go to the child's dump, never into the parent's inherited staging block.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
FAKECUDA_GROUND_TRUTH=$PWD/gt.%p LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/d.%p.cmt \
    "$P/drv_atfork" >out 2>err || { cat err; die "drv_atfork exited $?"; }
grep -q atforkcuda err && { cat err; die "the child handler's allocation failed"; }
parent=$(awk '$1 == "parent-pid" { print $2 }' out)
child=$(awk '$1 == "child-pid" { print $2 }' out)
"$CMT_BIN" dump "d.$parent.cmt" >p.txt || die "the parent's dump is unreadable (the child wrote into it)"
grep -q "size=4242 \|size=2222 " p.txt && die "the parent's dump holds a child's allocation"
"$CMT_BIN" report --json "d.$parent.cmt" >p.json || die "report"
python3 "$CHECK" p.txt "gt.$parent" out p.json || die "the parent's dump differs from its driver"
"$CMT_BIN" dump "d.$child.cmt" >c.txt || die "the child's dump is unreadable"
[ "$(grep -c ' ALLOC .*size=4242 ' c.txt)" = 1 ] || die "the child handler's allocation is not in the child's dump"
[ "$(grep -c ' ALLOC .*size=2222 ' c.txt)" = 1 ] || die "the child's allocation is not in its dump"
echo PASS
