"""Allocates device memory through the fake CUDA runtime (ctypes) from known Python call sites.

Each allocation prints "SITE <name> <size> <file> <line> <qualname>" so that tests can check the
dumped Python frames against the line that really called cudaMalloc. argv[1]: "cdll" or "pydll"
(ctypes.CDLL releases the GIL around the call, ctypes.PyDLL keeps it); argv[2:]: scenarios to run
(default: all). The fake runtime is found as libcudart.so.13 on LD_LIBRARY_PATH.
"""
import asyncio
import ctypes
import os
import sys
import threading

MIB = 1 << 20
LOADER = ctypes.PyDLL if len(sys.argv) > 1 and sys.argv[1] == "pydll" else ctypes.CDLL
rt = LOADER("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaFree.argtypes = [ctypes.c_void_p]
live = []


def site(name, size, depth=1, ahead=0):
    """Prints the call site of the caller `depth` frames up (the line calling cudaMalloc, `ahead`
    lines below the current one)."""
    f = sys._getframe(depth)
    qual = getattr(f.f_code, "co_qualname", f.f_code.co_name)
    sys.stdout.buffer.write(("SITE %s %d %s %d %s\n" % (name, size, os.path.abspath(f.f_code.co_filename),
                                                       f.f_lineno + ahead, qual)).encode("utf-8"))
    sys.stdout.flush()


def malloc(name, size):
    p = ctypes.c_void_p()
    site(name, size, 2)
    if rt.cudaMalloc(ctypes.byref(p), size) != 0:  # the line the stack must name
        raise MemoryError(name)
    live.append(p.value)
    return p.value


def activation():
    return malloc("activation", 64 * MIB)


def gradient():
    return malloc("gradient", 32 * MIB)


def leak():
    return malloc("leak", 1 * MIB)


def three_sites():
    activation()
    gradient()
    leak()


class Model:
    def forward(self):
        return malloc("method", 2 * MIB)


def worker():
    malloc("thread", 3 * MIB)


def threads():
    t = threading.Thread(target=worker)
    t.start()
    t.join()


def gen():
    yield malloc("generator", 4 * MIB)


async def coro():
    await asyncio.sleep(0)
    return malloc("coroutine", 5 * MIB)


def raising():
    try:
        malloc("raising", 6 * MIB)
        raise ValueError("unwinds through the allocation site")
    finally:
        pass


def exception():
    try:
        raising()
    except ValueError:
        pass


def recurse(n):
    if n == 0:
        return malloc("recursion", 7 * MIB)
    return recurse(n - 1)


def native_ext():
    import cmt_pyext  # built by the test against this interpreter's headers
    site("extension", 8 * MIB, 1, 1)
    cmt_pyext.alloc(8 * MIB)  # the line the stack must name


def größe():  # a latin-1 name (a 1-byte-per-character str)
    return malloc("latin1", 9 * MIB)


class 数据:  # names beyond latin-1 (2 bytes per character)
    def 分配(self):
        return malloc("cjk", 10 * MIB)


def loop():
    for _ in range(3):  # the same native call site again and again: the stack cache's fast path
        three_sites()


def cache():
    # a site seen twice in a row becomes a fast-path hit of the call-site stack cache; the next
    # site reaches cudaMalloc through the very same native frames: only its Python frames differ
    for f in (activation, activation, gradient, gradient, leak, leak, activation):
        f()


SCENARIOS = {
    "sites": three_sites,
    "cache": cache,
    "loop": loop,
    "method": lambda: Model().forward(),
    "threads": threads,
    "generator": lambda: list(gen()),
    "coroutine": lambda: asyncio.run(coro()),
    "exception": exception,
    "recursion": lambda: recurse(int(os.environ.get("PY_RECURSION", "40"))),
    "extension": native_ext,
    "unicode": lambda: (größe(), 数据().分配()),
}

if __name__ == "__main__":
    for name in sys.argv[2:] or [s for s in SCENARIOS if s != "extension"]:
        SCENARIOS[name]()
    for p in live:
        rt.cudaFree(ctypes.c_void_p(p))
    print("DONE", len(live), flush=True)
