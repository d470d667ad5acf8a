"""8 threads (ctypes.CDLL: the GIL is released around each call, so hooks run concurrently) each
call 16 generated functions f0..f15 (file genI.py), fI allocating 4096 * (I + 1) bytes. Every
allocation's stack must name fI in genI.py: checked by check_stress() below on the dump text.
usage: threads_stress.py              run (prints "done")
       threads_stress.py check DUMP   check a dump's text (exit 1 with a message when wrong)
"""
import ctypes
import re
import sys
import threading


def run():
    rt = ctypes.CDLL("libcudart.so.13")
    rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    rt.cudaFree.argtypes = [ctypes.c_void_p]
    fs = []
    for i in range(16):
        src = ("def f%d(n):\n    p = ctypes.c_void_p()\n    for _ in range(n):\n"
               "        rt.cudaMalloc(ctypes.byref(p), %d)\n        rt.cudaFree(p)\n" % (i, 4096 * (i + 1)))
        g = {"ctypes": ctypes, "rt": rt}
        exec(compile(src, "gen%d.py" % i, "exec"), g)
        fs.append(g["f%d" % i])

    def worker(k):
        for r in range(50):
            fs[(k + r) % 16](20)

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    print("done")


def check(path):
    stacks, n, bad = {}, 0, []
    for line in open(path):
        m = re.search(r' STACK id=(\d+) .* npy=\d+ "(f\d+)" "gen(\d+)\.py":4@', line)
        if m:
            stacks[m.group(1)] = (int(m.group(2)[1:]), int(m.group(3)))
        m = re.search(r" ALLOC .* size=(\d+) .*stack=(\d+)", line)
        if m:
            n += 1
            i = int(m.group(1)) // 4096 - 1
            if stacks.get(m.group(2)) != (i, i):
                bad.append((m.group(1), m.group(2), stacks.get(m.group(2))))
    if n != 8 * 50 * 20 or bad:
        sys.exit("%d allocations, %d with a wrong stack: %s" % (n, len(bad), bad[:3]))
    print("ok %d allocations, %d stacks" % (n, len(stacks)))


if __name__ == "__main__":
    check(sys.argv[2]) if sys.argv[1:2] == ["check"] else run()
