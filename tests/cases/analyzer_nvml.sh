# The analyzer's NVML module (analyzer/read/cmt_nvml) against the fake NVML (tests/fakenvml): the C unit
# test (absent library, a library that is not NVML, no driver, snapshots of what FAKENVML_STATE
# says, refreshes, the INSUFFICIENT_SIZE protocol, a failing driver; the fake's own protocol), then
# the fake NVML's GPUs are the fake CUDA driver's (UUID, PCI bus id, total) and the default soname
# is found on LD_LIBRARY_PATH.
set -u
die() { echo "FAIL: $*"; exit 1; }
T=$CMT_TESTBIN/unit/test_nvml
NVML_DIR=$CMT_TESTBIN/fakenvml
D=$CMT_TESTBIN/progs/drv_devices
for f in "$T" "$NVML_DIR/libnvidia-ml.so.1" "$D"; do [ -e "$f" ] || die "missing $f (make test-programs)"; done
unset FAKENVML_STATE FAKENVML_INIT_ERROR CUDA_VISIBLE_DEVICES FAKECUDA_DEVICES FAKECUDA_MEM_MB

"$T" unit "$NVML_DIR/libnvidia-ml.so.1" >unit.out 2>unit.err || { cat unit.out; die "test_nvml unit"; }
tail -n 1 unit.out
grep -Eqx '[0-9]+ checks, 0 failed' unit.out || die "unit summary"
[ "$(awk '{ print $1 }' unit.out | tail -n 1)" -ge 80 ] || die "fewer checks ran than written"
if command -v valgrind >/dev/null; then # no invalid access, nothing lost across open/refresh/close
    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
        "$T" unit "$NVML_DIR/libnvidia-ml.so.1" >vg.out 2>vg.err || { grep -v '^fakenvml:' vg.err; die "valgrind"; }
    echo "ok valgrind"
fi

# the fake NVML's GPUs are the fake driver's physical devices, whatever CUDA_VISIBLE_DEVICES says
export FAKECUDA_DEVICES=5 FAKECUDA_MEM_MB=2048
LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR "$D" >cuda.out || die "drv_devices"
awk '$1 == "device" { print $3, $NF }' cuda.out >cuda.ids
[ "$(wc -l <cuda.ids)" = 5 ] || { cat cuda.out; die "drv_devices listed $(wc -l <cuda.ids) devices"; }
CUDA_VISIBLE_DEVICES=3 LD_LIBRARY_PATH=$NVML_DIR "$T" list >list.out || die "test_nvml list"
head -n 1 list.out | grep -qx 'status ready' || { cat list.out; die "the default soname not found"; }
awk '$1 == "gpu" { print $2, $3 }' list.out >nvml.ids
diff cuda.ids nvml.ids || die "NVML's GPUs differ from the CUDA driver's (< CUDA, > NVML)"
awk '$1 == "gpu" && ($4 != 0 || $5 != 2048 * 1048576 || $6 != 0) { bad = 1 } END { exit bad }' list.out \
    || { cat list.out; die "idle GPUs: want 0 used of 2 GiB, no process"; }

# what the state file says is what the snapshot holds
u1=$(awk 'NR == 2 { print $1 }' cuda.ids) u4=$(awk 'NR == 5 { print $1 }' cuda.ids)
printf '%s 4242 1048576\n%s reserved 4096\n%s 77 n/a\n' "$u1" "$u1" "$u4" >state
FAKENVML_STATE=$PWD/state LD_LIBRARY_PATH=$NVML_DIR "$T" list >state.out || die "test_nvml list (state)"
grep -qx "gpu $u1 0000:20:00.0 1052672 2147483648 1" state.out || { cat state.out; die "GPU 1 figures"; }
grep -qx "proc $u1 4242 1048576" state.out || { cat state.out; die "GPU 1 process"; }
grep -qx "proc $u4 77 n/a" state.out || { cat state.out; die "GPU 4 process without a figure"; }
[ "$(grep -c '^proc ' state.out)" = 2 ] || { cat state.out; die "processes that the state does not list"; }

# no NVML: n/a with the reason, exit 0
"$T" list /nonexistent/libnvidia-ml.so.1 >none.out || die "test_nvml list without NVML"
grep -q '^status n/a NVML not loadable: .*/nonexistent/libnvidia-ml.so.1' none.out || { cat none.out; die "no NVML"; }
FAKENVML_INIT_ERROR=9 LD_LIBRARY_PATH=$NVML_DIR "$T" list >nodrv.out || die "test_nvml list without a driver"
grep -qx 'status n/a NVML: nvmlInit_v2: Driver Not Loaded' nodrv.out || { cat nodrv.out; die "no driver"; }
echo PASS
