"""A small training-like job for `cumemtrack export --torch-snapshot` (tests/cases/export_torch_*.sh):
through ctypes on the CUDA runtime (the fake one of the tests) and the caching-allocator double
(tests/cxx/fake_torch_caching.cpp, argv[1]): weights loaded once, per step activations and gradients
allocated and freed, an attention mask cached per step and never freed (the leak), 4 x 2 MiB held
by the fake PyTorch cache (Trainer.warm_cache), one request too large (an OOM); the weights are
freed at the end."""
import ctypes
import sys

rt = ctypes.CDLL("libcudart.so.13")
rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
rt.cudaFree.argtypes = [ctypes.c_void_p]
torch = ctypes.CDLL(sys.argv[1])
torch.fake_torch_empty.argtypes = [ctypes.c_size_t]
torch.fake_torch_empty.restype = ctypes.c_void_p
MIB = 1 << 20
masks = []


def malloc(n):
    p = ctypes.c_void_p()
    assert rt.cudaMalloc(ctypes.byref(p), n) == 0
    return p.value


def load_weights():
    return malloc(64 * MIB)


def cache_attention_mask():
    masks.append(malloc(MIB))


def train_step(i):
    act = malloc((16 + i) * MIB)
    grad = malloc(8 * MIB)
    cache_attention_mask()
    rt.cudaFree(grad)
    rt.cudaFree(act)


class Trainer:
    def warm_cache(self):
        for _ in range(4):
            assert torch.fake_torch_empty(2 * MIB)


def try_huge_batch():
    p = ctypes.c_void_p()
    return rt.cudaMalloc(ctypes.byref(p), 1 << 50)


weights = load_weights()
Trainer().warm_cache()
for i in range(6):
    train_step(i)
assert try_huge_batch() != 0
rt.cudaFree(weights)
