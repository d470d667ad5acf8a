"""The suite of tests/cases/pytest_*.sh: test_leaks leaks 1 MiB at the line marked LEAK-LINE,
test_over_memory peaks above its limit, test_cached leaves 4 MiB in the caching-allocator double
only; the rest are clean."""
import os

import pytest

import gpu

kept = []


@pytest.mark.cuda_limit_leaks("0 B")
def test_leaks():
    a = gpu.malloc(2 * gpu.MIB)
    kept.append(gpu.malloc(gpu.MIB))  # LEAK-LINE
    gpu.free(a)


@pytest.mark.cuda_limit_memory("16 MiB")
def test_over_memory():
    a = gpu.malloc(24 * gpu.MIB)
    b = gpu.malloc(8 * gpu.MIB)
    gpu.free(a)
    gpu.free(b)


@pytest.mark.skipif("CMT_FAKE_TORCH" not in os.environ, reason="no caching-allocator double")
@pytest.mark.cuda_limit_leaks("0 B")
def test_cached():
    gpu.torch_empty(2 * gpu.MIB)
    gpu.torch_empty(2 * gpu.MIB)


@pytest.mark.cuda_limit_leaks("0 B")
@pytest.mark.cuda_limit_memory("512 MiB")
def test_clean_with_fixture(workspace):
    p = gpu.malloc(gpu.MIB)
    gpu.free(p)


@pytest.mark.cuda_limit_memory("8 MiB")
def test_clean_under_limit():
    p = gpu.malloc(8 * gpu.MIB)
    gpu.free(p)


def test_clean_frees_earlier_leak():
    """Frees memory an earlier test left: that changes neither test's figures."""
    for p in kept:
        gpu.free(p)
    kept.clear()


@pytest.mark.parametrize("n", [1, 3])
def test_clean_param(n):
    ps = [gpu.malloc(n * gpu.MIB) for _ in range(n)]
    for p in ps:
        gpu.free(p)
