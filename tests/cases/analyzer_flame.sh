#!/usr/bin/env bash
# cumemtrack flame: folded stacks (outermost frame first, "a;b;c BYTES") of the leaks (default) and
# of the bytes live at each device's peak, merged over processes, on synthetic dumps (module+offset
# frames) and, when the example programs are built, on a traced run (function names with their
# lines, C start-up and CUDA-internal frames hidden). Each stack starts with its physical GPU, by
# UUID ("GPU-uuid"), so the two GPUs below do not merge; --no-device merges them. Processes that see
# the GPUs in different ordinal orders (CUDA_VISIBLE_DEVICES) give one root per UUID with the bytes
# of all of them; a device without a UUID is its process's own ("GPU 1 (pid 3 on n1)"). Python
# frames read "qualname (file.py:line)", interpreter frames hidden.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
mkdir job
for pid in 1 2; do
cat >p$pid.script <<S
header pid=$pid host=n1 rank=$((pid - 1)) cmd=x
device ord=0 uuid=GPU-00000000-0000-0000-0000-00000000000$pid name=G pci=0000:10:00.0 total=1G
module id=1 base=0x400000 path=/nonexistent/lib;odd.so seg=0x0:0x10000:5
stack id=1 0x401234 0x401300 0x401400
stack id=2 0x402000 0x401400
alloc dev=0 ptr=0x1000 size=1M stack=1
alloc dev=0 ptr=0x200000 size=2M stack=2
alloc dev=0 ptr=0x600000 size=4M
free dev=0 ptr=0x200000
free dev=0 ptr=0x600000
alloc dev=0 ptr=0x900000 size=$((pid * 1000))
exit clean status=0
S
"$MKDUMP" p$pid.script job/p$pid.cmt || fail mkdump
done
expect_rc 0 "$CMT_BIN" flame --no-symbols job
cat >want.txt <<'W'
GPU-00000000-0000-0000-0000-000000000001;[no stack] 1000
GPU-00000000-0000-0000-0000-000000000001;lib:odd.so+0x1400;lib:odd.so+0x1300;lib:odd.so+0x1234 1048576
GPU-00000000-0000-0000-0000-000000000002;[no stack] 2000
GPU-00000000-0000-0000-0000-000000000002;lib:odd.so+0x1400;lib:odd.so+0x1300;lib:odd.so+0x1234 1048576
W
diff -u want.txt out.txt || fail "folded leaks, device roots"
expect_rc 0 "$CMT_BIN" flame --no-symbols --no-device job
cat >want.txt <<'W'
[no stack] 3000
lib:odd.so+0x1400;lib:odd.so+0x1300;lib:odd.so+0x1234 2097152
W
diff -u want.txt out.txt || fail "folded leaks"
expect_rc 0 "$CMT_BIN" flame --no-symbols --no-device --peak -o peak.txt job
cat >want.txt <<'W'
[no stack] 8388608
lib:odd.so+0x1400;lib:odd.so+0x1300;lib:odd.so+0x1234 2097152
lib:odd.so+0x1400;lib:odd.so+0x2000 4194304
W
diff -u want.txt peak.txt || fail "folded peak"
# every line: frames, one space, a positive integer
awk '{ if (NF < 2 || $NF !~ /^[0-9]+$/ || $NF == 0) exit 1 }' peak.txt || fail "line format"
# one job, two physical GPUs A and B seen in different ordinal orders: pid 1 sees A as 0 and B as 1,
# pid 2 the other way round, pids 3 and 4 only B (as 0) and a device 1 without a DEVICE record (no
# UUID: two different GPUs, never merged)
A=GPU-aaaaaaaa-0000-0000-0000-000000000001 B=GPU-bbbbbbbb-0000-0000-0000-000000000002
mkdir cvd
cvd_dump() { # PID DEV0-UUID DEV1-UUID BYTES0 BYTES1
    cat >c$1.script <<S
header pid=$1 host=n1 rank=$(($1 - 1)) cmd=x
${2:+device ord=0 uuid=$2 name=G pci=0000:10:00.0 total=1G}
${3:+device ord=1 uuid=$3 name=G pci=0000:20:00.0 total=1G}
module id=1 base=0x400000 path=/nonexistent/lib/t.so seg=0x0:0x10000:5
stack id=1 0x401234 0x401400
alloc dev=0 ptr=0x1000 size=$4 stack=1
alloc dev=1 ptr=0x2000000 size=$5 stack=1
exit clean status=0
S
    "$MKDUMP" c$1.script cvd/c$1.cmt || fail mkdump
}
cvd_dump 1 $A $B 1M 2M
cvd_dump 2 $B $A 4M 8M
cvd_dump 3 $B "" 16M 32M
cvd_dump 4 $B "" 64M 128M
cat >want.txt <<W
GPU 1 (pid 3 on n1);t.so+0x1400;t.so+0x1234 $((32 << 20))
GPU 1 (pid 4 on n1);t.so+0x1400;t.so+0x1234 $((128 << 20))
$A;t.so+0x1400;t.so+0x1234 $(((1 + 8) << 20))
$B;t.so+0x1400;t.so+0x1234 $(((2 + 4 + 16 + 64) << 20))
W
expect_rc 0 "$CMT_BIN" flame --no-symbols cvd
diff -u want.txt out.txt || fail "leaks: one root per physical GPU"
expect_rc 0 "$CMT_BIN" flame --no-symbols --peak cvd
diff -u want.txt out.txt || fail "peak: one root per physical GPU"
[ "$(cut -d';' -f1 out.txt | sort | uniq -d)" = "" ] || fail "a root twice"
# Python frames (tests/golden/pystack.script): interpreter, ctypes/libffi and libcudart internals hidden
"$MKDUMP" "$CMT_ROOT/tests/golden/pystack.script" py.cmt || fail mkdump
expect_rc 0 "$CMT_BIN" flame --no-symbols py.cmt
cat >want.txt <<'W'
GPU-11111111-2222-3333-4444-555555555555;<module> (step.py:30);Trainer.step (step.py:12);_ops.cpython-311-x86_64-linux-gnu.so+0x1000;fused_op (ops.py:22) 8388608
GPU-11111111-2222-3333-4444-555555555555;python3.11+0x3000;_ops.cpython-311-x86_64-linux-gnu.so+0x1000 2097152
W
diff -u want.txt out.txt || fail "folded Python frames"
expect_rc 0 "$CMT_BIN" flame --help; grep -q "usage: cumemtrack flame" out.txt || fail "--help"
expect_rc 2 "$CMT_BIN" flame
expect_rc 2 "$CMT_BIN" flame --bogus job
expect_rc 3 "$CMT_BIN" flame nothere; grep -q nothere err.txt || fail "missing not named"
# a traced run: function names, outermost first
ex=$CMT_BUILD/examples/fake/train_leak
if [ -x "$ex" ] && [ -e "${CMT_LIB:-}" ] && [ -e "${CMT_FAKE_LIBDIR:-}/libcuda.so.1" ]; then
    LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/tl.cmt "$ex" 4 >/dev/null || fail "train_leak"
    expect_rc 0 "$CMT_BIN" flame tl.cmt
    grep -Eq "^GPU-[0-9a-f-]+;main \(train_leak.c:[0-9]+\);train_step \(train_leak.c:[0-9]+\);cache_attention_mask \(train_leak.c:[0-9]+\)(;.*)? 16384$" out.txt ||
        { cat out.txt; fail "traced leak stack"; }
    grep -Eq "_start|__libc_start|libcudart_static" out.txt && { cat out.txt; fail "start-up or CUDA-internal frames shown"; }
    expect_rc 0 "$CMT_BIN" flame --peak tl.cmt
    grep -Eq ";train_step \(train_leak.c:[0-9]+\);cudaMalloc( \([^)]*\))? [0-9]+$" out.txt || { cat out.txt; fail "traced peak stacks"; }
else
    echo "(examples not built: traced part skipped)"
fi
echo ok
