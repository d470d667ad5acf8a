#!/usr/bin/env bash
# NVIDIA's own graphMemoryNodes sample (issue 25, item 4) and simpleCudaGraphs (item 5: it clones
# graphs and launches the clones), built from a cuda-samples checkout
# (not part of this repository: CMT_CUDA_SAMPLES=path/to/cuda-samples) with nvcc, linked with the
# runtime double (tests/fakert: kernels do not run, so the sample's own validation fails; its
# memory calls are real) and run on the fake driver. The driver holds 96 000 001 bytes at most and
# nothing at exit; the report and `check` must agree. simpleCudaGraphs: the report must equal what
# the driver holds (its peak and no leak). Skipped without nvcc or the checkout.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
NVCC=${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
src=${CMT_CUDA_SAMPLES:-}/Samples/3_CUDA_Features/graphMemoryNodes/graphMemoryNodes.cu
[ -n "${CMT_CUDA_SAMPLES:-}" ] && [ -f "$src" ] || { echo "skip: set CMT_CUDA_SAMPLES to a cuda-samples checkout"; exit 77; }
[ -x "$NVCC" ] || { echo "skip: no nvcc ($NVCC)"; exit 77; }
"$NVCC" -I"$CMT_CUDA_SAMPLES/Common" -arch=sm_80 -c -o gmn.o "$src" >nvcc.log 2>&1 || { cat nvcc.log; die "nvcc"; }
g++ -o gmn gmn.o -L"$CMT_TESTBIN/fakert" -lcudart -Wl,-rpath,"$CMT_TESTBIN/fakert" || die "link"
traced gmn ./gmn || { cat gmn.err; die "graphMemoryNodes exited $?"; }
grep -q 'Cleanup complete' gmn.out || die "the sample did not finish"
check gmn --peaks
python3 - gmn.json <<'PY' || die "graphMemoryNodes figures"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x['ordinal']: x for x in r['devices']}
assert d[0]['peak_bytes'] == 96000001 and d[0]['leaked_bytes'] == 0 and r['leaks'] == [], (d[0], r['leaks'])
PY
"$CMT_BIN" check gmn.cmt >check.out 2>&1 || { cat check.out; die "check fails the sample"; }

src=$CMT_CUDA_SAMPLES/Samples/3_CUDA_Features/simpleCudaGraphs/simpleCudaGraphs.cu
[ -f "$src" ] || { echo "skip: no simpleCudaGraphs in $CMT_CUDA_SAMPLES"; exit 77; }
"$NVCC" -I"$CMT_CUDA_SAMPLES/Common" -arch=sm_80 -c -o scg.o "$src" >nvcc.log 2>&1 || { cat nvcc.log; die "nvcc"; }
g++ -o scg scg.o -L"$CMT_TESTBIN/fakert" -lcudart -Wl,-rpath,"$CMT_TESTBIN/fakert" || die "link"
traced scg ./scg || { cat scg.err; die "simpleCudaGraphs exited $?"; }
[ "$(grep -c 'Cloned Graph Output' scg.out)" = 2 ] || die "simpleCudaGraphs did not launch its clones"
check scg --peaks
python3 - scg.json <<'PY' || die "simpleCudaGraphs figures"
import json, sys
r = json.load(open(sys.argv[1]))
assert r['leaks'] == [] and all(d['peak_bytes'] > 64 << 20 for d in r['devices']), (r['leaks'], r['devices'])
PY
echo PASS
