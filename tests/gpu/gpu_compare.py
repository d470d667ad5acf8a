#!/usr/bin/env python3
"""gpu_compare.py — the comparison half of `make gpu-check` (tests/gpu/gpu_check.sh).

Usage: gpu_compare.py --bin CUMEMTRACK DUMPS_DIR

DUMPS_DIR holds one directory per run, CASE = MODE/PROGRAM (static/gc_runtime, torch/caching, ...),
each with `stdout` (the program's expectation lines, tests/gpu/gpu_prog.h), `rc` (its exit status),
its dumps (*.cmt) and, for the overhead runs, `plain.stdout` (the same program without the tracker);
and DUMPS_DIR/rows.tsv: rows the shell already decided (check, expected, measured, result).
Every expectation line becomes one row compared with `cumemtrack report --json` of the case's dumps.
Prints one table last; exit 0 when nothing failed, 1 otherwise.

Environment: GPU_CHECK_GRANULE (bytes, default 2 MiB), GPU_CHECK_SLACK_GRANULES (default 1: how many
granules the driver's figure may exceed the tracker's), GPU_CHECK_MAX_OVERHEAD_NS (default 50000,
added ns per cudaMalloc+cudaFree pair), GPU_CHECK_MAX_TORCH_RATIO (default 3.0, tracked/untracked
training-loop time), GPU_CHECK_POOL_CHUNK (default 32 MiB: the physical chunk of a created memory pool,
which the driver's figure may round a pool window up to), GPU_CHECK_INJECT (an extra expectation line added to every case: the self-test
of the comparison itself).
"""
import glob
import json
import math
import os
import re
import subprocess
import sys

GRANULE = int(os.environ.get("GPU_CHECK_GRANULE", str(2 << 20)))
SLACK = int(os.environ.get("GPU_CHECK_SLACK_GRANULES", "1"))
MAX_OVERHEAD_NS = float(os.environ.get("GPU_CHECK_MAX_OVERHEAD_NS", "50000"))
MAX_TORCH_RATIO = float(os.environ.get("GPU_CHECK_MAX_TORCH_RATIO", "3.0"))
POOL_CHUNK = int(os.environ.get("GPU_CHECK_POOL_CHUNK", str(32 << 20)))

rows = []


def row(check, expected, measured, ok):
    if ok is None:
        res = "skip"
    else:
        res = "pass" if ok else "FAIL"
    rows.append((check, str(expected), str(measured), res))


def mib(n):
    return "%d (%.2f MiB)" % (n, n / 1048576.0)


def gran(n):
    return int(math.ceil(max(n, 0) / GRANULE))


def read_lines(path):
    try:
        with open(path) as f:
            return [l.split() for l in f if l.strip()]
    except OSError:
        return []


