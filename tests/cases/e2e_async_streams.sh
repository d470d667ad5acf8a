#!/usr/bin/env bash
# Stream-ordered allocations answered without the driver (issue 16, runtime path): the device of
# an allocation on a created stream comes from a per-thread cache of the stream's device, which a
# destroyed and reused handle must not fool; cuStreamIsCapturing is skipped until a capture was
# begun, by any of the begin variants, and a stream that joins a capture through an event is
# captured too. Each dump must match the fake driver exactly (devices, captured nodes not counted
# as memory), and the driver calls the tracker adds per cuMemAllocAsync+cuMemFreeAsync pair are
# counted with FAKECUDA_TRACE: no cuStreamIsCapturing, cuPointerGetAttribute or cuStreamGetCtx
# per pair (one cuCtxGetCurrent per allocation stays: a runtime switches contexts unseen).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
A=$P/drv_async_streams
traced devices "$A" devices || { cat devices.err; die "devices exited $?"; }
check devices
echo "ok devices"
for v in v1 v2 ptsz tograph; do
    traced "cap_$v" "$A" capture "$v" || { cat "cap_$v.err"; die "capture $v exited $?"; }
    check "cap_$v"
    # the two allocations and two frees on the capturing and the joined stream are graph nodes
    n=$(grep -cE " (ALLOC|FREE) api=cuMem(Alloc|Free)Async .*flags=0x4$" "cap_$v.txt")
    [ "$n" = 4 ] || die "capture $v: $n captured records, expected 4"
    echo "ok capture $v"
done
if grep -l "cumemtrack\[" ./*.err; then die "the tracker warned"; fi
# a variant the tracker cannot wrap (a driver newer than it): it assumes the worst of that family
export FAKECUDA_FUTURE_VARIANT=1
traced fut_dev "$A" devices future || { cat fut_dev.err; die "devices future exited $?"; }
check fut_dev
traced fut_cap "$A" capture future || { cat fut_cap.err; die "capture future exited $?"; }
check fut_cap
n=$(grep -cE " (ALLOC|FREE) api=cuMem(Alloc|Free)Async .*flags=0x4$" fut_cap.txt)
[ "$n" = 4 ] || die "capture future: $n captured records, expected 4"
grep -q 'UNMATCHED_PROC name="cuStreamBeginCapture"' fut_cap.txt || die "capture future: not unmatched"
grep -q 'UNMATCHED_PROC name="cuStreamDestroy"' fut_dev.txt || die "devices future: not unmatched"
unset FAKECUDA_FUTURE_VARIANT
echo "ok future variants"

# driver calls per pair: traced run minus untraced run of the same program, 2000 vs 1000 pairs
count() { # count TRACKED N NAME...: calls of each NAME
    local tracked=$1 n=$2; shift 2
    if [ "$tracked" = 1 ]; then
        FAKECUDA_TRACE=1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/pairs.cmt "$A" pairs "$n" 2>pairs.trace >/dev/null
    else
        FAKECUDA_TRACE=1 "$A" pairs "$n" 2>pairs.trace >/dev/null
    fi || die "pairs $n exited $?"
    for name in "$@"; do echo -n "$(grep -c "^fakecuda: $name\$" pairs.trace) "; done
}
NAMES="cuStreamIsCapturing cuPointerGetAttribute cuStreamGetCtx cuCtxGetCurrent"
read -r -a t2 <<<"$(count 1 2000 $NAMES)"
read -r -a t1 <<<"$(count 1 1000 $NAMES)"
read -r -a u2 <<<"$(count 0 2000 $NAMES)"
read -r -a u1 <<<"$(count 0 1000 $NAMES)"
i=0
for name in $NAMES; do
    per=$(( (t2[i] - u2[i]) - (t1[i] - u1[i]) )) # added calls per 1000 pairs
    echo "added $name per 1000 pairs: $per"
    case $name in
    cuCtxGetCurrent) [ "$per" -le 1000 ] || die "$name: $per calls per 1000 pairs" ;;
    *) [ "$per" = 0 ] || die "$name: $per calls per 1000 pairs, expected none" ;;
    esac
    i=$((i + 1))
done
echo PASS
