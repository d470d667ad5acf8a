# A job that grows device memory step by step through ctypes (tests/cases/live_top_python.sh):
# cudaMalloc 1 MiB per step from step(), cudaMallocAsync 512 KiB from step_async() (the fake
# runtime's internal frame above the API entry), and 2 MiB through a native library's three frames
# (mid_a -> mid_b -> mid_c -> cudaMalloc) from deep(). After each phase it creates STATEDIR/phaseN
# and waits for STATEDIR/goN; nothing is freed.
# usage: grow_phases.py STATEDIR LIBMID PHASES STEPS
import ctypes
import os
import sys
import time

st, libmid, phases, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rt = ctypes.CDLL("libcudart.so.13")
mid = ctypes.CDLL(libmid)


def step():
    p = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(1 << 20)) == 0
    return p


def step_async():
    p = ctypes.c_void_p()
    assert rt.cudaMallocAsync(ctypes.byref(p), ctypes.c_size_t(1 << 19), None) == 0
    return p


def deep():
    assert mid.mid_a(ctypes.c_size_t(2 << 20)) == 0


def wait(name):
    while not os.path.exists(os.path.join(st, name)):
        time.sleep(0.02)


keep = []
for phase in range(1, phases + 1):
    for i in range(steps):
        keep.append(step())
        keep.append(step_async())
        deep()
    open(os.path.join(st, "phase%d" % phase), "w").close()
    wait("go%d" % phase)
