#!/usr/bin/env bash
# cumemtrack export --torch-snapshot opened in PyTorch's own memory viewer (issue 29): MemoryViz.js
# (tests/torchviz/, PyTorch's file unmodified; its d3 imports mapped to a vendored bundle, every
# other host unresolvable, so nothing comes from the network) loads our pickle in headless
# Chromium as torch.cuda._memory_viz's pages load one (tests/torchviz/page.py), with no console or
# script error, for every view and device: the "Active Memory Timeline" draws one polygon per
# allocation (plus MemoryViz's summary one), and hovering them (MemoryViz's own handlers) shows
# the leak's frames, Python lines included; the "Active Cached Segment Timeline" shows the caching
# allocator's segments with their stacks; the "Allocator State History" draws the segments. A
# synthetic dump with more than a pickle batch of entries, pools whose NVTX regions are the blocks
# of their heap's segment (synthetic, and tests/signals/sig_pool.c), and an empty snapshot open too. A
# screenshot goes to build/test-artifacts/torch-viewer.png (CMT_UPDATE_SCREENSHOT=1 copies it to
# docs/torch-viewer-screenshot.png).
set -u
. "$(dirname "$0")/export_lib.sh.inc"
py=$(command -v python3) || { echo "no python3"; exit 77; }
CHROME=
for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
if [ -z "$CHROME" ]; then
    "$CMT_ROOT/scripts/deps.sh" chromium >&2 || true
    for c in chromium chromium-browser; do command -v $c >/dev/null && CHROME=$c && break; done
