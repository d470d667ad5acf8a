# The inline path of the hot calls (preload/cmt_events.h: cuMemAlloc_v2, cuMemAllocManaged and the
# frees without a per-thread stream) writes exactly what the general pre- and post-hooks write:
# the same programs, with it (the default) and without it (CUMEMTRACK_FAST=0, test only), give
# dumps that differ in nothing but times and sequence numbers, at depth 0 and 64, through every
# way such a call ends (tests/progs/drv_fastpath.c: OOM, failures, a free of 0, unknown and
# refused frees (RETRACK), context switches, a dlopen, a signal marker, a forked child), and under
# the runtime. Where valgrind is installed, the inline path is shown to be taken (the general
# pre-hook runs for a handful of calls, not for each).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R) # same addresses
# every dump of a run (the forked child's too), without times, sequence numbers, pids, names
dumps() {
    local f
    for f in "$1".cmt*; do
        "$CMT_BIN" dump "$f" | sed -E 's/^seq=[0-9]+ t=[0-9]+ //; s/ pid=[0-9]+//; s/^# [^ ]+//'
    done
}
# without address randomisation the addresses must agree too; with it, they are masked
mask() { if [ ${#norand[@]} -gt 0 ]; then cat; else sed -E 's/0x[0-9a-f]{6,}/X/g; s/ base=X//'; fi; }
both() {
    local name=$1; shift
    local fast
    for fast in 1 0; do
        rm -f "$name$fast".cmt*
        CUMEMTRACK_FAST=$fast LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/$name$fast.cmt "${norand[@]}" "$@" \
            >"$name$fast.out" 2>&1 || die "$name (CUMEMTRACK_FAST=$fast) failed: $(tail -n 3 "$name$fast.out")"
        dumps "$name$fast" | mask >"$name$fast.txt"
    done
    diff "${name}0.txt" "${name}1.txt" >"$name.diff" || { head -n 20 "$name.diff"; die "$name: the inline path's dump differs"; }
    grep -q ' ALLOC \|^ALLOC ' "${name}1.txt" || die "$name: no allocation recorded"
    echo "ok $name: $(grep -c . "${name}1.txt") identical lines"
}
export FAKECUDA_MEM_MB=64 CUMEMTRACK_MARK_SIGNAL=USR1
for depth in 0 64; do
    CUMEMTRACK_DEPTH=$depth both fp$depth "$P/drv_fastpath"
    for r in OOM FAILED RETRACK MARKER; do
        grep -q "^$r " fp${depth}1.txt || die "drv_fastpath depth $depth: no $r record"
    done
    [ "$(ls fp${depth}1.cmt* | wc -l)" = 2 ] || die "drv_fastpath depth $depth: expected the child's dump too"
done
# and the dump agrees with the driver's ground truth
traced fpgt "$P/drv_fastpath"
check fpgt
CUMEMTRACK_DEPTH=0 FAKECUDA_FAST=1 both bench "$P/drv_fastbench" 3000 1
both rt "$P/rt_basic.shared"
both rtfork "$P/rt_fork.shared"
if command -v valgrind >/dev/null; then
    pre_calls() {
        rm -f cg.*
        CUMEMTRACK_FAST=$1 CUMEMTRACK_DEPTH=0 FAKECUDA_FAST=1 CUMEMTRACK_OUTPUT=$PWD/cg$1.cmt \
            valgrind --tool=callgrind --trace-children=yes --compress-strings=no --callgrind-out-file=cg.%p \
            env LD_PRELOAD="$CMT_LIB" "$P/drv_fastbench" 2000 1 >/dev/null 2>&1 || die "valgrind run failed"
        cat cg.* | awk '/^cfn=.*cmt_hook_pre/ { getline; split($1, a, "="); s += a[2] } END { print s + 0 }'
    }
    general=$(pre_calls 0)
    inline=$(pre_calls 1)
    echo "general pre-hook calls for 4000 allocations and frees: $general without the inline path, $inline with it"
    [ "$general" -ge 4000 ] || die "the general path was not counted ($general calls)"
    [ "$inline" -lt 100 ] || die "the inline path was not taken ($inline general pre-hook calls)"
else
    echo "valgrind not installed: not checking that the inline path is taken"
fi
echo PASS
