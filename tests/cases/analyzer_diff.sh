#!/usr/bin/env bash
# cumemtrack diff: one tiny driver-API program built twice (the second build has an extra function
# in front, so every address moves, one leak site more and one less) and run under the tracker on
# the fake driver with different CUDA_VISIBLE_DEVICES: stacks must match by function chain and
# devices by UUID; text and JSON report what grew, appeared and disappeared.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
STUB=$CUDA_HOME/lib64/stubs/libcuda.so
[ -e "$STUB" ] && [ -e "$CUDA_HOME/include/cuda.h" ] || { echo "no CUDA headers/stub"; exit 77; }
[ -e "${CMT_LIB:-}" ] && [ -e "${CMT_FAKE_LIBDIR:-}/libcuda.so.1" ] || { echo "tracer or fake driver not built"; exit 77; }
cat >prog.c <<'C'
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s -> %d\n", #x, (int)r_); exit(1); } } while (0)
#ifdef NEWBUILD
__attribute__((noinline)) int padding_function(int x) {
    volatile int a[256];
    for (int i = 0; i < 256; i++) a[i] = i * x + (i ^ x) * 3 + (x << (i & 7));
    return a[x & 255] + a[(x * 7) & 255];
}
__attribute__((noinline)) void new_only_site(void) { CUdeviceptr p; CK(cuMemAlloc(&p, 8192)); }
#else
__attribute__((noinline)) void old_only_site(void) { CUdeviceptr p; CK(cuMemAlloc(&p, 16384)); }
#endif
__attribute__((noinline)) void growing_leak(int n) {
    for (int i = 0; i < n; i++) { CUdeviceptr p; CK(cuMemAlloc(&p, 4096)); }
}
__attribute__((noinline)) void steady_workspace(void) {
    CUdeviceptr p; CK(cuMemAlloc(&p, 1 << 20)); CK(cuMemFree(p));
}
int main(int argc, char **argv) {
    int n = atoi(argv[1]), ord = atoi(argv[2]);
    CUdevice d; CUcontext c;
    CK(cuInit(0)); CK(cuDeviceGet(&d, ord)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
    steady_workspace();
    growing_leak(n);
#ifdef NEWBUILD
    new_only_site();
    return padding_function(n) == -1;
#else
    old_only_site();
    return 0;
#endif
}
C
FL="-O0 -g -fno-omit-frame-pointer -rdynamic -I$CUDA_HOME/include"
cc $FL -o prog_old prog.c "$STUB" || fail "cc old"
cc $FL -DNEWBUILD -o prog_new prog.c "$STUB" || fail "cc new"
a_old=$(nm prog_old | awk '$3 == "growing_leak" { print $1 }'); a_new=$(nm prog_new | awk '$3 == "growing_leak" { print $1 }')
[ -n "$a_old" ] && [ "$a_old" != "$a_new" ] || fail "the rebuild did not move growing_leak ($a_old vs $a_new)"
export LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset FAKECUDA_MEM_MB FAKECUDA_GROUND_TRUTH CUDA_DEVICE_ORDER
# the same physical GPU (the second one): ordinal 0 of CUDA_VISIBLE_DEVICES=1, ordinal 1 of 0,1
FAKECUDA_DEVICES=2 CUDA_VISIBLE_DEVICES=1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/old.cmt ./prog_old 3 0 || fail "run old"
mkdir newdir
FAKECUDA_DEVICES=2 CUDA_VISIBLE_DEVICES=0,1 LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/newdir/new.cmt ./prog_new 5 1 || fail "run new"
ls newdir/new.cmt* >/dev/null || fail "no dump of the new run"
expect_rc 0 "$CMT_BIN" diff old.cmt newdir
cp out.txt diff.txt
grep -Eq "^  grew +\+8.00 KiB +\(12.0 KiB -> 20.0 KiB\) +(cuMemAlloc(_v2)? <- )?growing_leak <- main" diff.txt || { cat diff.txt; fail "growing_leak not matched across builds"; }
grep -Eq "^  appeared .*new_only_site <- main" diff.txt || { cat diff.txt; fail "new_only_site not appeared"; }
grep -Eq "^  disappeared .*old_only_site <- main" diff.txt || { cat diff.txt; fail "old_only_site not disappeared"; }
grep -q "0x[0-9a-f]\{6,\}" diff.txt && { cat diff.txt; fail "addresses in the diff"; }
[ "$(grep -c '^  GPU-' diff.txt)" = 1 ] || { cat diff.txt; fail "devices not matched by uuid"; }
expect_rc 0 "$CMT_BIN" diff --json -o diff.json old.cmt newdir
python3 - <<'P' || fail "diff JSON"
import json
d = json.load(open("diff.json"))
assert d["kind"] == "diff" and d["old"]["leaked_bytes"] == 3 * 4096 + 16384 and d["new"]["leaked_bytes"] == 5 * 4096 + 8192, d["old"]
assert d["leaked_delta_bytes"] == d["new"]["leaked_bytes"] - d["old"]["leaked_bytes"]
assert len(d["devices"]) == 1, d["devices"]
dev = d["devices"][0]
assert dev["old"] and dev["new"] and dev["old"]["leaked_bytes"] == 28672 and dev["new"]["leaked_bytes"] == 28672, dev
by = {}
for e in d["leaks"]:
    key = [f for f in e["functions"] if f in ("growing_leak", "new_only_site", "old_only_site")]
    assert len(key) == 1, e
    by[key[0]] = e
assert by["growing_leak"]["status"] == "grew" and by["growing_leak"]["delta_bytes"] == 8192 and by["growing_leak"]["new_allocations"] == 5
assert by["new_only_site"]["status"] == "appeared" and by["new_only_site"]["old_bytes"] == 0
assert by["old_only_site"]["status"] == "disappeared" and by["old_only_site"]["new_bytes"] == 0
peak = {e["chain"]: e for e in d["peak"]}
ws = [e for c, e in peak.items() if "steady_workspace" in c]
assert ws and ws[0]["status"] == "unchanged" and ws[0]["old_bytes"] == 1 << 20, d["peak"]
P
# usage and bad input
expect_rc 0 "$CMT_BIN" diff --help; grep -q "usage: cumemtrack diff" out.txt || fail "--help"
expect_rc 2 "$CMT_BIN" diff old.cmt
expect_rc 2 "$CMT_BIN" diff --bogus old.cmt newdir
expect_rc 3 "$CMT_BIN" diff old.cmt missing.cmt; grep -q "missing.cmt" err.txt || fail "missing file not named"
head -c 100 old.cmt >bad.cmt
expect_rc 3 "$CMT_BIN" diff bad.cmt newdir; grep -q "bad.cmt" err.txt || fail "bad file not named"
echo ok