fi
[ -n "$CHROME" ] || { echo "chromium not installable here"; exit 77; }
prof=$(mktemp -d)
chrome() {
    timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
        --host-resolver-rules="MAP * ~NOTFOUND" --allow-file-access-from-files --virtual-time-budget=15000 \
        --user-data-dir="$prof" "$@"
}
# view NAME: NAME.pickle opened in MemoryViz; the harness' findings in NAME.result.json (a page
# that has not finished when Chromium dumps it, on a loaded machine, is loaded again, 3 times at most)
view() {
    "$py" "$CMT_ROOT/tests/torchviz/page.py" "$1.pickle" "$1.html" || fail "$1: page"
    local try
    for try in 1 2 3; do
        chrome --enable-logging=stderr --v=0 --dump-dom "file://$PWD/$1.html" >"$1.dom" 2>"$1.log" || fail "$1: chromium"
        grep -q '<pre id="cmt-result">' "$1.dom" && break
        echo "$1: no result from the page (try $try)" >&2
    done
    grep -Ei 'CONSOLE.*(Uncaught|Error)' "$1.log" && fail "$1: console error"
    grep -q 'Failed to load module\|ERR_NAME_NOT_RESOLVED' "$1.log" && fail "$1: a module came from the network"
    "$py" - "$1.dom" "$1.result.json" <<'P' || fail "$1: no result from the page"
import html, re, sys
m = re.search(r'<pre id="cmt-result">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
open(sys.argv[2], "w").write(html.unescape(m.group(1)))
P
}

export_job
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o job.pickle job.cmt
view job
"$py" - job.pickle job.result.json <<'P' || fail "job: what MemoryViz shows"
import json, pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
r = json.load(open(sys.argv[2]))
assert r["errors"] == [], r["errors"]
assert r["devices"] == ["0"], r["devices"]
views = {v["view"]: v for v in r["views"]}
assert set(views) == {"Active Memory Timeline", "Allocator State History", "Active Cached Segment Timeline"}, views
t = s["device_traces"][0]
n = lambda a: sum(1 for e in t if e["action"] == a)
act = views["Active Memory Timeline"]
# one polygon per allocation (MemoryViz draws up to 15000), and its summary polygon
assert act["polygons"] == n("alloc") + 1 == 20, (act["polygons"], n("alloc"))
tips = act["tooltips"]
leak = [x for x in tips if "export_sites.py:31:cache_attention_mask" in x]
assert len(leak) == 6, tips
for x in leak:
    assert "Size: 1.0MiB (1048576 bytes) allocation" in x, x
    assert "fakert.c:349:cudaMalloc" in x and "export_sites.py:37:train_step" in x, x
assert any("export_sites.py:27:load_weights" in x and "64.0MiB" in x for x in tips), tips
assert not any("CUDACachingAllocator" in x for x in tips), "the cache drawn as active memory"
seg = views["Active Cached Segment Timeline"]
assert seg["polygons"] == n("segment_alloc") + 1 == 24, seg["polygons"]
cache = [x for x in seg["tooltips"] if "Trainer.warm_cache" in x]
assert len(cache) == 4 and all("CUDACachingAllocator" in x and "2.0MiB" in x for x in cache), seg["tooltips"]
hist = views["Allocator State History"]
# MemoryViz merges each free_requested + free_completed pair into one "free" event
assert hist["events"] == len(t) - n("free_completed"), (hist["events"], len(t))
# the segments live at the end, and the blocks live at the end in the non-cache ones (and its 2 rects each)
blocks = sum(1 for x in s["segments"] if x["blocks"][0]["state"] == "active_allocated")
assert hist["rects"] == len(s["segments"]) + 2 * blocks, (hist["rects"], len(s["segments"]), blocks)
P

synthetic_dump
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o syn.pickle syn.cmt
view syn
"$py" - syn.pickle syn.result.json <<'P' || fail "synthetic: what MemoryViz shows"
import json, pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
r = json.load(open(sys.argv[2]))
assert r["errors"] == [], r["errors"]
assert r["devices"] == ["0", "2"], r["devices"]
for v in r["views"]:
    t = s["device_traces"][int(v["device"])]
    if v["view"] == "Active Memory Timeline":
        assert v["polygons"] == sum(1 for e in t if e["action"] == "alloc") + 1, v["polygons"]
first = [v for v in r["views"] if v["device"] == "0" and v["view"] == "Active Memory Timeline"][0]["tooltips"][0]
assert "/work/bad.py:7:bad\ufffd\ufffdname" in first and "/work/train.py:3:<module>" in first, first
P

# pools' regions as blocks inside their heap's segment (NVTX memory heaps): every view draws them
pool_dump
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o pool.pickle pool.cmt
view pool
"$py" - pool.pickle pool.result.json <<'P' || fail "pools: what MemoryViz shows"
import json, pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
r = json.load(open(sys.argv[2]))
assert r["errors"] == [], r["errors"]
views = {v["view"]: v for v in r["views"]}
t = s["device_traces"][0]
assert views["Active Memory Timeline"]["polygons"] == sum(e["action"] == "alloc" for e in t) + 1 == 6
assert views["Active Cached Segment Timeline"]["polygons"] == 3
# the heap's segment, its live region (and that region's rounding rect)
assert views["Allocator State History"]["rects"] == 1 + 2 * 1, views["Allocator State History"]
P
if [ -x "${CMT_TESTBIN:-}/signals/sig_pool" ]; then
    LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/sp.cmt "$CMT_TESTBIN/signals/sig_pool" \
        >/dev/null || fail "sig_pool"
    expect_rc 0 "$CMT_BIN" export --torch-snapshot -o sp.pickle sp.cmt
    view sp
    "$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["errors"] == [], r["errors"]
act = [v for v in r["views"] if v["view"] == "Active Memory Timeline"][0]
assert act["polygons"] == 11 and sum("sig_pool.c:66:leaky_user" in x for x in act["tooltips"]) == 3, act
' sp.result.json || fail "sig_pool: what MemoryViz shows"
fi

printf 'header pid=401\nexit clean\n' >empty.script
"$MKDUMP" empty.script empty.cmt || fail "mkdump empty"
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o empty.pickle empty.cmt
view empty
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["errors"] == [] and r["devices"] == [], r' \
    empty.result.json || fail "empty snapshot in MemoryViz"

art=$CMT_BUILD/test-artifacts
mkdir -p "$art"
"$py" "$CMT_ROOT/tests/torchviz/page.py" job.pickle shot.html --shot cache_attention_mask || fail "shot page"
chrome --screenshot="$art/torch-viewer.png" --window-size=1280,900 --hide-scrollbars "file://$PWD/shot.html" \
    >/dev/null 2>&1
[ "$(stat -c %s "$art/torch-viewer.png" 2>/dev/null || echo 0)" -gt 20000 ] || fail "no screenshot (or a blank one)"
[ -n "${CMT_UPDATE_SCREENSHOT:-}" ] && cp "$art/torch-viewer.png" "$CMT_ROOT/docs/torch-viewer-screenshot.png"
echo ok
