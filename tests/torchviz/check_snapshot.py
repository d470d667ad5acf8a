"""Checks a snapshot written by `cumemtrack export --torch-snapshot` against `cumemtrack report
--json --top 1000000` of the same process, with Python's own pickle (no PyTorch): the keys
PyTorch's snapshot has (torch/csrc/cuda/memory_snapshot.cpp), and per device ordinal the live
bytes at exit (segments vs the report's leaks at exit plus what caching allocators hold), the
peak (replaying device_traces vs devices[].peak_bytes), the allocation and free counts, the OOMs
(size and device_free), and every segment's frames vs the report's frames of the same stack.

usage: check_snapshot.py SNAPSHOT.pickle REPORT.json PID   (prints a summary; exit 1 on a mismatch)"""
import json
import os
import pickle
import sys

snap = pickle.load(open(sys.argv[1], "rb"))
rep = json.load(open(sys.argv[2]))
pid = int(sys.argv[3])
bad = []


def expect(cond, what):
    if not cond:
        bad.append(what)


SEG_KEYS = {"device", "address", "total_size", "allocated_size", "active_size", "requested_size", "stream",
            "segment_type", "segment_pool_id", "is_expandable", "frames", "blocks"}
BLOCK_KEYS = {"address", "size", "requested_size", "state", "frames"}
ENTRY_KEYS = {"action", "addr", "size", "stream", "time_us", "frames"}
OOM_KEYS = {"action", "device_free", "size", "stream", "time_us", "frames"}
FRAME_KEYS = {"filename", "line", "name"}
ACTIONS = {"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "oom"}

expect(set(snap) == {"segments", "device_traces"}, "top-level keys %s" % sorted(snap))
for s in snap["segments"]:
    expect(set(s) == SEG_KEYS, "segment keys %s" % sorted(s))
    expect(s["segment_pool_id"] == (0, 0) and s["is_expandable"] is False, "segment_pool_id/is_expandable")
    # blocks tile the segment in address order (MemoryViz places them by their sizes): one block,
    # or a pool's regions (NVTX heap) with inactive blocks between them
    at = s["address"]
    for b in s["blocks"]:
        expect(set(b) == BLOCK_KEYS, "block keys %s" % sorted(b))
        expect(b["address"] == at and b["size"] > 0, "blocks do not tile the segment: %r" % s["blocks"])
        expect(b["state"] in ("active_allocated", "inactive"), "block state %s" % b["state"])
        at += b["size"]
    expect(at == s["address"] + s["total_size"], "blocks do not cover the segment")
    active = [b for b in s["blocks"] if b["state"] == "active_allocated"]
    expect(s["allocated_size"] == s["active_size"] == sum(b["size"] for b in active), "allocated_size")
for d, trace in enumerate(snap["device_traces"]):
    last = None
    for e in trace:
        expect(set(e) == (OOM_KEYS if e["action"] == "oom" else ENTRY_KEYS), "entry keys %s" % sorted(e))
        expect(e["action"] in ACTIONS, "action %s" % e["action"])
        expect(last is None or e["time_us"] >= last, "time_us goes back on device %d" % d)
        last = e["time_us"]
        for f in e["frames"]:
            expect(set(f) == FRAME_KEYS and isinstance(f["line"], int), "frame %r" % f)


def frame_of(j):
    """A report --json frame as the snapshot names it (render_text.c cmt_frame_parts)."""
    if j["kind"] == "python":
        return {"filename": j["file"] or "?", "line": j["line"] or 0, "name": j["function"]}
    mod = j.get("module")
    name = j["function"] or "%s+%s" % (os.path.basename(mod) if mod else "?", j["offset"])
    return {"filename": j["file"] or mod or "?", "line": j["line"] or 0, "name": name}


leaks = [l for l in rep["leaks"] if l["pid"] == pid and l["device"] >= 0 and l["at"] != "teardown"]
cached = [c for c in rep["cached"] if c["pid"] == pid and c["device"] >= 0]
devices = {d["ordinal"]: d for d in rep["devices"] if d["pid"] == pid}
ooms = [o for o in rep["oom"] if o["pid"] == pid and o["device"] >= 0]
expect(len(snap["device_traces"]) == max([0] + list(devices)) + 1,
       "%d device traces for ordinals %s" % (len(snap["device_traces"]), sorted(devices)))
summary = []
for ordinal, dev in sorted(devices.items()):
    trace = snap["device_traces"][ordinal] if ordinal < len(snap["device_traces"]) else []
    segs = [s for s in snap["segments"] if s["device"] == ordinal]
    live = sum(s["total_size"] for s in segs)
    want = sum(l["bytes"] for l in leaks if l["device"] == ordinal) + \
        sum(c["bytes"] for c in cached if c["device"] == ordinal)
    expect(live == want, "device %d: %d bytes live at exit, report %d" % (ordinal, live, want))
    expect(sum(1 for s in segs if [b["state"] for b in s["blocks"]] == ["inactive"]) >=
           sum(c["allocations"] for c in cached if c["device"] == ordinal), "device %d: cached segments" % ordinal)
    cur = peak = 0
    for e in trace:
        if e["action"] == "segment_alloc":
            cur += e["size"]
            peak = max(peak, cur)
        elif e["action"] == "segment_free":
            cur -= e["size"]
    expect(cur == live, "device %d: the trace ends with %d bytes live, the segments hold %d" % (ordinal, cur, live))
    expect(peak == dev["peak_bytes"], "device %d: peak %d, report %d" % (ordinal, peak, dev["peak_bytes"]))
    n = {a: sum(1 for e in trace if e["action"] == a) for a in ACTIONS}
    expect(n["segment_alloc"] == dev["allocations"],
           "device %d: %d allocations, report %d" % (ordinal, n["segment_alloc"], dev["allocations"]))
    expect(n["free_requested"] == n["free_completed"], "free_requested / free_completed pairs")
    # blocks: an allocation's own (but a caching allocator's), or an NVTX pool's regions
    nactive = sum(1 for s in segs for b in s["blocks"] if b["state"] == "active_allocated")
    expect(n["alloc"] - n["free_completed"] == nactive, "device %d: blocks live at exit" % ordinal)
    doom = [o for o in ooms if o["device"] == ordinal]
    toom = [e for e in trace if e["action"] == "oom"]
    expect([e["size"] for e in toom] == [o["requested_bytes"] for o in doom], "device %d: OOMs" % ordinal)
    for e, o in zip(toom, doom):
        total = dev["total_bytes"]
        expect(e["device_free"] == (total - o["live_bytes"] if total > o["live_bytes"] else 0), "device_free")
        expect(e["frames"] == [frame_of(f) for f in o["frames"]], "OOM frames")
    summary.append("device %d: %d bytes live at exit in %d segments, peak %d, %d allocations, %d OOMs" %
                   (ordinal, live, len(segs), peak, n["segment_alloc"], len(toom)))

# frames: every leak and cached entry's stack is the frames of its segments (one stack each)
by_frames = {}
for s in snap["segments"]:
    by_frames.setdefault((s["device"], json.dumps(s["frames"])), []).append(s)
for l in leaks + cached:
    fr = json.dumps([frame_of(f) for f in l["frames"]])
    segs = by_frames.get((l["device"], fr), [])
    expect(sum(s["total_size"] for s in segs) >= l["bytes"] and segs,
           "no segments with the frames of the report's entry %s" % [f["function"] for f in l["frames"]])
    for s in segs:
        if "allocator" in l:  # a caching allocator's segment: one inactive block
            expect([b["state"] for b in s["blocks"]] == ["inactive"], "a cache's segment %r" % s["blocks"])
        elif len(s["blocks"]) == 1 and s["blocks"][0]["state"] == "active_allocated":
            expect(s["blocks"][0]["frames"] == s["frames"], "block frames")
print("\n".join(summary))
if bad:
    print("MISMATCH:\n  " + "\n  ".join(bad))
    sys.exit(1)
