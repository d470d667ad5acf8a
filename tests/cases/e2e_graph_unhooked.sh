#!/usr/bin/env bash
# cuGraphAddMemFreeNode and cuStreamEndCapture(_ptsz) are not hooked: the tracker reads a graph's
# free nodes (made by any API or by capture) and its edges from the driver when the graph is
# instantiated, so their wrappers did nothing. The library does not export them (calls reach the
# driver directly) and the graphs that use them still match the driver: drv_graph (explicit free
# nodes, captured frees), drv_graph_order (captures joined through events) and drv_async_streams
# capture ptsz (a capture ended through the per-thread variant).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
nm -D --defined-only "$CMT_LIB" | awk '{ print $3 }' >exported
[ -s exported ] || die "no exports read from $CMT_LIB"
grep -qx cuGraphAddMemAllocNode exported || die "cuGraphAddMemAllocNode is not exported (the check reads nothing)"
for s in cuGraphAddMemFreeNode cuStreamEndCapture cuStreamEndCapture_ptsz; do
    grep -qx "$s" exported && die "$s is hooked (its wrapper records nothing)"
done
echo "ok not exported: cuGraphAddMemFreeNode cuStreamEndCapture cuStreamEndCapture_ptsz"
for p in drv_graph drv_graph_order "drv_async_streams capture ptsz"; do
    set -- $p
    p=$1
    FAKECUDA_TRACE=1 traced $p "$P/$p" "${@:2}" || { rc=$?; tail $p.err; die "$p exited $rc"; }
    grep -Eqx 'fakecuda: (cuGraphAddMemFreeNode|cuStreamEndCapture)' $p.err || die "$p: made no free node / capture"
    check $p --peaks
done
echo PASS
