#!/usr/bin/env bash
# cumemtrack export --torch-snapshot (issue 29): Python's own pickle loads the snapshot (no
# PyTorch), with the keys of torch.cuda.memory._snapshot(), and its figures equal report --json's
# for the same process (tests/torchviz/check_snapshot.py: live bytes per device at exit, peak,
# allocation and free counts, OOMs, every leak's and cached entry's frames, Python frames
# included): a traced Python job with a leak, a caching allocator's cache and an OOM, and a
# synthetic dump (refused free, reallocation, teardowns mid-run and at exit, two devices, host
# memory, non-UTF-8 names, more than a pickle batch), pools reporting their regions through NVTX
# memory heaps (synthetic, and tests/signals/sig_pool.c). Bad input: several processes and none
# picked -> exit 2 naming them, nothing written; --pid / --rank pick one; a pid or rank that is not
# there -> 2; no format, no -o -> 2; unreadable -> 3; a process with no device allocation -> an
# empty, valid snapshot and a warning.
set -u
. "$(dirname "$0")/export_lib.sh.inc"
py=$(command -v python3) || { echo "no python3"; exit 77; }
check() { "$py" "$CMT_ROOT/tests/torchviz/check_snapshot.py" "$@"; }

export_job
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o job.pickle job.cmt
grep -q "allocations, .* -> job.pickle" err.txt || { cat err.txt; fail "no summary on stderr"; }
[ ! -s out.txt ] || fail "export wrote to stdout"
"$CMT_BIN" report --json --top 1000000 job.cmt >job.json || fail "report --json"
pid=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"][0]["pid"])' job.json)
check job.pickle job.json "$pid" || fail "job: the snapshot differs from report --json"
# what the job holds, as the snapshot shows it: the leak with its Python frames, the cache as
# segments only, the OOM with its request
"$py" - job.pickle <<'P' || fail "job: contents"
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
t = s["device_traces"][0]
names = lambda fr: [f["name"] for f in fr]
leak = [x for x in s["segments"] if "cache_attention_mask" in names(x["frames"])]
assert len(leak) == 6 and all(x["total_size"] == 1 << 20 for x in leak), leak
f = leak[0]["frames"]
assert [n for n in names(f) if n in ("malloc", "cache_attention_mask", "train_step", "<module>")] == \
    ["malloc", "cache_attention_mask", "train_step", "<module>"], names(f)
assert any(x["filename"].endswith("export_sites.py") and x["line"] == 31 for x in f), f
assert f[0]["name"] == "cudaMalloc", f[0]
cache = [x for x in s["segments"] if x["blocks"][0]["state"] == "inactive"]
assert len(cache) == 4 and all("Trainer.warm_cache" in names(x["frames"]) for x in cache), cache
assert any("CUDACachingAllocator" in n for n in names(cache[0]["frames"]))
cache_addrs = {x["address"] for x in cache}
assert not [e for e in t if e["action"] == "alloc" and e["addr"] in cache_addrs], "cache segments as blocks"
assert sum(1 for e in t if e["action"] == "segment_alloc" and e["addr"] in cache_addrs) == 4
oom = [e for e in t if e["action"] == "oom"]
assert len(oom) == 1 and oom[0]["size"] == 1 << 50 and "try_huge_batch" in names(oom[0]["frames"]), oom
weights = [e for e in t if e["size"] == 64 << 20]
assert [e["action"] for e in weights] == ["segment_alloc", "alloc", "free_requested", "free_completed",
                                          "segment_free"], weights
P
# --caching-allocator REGEX: what it matches is a caching allocator's segment too (as in report)
expect_rc 0 "$CMT_BIN" export --torch-snapshot --caching-allocator 'cache_attention_mask' -o jobc.pickle job.cmt
"$CMT_BIN" report --json --top 1000000 --caching-allocator 'cache_attention_mask' job.cmt >jobc.json || fail "report"
check jobc.pickle jobc.json "$pid" || fail "--caching-allocator: the snapshot differs from report --json"
"$py" -c '
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
assert sum(x["blocks"][0]["state"] == "inactive" for x in s["segments"]) == 10, s["segments"]
assert sum(e["action"] == "alloc" for e in s["device_traces"][0]) == 13
' jobc.pickle || fail "--caching-allocator: the masks are not segments only"