def report(binary, case_dir):
    dumps = sorted(glob.glob(os.path.join(case_dir, "*.cmt*")))
    if not dumps:
        return None, "no dump"
    p = subprocess.run([binary, "report", "--json"] + dumps, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "report exit %d: %s" % (p.returncode, p.stderr.strip()[-200:])
    with open(os.path.join(case_dir, "report.json"), "w") as f:
        f.write(p.stdout)
    return json.loads(p.stdout), None


def marker_live(rep, label, ordinal):
    for m in rep.get("markers", []):
        if m.get("label") == label:
            return sum(l["bytes"] for l in m.get("live_bytes", []) if l.get("device") == ordinal)
    return None


def devices(rep, ordinal):
    return [d for d in rep.get("devices", []) if d.get("ordinal") == ordinal]


def frames_fn(leak):
    return {f.get("function") for f in leak.get("frames", [])}


def check_case(binary, name, case_dir):
    lines = read_lines(os.path.join(case_dir, "stdout"))
    inject = os.environ.get("GPU_CHECK_INJECT")
    if inject:
        lines.append(inject.split())
    try:
        rc = int(open(os.path.join(case_dir, "rc")).read().strip())
    except (OSError, ValueError):
        rc = None
    row("%s: exit status" % name, 0, rc, rc == 0)
    rep, err = report(binary, case_dir)
    if rep is None:
        row("%s: report --json" % name, "a report", err, False)
        return
    leaks = rep.get("leaks", [])
    for w in lines:
        k = w[0]
        try:
            if k == "expect-leak":
                kind, ordinal, nbytes, fn = w[1], int(w[2]), int(w[3]), w[4]
                got = [l for l in leaks if l.get("kind") == kind and l.get("device") == ordinal
                       and fn in frames_fn(l)]
                total = sum(l["bytes"] for l in got)
                row("%s: leak %s dev %d from %s" % (name, kind, ordinal, fn), nbytes,
                    total if got else "none", total == nbytes)
            elif k == "expect-leak-module":
                kind, ordinal, least, rx = w[1], int(w[2]), int(w[3]), re.compile(w[4])
                got, fns = [], set()
                for l in leaks:
                    if (kind != "*" and l.get("kind") != kind) or l.get("device") != ordinal:
                        continue
                    hit = [f for f in l.get("frames", []) if rx.search(f.get("module") or "")]
                    if hit:
                        got.append(l)
                        fns.add(hit[0].get("function") or hit[0].get("offset") or "?")
                total = sum(l["bytes"] for l in got)
                meas = ("%d in %d allocs, e.g. %s" % (total, sum(l["allocations"] for l in got),
                                                      sorted(fns)[0])) if got else "none"
                row("%s: leak dev %d with a %s frame" % (name, ordinal, w[4]), ">= %d" % least,
                    meas, total >= least)
            elif k == "expect-leak-total":
                ordinal, nbytes = int(w[1]), int(w[2])
                ds = devices(rep, ordinal)
                total = sum(d.get("leaked_bytes", 0) for d in ds)
                row("%s: all leaks dev %d" % (name, ordinal), nbytes,
                    total if ds else "no device", bool(ds) and total == nbytes)
            elif k in ("expect-peak", "expect-peak-min"):
                ordinal, nbytes = int(w[1]), int(w[2])
                ds = devices(rep, ordinal)
                peak = max((d.get("peak_bytes", 0) for d in ds), default=None)
                if k == "expect-peak":
                    row("%s: peak dev %d" % (name, ordinal), mib(nbytes),
                        mib(peak) if peak is not None else "no device", peak == nbytes)
                else:
                    row("%s: peak dev %d" % (name, ordinal), ">= " + mib(nbytes),
                        mib(peak) if peak is not None else "no device",
                        peak is not None and peak >= nbytes)
            elif k == "expect-host-peak":
                nbytes = int(w[1])
                peak = rep.get("host", {}).get("peak_bytes")
                row("%s: peak host" % name, nbytes, peak, peak == nbytes)
            elif k == "expect-oom":
                ordinal, nbytes = int(w[1]), int(w[2])
                got = [o for o in rep.get("oom", []) if o.get("device") == ordinal]
                sizes = [o.get("requested_bytes") for o in got]
                row("%s: oom dev %d requested" % (name, ordinal), nbytes,
                    ",".join(map(str, sizes)) or "none", nbytes in sizes)
            elif k == "meminfo":
                before, after, ordinal, drv = w[1], w[2], int(w[3]), int(w[4])
                b, a = marker_live(rep, before, ordinal), marker_live(rep, after, ordinal)
                label = "%s: %s vs cudaMemGetInfo (2 MiB units)" % (name, after.replace("-after", ""))
                if a is None or b is None:
                    row(label, "markers %s, %s" % (before, after), "missing", False)
                    continue
                t, d = gran(a - b), gran(drv)
                slack = SLACK
                if after.startswith("async-pool"):
                    # a created pool takes physical memory in chunks of its own: on an H200 (driver
                    # 580) a 16 MiB allocation took 32 MiB
                    slack = max(SLACK, int(math.ceil((a - b) / POOL_CHUNK)) * POOL_CHUNK // GRANULE - t + SLACK)
                row(label, "driver %d (%d B)" % (d, drv), "tracked %d (%d B)" % (t, a - b),
                    t <= d <= t + slack)
            elif k == "expect-python-frame":
                # SECTION (leaks, cached or peak) ORDINAL QUALNAME: an entry of that section on that
                # device whose stack carries the Python frame QUALNAME
                section, ordinal, fn = w[1], int(w[2]), w[3]
                if section == "peak":
                    entries = [t for p in rep.get("peak", []) if p.get("device") == ordinal for t in p.get("top", [])]
                else:
                    entries = [e for e in rep.get(section, []) if e.get("device") == ordinal]
                got = [e for e in entries if any(f.get("kind") == "python" and f.get("function") == fn
                                                 for f in e.get("frames", []))]
                row("%s: %s dev %d with Python frame %s" % (name, section, ordinal, fn), "present",
                    "%d of %d entries" % (len(got), len(entries)), bool(got))
            elif k == "expect-cached":
                # ORDINAL ALLOCATOR MIN_BYTES: held at exit by that caching allocator, not leaked
                ordinal, alloc, least = int(w[1]), w[2], int(w[3])
                got = [c for c in rep.get("cached", []) if c.get("device") == ordinal and c.get("allocator") == alloc]
                total = sum(c["bytes"] for c in got)
                row("%s: held by %s at exit dev %d" % (name, alloc, ordinal), ">= %d" % least, total,
                    total >= least)
            elif k in ("torch-mark", "torch-mark-min"):
                label, ordinal, nbytes = w[1], int(w[2]), int(w[3])
                live = marker_live(rep, label, ordinal)
                if k == "torch-mark":
                    # PyTorch's own figure plus what its handle pool holds (cuBLAS's workspaces,
                    # allocated outside its allocator before the first marker, kept to the end)
                    # (what the pool took through PyTorch's own allocator, as the cuBLASLt
                    # workspace under the cudaMallocAsync backend, PyTorch counts already)
                    pool = sum(c["bytes"] for c in rep.get("cached", [])
                               if c.get("device") == ordinal and c.get("allocator") == "PyTorch handle pool"
                               and not any("CUDACachingAllocator" in (f.get("function") or "")
                                           for f in c.get("frames", [])))
                    t, r = gran(live or 0), gran(nbytes + pool)
                    what = "memory_allocated" if "tensors" in name else "memory_reserved"
                    row("%s: %s live vs %s + handle pool (2 MiB units)" % (name, label, what),
                        "%d (%d + %d B)" % (r, nbytes, pool),
                        "%d (%d B)" % (t, live) if live is not None else "no marker",
                        live is not None and abs(t - r) <= SLACK)
                else:
                    row("%s: %s live vs tensors' bytes" % (name, label), ">= " + mib(nbytes),
                        mib(live) if live is not None else "no marker",
                        live is not None and live >= nbytes)
        except (IndexError, ValueError) as e:
            row("%s: line '%s'" % (name, " ".join(w)), "well-formed", str(e), False)


def value(path, key):
    for w in read_lines(path):
        if w[0] == key and len(w) > 1:
            return float(w[1])
    return None


def overheads(root):
    for case in sorted(glob.glob(os.path.join(root, "*", "gc_loop"))):
        name = os.path.relpath(case, root)
        t, p = value(os.path.join(case, "stdout"), "ns-per-pair"), \
            value(os.path.join(case, "plain.stdout"), "ns-per-pair")
        if t is None or p is None:
            row("%s: overhead per cudaMalloc+cudaFree" % name, "both runs", "missing", False)
            continue
        row("%s: overhead per cudaMalloc+cudaFree" % name, "< %.0f ns added" % MAX_OVERHEAD_NS,
            "%.0f ns -> %.0f ns (+%.0f ns, x%.2f)" % (p, t, t - p, t / p if p else 0),
            t - p < MAX_OVERHEAD_NS)
    case = os.path.join(root, "torch", "caching")
    if os.path.isdir(case):
        t, p = value(os.path.join(case, "stdout"), "loop-seconds"), \
            value(os.path.join(case, "plain.stdout"), "loop-seconds")
        if t is None or p is None:
            row("torch/caching: training-loop overhead", "both runs", "missing", False)
        else:
            row("torch/caching: training-loop overhead", "< x%.1f" % MAX_TORCH_RATIO,
                "%.2f s -> %.2f s (x%.2f)" % (p, t, t / p if p else 0),
                p > 0 and t / p < MAX_TORCH_RATIO)


def main():
    args = sys.argv[1:]
    if len(args) != 3 or args[0] != "--bin":
        sys.stderr.write(__doc__)
        return 2
    binary, root = args[1], args[2]
    pre = []
    try:
        with open(os.path.join(root, "rows.tsv")) as f:
            pre = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    except OSError:
        pass
    order = {"static": 0, "shared": 1, "torch": 2}
    cases = sorted(glob.glob(os.path.join(root, "*", "*", "stdout")),
                   key=lambda c: (order.get(c.split(os.sep)[-3], 9), c))
    for case in cases:
        case_dir = os.path.dirname(case)
        check_case(binary, os.path.relpath(case_dir, root), case_dir)
    overheads(root)
    for r in pre:
        if len(r) == 4:
            rows.append(tuple(r))
    if not rows:
        row("gpu-check", "some checks", "none ran", False)
    w = [max(len(r[i]) for r in rows + [("check", "expected", "measured", "result")]) for i in range(4)]
    line = "+".join("-" * (x + 2) for x in w)
    fmt = " %s | %s | %s | %s"
    print(line)
    print(fmt % tuple(h.ljust(w[i]) for i, h in enumerate(("check", "expected", "measured", "result"))))
    print(line)
    for r in rows:
        print((fmt % tuple(r[i].ljust(w[i]) for i in range(4))).rstrip())
    print(line)
    n = {s: sum(1 for r in rows if r[3] == s) for s in ("pass", "FAIL", "skip")}
    print(" gpu-check: %d pass, %d fail, %d skip" % (n["pass"], n["FAIL"], n["skip"]))
    return 1 if n["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
