#!/usr/bin/env bash
# cmt-test: long
# gpu_check — `make gpu-check` without a GPU: the skip path, then the whole check end to end on the
# fake driver (tests/gpu/gpu_check.sh --selftest), that its comparisons fail when they should, the
# module/marker comparisons, and the deferred-analysis path (analyzer unusable where it ran).
set -u
die() { echo "FAIL: $*"; exit 1; }
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
command -v "$NVCC" >/dev/null 2>&1 || command -v nvcc >/dev/null 2>&1 || { echo "nvcc absent"; exit 77; }
G=$CMT_ROOT/tests/gpu/gpu_check.sh

# 1. no GPU: one line, exit 0 (on a machine with a GPU this part is not ours to run)
if ! { nvidia-smi -L >/dev/null 2>&1 || [ -e /dev/nvidia0 ]; }; then
    out=$(bash "$G" 2>&1); rc=$?
    [ $rc -eq 0 ] || die "skip path exit $rc"
    [ "$out" = "skipped: no NVIDIA GPU" ] || die "skip path said: $out"
    out=$(make --no-print-directory -s -C "$CMT_ROOT" gpu-check 2>&1) || die "make gpu-check failed: $out"
    [ "$out" = "skipped: no NVIDIA GPU" ] || die "make gpu-check said: $out"
fi

# 2. the self-test on the fake driver: every row passes, both runtimes
make --no-print-directory -s -C "$CMT_ROOT" gpu-check-selftest-build >build.log 2>&1 || { cat build.log; die "build"; }
D=$CMT_TMP/dumps
GPU_CHECK_OUT=$D bash "$G" --selftest >self.out 2>&1; rc=$?
cat self.out
[ $rc -eq 0 ] || die "selftest exit $rc"
tail -n 1 self.out | grep -q ' 0 fail' || die "selftest summary"
for m in static shared; do
    for c in "leak device dev 0 from leak_device" "leak vmm dev 0 from leak_vmm_handle" \
             "async-pool vs cudaMemGetInfo" "oom dev 0 requested" "overhead per cudaMalloc"; do
        grep -E "^ $m/gc_[a-z]+: $c.*\| pass" self.out >/dev/null || die "no passing row '$m: $c'"
    done
done

# 3. a wrong expectation fails the check (exit 1, a FAIL row)
GPU_CHECK_OUT=$D GPU_CHECK_INJECT="expect-leak device 0 999 no_such_function" bash "$G" --analyze >bad.out 2>&1
rc=$?
[ $rc -eq 1 ] || { cat bad.out; die "wrong expectation: exit $rc, not 1"; }
grep -q 'no_such_function .*| FAIL' bad.out || die "no FAIL row for the wrong expectation"
GPU_CHECK_OUT=$D GPU_CHECK_INJECT="expect-peak 0 12345" bash "$G" --analyze >bad2.out 2>&1 && die "wrong peak passed"
grep -q 'peak dev 0 .*| FAIL' bad2.out || die "no FAIL row for the wrong peak"

# 4. module-regex leaks and marker comparisons (the cuBLAS and torch rows' code) on gc_runtime
E=$CMT_TMP/one
mkdir -p "$E/static"
cp -r "$D/static/gc_runtime" "$E/static/"
for inj in "expect-leak-module device 0 6295552 gc_runtime$" "torch-mark peak 0 136319488" \
           "torch-mark-min peak 0 136319488"; do
    GPU_CHECK_OUT=$E GPU_CHECK_INJECT="$inj" bash "$G" --analyze >inj.out 2>&1 || { cat inj.out; die "'$inj' did not pass"; }
done
GPU_CHECK_OUT=$E GPU_CHECK_INJECT="expect-leak-module * 0 1 libcublas" bash "$G" --analyze >inj.out 2>&1 &&
    die "a libcublas leak found where there is none"

# 5. analyzer unusable where the programs ran: LD_PRELOAD route, dumps kept, note, exit 1; then
#    --analyze with the analyzer finishes the job
D2=$CMT_TMP/deferred
GPU_CHECK_OUT=$D2 GPU_CHECK_ANALYZER=/nonexistent/cumemtrack bash "$G" --selftest >def.out 2>&1 && die "deferred run exit 0"
grep -q "make gpu-check-analyze" def.out || { cat def.out; die "no note about make gpu-check-analyze"; }
ls "$D2"/static/gc_runtime/*.cmt >/dev/null 2>&1 || die "no dump kept on the deferred path"
GPU_CHECK_OUT=$D2 bash "$G" --analyze >def2.out 2>&1 || { cat def2.out; die "deferred analysis failed"; }
echo "ok"
