# The stack cache never changes a stack (README, CUMEMTRACK_STACK_CACHE): tests/stackcache/sc_adversarial
# (realigned frames, alloca, recursion, function pointers, longjmp, fibers on the thread's stack,
# signal handlers, threads, tail calls; built without and with frame pointers) records, allocation
# by allocation, the same stack with CUMEMTRACK_STACK_CACHE=1 as with 0 (every stack from
# unw_backtrace), in runs whose environment size moves the initial stack pointer (its alignment
# decides whether two paths meet at the same call-site key).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
# every ALLOC's size and stack, as module+offset (tests/stackcache/per_alloc.py)
per_alloc() { "$CMT_BIN" dump "$1" | python3 "$CMT_ROOT/tests/stackcache/per_alloc.py"; }
bad=0 runs=0
for prog in sc_adversarial sc_adversarial_fp; do
    for pad in 0 8 16 24 40 56 72 104 136 200; do
        for sc in 0 1; do
            env CMT_PAD="$(printf "%${pad}s" "")" LD_PRELOAD=$CMT_LIB CUMEMTRACK_STACK_CACHE=$sc \
                CUMEMTRACK_OUTPUT=$PWD/$prog.$pad.$sc.cmt "$CMT_TESTBIN/stackcache/$prog" all 12 >/dev/null \
                || die "$prog failed"
            per_alloc $prog.$pad.$sc.cmt >$prog.$pad.$sc.txt
        done
        runs=$((runs + 1))
        n=$(wc -l <$prog.$pad.1.txt)
        [ "$n" -gt 1000 ] || die "$prog: only $n allocations"
        grep -q ' -$' $prog.$pad.1.txt && die "$prog: an allocation without a stack"
        if ! diff $prog.$pad.0.txt $prog.$pad.1.txt >$prog.$pad.diff; then
            echo "$prog (environment +$pad bytes): $(grep -c '^>' $prog.$pad.diff) of $n stacks differ from libunwind's"
            bad=$((bad + 1))
        fi
    done
done
[ "$bad" = 0 ] || die "the stack cache changed stacks in $bad of $runs runs"
echo PASS
