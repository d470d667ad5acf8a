#!/usr/bin/env bash
# Without the tracker: fork, exec, _exit and kill -9 programs behave, and the fake's ground truth
# (per process with %p; FAKECUDA_GROUND_TRUTH_SYNC=1 when no destructor runs) matches them.
source "$CMT_ROOT/tests/progs/fake_lib.sh"
for v in shared static; do
    need "$P/rt_fork.$v" "$P/rt_exec.$v" "$P/rt_exit_immediate.$v" "$P/rt_killme.$v"

    # fork: one ground-truth file per process; together they match the expect lines of both
    rm -rf fork.$v && mkdir fork.$v
    FAKECUDA_GROUND_TRUTH=$PWD/fork.$v/gt.%p "$P/rt_fork.$v" >fork.$v.out 2>fork.$v.err || die "rt_fork.$v exit"
    [ "$(ls fork.$v | wc -l)" = 2 ] || die "rt_fork.$v: expected 2 ground-truth files"
    cat fork.$v/gt.* >fork.$v.gt.all
    diff <(expect_keys fork.$v.out) <(gt_keys fork.$v.gt.all) || die "rt_fork.$v: leaks differ"
    cpid=$(awk '$1 == "child-pid" { print $2 }' fork.$v.out)
    [ "$(gt_keys fork.$v/gt.$cpid)" = "device 1 2222" ] || die "rt_fork.$v: child ground truth"
    [ "$(awk '$1 == "alloc_calls" { s += $2 } END { print s }' fork.$v.gt.all)" = "$(expect_alloc fork.$v.out)" ] ||
        die "rt_fork.$v: alloc counts"
    echo "ok rt_fork.$v"

    # exec: the ground truth is the post-exec image's
    FAKECUDA_GROUND_TRUTH=$PWD/exec.$v.gt "$P/rt_exec.$v" >exec.$v.all 2>exec.$v.err || die "rt_exec.$v exit"
    grep -q '^exec-boundary$' exec.$v.all || die "rt_exec.$v: no exec"
    sed '1,/^exec-boundary$/d' exec.$v.all >exec.$v.out
    [ "$(expect_keys exec.$v.all | wc -l)" = 2 ] || die "rt_exec.$v: expected 2 leaks in all"
    compare_gt exec.$v.out exec.$v.gt rt_exec.$v

    # _exit: no destructor runs; the synchronous ground truth has the state at the last change
    FAKECUDA_GROUND_TRUTH_SYNC=1 run_prog rt_exit_immediate.$v "$P/rt_exit_immediate.$v"

    # kill -9 after N allocations
    rm -f kill.$v.gt kill.$v.out
    FAKECUDA_GROUND_TRUTH_SYNC=1 FAKECUDA_GROUND_TRUTH=$PWD/kill.$v.gt "$P/rt_killme.$v" 7 >kill.$v.out 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q '^ready$' kill.$v.out 2>/dev/null && break; sleep 0.1; done
    grep -q '^ready$' kill.$v.out || { kill -9 $pid; die "rt_killme.$v never ready"; }
    kill -9 $pid
    wait $pid 2>/dev/null
    [ "$(expect_keys kill.$v.out | wc -l)" = 7 ] || die "rt_killme.$v: 7 expect lines"
    compare_gt kill.$v.out kill.$v.gt rt_killme.$v
done
echo PASS
