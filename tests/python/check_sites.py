"""Checks a dump's Python frames against the call sites alloc_sites.py printed.

usage: check_sites.py DUMP_TXT PROGRAM_OUT [--depth N] [--native-only] [--minor M] [--report JSON]
DUMP_TXT is `cumemtrack dump` output. For each "SITE name size file line qualname" line, the ALLOC
of that size must have a stack whose Python frames hold (qualname, file, line) right below the
innermost frame "malloc" (or as the innermost frame for the C extension); 64/32/1 MiB come from
distinct stacks; no stack has more Python frames than --depth; with --native-only no stack has
Python frames at all. With --report (the dump's `report --json`, which symbolizes native frames),
the native frame each Python frame names by its "at" must be the eval loop _PyEval_EvalFrameDefault.
"""
import codecs
import json
import re
import sys

args = sys.argv[1:]
dump, out = args[0], args[1]
depth = int(args[args.index("--depth") + 1]) if "--depth" in args else 64
minor = int(args[args.index("--minor") + 1]) if "--minor" in args else 13
native_only = "--native-only" in args
symbols = {}
if "--report" in args:
    def walk(o):
        if isinstance(o, dict):
            for f in o.get("frames") or []:
                if isinstance(f, dict) and f.get("address") and not f.get("inlined"):
                    symbols[int(f["address"], 16)] = f.get("function")
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(json.load(open(args[args.index("--report") + 1])))

stacks, natives, allocs, fails = {}, {}, {}, []


def unq(s):
    """The text of a string `cumemtrack dump` printed with C escapes (\\xNN for bytes >= 0x7f)."""
    return codecs.escape_decode(s.encode("ascii"))[0].decode("utf-8")



frame_re = re.compile(r'"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)":(\d+)@(\d+)')
for line in open(dump, encoding="ascii"):
    m = re.search(r" STACK id=(\d+) n=(\d+)", line)
    if m:
        py = [(unq(f[0]), unq(f[1]), int(f[2]), int(f[3])) for f in frame_re.findall(line)]
        npy = re.search(r" npy=(\d+)", line)
        assert len(py) == (int(npy.group(1)) if npy else 0), line
        native = [int(a, 16) for a in line.split(" npy=")[0].split()[5:] if a.startswith("0x")]
        assert len(native) == int(m.group(2)), line
        stacks[int(m.group(1))] = (int(m.group(2)), py)
        natives[int(m.group(1))] = native
    m = re.search(r" ALLOC .* size=(\d+) .*stack=(\d+)", line)
    if m:
        allocs.setdefault(int(m.group(1)), []).append(int(m.group(2)))

sites = [l.split() for l in open(out, encoding="utf-8") if l.startswith("SITE ")]
if not sites:
    sys.exit("no SITE lines in " + out)
seen, checked_at = set(), 0
for _, name, size, file, lineno, qual in sites:
    if (name, size, file, lineno, qual) in seen:
        continue
    seen.add((name, size, file, lineno, qual))
    size, lineno = int(size), int(lineno)
    ids = allocs.get(size)
    if not ids:
        fails.append("%s: no ALLOC of %d bytes" % (name, size))
        continue
    for other in ids[1:]:  # every allocation of this size comes from this site
        o = stacks.get(other, (0, []))[1]
        if not native_only and o[:2] != stacks.get(ids[0], (0, []))[1][:2]:
            fails.append("%s: allocation of %d bytes with stack %d has Python frames %s" % (name, size, other, o[:2]))
    n, py = stacks.get(ids[0], (0, []))
    if native_only:
        if py:
            fails.append("%s: Python frames although they are off: %s" % (name, py))
        continue
    if len(py) > depth:
        fails.append("%s: %d Python frames > depth %d" % (name, len(py), depth))
    if name == "extension":
        want = 0
    else:
        want = 1
        if not py or py[0][0] != "malloc":
            fails.append("%s: innermost Python frame is not malloc: %s" % (name, py[:2]))
            continue
    if len(py) <= want or py[want][:3] != (qual, file, lineno):
        fails.append("%s: Python frame %d is %s, want %s" % (name, want, py[want:want + 1], (qual, file, lineno)))
        continue
    ats = [f[3] for f in py]
    if ats != sorted(ats) or any(a > n for a in ats):
        fails.append("%s: 'at' not non-decreasing within [0, %d]: %s" % (name, n, ats))
    if depth >= 64 and name != "recursion" and ats[0] >= n:
        fails.append("%s: no eval-loop native frame found for the innermost Python frame: %s" % (name, ats))
    inside = [a for a in ats if a < n]
    if symbols:
        # frames the report symbolized (it shows only some stacks: leaks, peak, ...)
        named = [symbols[natives[ids[0]][a]] for a in sorted(set(inside)) if natives[ids[0]][a] in symbols]
        checked_at += len(named)
        if any(f != "_PyEval_EvalFrameDefault" for f in named):
            fails.append("%s: 'at' names native frames %s, not the eval loop" % (name, named))
    if minor <= 10 and len(set(inside)) != len(inside):
        fails.append("%s: 3.%d runs one Python frame per eval-loop frame, 'at' repeats: %s" % (name, minor, ats))
    print("ok %s: %s:%d %s (%d Python frames)" % (name, file.rsplit("/", 1)[-1], lineno, qual, len(py)))
if {67108864, 33554432, 1048576} <= set(allocs) and not native_only:
    trio = [set(allocs[s]) for s in (67108864, 33554432, 1048576)]
    if len(set.union(*trio)) != sum(map(len, trio)):
        fails.append("64, 32 and 1 MiB allocations share stacks: %s" % trio)
if symbols and not checked_at and not native_only:
    fails.append("--report: no eval-loop frame named by 'at' was symbolized")
if fails:
    sys.exit("\n".join("FAIL " + f for f in fails))
