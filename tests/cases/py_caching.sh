#!/usr/bin/env bash
# Caching allocators told apart from leaks (issue 14 part 2) on a test double of PyTorch's caching
# allocator (tests/cxx/fake_torch_caching.cpp, built as libc10_cuda.so: mangled names
# c10::cuda::CUDACachingAllocator::...) driven from Python through ctypes: what it holds at exit is
# listed under "held by caching allocators at exit" (JSON "cached" with "allocator": "PyTorch",
# summary.cached_bytes), not as a leak; check --max-leak-bytes ignores it unless --count-cached;
# peaks still count it; --caching-allocator REGEX adds one (named by the regex); a regex that does
# not compile is exit 2 naming it (report, check, diff).
source "$CMT_ROOT/tests/cases/py_lib.sh.inc"
command -v g++ >/dev/null || { echo "g++ missing"; exit 77; }
py=/usr/bin/python3.11
[ -x "$py" ] || py=$(interpreters 11 | head -1)
[ -n "$py" ] || { echo "no CPython 3.11+"; exit 77; }
g++ -shared -fPIC -O1 -g -fno-omit-frame-pointer "$CMT_ROOT/tests/cxx/fake_torch_caching.cpp" -o libc10_cuda.so \
    -L"$FAKERT" -l:libcudart.so.13 || die "the double does not build"
nm -C libc10_cuda.so | grep -q "c10::cuda::CUDACachingAllocator::raw_alloc" || die "no PyTorch-mangled symbol"
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/c.cmt "$py" "$PYDIR/caching_sites.py" "$PWD/libc10_cuda.so" ||
    die "traced run failed"
"$CMT_BIN" report c.cmt >r.txt 2>&1 || die "report"
# `run`'s summary tells the cache apart too (it read the dump without symbols, so PyTorch's frames
# went unrecognised and the whole cache was "leaked")
"$CMT_BIN" run -o rc/%p.cmt -- "$py" "$PYDIR/caching_sites.py" "$PWD/libc10_cuda.so" >run.out 2>run.err ||
    { cat run.err; die "run failed"; }
grep -q "^cumemtrack: leaked: 1.00 MiB (1048576 bytes) in 1 allocation at 1 site" run.err || { cat run.err; die "run: cached memory counted as leaked"; }
grep -q "^cumemtrack: held by caching allocators at exit: 8.00 MiB" run.err || { cat run.err; die "run: the cache is not named"; }
grep -q "^cumemtrack: 1.00 MiB leaked at 1 site" r.txt || { cat r.txt; die "cached memory counted as leaked"; }
sed -n '/^held by caching allocators at exit/,/^peaks/p' r.txt >cached.txt
grep -q "8.00 MiB in 4 allocations" cached.txt || { cat r.txt; die "no cached section"; }
grep -q "(caching allocator: PyTorch)" cached.txt || { cat r.txt; die "allocator not named"; }
grep -q "Trainer.step .*caching_sites.py:" cached.txt || { cat r.txt; die "no Python frame in the cached entry"; }
sed -n '/^leaks/,/^held by/p' r.txt | grep -q "leak_helper .*caching_sites.py:" || { cat r.txt; die "leak lost"; }
grep -q "^  pid [0-9]* device 0: 9.00 MiB" r.txt || { cat r.txt; die "peak must still count the cache"; }
"$CMT_BIN" report --json c.cmt >r.json || die "report --json"
python3 "$CMT_ROOT/tests/tools/json_validate.py" "$CMT_ROOT/docs/report-schema.json" r.json || die "schema"
python3 - r.json <<'PY' || die "JSON cached"
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert s['leaked_bytes'] == 1 << 20 and s['cached_bytes'] == 8 << 20, s
c = d['cached']
assert len(c) == 1 and c[0]['allocator'] == 'PyTorch' and c[0]['bytes'] == 8 << 20, c
fr = c[0]['frames']
assert any(f['kind'] == 'python' and f['function'] == 'Trainer.step' for f in fr), fr
assert any(f['kind'] == 'native' and 'CUDACachingAllocator' in (f['function'] or '') for f in fr), fr
assert all('allocator' not in l for l in d['leaks'])
PY
"$CMT_BIN" check --max-leak-bytes 1M c.cmt 2>err.txt || { cat err.txt; die "check counted the cache"; }
"$CMT_BIN" check --max-leak-bytes 1M --count-cached c.cmt 2>err.txt && die "--count-cached ignored"
grep -q "held by PyTorch" err.txt || { cat err.txt; die "--count-cached failure names the allocator"; }
# PyTorch's allocations that are tensors, not its cache (seen on a real GPU): with caching off
# (PYTORCH_NO_CUDA_MEMORY_CACHING=1: NativeCachingAllocator::allocate -> uncached_allocate) and with
# the cudaMallocAsync backend (namespace CUDACachingAllocator::CudaMallocAsync), each allocation is a
# tensor: those still alive at exit are leaks, with their Python lines, and nothing is "cached"
for mode in PYTORCH_NO_CUDA_MEMORY_CACHING=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False,backend:cudaMallocAsync; do
    env "$mode" LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/t.cmt "$py" "$PYDIR/caching_sites.py" "$PWD/libc10_cuda.so" ||
        die "$mode: traced run failed"
    "$CMT_BIN" report --json t.cmt >t.json || die "$mode: report --json"
    python3 - t.json "$mode" <<'PY' || die "$mode: tensors counted as PyTorch's cache"
