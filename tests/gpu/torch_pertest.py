"""torch_pertest.py — per-test GPU leak gates on the real driver, for `make gpu-check`
(tests/gpu/gpu_check.sh runs it with pytest, the plugin python/cumemtrack/pytest_plugin.py and
--cumemtrack-tensors, so each tensor is one allocation).

test_warmup is not gated (CUDA's and PyTorch's first use set up what they keep); test_linear runs the
first matmul, whose cuBLAS handles and workspaces PyTorch's handle pool keeps (not its leak); test_clean frees
what it made and must pass its 0-byte gate; test_leaky keeps a 3 MiB tensor and must fail its gate,
named, with this file's line in the stack; test_peak stays under its 64 MiB peak limit. pytest
must exit 1 (one gated test failed), and the plugin's table must show test_leaky's 3 MiB.
"""
import pytest
import torch

_kept = []


def test_warmup():
    x = torch.ones(1 << 20, device="cuda")
    torch.cuda.synchronize()
    del x


@pytest.mark.cuda_limit_leaks("0 B")
def test_linear():
    """The first matmul: PyTorch's handle pool creates cuBLAS handles (cuBLAS's own workspaces) and
    a cuBLASLt workspace, kept to the end: held by the pool, not this test's leak."""
    layer = torch.nn.Linear(256, 256, bias=True).cuda()
    x = torch.ones(64, 256, device="cuda")
    layer(x).sum().backward()
    torch.cuda.synchronize()
    del layer, x


@pytest.mark.cuda_limit_leaks("0 B")
def test_clean():
    x = torch.ones(1 << 20, device="cuda")
    y = x * 2
    torch.cuda.synchronize()
    del x, y


@pytest.mark.cuda_limit_leaks("0 B")
def test_leaky():
    _kept.append(torch.ones(3 << 20, dtype=torch.uint8, device="cuda"))  # the leaking line
    torch.cuda.synchronize()


@pytest.mark.cuda_limit_memory("64 MiB")
def test_peak():
    x = torch.ones(4 << 20, device="cuda")  # 16 MiB
    torch.cuda.synchronize()
    del x
