#!/usr/bin/env bash
# --cumemtrack-tensors: with PyTorch's caching allocator a test that keeps a tensor allocates
# nothing new when the cache had room, or allocates a segment the cache holds: its gate cannot
# see the leak (seen on a real GPU). --cumemtrack-tensors re-executes pytest under `cumemtrack run
# --tensors` (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync: one allocation per tensor), so the
# kept tensor is the test's leak, named by its line. Started in place without that setting, it is
# a usage error (exit 4) saying how to start it. On the double of PyTorch's allocator
# (tests/cxx/fake_torch_caching.cpp), which takes PyTorch's paths by the same variable.
source "$CMT_ROOT/tests/cases/pytest_lib.sh.inc"
need_pytest
build_torch_double
mkdir -p suite
cat >suite/test_t.py <<'PY'
import ctypes, os
import pytest

lib = ctypes.CDLL(os.environ["CMT_FAKE_TORCH"])
lib.fake_torch_empty.argtypes = [ctypes.c_size_t]
lib.fake_torch_empty.restype = ctypes.c_void_p
_kept = []


@pytest.mark.cuda_limit_leaks("0 B")
def test_keeps_tensor():
    _kept.append(lib.fake_torch_empty(1 << 20))  # KEPT-LINE
PY
line=$(grep -n "KEPT-LINE" suite/test_t.py | cut -d: -f1)
# the default allocator: the kept tensor is in PyTorch's cache, the gate passes
pt cached suite -rA --cumemtrack
[ "$rc" = 0 ] || { cat cached.out; fail "caching allocator: exit $rc"; }
grep -qE '^ +0 B +1.00 MiB +1.00 MiB  (suite/)?test_t.py::test_keeps_tensor' cached.out || { cat cached.out; fail "cached row"; }
grep -q "^cumemtrack: 1 test grew PyTorch's cache: .*--cumemtrack-tensors" cached.out || { cat cached.out; fail "no hint"; }
# --cumemtrack-tensors: the test's leak
pt tensors suite -rA --cumemtrack --cumemtrack-tensors
[ "$rc" = 1 ] || { cat tensors.out; fail "--cumemtrack-tensors: exit $rc, not 1"; }
sed -n '/ERROR at teardown of test_keeps_tensor/,/^====/p' tensors.out >msg
grep -q "cumemtrack: 1.00 MiB of GPU memory leaked, limit 0 B" msg || { cat tensors.out; fail "no leak message"; }
grep -q "cudaMallocAsync" msg || { cat tensors.out; fail "not one allocation per tensor"; }
grep -q "test_keeps_tensor .*suite/test_t.py:$line\$" msg || { cat tensors.out; fail "the line is not named"; }
grep -q "grew PyTorch's cache" tensors.out && fail "the hint under --cumemtrack-tensors"
# in place without the setting: a usage error saying how to start it
"$CMT_BIN" run -q -o inplace/%p.cmt -- "$PY" -m pytest -p cumemtrack.pytest_plugin -p no:cacheprovider suite \
    --cumemtrack --cumemtrack-tensors >inplace.out 2>&1
rc=$?
[ "$rc" = 4 ] || { cat inplace.out; fail "in place without backend:cudaMallocAsync: exit $rc, not 4"; }
grep -q "cumemtrack run --tensors" inplace.out || { cat inplace.out; fail "usage error does not say how"; }
# in place under run --tensors: works
"$CMT_BIN" run -q --tensors -o inplace2/%p.cmt -- "$PY" -m pytest -p cumemtrack.pytest_plugin -p no:cacheprovider \
    suite --cumemtrack --cumemtrack-tensors >inplace2.out 2>&1
rc=$?
[ "$rc" = 1 ] || { cat inplace2.out; fail "under run --tensors: exit $rc, not 1"; }
# blanks around the backend's name, as `cumemtrack run` accepts them
PYTORCH_CUDA_ALLOC_CONF="expandable_segments:False, backend: cudaMallocAsync" "$CMT_BIN" run -q --tensors \
    -o inplace3/%p.cmt -- "$PY" -m pytest -p cumemtrack.pytest_plugin -p no:cacheprovider suite --cumemtrack \
    --cumemtrack-tensors >inplace3.out 2>&1
rc=$?
[ "$rc" = 1 ] || { cat inplace3.out; fail "'backend: cudaMallocAsync' refused: exit $rc, not 1"; }
# the device-generic PYTORCH_ALLOC_CONF set (read first by some PyTorch releases): run --tensors
# gives it the backend too, so the kept tensor is still the test's leak
PYTORCH_ALLOC_CONF=expandable_segments:True pt generic suite -rA --cumemtrack --cumemtrack-tensors
[ "$rc" = 1 ] || { cat generic.out; fail "PYTORCH_ALLOC_CONF set: exit $rc, not 1 (the tensor hidden in the cache)"; }
grep -q "cumemtrack: 1.00 MiB of GPU memory leaked" generic.out || { cat generic.out; fail "PYTORCH_ALLOC_CONF: no leak"; }
# in place with PYTORCH_ALLOC_CONF naming no backend: a usage error naming it
PYTORCH_ALLOC_CONF=expandable_segments:True "$CMT_BIN" run -q -o inplace4/%p.cmt -- env \
    PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync "$PY" -m pytest -p cumemtrack.pytest_plugin -p no:cacheprovider \
    suite --cumemtrack --cumemtrack-tensors >inplace4.out 2>&1
rc=$?
[ "$rc" = 4 ] && grep -q "PYTORCH_ALLOC_CONF does not name" inplace4.out || { cat inplace4.out; fail "in place, PYTORCH_ALLOC_CONF: exit $rc"; }
# without --cumemtrack: a usage error, not a run with nothing tracked
pt alone suite --cumemtrack-tensors
[ "$rc" = 4 ] || { cat alone.out; fail "--cumemtrack-tensors alone: exit $rc, not 4"; }
grep -q "needs --cumemtrack" alone.out || { cat alone.out; fail "--cumemtrack-tensors alone: no reason"; }
echo ok