synthetic_dump
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o syn.pickle syn.cmt
"$CMT_BIN" report --json --top 1000000 syn.cmt >syn.json || fail "report --json syn"
check syn.pickle syn.json 300 || fail "synthetic: the snapshot differs from report --json"
"$py" - syn.pickle <<'P' || fail "synthetic: contents"
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
assert len(s["device_traces"]) == 3 and s["device_traces"][1] == [], [len(t) for t in s["device_traces"]]
segs = sorted((x["device"], x["address"], x["total_size"]) for x in s["segments"])
# 0x10000 reallocated (2M), 0x50000 left by the teardown at exit, 0x30000 whose free was refused;
# the teardown mid-run ended 0x20000; host memory is no segment
assert segs == [(0, 0x10000, 2 << 20), (0, 0x50000, 7 << 20), (2, 0x30000, 5 << 20)], segs
t2 = [(e["action"], e.get("addr")) for e in s["device_traces"][2]]
assert t2 == [("segment_alloc", 0x30000), ("alloc", 0x30000), ("oom", None)], t2
t0 = s["device_traces"][0]
torn = [e["action"] for e in t0 if e["addr"] == 0x20000]
assert torn == ["segment_alloc", "alloc", "free_requested", "free_completed", "segment_free"], torn
first = t0[0]["frames"]
assert first[0] == {"filename": "/work/bad.py", "line": 7, "name": "bad\ufffd\ufffdname"}, first
assert first[1] == {"filename": "/work/train.py", "line": 3, "name": "<module>"}, first
# time_us: wall-clock microseconds (the header's start_real plus the record's time since start_clock)
assert 1700000000000000 < t0[0]["time_us"] < 1700000000100000, t0[0]["time_us"]
P

# pools that report their sub-allocations (NVTX memory heaps): the heap's allocation is a segment
# whose blocks are its regions, registered and unregistered in the trace
pool_dump
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o pool.pickle pool.cmt
"$CMT_BIN" report --json --top 1000000 pool.cmt >pool.json || fail "report --json pool"
check pool.pickle pool.json 700 || fail "pools: the snapshot differs from report --json"
"$py" - pool.pickle <<'P' || fail "pools: contents"
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
(seg,) = s["segments"]
blocks = [(b["address"], b["size"], b["state"]) for b in seg["blocks"]]
assert (seg["address"], seg["total_size"], seg["allocated_size"]) == (0x100000, 1 << 20, 0x20000), seg
assert blocks == [(0x100000, 0x10000, "inactive"), (0x110000, 0x20000, "active_allocated"),
                  (0x130000, 0xd0000, "inactive")], blocks
assert seg["blocks"][1]["frames"] == [{"filename": "[unknown]", "line": 0, "name": "[unknown]+0x0"}]
t = [(e["action"], e["addr"], e["size"]) for e in s["device_traces"][0]]
fr = lambda a, n: [("free_requested", a, n), ("free_completed", a, n)]
want = [("segment_alloc", 0x100000, 1 << 20), ("alloc", 0x100000, 0x10000), ("alloc", 0x110000, 0x10000)] + \
    fr(0x110000, 0x10000) + [("alloc", 0x110000, 0x20000)] + fr(0x100000, 0x10000) + \
    [("segment_alloc", 0x300000, 1 << 20), ("alloc", 0x300000, 0x4000)] + fr(0x300000, 0x4000) + \
    [("alloc", 0x304000, 0x4000)] + fr(0x304000, 0x4000) + [("segment_free", 0x300000, 1 << 20)]
