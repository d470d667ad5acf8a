import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import gpu  # noqa: E402


@pytest.fixture
def workspace():
    """16 MiB from setup to teardown: no leak, because the test's range ends after teardown."""
    p = gpu.malloc(16 * gpu.MIB)
    yield p
    gpu.free(p)
