#!/usr/bin/env python3
"""torch_loop.py — a small training loop for `make gpu-check` (tests/gpu/gpu_check.sh).
It also prints expectations on Python frames (expect-python-frame) and on what PyTorch's caching
allocator holds at exit (expect-cached), and under `run --tensors` leaks one tensor.

Usage: torch_loop.py [--steps N] [--leak] [--snapshot FILE]

Trains a small MLP on device 0. At a few points (after set-up, every few steps, at the end) it
synchronizes, calls the tracker's cmt_mark (through ctypes; a no-op without the tracker) and prints
what PyTorch knows at that moment (protocol: tests/gpu/gpu_prog.h):
  torch-mark LABEL 0 BYTES          torch.cuda.memory_reserved() (caching allocator on), or
                                    memory_allocated() under the cudaMallocAsync backend; the
                                    tracker's live bytes must be that plus what PyTorch's handle
                                    pool holds (cuBLAS workspaces, created before the first marker)
  torch-mark-min LABEL 0 BYTES      bytes of the live parameters, gradients and optimizer state
                                    (PYTORCH_NO_CUDA_MEMORY_CACHING=1: reserved means nothing then)
  loop-seconds S                    wall time of the loop, for the overhead
--leak (caching off only) makes a 6 MiB tensor in leaky_cache_grow() and leaks a reference to it,
so it is never freed: `expect-leak-module device 0 6291456 RE` asks for that leak with a frame in
PyTorch's Python extension. --snapshot FILE pickles PyTorch's own torch.cuda.memory._snapshot() at
the very end (its segments: what the caching allocator holds), for gpu_check.sh to compare with
`cumemtrack export --torch-snapshot` of the same run.
"""
import argparse
import ctypes
import os
import sys
import time

import torch

_mark = getattr(ctypes.CDLL(None), "cmt_mark", None)
CACHING = os.environ.get("PYTORCH_NO_CUDA_MEMORY_CACHING", "0") in ("", "0")
# cumemtrack run --tensors: every tensor one cudaMallocAsync/cudaFreeAsync pair (the driver caches)
TENSORS = any(k.strip() == "backend" and v.strip() == "cudaMallocAsync"
              for k, _, v in (i.partition(":") for i in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "").split(",")))
_pinned = []


def mark(label, tensors):
    torch.cuda.synchronize()
    if _mark is not None:
        _mark(label.encode())
    if CACHING and TENSORS:
        # one allocation per tensor: live bytes are PyTorch's allocated bytes, not its pool's
        print("torch-mark %s 0 %d" % (label, torch.cuda.memory_allocated(0)))
    elif CACHING:
        print("torch-mark %s 0 %d" % (label, torch.cuda.memory_reserved(0)))
    else:
        nbytes = sum(t.numel() * t.element_size() for t in tensors)
        print("torch-mark-min %s 0 %d" % (label, nbytes))


def live_tensors(model, opt):
    out = []
    for p in model.parameters():
        out.append(p)
        if p.grad is not None:
            out.append(p.grad)
    for st in opt.state.values():
        out.extend(v for v in st.values() if torch.is_tensor(v) and v.is_cuda)
    return out


def warm_handles(dev):
    """One small forward and backward matmul before the first marker: PyTorch's handle pool creates
    its cuBLAS handles (one for this thread, one for autograd's), whose workspaces cuBLAS allocates
    outside PyTorch's allocator and keeps to the end, so every marker counts them alike."""
    a = torch.ones(64, 64, device=dev, requires_grad=True)
    (a @ a).sum().backward()
    torch.cuda.synchronize()
    del a


def leaky_cache_grow():
    t = torch.empty(6 << 20, dtype=torch.uint8, device="cuda:0")
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(t))  # a reference nobody drops: never freed
    _pinned.append(id(t))
    return 6 << 20


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--leak", action="store_true")
    ap.add_argument("--snapshot", metavar="FILE")
    a = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    model = torch.nn.Sequential(torch.nn.Linear(1024, 2048), torch.nn.ReLU(),
                                torch.nn.Linear(2048, 1024)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(256, 1024, device=dev)
    y = torch.randn(256, 1024, device=dev)
    warm_handles(dev)
    mark("torch-setup", live_tensors(model, opt) + [x, y])
    t0 = time.monotonic()
    for step in range(a.steps):
        opt.zero_grad(set_to_none=False)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if step in (0, a.steps // 2):
            mark("torch-step%d" % step, live_tensors(model, opt) + [x, y])
    torch.cuda.synchronize()
    print("loop-seconds %.4f" % (time.monotonic() - t0))
    mark("torch-end", live_tensors(model, opt) + [x, y])
    # Python frames in every stack: the peak stacks name this function
    print("expect-python-frame peak 0 main")
    if CACHING and not TENSORS and "expandable_segments" not in os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""):
        # what the cache holds at exit is PyTorch's, not a leak
        print("expect-cached 0 PyTorch 1")
        print("expect-python-frame cached 0 main")
    if a.leak and (TENSORS or not CACHING):
        n = leaky_cache_grow()
        if not TENSORS:
            print("expect-leak-module device 0 %d (libtorch_python|_C\\.cpython)" % n)
        print("expect-python-frame leaks 0 leaky_cache_grow")
    if a.snapshot:
        torch.cuda.synchronize()
        import pickle
        with open(a.snapshot, "wb") as f:
            pickle.dump(torch.cuda.memory._snapshot(), f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
