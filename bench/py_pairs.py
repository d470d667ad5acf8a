"""bench/py_frames.sh's workload: cudaMalloc(4096)+cudaFree pairs made by the C extension
tests/python/cmt_pyext.c (no ctypes cost in the loop) from a Python stack DEPTH frames deep.
usage: py_pairs.py PAIRS DEPTH; prints "ns_per_pair X py_frames N" (the best of 5 timed loops).
"""
import sys
import time

import cmt_pyext

N, D = int(sys.argv[1]), int(sys.argv[2])


def timed():
    t = time.perf_counter_ns()
    cmt_pyext.pairs(N)
    return (time.perf_counter_ns() - t) / N


def deep(n):
    if n > 1:
        return deep(n - 1)
    best = min(timed() for _ in range(5))
    frames, f = 0, sys._getframe()
    while f:
        frames, f = frames + 1, f.f_back
    return best, frames + 1  # + timed()


ns, frames = deep(D)
print("ns_per_pair %.1f py_frames %d" % (ns, frames))
