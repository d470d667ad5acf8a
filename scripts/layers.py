#!/usr/bin/env python3
"""layers.py — the dependency graph of compiled objects, from their symbols (nm): module A uses B when
A's object has an undefined symbol that B's object defines. Prints each module's uses and every
circle (strongly connected component of two or more modules); with --layers FILE it also checks a
layer order: FILE lists layers bottom first, one per line ("name: module module ..."), and a module
may use only modules of its own layer or below. Exit 0: no circle and no upward use; 1 otherwise.
Usage: layers.py [--layers FILE] [--quiet] OBJ..."""
import collections
import os
import subprocess
import sys


def graph(objs):
    defs, uses = {}, collections.defaultdict(set)
    for o in objs:
        m = os.path.splitext(os.path.basename(o))[0]
        out = subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            p = line.split()
            if len(p) == 3 and p[1] in "TDBRCV":
                defs[p[2]] = m
            elif len(p) == 2 and p[0] == "U":
                uses[m].add(p[1])
    g = collections.defaultdict(lambda: collections.defaultdict(set))
    for m, syms in uses.items():
        for s in syms:
            d = defs.get(s)
            if d and d != m:
                g[m][d].add(s)
    return g


def circles(g):
    nodes = set(g) | {d for m in g for d in g[m]}
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(argv):
    layers_file, quiet, objs = None, False, []
    it = iter(argv)
    for a in it:
        if a == "--layers":
            layers_file = next(it)
        elif a == "--quiet":
            quiet = True
        else:
            objs.append(a)
    if not objs:
        print(__doc__, file=sys.stderr)
        return 2
    g = graph(objs)
    bad = 0
    if not quiet:
        for m in sorted(g):
            print(f"{m} -> {' '.join(sorted(g[m]))}")
    for c in circles(g):
        bad += 1
        print(f"circle: {' <-> '.join(c)}")
        for m in c:
            for d in sorted(g[m]):
                if d in c:
                    print(f"    {m} uses {d}: {', '.join(sorted(g[m][d])[:4])}")
    if layers_file:
        level = {}
        with open(layers_file) as f:
            for i, line in enumerate(l for l in f if l.strip() and not l.startswith("#")):
                name, _, mods = line.partition(":")
                for m in mods.split():
                    level[m] = (i, name.strip())
        for m in sorted(g):
            if m not in level:
                bad += 1
                print(f"unplaced: {m} is in no layer of {layers_file}")
                continue
            for d in sorted(g[m]):
                if d in level and level[d][0] > level[m][0]:
                    bad += 1
                    print(f"upward: {m} ({level[m][1]}) uses {d} ({level[d][1]}): "
                          f"{', '.join(sorted(g[m][d])[:4])}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
