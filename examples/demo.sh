#!/usr/bin/env bash
# examples/demo.sh — runs the examples under `cumemtrack run` and prints `cumemtrack report` for
# each. Builds nothing: `make demo` builds the tracer, the analyzer, the examples and (without a
# GPU) the fake driver and runtime, then runs this. Dumps go to build/demo/NAME/.
# Every command is printed ("$ ...") exactly as it is run: absolute paths, shell-quoted, with the
# fake driver's environment as an `env` prefix, so a user can paste it into a fresh shell.
# Environment (set by make): EX_REAL_GPU (1: real GPU, nvcc builds; 0: fake GPU), EX_DIR (where
# the example binaries are); EX_OUT (default build/demo: where dumps and HTML pages go).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/cumemtrack
real=${EX_REAL_GPU:-0}
exdir=${EX_DIR:-$root/build/examples/$([ "$real" = 1 ] && echo cuda || echo fake)}
out=${EX_OUT:-$root/build/demo}
mkdir -p "$out" && out=$(cd "$out" && pwd)
for f in "$bin" "$root/build/libcumemtrack.so" "$exdir/train_leak" "$exdir/dp_skew" "$exdir/oom"; do
    [ -e "$f" ] || { echo "demo: $f is missing; run 'make demo'" >&2; exit 1; }
done
gpu_env=() # what the examples need to find the GPU, as env arguments
if [ "$real" != 1 ]; then
    [ -e "$root/build/tests/fakecuda/libcuda.so.1" ] || { echo "demo: the fake driver is missing; run 'make demo'" >&2; exit 1; }
    gpu_env=("LD_LIBRARY_PATH=$root/build/tests/fakecuda" FAKECUDA_DEVICES=4)
    echo "== no usable GPU: the examples run on the fake CUDA driver (4 fake GPUs; the env prefix below)"
else
    echo "== real GPU: the examples use the CUDA runtime and driver"
fi
echo "== each command is printed (\$ ...) as it is run: paste it into a shell to run it again"

# show CMD...: prints CMD shell-quoted after "$ ", then runs it
show() {
    local q
    q=$(printf '%q ' "$@")
    echo "\$ ${q% }"
    "$@"
}

status=0
# demo_one NAME DESCRIPTION [ENV=VALUE...] -- ARGS...
demo_one() {
    local name=$1 what=$2 envs=("${gpu_env[@]}")
    shift 2
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    local dir=$out/$name
    echo
    echo "==== $name: $what"
    show rm -rf "$dir" # a rerun starts afresh (a directory's dumps are one job)
    local pre=()
    [ ${#envs[@]} -gt 0 ] && pre=(env "${envs[@]}")
    if ! show "${pre[@]}" "$bin" run -o "$dir/%h.%p.cmt" -- "$exdir/$name" "$@"; then
        echo "demo: $name failed" >&2
        status=1
    fi
    echo
    show "$bin" report --top 3 "$dir" || status=1
}

demo_one train_leak "a training loop leaking 4 KiB per iteration in cache_attention_mask" -- 20
demo_one dp_skew "data parallel over 4 GPUs, device 0 holding an extra copy" -- 4
if [ "$real" = 1 ]; then
    demo_one oom "allocating until cudaMalloc fails with cudaErrorMemoryAllocation" -- 1024
else
    demo_one oom "allocating until cudaMalloc fails (a 512 MiB fake GPU)" FAKECUDA_MEM_MB=512 -- 64
fi
echo
for name in train_leak dp_skew oom; do
    show "$bin" report --html -o "$out/$name.html" "$out/$name" || status=1
done
echo "open $out/train_leak.html (and the others) in a browser: each is one self-contained file"
echo
[ $status = 0 ] && echo "== demo done: dumps are in $out/" || echo "== demo: something failed (see above)" >&2
exit $status
