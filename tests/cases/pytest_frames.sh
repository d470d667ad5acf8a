#!/usr/bin/env bash
# The pytest plugin's stacks pick their frames as the analyzer's views do (cmt_stack_pick): on a real
# GPU, PyTorch puts a dozen native frames (c10, ATen, the dispatcher) between cudaMalloc and the
# test's Python line, and a message that showed the 8 innermost frames never named the line. All
# frames when they fit; else the API entry, then the rest from the user's frame (the innermost
# Python frame) outward, "... N frames" where some are left out; pytest's own frames cut.
set -u
CMT_ROOT=${CMT_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
/usr/bin/python3 -c 'import pytest' 2>/dev/null || { echo "no pytest for /usr/bin/python3"; exit 77; }
PYTHONPATH=$CMT_ROOT/python /usr/bin/python3 - <<'PY' || exit 1
from cumemtrack.pytest_plugin import format_frames

def nat(fn):
    return {"kind": "native", "function": fn, "module": "/x/libc10_cuda.so", "offset": "0x10"}

def py(fn, line, file="/w/tests/test_gpu.py"):
    return {"kind": "python", "function": fn, "file": file, "line": line}

runner = py("pytest_pyfunc_call", 195, "/usr/lib/python3/dist-packages/_pytest/python.py")
deep = [nat("cudaMallocAsync")] + [nat("native%d" % i) for i in range(12)] + \
       [py("test_leaky", 32), py("helper", 7)] + [runner, py("main", 1)]
out = format_frames(deep, indent="  ", limit=8)
want = ["  cudaMallocAsync (libc10_cuda.so+0x10)", "  ... 7 frames"] + \
       ["  native%d (libc10_cuda.so+0x10)" % i for i in range(7, 12)] + \
       ["  test_leaky /w/tests/test_gpu.py:32", "  helper /w/tests/test_gpu.py:7"]
assert out == want, "\n".join(out)
short = [nat("cudaMalloc"), nat("f"), py("test_x", 3), runner]
assert format_frames(short, indent="") == ["cudaMalloc (libc10_cuda.so+0x10)", "f (libc10_cuda.so+0x10)",
                                           "test_x /w/tests/test_gpu.py:3"], format_frames(short, indent="")
hidden = [dict(nat("h"), hidden="interpreter")] + short
assert format_frames(hidden, indent="") == format_frames(short, indent="")
assert format_frames([], indent="") == ["(no stack recorded)"]
native_only = [nat("n%d" % i) for i in range(20)]
o = format_frames(native_only, indent="", limit=4)
assert o == ["n0 (libc10_cuda.so+0x10)", "n1 (libc10_cuda.so+0x10)", "n2 (libc10_cuda.so+0x10)",
             "n3 (libc10_cuda.so+0x10)"], o
print("ok")
PY
