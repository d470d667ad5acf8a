"""cudart through ctypes for the pytest suite: the runtime double (tests/fakert, on
LD_LIBRARY_PATH with the fake driver) and, for test_cached, the PyTorch caching-allocator double
(tests/cxx/fake_torch_caching.cpp built as libc10_cuda.so, its path in CMT_FAKE_TORCH)."""
import ctypes
import os

MIB = 1 << 20
_rt = []


def runtime():
    """The runtime, loaded at the first call (collecting the suite needs no CUDA)."""
    if not _rt:
        rt = ctypes.CDLL("libcudart.so.13")
        rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        rt.cudaFree.argtypes = [ctypes.c_void_p]
        _rt.append(rt)
    return _rt[0]


def malloc(n):
    p = ctypes.c_void_p()
    assert runtime().cudaMalloc(ctypes.byref(p), n) == 0
    return p.value


def free(p):
    assert runtime().cudaFree(p) == 0


def torch_empty(n):
    """n bytes from the caching-allocator double: its cache keeps them."""
    lib = ctypes.CDLL(os.environ["CMT_FAKE_TORCH"])
    lib.fake_torch_empty.argtypes = [ctypes.c_size_t]
    lib.fake_torch_empty.restype = ctypes.c_void_p
    assert lib.fake_torch_empty(n)
