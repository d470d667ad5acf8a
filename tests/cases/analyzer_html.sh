#!/usr/bin/env bash
# cumemtrack report --html: a 4-rank job (driver API on the fake GPU: per-iteration markers, a leak,
# a rank holding an extra replica, an OOM on rank 3, a hostile marker label) rendered in headless
# Chromium: the charts, tables and icicle graphs exist in the DOM, no script error, nothing
# injected, no network reference; a screenshot is kept in build/test-artifacts/report.png (and
# CMT_UPDATE_SCREENSHOT=1 copies it to docs/report-screenshot.png). Then a large synthetic dump is
# downsampled without losing its peak or its OOM, and timeline --perfetto of the job is checked.
set -u
. "$(dirname "$0")/analyzer_lib.sh.inc"
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
STUB=$CUDA_HOME/lib64/stubs/libcuda.so
[ -e "$STUB" ] || { echo "no CUDA stub"; exit 77; }
[ -e "${CMT_LIB:-}" ] && [ -e "${CMT_FAKE_LIBDIR:-}/libcuda.so.1" ] || { echo "tracer or fake driver not built"; exit 77; }
CHROME=
for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
if [ -z "$CHROME" ]; then
    "$CMT_ROOT/scripts/deps.sh" chromium chromium-driver >&2 || true
    for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
fi
[ -n "$CHROME" ] || { echo "chromium not installable here"; exit 77; }