import json, sys
d = json.load(open(sys.argv[1]))
s = d['summary']
assert s['leaked_bytes'] == 9 << 20 and s['cached_bytes'] == 0, (sys.argv[2], s)
assert d['cached'] == [], d['cached']
step = [l for l in d['leaks'] if any(f['kind'] == 'python' and f['function'] == 'Trainer.step' for f in l['frames'])]
assert len(step) == 1 and step[0]['bytes'] == 8 << 20, d['leaks']
PY
    rm -f t.cmt t.json
done
# PyTorch's cuBLAS handle pool keeps its handles' workspaces (held at exit by "PyTorch handle
# pool"); a program's own cublasCreate whose handle it never destroys is its leak
cat >blas.py <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.fake_torch_blas_handle.argtypes = [ctypes.c_size_t]
lib.fake_torch_blas_handle.restype = ctypes.c_void_p
lib.fake_cublas_create.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
lib.fake_torch_blaslt_workspace.argtypes = [ctypes.c_size_t]
lib.fake_torch_blaslt_workspace.restype = ctypes.c_void_p
def torch_matmul():
    assert lib.fake_torch_blas_handle(64 << 20)
    assert lib.fake_torch_blas_handle(64 << 20)  # the same handle: no second workspace
    assert lib.fake_torch_blaslt_workspace(1 << 20)
def own_handle():
    assert lib.fake_cublas_create(ctypes.byref(ctypes.c_void_p()), 1 << 20) == 0
torch_matmul()
own_handle()
PY
# (the cuBLASLt workspace goes through PyTorch's allocator: its cache's with caching on, else the
# pool's; the pool's buffers are in use: the torch export shows them allocated, not as free cache)
for mode in PYTORCH_NO_CUDA_MEMORY_CACHING=0 PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync; do
    rm -f b.cmt
    env "$mode" LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/b.cmt "$py" blas.py "$PWD/libc10_cuda.so" ||
        die "handle pool ($mode): traced run failed"
    "$CMT_BIN" report --json b.cmt >b.json || die "handle pool ($mode): report --json"
    "$CMT_BIN" export --torch-snapshot -o b.pickle b.cmt 2>/dev/null || die "handle pool ($mode): export"
    python3 - b.json b.pickle "$mode" <<'PY' || die "PyTorch's handle pool ($mode)"
import json, pickle, sys
d = json.load(open(sys.argv[1]))
caching = sys.argv[3].startswith("PYTORCH_NO_CUDA")
assert d['summary']['leaked_bytes'] == 1 << 20 and d['summary']['cached_bytes'] == 65 << 20, d['summary']
by = {}
for c in d['cached']:
    by[c['allocator']] = by.get(c['allocator'], 0) + c['bytes']
assert by == ({'PyTorch handle pool': 64 << 20, 'PyTorch': 1 << 20} if caching else
              {'PyTorch handle pool': 65 << 20}), by
pool = [c for c in d['cached'] if c['allocator'] == 'PyTorch handle pool']
assert all(any(f['kind'] == 'python' and f['function'] == 'torch_matmul' for f in c['frames']) for c in pool), pool
assert any(f['kind'] == 'python' and f['function'] == 'own_handle' for f in d['leaks'][0]['frames']), d['leaks']
# the export: the pool's buffers are allocated blocks (active), a cache's segment holds unknown blocks
snap = pickle.load(open(sys.argv[2], 'rb'))
for s in snap['segments']:
    names = [f['name'] for f in s['frames']]
    in_pool = any('getCurrentCUDABlasHandle' in n or 'getCUDABlasLtWorkspace' in n for n in names)
    cache = any('DeviceCachingAllocator' in n for n in names)
    states = [b['state'] for b in s['blocks']]
    if in_pool and not cache:
        assert s['allocated_size'] == s['total_size'] and states == ['active_allocated'], (s['total_size'], states)
    elif cache:
        assert s['allocated_size'] == 0 and states == ['inactive'], (s['total_size'], states)
PY
done
# a broad --caching-allocator regex names the holder but does not turn the pool's buffers into free cache
"$CMT_BIN" export --torch-snapshot --caching-allocator 'libc10_cuda' -o b2.pickle b.cmt 2>/dev/null || die "export with a user rule"
python3 - b2.pickle <<'PY' || die "a user rule over the handle pool's buffers"
import pickle, sys
snap = pickle.load(open(sys.argv[1], 'rb'))
pool = [s for s in snap['segments'] if any('getCurrentCUDABlasHandle' in f['name'] for f in s['frames'])]
assert pool and all([b['state'] for b in s['blocks']] == ['active_allocated'] for s in pool), pool
PY
rm -f b.cmt b.json b.pickle b2.pickle
# a user rule: the plain leak's function
"$CMT_BIN" report --json --caching-allocator 'fake_plain_lea[k]' c.cmt >u.json || die "--caching-allocator"
python3 - u.json <<'PY' || die "user caching allocator"
import json, sys
d = json.load(open(sys.argv[1]))
assert d['summary']['leaked_bytes'] == 0, d['summary']
assert sorted(c['allocator'] for c in d['cached']) == ['PyTorch', 'fake_plain_lea[k]'], d['cached']
PY
"$CMT_BIN" check --max-leak-bytes 0 --caching-allocator leak_helper c.cmt 2>err.txt ||
    { cat err.txt; die "a Python function as --caching-allocator"; }
for cmd in report check diff; do
    extra=; [ $cmd = diff ] && extra=c.cmt
    "$CMT_BIN" $cmd --caching-allocator 'bad(' c.cmt $extra >out.txt 2>err.txt
    rc=$?
    [ $rc -eq 2 ] || die "$cmd: bad regex: exit $rc, not 2"
    grep -q "'bad('" err.txt || { cat err.txt; die "$cmd: the bad regex is not named"; }
done
echo ok