assert t == want, t
P
# a real pool (tests/signals/sig_pool.c: 10 regions of 4 KiB in a 1 MiB heap, 3 never given back)
if [ -x "${CMT_TESTBIN:-}/signals/sig_pool" ] && [ -e "${CMT_LIB:-}" ]; then
    LD_LIBRARY_PATH=$CMT_FAKE_LIBDIR LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/sp.cmt "$CMT_TESTBIN/signals/sig_pool" \
        >/dev/null || fail "sig_pool"
    expect_rc 0 "$CMT_BIN" export --torch-snapshot -o sp.pickle sp.cmt
    "$CMT_BIN" report --json --top 1000000 sp.cmt >sp.json || fail "report --json sp"
    check sp.pickle sp.json "$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["processes"][0]["pid"])' sp.json)" ||
        fail "sig_pool: the snapshot differs from report --json"
    "$py" -c '
import pickle, sys
s = pickle.load(open(sys.argv[1], "rb"))
(seg,) = s["segments"]
live = [b for b in seg["blocks"] if b["state"] == "active_allocated"]
assert len(live) == 3 and all(b["size"] == 4096 and "leaky_user" in [f["name"] for f in b["frames"]] for b in live), live
t = s["device_traces"][0]
assert sum(e["action"] == "alloc" for e in t) == 10 and sum(e["action"] == "free_completed" for e in t) == 7
' sp.pickle || fail "sig_pool: the regions are not the blocks"
fi

# several processes, none picked: exit 2 naming each, nothing written
printf 'header pid=400 host=a rank=1\ndevice ord=0 uuid=GPU-aaaaaaaa-0000-0000-0000-000000000000 name=G pci=0000:01:00.0 total=1G\nexit clean\n' >empty.script
"$MKDUMP" empty.script empty.cmt || fail "mkdump empty"
printf 'header pid=401 host=b\nexit clean\n' >nodev.script
"$MKDUMP" nodev.script nodev.cmt || fail "mkdump nodev"
mkdir job && cp syn.cmt empty.cmt nodev.cmt job/
expect_rc 2 "$CMT_BIN" export --torch-snapshot -o many.pickle job
[ ! -e many.pickle ] || fail "a snapshot was written for several processes"
for p in "pid 300 on n3" "pid 400 rank 1 on a" "pid 401 on b"; do
    grep -q "$p" err.txt || { cat err.txt; fail "several processes: '$p' not named"; }
done
grep -q -- "--pid PID" err.txt || fail "several processes: no hint"
expect_rc 2 "$CMT_BIN" export --torch-snapshot --pid 999 -o many.pickle job
grep -q "no process with pid 999" err.txt && grep -q "pid 401 on b" err.txt || { cat err.txt; fail "--pid 999"; }
[ ! -e many.pickle ] || fail "a snapshot was written for a missing pid"
expect_rc 2 "$CMT_BIN" export --torch-snapshot --rank 7 -o many.pickle job
grep -q "no process with rank 7" err.txt || { cat err.txt; fail "--rank 7"; }
expect_rc 0 "$CMT_BIN" export --torch-snapshot --pid 300 -o pick.pickle job
cmp -s pick.pickle syn.pickle || fail "--pid 300 differs from exporting syn.cmt alone"
expect_rc 0 "$CMT_BIN" export --torch-snapshot --rank 1 -o rank.pickle job
"$py" -c 'import pickle,sys; s=pickle.load(open(sys.argv[1],"rb")); assert s=={"segments":[],"device_traces":[[]]}, s' \
    rank.pickle || fail "--rank 1: not pid 400's empty snapshot"
