#!/usr/bin/env bash
# cumemtrack run --tensors (issue 14 #2): PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync for the
# job, appended to a value naming no backend, left alone (with a warning) when a backend is named;
# said on stderr. Without --tensors the variable is untouched.
set -u
. "$(dirname "$0")/run_lib.sh.inc"
show='echo "conf=[${PYTORCH_CUDA_ALLOC_CONF-unset}]"'
unset PYTORCH_CUDA_ALLOC_CONF
run_rc 0 run -o "$PWD/a.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[unset\]' out.txt || fail "without --tensors the variable changed"
run_rc 0 run --tensors -o "$PWD/b.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[backend:cudaMallocAsync\]' out.txt || { cat out.txt; fail "--tensors: not set"; }
grep -q -- "--tensors: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync" err.txt || { cat err.txt; fail "not said"; }
PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run_rc 0 run --tensors -o "$PWD/c.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[expandable_segments:True,backend:cudaMallocAsync\]' out.txt || { cat out.txt; fail "not appended"; }
PYTORCH_CUDA_ALLOC_CONF='max_split_size_mb:64, backend:native' run_rc 0 run --tensors -o "$PWD/d.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[max_split_size_mb:64, backend:native\]' out.txt || { cat out.txt; fail "an existing backend changed"; }
grep -q "already names a backend" err.txt || { cat err.txt; fail "no warning"; }
# the backend it wants already set: said, no warning; a trailing comma: one comma before the backend
PYTORCH_CUDA_ALLOC_CONF='backend:cudaMallocAsync' run_rc 0 run --tensors -o "$PWD/e.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[backend:cudaMallocAsync\]' out.txt || { cat out.txt; fail "the wanted backend changed"; }
grep -q "already sets backend:cudaMallocAsync" err.txt && ! grep -q "need" err.txt || { cat err.txt; fail "warned about the wanted backend"; }
PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True,' run_rc 0 run --tensors -o "$PWD/f.%p.cmt" -- sh -c "$show"
grep -qx 'conf=\[expandable_segments:True,backend:cudaMallocAsync\]' out.txt || { cat out.txt; fail "trailing comma"; }
run_rc 0 run --help
grep -q -- "--tensors" out.txt || fail "--help"
echo ok
