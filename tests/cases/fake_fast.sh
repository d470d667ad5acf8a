#!/usr/bin/env bash
# Without the tracker: FAKECUDA_FAST=1 keeps the ground truth exact (counts and leaks from many
# threads) and makes cuMemAlloc_v2 + cuMemFree_v2 cheap.
source "$CMT_ROOT/tests/progs/fake_lib.sh"
need "$P/drv_fastbench" "$P/drv_fastlist"
FAKECUDA_FAST=1 run_prog fast "$P/drv_fastbench" 200000 4
[ "$(gt_value fast.gt free_calls)" = 800000 ] || die "fast: free_calls"
FAKECUDA_FAST=1 "$P/drv_fastbench" 2000000 1 >fast1.out || die "fast single thread"
ns=$(awk '$1 == "ns-per-pair" { print int($2) }' fast1.out)
echo "fast path: $ns ns per cuMemAlloc+cuMemFree pair"
[ "$ns" -lt 1000 ] || die "fast path too slow: $ns ns"
run_prog slow "$P/drv_fastbench" 20000 4
# the free lists: every freed address handed back once, and no free writes into the freed
# allocation (its arena page untouched until then: 200000 scattered frees faulted 12500 pages when
# the list was linked through the allocations)
FAKECUDA_FAST=1 run_prog list "$P/drv_fastlist" 200000
f=$(awk '$1 == "free-faults" { print $2 }' list.out)
echo "free-faults: $f"
[ -n "$f" ] && [ "$f" -lt 100 ] || die "the frees page-faulted $f times"
echo PASS
