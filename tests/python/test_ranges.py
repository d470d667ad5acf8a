"""Per-test ranges driven directly through the tracer's API (ctypes), for
tests/cases/analyzer_pertest.sh: what the analyzer counts for each test."""
import ctypes
import os
import sys
import threading

MIB = 1 << 20
rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaMallocHost.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaFree.argtypes = [ctypes.c_void_p]
rt.cudaFreeHost.argtypes = [ctypes.c_void_p]
me = ctypes.CDLL(None)
me.cmt_dump_path.restype = ctypes.c_char_p


def malloc(n):
    p = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(p), n) == 0
    return p.value


before = malloc(MIB)
me.cmt_test_end(b"nothing open")  # ignored
me.cmt_test_begin(b"frees_older")  # frees what was allocated before it: nothing of its own
rt.cudaFree(before)
me.cmt_test_end(b"frees_older")

me.cmt_test_begin(b"leaks_2m")
kept = malloc(2 * MIB)
tmp = malloc(MIB)
rt.cudaFree(tmp)
me.cmt_mark(b"inside")  # a point marker inside a test stays a marker
me.cmt_test_end(b"leaks_2m")
rt.cudaFree(kept)  # after its end: the test still leaked it

me.cmt_test_begin(b"host_only")
h = ctypes.c_void_p()
assert rt.cudaMallocHost(ctypes.byref(h), 4 * MIB) == 0  # host memory: not counted
me.cmt_test_end(b"host_only")

me.cmt_test_begin(b"no_end")
malloc(MIB)  # leaked, its end never recorded
me.cmt_test_begin(b"thread")  # ends no_end ("next")
out = []
t = threading.Thread(target=lambda: out.append(malloc(3 * MIB)))
t.start()
t.join()
me.cmt_test_end(b"thread")

me.cmt_test_begin(b"reset")
malloc(5 * MIB)
assert rt.cudaDeviceReset() == 0  # the context's teardown ends its allocations
me.cmt_test_end(b"reset")

print(me.cmt_dump_path().decode())
me.cmt_test_begin(b"unfinished")
malloc(6 * MIB)
sys.stdout.flush()
os._exit(0)  # inside the test: no atexit teardown of the context, its 6 MiB stay live
