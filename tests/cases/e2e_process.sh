# The end of a process is recorded as what it was, and nothing recorded before is lost:
# fork (each process its own dump), exec (EXIT exec, then the new image's own dump), _exit
# (exit-immediate), kill -9 (no exit record: "died", every allocation made before the kill present).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
exit_of() { "$CMT_BIN" report --json "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["processes"][0]["exit"])'; }

# fork: the parent's dump and the child's are distinct; each matches its own process exactly
FAKECUDA_GROUND_TRUTH=$PWD/fork.%p.gt LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/fork.%p.cmt \
    "$P/rt_fork.shared" >fork.out 2>fork.err || { cat fork.err; die "rt_fork exited $?"; }
parent=$(awk '$1 == "parent-pid" { print $2 }' fork.out)
child=$(awk '$1 == "child-pid" { print $2 }' fork.out)
[ -n "$parent" ] && [ -n "$child" ] || die "rt_fork did not print its parent-pid and child-pid"
for pid in $parent $child; do
    "$CMT_BIN" dump "fork.$pid.cmt" >"fork.$pid.txt" || die "no readable dump for pid $pid"
    python3 "$CHECK" "fork.$pid.txt" "fork.$pid.gt" || die "fork: pid $pid's dump differs"
done
grep -q "size=3333" "fork.$child.txt" && die "the child's dump holds the parent's allocation"
grep -q "size=2222" "fork.$parent.txt" && die "the parent's dump holds the child's allocation"
[ "$(ls fork.*.cmt* | wc -l)" = 2 ] || die "expected exactly two dumps: $(ls fork.*.cmt*)"
echo "ok fork"

# exec: same pid, so the second image takes the next free name (.1); the first ends with exec
LD_PRELOAD=$CMT_LIB FAKECUDA_GROUND_TRUTH=$PWD/exec.gt CUMEMTRACK_OUTPUT=$PWD/exec.cmt \
    "$P/rt_exec.shared" >exec.out 2>exec.err || { cat exec.err; die "rt_exec exited $?"; }
[ -f exec.cmt ] && [ -f exec.cmt.1 ] || die "exec: expected exec.cmt and exec.cmt.1: $(ls exec.*)"
[ "$(exit_of exec.cmt)" = exec ] || die "exec: first image's exit is $(exit_of exec.cmt)"
"$CMT_BIN" dump exec.cmt | grep -q "size=4444" || die "exec: allocation before exec missing"
"$CMT_BIN" dump exec.cmt.1 >exec1.txt
python3 "$CHECK" exec1.txt exec.gt || die "exec: the new image's dump differs"
[ "$(exit_of exec.cmt.1)" = clean ] || die "exec: second image's exit"
echo "ok exec"

# _exit: exit-immediate, leaks as the driver saw them at that moment
FAKECUDA_GROUND_TRUTH_SYNC=1 traced xi "$P/rt_exit_immediate.shared"
check xi
[ "$(exit_of xi.cmt)" = exit-immediate ] || die "_exit recorded as $(exit_of xi.cmt)"
echo "ok _exit"

# kill -9 mid-run: readable, flagged died, every allocation made before the kill present
for v in shared static; do
    rm -f k.cmt k.gt
    FAKECUDA_GROUND_TRUTH=$PWD/k.gt FAKECUDA_GROUND_TRUTH_SYNC=1 LD_PRELOAD=$CMT_LIB \
        CUMEMTRACK_OUTPUT=$PWD/k.cmt "$P/rt_killme.$v" 40 >k.out 2>k.err &
    pid=$!
    for _ in $(seq 100); do grep -q ready k.out 2>/dev/null && break; sleep 0.1; done
    grep -q ready k.out || die "rt_killme never got ready"
    kill -9 $pid
    wait $pid 2>/dev/null || true
    "$CMT_BIN" dump k.cmt >k.txt || die "kill -9: dump unreadable"
    "$CMT_BIN" report --json k.cmt >k.json || die "kill -9: report failed"
    python3 "$CHECK" k.txt k.gt k.out k.json || die "kill -9 ($v): dump differs from the driver"
    [ "$(exit_of k.cmt)" = died ] || die "kill -9 recorded as $(exit_of k.cmt)"
    echo "ok kill -9 ($v)"
done
echo PASS
