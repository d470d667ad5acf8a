#!/usr/bin/env bash
# Without the tracker: the fake driver's cuGetProcAddress answers every look-up of the CUDA 13.0
# runtime's list correctly (unit test), the runtime double makes exactly one dlsym
# (cuGetProcAddress_v2) in both builds, and a per-thread-default-stream build reaches the _ptsz /
# _ptds driver variants.
source "$CMT_ROOT/tests/progs/fake_lib.sh"
ref=$CMT_ROOT/tests/fakert/cudart13-getprocaddress.txt
need "$P/fake_getproc_test" "$P/libdlsymcount.so" "$ref"
"$P/fake_getproc_test" "$ref" || die "fake_getproc_test"

for v in shared static; do
    need "$P/rt_basic.$v" "$P/rt_ptsz.$v"
    rm -f dlsym.$v.log
    FAKE_DLSYM_LOG=$PWD/dlsym.$v.log LD_PRELOAD=$P/libdlsymcount.so "$P/rt_basic.$v" >/dev/null || die "rt_basic.$v under dlsymcount"
    [ "$(cat dlsym.$v.log)" = "dlsym cuGetProcAddress_v2" ] || { cat dlsym.$v.log; die "rt_basic.$v: dlsym calls"; }
    echo "ok one dlsym ($v)"

    FAKECUDA_TRACE=1 "$P/rt_ptsz.$v" >/dev/null 2>ptsz.$v.trace || die "rt_ptsz.$v"
    for f in cuMemAllocAsync_ptsz cuMemFreeAsync_ptsz cuMemcpy_ptds cuMemsetD8_v2_ptds cuStreamSynchronize_ptsz; do
        grep -qx "fakecuda: $f" ptsz.$v.trace || die "rt_ptsz.$v: $f not called"
    done
    grep -Eqx 'fakecuda: (cuMemAllocAsync|cuMemFreeAsync|cuMemcpy|cuMemsetD8_v2)' ptsz.$v.trace &&
        die "rt_ptsz.$v: a legacy-stream variant was called"
    FAKECUDA_TRACE=1 "$P/rt_basic.$v" >/dev/null 2>basic.$v.trace || die "rt_basic.$v"
    grep -q '_pt[sd][zs]$' basic.$v.trace && die "rt_basic.$v: a per-thread variant was called"
    # the runtime's start-up and exit, like the real one
    for f in cuInit cuDriverGetVersion cuDeviceGetCount cuDeviceGetUuid cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease cuCtxSetCurrent; do
        grep -qx "fakecuda: $f" basic.$v.trace || die "rt_basic.$v: $f not called"
    done
    [ "$(grep -c '^fakecuda: cuGetProcAddress_v2$' basic.$v.trace)" -ge 440 ] || die "rt_basic.$v: look-up replay"
    echo "ok per-thread variants ($v)"
done
echo PASS