cat >job.c <<'C'
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define CK(x) do { CUresult r_ = (x); if (r_) { fprintf(stderr, "%s -> %d\n", #x, (int)r_); exit(1); } } while (0)
#define MIB (1ull << 20)
static CUdeviceptr mask_cache[64];
__attribute__((noinline)) void cache_attention_mask(int it) { CK(cuMemAlloc(&mask_cache[it], 2 * MIB)); }
__attribute__((noinline)) CUdeviceptr alloc_activations(size_t n) { CUdeviceptr p; CK(cuMemAlloc(&p, n)); return p; }
__attribute__((noinline)) CUdeviceptr alloc_gradients(size_t n) { CUdeviceptr p; CK(cuMemAlloc(&p, n)); return p; }
__attribute__((noinline)) CUdeviceptr load_weights(size_t n) { CUdeviceptr p; CK(cuMemAlloc(&p, n)); return p; }
__attribute__((noinline)) CUdeviceptr replicate_on_rank0(void) { CUdeviceptr p; CK(cuMemAlloc(&p, 384 * MIB)); return p; }
__attribute__((noinline)) int try_huge_batch(void) { CUdeviceptr p; return cuMemAlloc(&p, 64ull << 30) == CUDA_SUCCESS; }
__attribute__((noinline)) void train_step(int it, int rank) {
    CUdeviceptr a = alloc_activations((256 + 16 * (it % 5) + 32 * rank) * MIB);
    CUdeviceptr g = alloc_gradients(128 * MIB);
    cache_attention_mask(it);
    usleep(4000);
    CK(cuMemFree(g));
    CK(cuMemFree(a));
    usleep(2000);
}
int main(void) {
    int rank = atoi(getenv("RANK") ? getenv("RANK") : "0");
    void (*mark)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "cmt_mark");
    CUdevice d; CUcontext c;
    CK(cuInit(0)); CK(cuDeviceGet(&d, rank)); CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
    CUdeviceptr w = load_weights(512 * MIB), rep = 0;
    if (rank == 0) rep = replicate_on_rank0();
    char label[64];
    for (int it = 0; it < 16; it++) {
        if (mark && it % 4 == 0) { snprintf(label, sizeof label, "epoch %d", it / 4); mark(label); }
        train_step(it, rank);
        if (rank == 3 && it == 10 && try_huge_batch()) return 2;
    }
    const char *last = getenv("JOB_LAST_LABEL"); /* the docs screenshot uses a plain one */
    if (mark) mark(last ? last : "done </script><img src=x onerror=alert(1)> & \"q\"");
    if (rep) CK(cuMemFree(rep));
    CK(cuMemFree(w));
    return 0;
}
C
cc -O0 -g -fno-omit-frame-pointer -rdynamic -I"$CUDA_HOME/include" -o job job.c "$STUB" -ldl || fail "cc job"
mkdir run
pids=()
for r in 0 1 2 3; do
    LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR FAKECUDA_DEVICES=4 FAKECUDA_MEM_MB=4096 RANK=$r WORLD_SIZE=4 LOCAL_RANK=$r \
        LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/run/rank$r.cmt ./job & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a rank failed"; done
expect_rc 0 "$CMT_BIN" report --html -o report.html run
[ -s report.html ] || fail "no HTML"
# self-contained: no external resource of any kind (the SVG namespace string is not a fetch)
grep -Ev 'http://www\.w3\.org/2000/svg' report.html | grep -Eiq '(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/|<script[^>]+src=|<link |@import|url\(' \
    && fail "external reference in the HTML"
grep -q '<img src=x' report.html && fail "marker label not escaped in the file"
prof=$(mktemp -d)
chrome() {
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
        --user-data-dir="$prof" "$@"
}
chrome --enable-logging=stderr --v=0 --dump-dom "file://$PWD/report.html" >dom.html 2>chrome.log || { tail chrome.log; fail "chromium --dump-dom"; }
grep -q 'data-rendered="ok"' dom.html || { grep -i console chrome.log; fail "the script did not finish"; }
grep -q 'data-error="1"' dom.html && { grep -o 'script error: [^<]*' dom.html; fail "script error"; }
grep -Ei 'CONSOLE.*(Uncaught|Error)' chrome.log && fail "console error"
n=$(grep -o 'class="gpu-chart"' dom.html | wc -l); [ "$n" = 4 ] || fail "expected 4 GPU charts, got $n"
[ "$(grep -o 'class="series"' dom.html | wc -l)" = 4 ] || fail "series paths"
[ "$(grep -o 'class="peak"' dom.html | wc -l)" = 4 ] || fail "peak markers"
grep -q 'class="oom"' dom.html || fail "OOM marker"
[ "$(grep -o 'class="marker"' dom.html | wc -l)" -ge 20 ] || fail "user markers"
grep -q 'id="leak-table"' dom.html && grep -q 'id="peak-table"' dom.html || fail "tables"
grep -q '<details><summary>cache_attention_mask' dom.html || fail "leak stack (details) not symbolized"
grep -q '<li>cache_attention_mask' dom.html || fail "expandable frames"
grep -q 'class="bars"' dom.html || fail "imbalance chart"
grep -q 'id="ice-leaks"><h3>Leaked bytes</h3><div><svg' dom.html && grep -q 'id="ice-peak"><h3>Bytes live at the peak</h3><div><svg' dom.html \
    || fail "icicle graphs"
grep -q '<img' dom.html && fail "markup injected through a marker label"
grep -q 'done &lt;/script&gt;&lt;img src=x' dom.html || fail "hostile label not shown as text"
art=$CMT_BUILD/test-artifacts; mkdir -p "$art"
rm -f "$art/report.png"
chrome --screenshot="$art/report.png" --window-size=1400,1000 --hide-scrollbars "file://$PWD/report.html" >/dev/null 2>&1
[ -s "$art/report.png" ] || fail "no screenshot"
[ "$(stat -c %s "$art/report.png")" -gt 20000 ] || fail "screenshot too small (blank page?)"
[ -n "${CMT_UPDATE_SCREENSHOT:-}" ] && cp "$art/report.png" "$CMT_ROOT/docs/report-screenshot.png"
cp report.html "$art/report.html"
# the embedded data: peak, OOM, markers
python3 - <<'P' || fail "embedded data"
import json, re
h = open("report.html").read()
d = json.loads(re.search(r'<script type="application/json" id="cmt-data">(.*?)</script>', h, re.S).group(1))
assert len(d["gpus"]) == 4 and d["summary"]["ooms"] == 1 and d["summary"]["processes"] == 4
M = 1 << 20
for g in d["gpus"]:
    s = g["series"][0]
    rank = d["processes"][s["proc"]]["rank"]
    want = 512 * M + (384 * M if rank == 0 else 0) + 256 * M + 64 * M + 32 * rank * M + 128 * M + 15 * 2 * M  # at iteration 14
    assert s["peak"] == want, (rank, s["peak"], want)
    assert max(s["pts"][1::4]) == s["peak"]
oom = [o for g in d["gpus"] for o in g["ooms"]]
assert len(oom) == 1 and oom[0]["requested"] == 64 << 30 and d["stacks"][oom[0]["stack"]][0].startswith("try_huge_batch"), oom
assert len([m for m in d["markers"] if m["label"].startswith("epoch")]) == 16
P
# a large dump: 300000 events, a single spike (the peak) and an OOM in the middle
python3 - >big.script <<'P'
print("header pid=7 host=big rank=0 cmd=big")
print("device ord=0 uuid=GPU-99999999-0000-0000-0000-000000000001 name=Big pci=0000:99:00.0 total=80G")
t = 1001000  # not before the device record (t 1001000): a thread's times never decrease
for i in range(150000):
    t += 997
    if i == 77777:
        print(f"alloc dev=0 ptr=0x90000000 size=7G t={t}"); t += 10
        print(f"free dev=0 ptr=0x90000000 t={t}"); t += 10
        print(f"oom dev=0 size=100G t={t}"); t += 10
    print(f"alloc dev=0 ptr={0x1000 + (i % 64) * 0x100000:#x} size={(i % 64 + 1) * 4096} t={t}")
    if i % 64 == 63:
        for k in range(64):
            t += 3
            print(f"free dev=0 ptr={0x1000 + k * 0x100000:#x} t={t}")
print(f"exit clean t={t + 1000}")
P
"$MKDUMP" big.script big.cmt || fail "mkdump big"
start=$(date +%s)
expect_rc 0 "$CMT_BIN" report --html -o big.html big.cmt
[ $(( $(date +%s) - start )) -lt 60 ] || fail "too slow on a large dump"
[ "$(stat -c %s big.html)" -lt 600000 ] || fail "large dump not downsampled ($(stat -c %s big.html) bytes)"
python3 - <<'P' || fail "downsampling lost the peak or the OOM"
import json, re
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open("big.html").read(), re.S).group(1))
s = d["gpus"][0]["series"][0]
assert len(s["pts"]) // 4 <= 3 * 1024 + 2, len(s["pts"])
base = sum((k + 1) * 4096 for k in range(77777 % 64 + 0))  # live before the spike
assert s["peak"] == 7 << 30 + 0 or s["peak"] >= 7 << 30, s["peak"]
assert max(s["pts"][1::4]) == s["peak"]
assert len(d["gpus"][0]["ooms"]) == 1
P
chrome --dump-dom "file://$PWD/big.html" >bigdom.html 2>/dev/null
grep -q 'data-rendered="ok"' bigdom.html || fail "large report did not render"
# the job as a Perfetto trace
expect_rc 0 "$CMT_BIN" timeline --perfetto -o job.trace.json run
python3 - <<'P' || fail "perfetto trace"
import json
ev = json.load(open("job.trace.json"))["traceEvents"]
for e in ev:
    assert all(k in e for k in ("name", "ph", "ts", "pid", "tid")), e
    if e["ph"] == "C": assert e["args"], e
assert len({e["pid"] for e in ev if e["ph"] == "C"}) == 4
assert sum(1 for e in ev if e["ph"] == "i" and e["cat"] == "oom") == 1
assert sum(1 for e in ev if e["ph"] == "i" and e["cat"] == "marker") == 20
P
rm -rf "$prof"
echo ok
