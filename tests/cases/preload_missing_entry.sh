#!/usr/bin/env bash
# A driver function the installed libcuda.so.1 does not export (issue 13, item 14): without the
# tracker the program fails with a symbol lookup error; with it, the call binds to the tracker's
# export, which returns CUDA_ERROR_NOT_FOUND (what the driver API documents for an unavailable
# function, also what the tracker's own driver calls get) and warns naming the entry point.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
OLD=$CMT_TESTBIN/fakecuda_old
[ -f "$OLD/libcuda.so.1" ] || die "$OLD/libcuda.so.1 not built (make test-programs)"
LD_LIBRARY_PATH=$OLD "$P/drv_missing" >plain.out 2>plain.err && die "runs without the tracker?"
grep -q "symbol lookup error.*cuMemAllocAsync" plain.err || { cat plain.err; die "no symbol lookup error"; }
FAKECUDA_GROUND_TRUTH=$PWD/m.gt LD_LIBRARY_PATH=$OLD LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/m.cmt \
    "$P/drv_missing" >m.out 2>m.err || { cat m.err; die "drv_missing exited $?"; }
grep -qx "missing-result 500" m.out || { cat m.out; die "expected CUDA_ERROR_NOT_FOUND (500)"; }
grep -q "cuMemAllocAsync.*not exported by the CUDA driver" m.err || { cat m.err; die "warning does not name the entry point"; }
grep -q "no CUDA driver" m.err && { cat m.err; die "warning claims there is no driver"; }
check m
echo PASS
