#!/usr/bin/env bash
# cmt-test: long
# cumemtrack report --html: a 4-rank job (driver API on the fake GPU: per-iteration markers, a leak,
# a rank holding an extra replica, an OOM on rank 3, a hostile marker label) rendered in headless
# Chromium: the charts, tables and icicle graphs exist in the DOM, no script error, nothing
# injected, no network reference; a screenshot is kept in build/test-artifacts/report.png (and
# CMT_UPDATE_SCREENSHOT=1 copies it to docs/report-screenshot.png). What the text report shows is
# there too: the OOM table (failed request, its stack, what was live), device ordinals next to
# UUIDs, the growth-per-marker table with each growing stack's own series (a 4 KiB-per-iteration
# leak under 48 MiB: tests/golden/growth.script), and marker labels that never overlap (hundreds
# of close markers), what caching allocators hold at exit and what suppressions hid (figures,
# the cached entries' stacks, the rules). Then a large synthetic dump is downsampled without
# losing its peak or its OOM, and timeline --perfetto of the job is checked.
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
# rendered NAME WHAT: NAME.html rendered to NAMEdom.html, with no console or script error
rendered() {
    chrome --enable-logging=stderr --v=0 --dump-dom "file://$PWD/$1.html" >"$1dom.html" 2>"$1.log"
    grep -Ei 'CONSOLE.*(Uncaught|Error)' "$1.log" && fail "console error ($2)"
    grep -q 'data-rendered="ok"' "$1dom.html" || fail "the $2 report did not render"
    grep -q 'data-error="1"' "$1dom.html" && fail "script error ($2)"
    return 0
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
# what the text report shows: the OOM table with the failed call's stack and what was live then,
# device ordinals next to the UUIDs (chart titles, imbalance bars)
grep -q 'id="oom-table"' dom.html || fail "no OOM table"
python3 - <<'P' || fail "OOM table / device ordinals"
import re
h = open("dom.html").read()
t = re.search(r'<table id="oom-table">(.*?)</table>', h, re.S).group(1)
rows = re.findall(r'<tr>(.*?)</tr>', t, re.S)[1:]
assert len(rows) == 1, rows
r = rows[0]
assert "64.0 GiB" in r and "cuMemAlloc" in r and "<summary>try_huge_batch" in r, r
assert re.search(r'device 3 GPU-[0-9a-f-]+, rank 3 pid', r), r
assert re.search(r'class="oom-live".*load_weights', r, re.S) and "cache_attention_mask" in r, r   # live then
titles = re.findall(r'<h3>(device \d+ · GPU-[^<]*)</h3>', h)
assert len(titles) == 4 and sorted(t.split(" ")[1] for t in titles) == ["0", "1", "2", "3"], titles
assert len(re.findall(r'>device \d+ · GPU-[0-9a-f]{8}', h)) >= 8, "imbalance bars without ordinals"
P
# marker labels of the job: laid out without overlap (checked below with many close markers too)
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
# marker_labels DOM: no two marker labels of one chart overlap (their measured extents, per row),
# their positions are the ones drawn; prints how many were drawn and how many were left to tooltips
marker_labels() {
    python3 - "$1" <<'P'
import re, sys
h = open(sys.argv[1]).read()
shown = hidden = 0
for svg in re.findall(r'<svg[^>]*class="gpu-chart".*?</svg>', h, re.S):
    lanes = {}
    for a, txt in re.findall(r'<text ([^>]*class="marker-label"[^>]*)>([^<]*)<', svg):
        at = dict(re.findall(r'([\w-]+)="([^"]*)"', a))
        x0, x1, x = float(at["data-x0"]), float(at["data-x1"]), float(at["x"])
        assert x1 > x0 and abs(x - (x1 if at.get("text-anchor") == "end" else x0)) < 0.11, at
        lanes.setdefault((at["data-lane"], at["y"]), []).append((x0, x1, txt))
    assert len({l for l, y in lanes}) == len(lanes), "a row of labels at two heights"
    for k, v in lanes.items():
        v.sort()
        for p, q in zip(v, v[1:]):
            assert q[0] >= p[1], ("overlapping marker labels", k, p, q)
        shown += len(v)
    m = re.search(r'class="marker-hidden"[^>]*>(\d+) marker label', svg)
    hidden += int(m.group(1)) if m else 0
print(shown, hidden)
P
}
read shown hidden < <(marker_labels dom.html) || fail "marker labels overlap in the job's report"
[ "${shown:-0}" -ge 20 ] || fail "marker labels of the job: $shown shown, $hidden hidden"
# many close markers: 400 within a few ms, labels of every length, then a few far apart
python3 - >close.script <<'P'
print("header pid=9 host=m rank=0 cmd=close")
print("device ord=2 uuid=GPU-77777777-0000-0000-0000-000000000002 name=M pci=0000:77:00.0 total=16G")
t = 1001000
print(f"alloc dev=2 ptr=0x1000 size=1G t={t}")
for i in range(400):
    t += 7000
    print(f'marker label="{"step " + str(i) + " " + "x" * (i % 30)}" t={t}')
for i in range(5):
    t += 50000000
    print(f'marker label="far {i}" t={t}')
print(f"free dev=2 ptr=0x1000 t={t + 1000}")
print(f"exit clean t={t + 2000}")
P
"$MKDUMP" close.script close.cmt || fail "mkdump close"
expect_rc 0 "$CMT_BIN" report --html --no-symbols -o close.html close.cmt
rendered close close-markers
read shown hidden < <(marker_labels closedom.html) || fail "close marker labels overlap"
[ "$shown" -ge 8 ] && [ $((shown + hidden)) = 405 ] || fail "close markers: $shown shown + $hidden hidden != 405"
grep -q '>far 4<' closedom.html || fail "a lone marker far from the others lost its label"
grep -q '<h3>device 2 · GPU-77777777' closedom.html || fail "device ordinal next to the UUID"
# growth per marker: a 4 KiB-per-iteration leak under 48 MiB of weights gets its own series
"$MKDUMP" "$CMT_ROOT/tests/golden/growth.script" growth.cmt || fail "mkdump growth"
expect_rc 0 "$CMT_BIN" report --html --no-symbols -o growth.html growth.cmt
rendered growth growth
python3 - <<'P' || fail "growth table"
import re
h = open("growthdom.html").read()
t = re.search(r'<table id="growth-table">(.*?)</table>', h, re.S).group(1)
rows = re.findall(r'<tr>(.*?)</tr>', t, re.S)[1:]
assert len(rows) == 2, len(rows)
for r in rows:
    assert "+4.00 KiB" in r and "device 1 GPU-33333333-0000-0000-0000-000000000001" in r, r
    sp = re.search(r'<svg [^>]*class="growth-spark" data-ymin="(\d+)" data-ymax="(\d+)"', r)
    assert sp and int(sp.group(1)) == 4096 and int(sp.group(2)) == 39 * 4096, r   # its own scale, not 48 MiB
    assert r.count('class="growth-series"') == 1 and ">156 KiB<" in r, r
assert '"iteration" mark' in rows[0] + rows[1] and '"step" range' in rows[0] + rows[1]
o = re.search(r'<table id="oom-table">(.*?)</table>', h, re.S).group(1)
assert "64.0 MiB" in o and "of 80.0 MiB" in o and "cuMemAlloc_v2" in o and o.count("allocation") >= 3, o
assert 'class="marker-label"' in h and '>step<' in h and not re.search(r'class="marker-label"[^>]*></text>', h)
P
# what the leaks leave out of the peak: held by a caching allocator at exit (64 MiB, named by
# --caching-allocator) and suppressed (32 MiB): their figures, the cached entries with stacks in the
# leak table's form, the suppression rules; leaked 2 MiB of a 98 MiB peak
"$MKDUMP" "$CMT_ROOT/tests/golden/python.script" cached.cmt || fail "mkdump cached"
printf 'leak:gradient\n' >supp.txt
expect_rc 0 "$CMT_BIN" report --html --no-symbols --caching-allocator activation --suppressions supp.txt -o cached.html cached.cmt
python3 - <<'P' || fail "embedded data: cached / suppressed"
import json, re
d = json.loads(re.search(r'id="cmt-data">(.*?)</script>', open("cached.html").read(), re.S).group(1))
M = 1 << 20
s = d["summary"]
assert s["leaked_bytes"] == 2 * M and s["cached_bytes"] == 64 * M and s["suppressed_bytes"] == 32 * M, s
assert s["cached_sites"] == 1, s
c = d["cached"]
assert len(c) == 1 and c[0]["bytes"] == 64 * M and c[0]["allocator"] == "activation" and c[0]["at"] == "exit", c
assert "activation /work/train.py:40" in d["stacks"][c[0]["stack"]], d["stacks"][c[0]["stack"]]
assert all("allocator" not in l for l in d["leaks"]), d["leaks"]
assert d["suppressions"] == [{"pattern": "gradient", "leaks": 1, "bytes": 32 * M}], d["suppressions"]
P
rendered cached cached
python3 - <<'P' || fail "cached / suppressed on the page"
import re
h = open("cacheddom.html").read()
cards = dict((k, v) for v, k in re.findall(r'<div class="card[^"]*"><div class="v">([^<]*)</div><div class="k">([^<]*)</div>', h))
assert cards["leaked"] == "2.00 MiB" and cards["held by caching allocators"] == "64.0 MiB" and cards["suppressed"] == "32.0 MiB", cards
sec = re.search(r'<section id="cached"><h2>Held by caching allocators at exit: 64.0 MiB</h2>(.*?)</section>', h, re.S).group(1)
head = re.findall(r'<th>([^<]*)</th>', re.search(r'<table id="cached-table">(.*?)</tbody>', sec, re.S).group(1))
assert head == ["bytes", "allocations", "kind", "where", "allocator", "held", "stack"], head
rows = re.findall(r'<tr>(.*?)</tr>', sec, re.S)[1:]
assert len(rows) == 1 and "64.0 MiB" in rows[0] and "<td>activation</td>" in rows[0] and "<td>exit</td>" in rows[0], rows
assert "<li>activation /work/train.py:40</li>" in rows[0], rows[0]
lt = re.search(r'<table id="leak-table">(.*?)</table>', h, re.S).group(1)
assert len(re.findall(r'<tr>', lt)) == 3 and "activation" not in lt and "gradient" not in lt, lt
sup = re.search(r'<section id="suppressed"><h2>Suppressed: 32.0 MiB</h2>(.*?)</section>', h, re.S).group(1)
assert re.search(r'<td class="mono">leak:gradient</td><td class="n">1</td><td class="n">32.0 MiB</td>', sup), sup
P
# none of it when nothing is cached or suppressed
grep -q '<section id="cached"\|<section id="suppressed"\|class="k">held by caching' dom.html && fail "cached / suppressed sections without either"
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
assert len({e["pid"] for e in ev if e["ph"] == "C" and e["cat"] == "memory"}) == 4
assert len({e["pid"] for e in ev if e["ph"] == "C" and e["cat"] == "gpu"}) == 4   # a track per physical GPU
assert sum(1 for e in ev if e["ph"] == "i" and e["cat"] == "oom") == 1
assert sum(1 for e in ev if e["ph"] == "i" and e["cat"] == "marker") == 20
# the stacks are symbolized as in every report (function and file:line, not module+offset), and a
# teardown (it ends many allocations) carries none
st = [e for e in ev if e.get("cat") == "stack"]
assert st and all(e["name"] != "teardown" for e in st), st[:3]
fr = [f for e in st for f in e["args"]["stack"]]
assert any("+0x" not in f and ":" in f for f in fr), fr[:10]
P
rm -rf "$prof"
echo ok
