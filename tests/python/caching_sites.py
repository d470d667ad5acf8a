"""Allocates through the caching-allocator double (tests/cxx/fake_torch_caching.cpp, argv[1]) from
Python call sites through ctypes: 8 MiB held by the fake PyTorch cache (Trainer.step), 1 MiB leaked
outside it (leak_helper)."""
import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])
lib.fake_torch_empty.argtypes = [ctypes.c_size_t]
lib.fake_torch_empty.restype = ctypes.c_void_p
lib.fake_plain_leak.argtypes = [ctypes.c_size_t]
MIB = 1 << 20


class Trainer:
    def step(self):
        for _ in range(4):
            assert lib.fake_torch_empty(2 * MIB)


def leak_helper():
    assert lib.fake_plain_leak(MIB) == 0


Trainer().step()
leak_helper()