# two processes with one rank (a rank and its forked worker), the same pid on two hosts
printf 'header pid=600 host=c rank=2\nexit clean\n' | "$MKDUMP" - r600.cmt || fail "mkdump r600"
printf 'header pid=601 ppid=600 host=c rank=2\nexit clean\n' | "$MKDUMP" - r601.cmt || fail "mkdump r601"
printf 'header pid=600 host=d rank=3\nexit clean\n' | "$MKDUMP" - d600.cmt || fail "mkdump d600"
expect_rc 2 "$CMT_BIN" export --torch-snapshot --rank 2 -o r.pickle r600.cmt r601.cmt d600.cmt
grep -q "2 processes with that rank" err.txt && grep -q "pid 600 rank 2 on c" err.txt && grep -q "pid 601 rank 2 on c" err.txt &&
    ! grep -q "on d" err.txt || { cat err.txt; fail "--rank 2: both processes of rank 2 not named"; }
expect_rc 2 "$CMT_BIN" export --torch-snapshot --pid 600 -o r.pickle r600.cmt r601.cmt d600.cmt
grep -q "2 processes with pid 600" err.txt && grep -q "give its dump alone" err.txt || { cat err.txt; fail "pid on 2 hosts"; }
[ ! -e r.pickle ] || fail "a snapshot was written for an ambiguous pick"
expect_rc 0 "$CMT_BIN" export --torch-snapshot --pid 600 --rank 3 -o r.pickle r600.cmt r601.cmt d600.cmt
# no device allocation: an empty, valid snapshot (device 0's empty trace: PyTorch always has one,
# MemoryViz opens it) and a warning
for d in empty nodev; do
    expect_rc 0 "$CMT_BIN" export --torch-snapshot -o $d.pickle $d.cmt
    grep -q "made no device allocation.*empty snapshot" err.txt || { cat err.txt; fail "$d: no warning"; }
    "$py" -c 'import pickle,sys; s=pickle.load(open(sys.argv[1],"rb")); assert s=={"segments":[],"device_traces":[[]]}, s' \
        $d.pickle || fail "$d: not an empty snapshot"
done
# usage and unreadable input
expect_rc 2 "$CMT_BIN" export -o x.pickle syn.cmt
grep -q -- "--torch-snapshot" err.txt || fail "no format: not said"
expect_rc 2 "$CMT_BIN" export --torch-snapshot syn.cmt
grep -q -- "-o FILE" err.txt || fail "no -o: not said"
expect_rc 2 "$CMT_BIN" export --torch-snapshot -o x.pickle
# -o - writes to a pipe, never to a terminal
"$CMT_BIN" export --torch-snapshot -o - syn.cmt 2>/dev/null | cmp -s - syn.pickle || fail "-o - to a pipe"
if command -v script >/dev/null; then
    script -qec "'$CMT_BIN' export --torch-snapshot -o - syn.cmt" /dev/null >tty.txt 2>&1
    grep -q "a snapshot is binary" tty.txt && ! grep -q "segment_alloc" tty.txt || { cat tty.txt; fail "-o - to a terminal"; }
fi
expect_rc 2 "$CMT_BIN" export --torch-snapshot --pid abc -o x.pickle syn.cmt
echo garbage >bad.cmt
expect_rc 3 "$CMT_BIN" export --torch-snapshot -o x.pickle bad.cmt
grep -q "bad.cmt" err.txt || fail "unreadable: not named"
expect_rc 3 "$CMT_BIN" export --torch-snapshot -o x.pickle missing.cmt
# an unreadable dump next to a readable one: the readable one is exported, the other named
expect_rc 0 "$CMT_BIN" export --torch-snapshot -o y.pickle bad.cmt syn.cmt
grep -q "unreadable, left out: bad.cmt: offset 8 (file header)" err.txt || { cat err.txt; fail "an unreadable dump not named"; }
cmp -s y.pickle syn.pickle || fail "not syn.cmt's snapshot"
expect_rc 3 "$CMT_BIN" export --torch-snapshot -o /nonexistent-dir/x.pickle syn.cmt
expect_rc 0 "$CMT_BIN" export --help
grep -q -- "--torch-snapshot" out.txt || fail "--help"
"$CMT_BIN" --help | grep -q "^  export " || fail "not in the command list"
echo ok
