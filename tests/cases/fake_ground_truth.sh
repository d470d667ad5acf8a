#!/usr/bin/env bash
# Without the tracker: every test program runs and exits 0 with both runtimes (shared and static
# libcudart double) and the fake driver's ground truth matches its expect-leak / expect-alloc lines.
source "$CMT_ROOT/tests/progs/fake_lib.sh"
for p in rt_basic rt_threads rt_oom rt_capture rt_ptsz; do
    for v in shared static; do
        need "$P/$p.$v"
        run_prog "$p.$v" "$P/$p.$v"
    done
done
for p in drv_basic drv_vmm drv_teardown drv_getproc drv_devices; do
    need "$P/$p"
    run_prog "$p" "$P/$p"
done
# teardown semantics: functions named teardown_* hold exactly the leaks a teardown ended
diff <(awk '$1 == "expect-leak" && $5 ~ /^teardown_/ { print $2, $3, $4 }' drv_teardown.out | sort) \
     <(gt_keys drv_teardown.gt teardown) || die "drv_teardown: WHEN=teardown lines differ"
[ "$(gt_keys drv_teardown.gt exit)" = "device 3 6000" ] || die "drv_teardown: exit leaks wrong"
# the runtime releases primary contexts at exit: those leaks are still WHEN=exit
[ -z "$(gt_keys rt_basic.shared.gt teardown)" ] || die "rt_basic: teardown at exit reported as teardown"
# captured allocations are graph nodes: not counted
grep -q '^alloc_calls 2$' rt_capture.shared.gt || die "rt_capture: captured allocations counted"
# vmm: the leaked handle and the released-but-mapped one are leaks; PTR is the handle
[ "$(gt_keys drv_vmm.gt | wc -l)" = 2 ] || die "drv_vmm: wrong leak count"
[ "$(gt_value drv_vmm.gt free_calls)" = 7 ] || die "drv_vmm: free_calls"
echo PASS
