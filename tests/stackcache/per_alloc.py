"""per_alloc.py: reads `cumemtrack dump DUMP` on stdin and prints every ALLOC as "SIZE STACK", sorted
by size, each stack address as module+offset (ASLR differs between runs); an address in no
module's segments (the word libunwind reads past a fiber's first frame: whatever the fiber's
stack held, another value in each process) reads "?", a missing stack "-"."""
import re
import sys

mods, stacks, out = [], {}, []
for line in sys.stdin:
    f = line.split()
    if len(f) < 4:
        continue
    if f[2] == "MODULE_LOAD":
        base = int(re.search(r" base=(0x[0-9a-f]+)", line).group(1), 16)
        name = re.search(r" path=\"([^\"]*)\"", line).group(1).rsplit("/", 1)[-1]
        for v, n in re.findall(r" seg=(0x[0-9a-f]+):(0x[0-9a-f]+):", line):
            mods.append((base + int(v, 16), base + int(v, 16) + int(n, 16), base, name))
    elif f[2] == "STACK":
        stacks[f[3]] = [int(x, 16) for x in f[5:] if x.startswith("0x")]
    elif f[2] == "ALLOC":
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)

        def name(a):
            for lo, hi, base, n in mods:
                if lo <= a - 1 < hi:
                    return "%s+%x" % (n, a - base)
            return "?"

        out.append((int(kv["size"]), " ".join(name(a) for a in stacks.get("id=" + kv["stack"], [])) or "-"))
for s, st in sorted(out):
    print(s, st)
