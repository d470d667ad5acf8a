#!/usr/bin/env bash
# gpu_check.sh — `make gpu-check`: validates the tracer against a real NVIDIA driver
# (docs/gpu-validation.md). Usage:
#   tests/gpu/gpu_check.sh              real GPU: run build/gpu/ programs (nvcc builds only the missing
#                                       ones), analyze, print one table; no GPU: "skipped: no NVIDIA GPU"
#   tests/gpu/gpu_check.sh --analyze    analyze dumps already in build/gpu/dumps (brought back from a
#                                       GPU machine whose build/cumemtrack could not run)
#   tests/gpu/gpu_check.sh --selftest   the same runs and comparisons on the fake driver
#                                       (build/gpu-selftest/, make gpu-check-selftest)
# Exit 0 when every check passes (or no GPU), 1 otherwise. Never changes GPU settings: the only
# nvidia-smi call is `nvidia-smi -L`. Environment: GPU_CHECK_OUT (dumps directory), the tolerances
# of tests/gpu/gpu_compare.py, GPU_CHECK_LOOP_ITERS (default 20000), GPU_CHECK_TORCH_STEPS (30),
# GPU_CHECK_ANALYZER (the analyzer; tests point it at nothing to take the deferred-analysis path).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
mode=real
case ${1:-} in
    --analyze) mode=analyze ;;
    --selftest) mode=selftest ;;
    "") ;;
    *) echo "usage: $0 [--analyze|--selftest]" >&2; exit 2 ;;
esac

BIN=${GPU_CHECK_ANALYZER:-$root/build/cumemtrack}
LIB=$root/build/libcumemtrack.so
CMP=$root/tests/gpu/gpu_compare.py
if [ $mode = selftest ]; then
    PROGDIR=$root/build/gpu-selftest
    OUTD=${GPU_CHECK_OUT:-$PROGDIR/dumps}
    PROGS="gc_runtime gc_vmm gc_loop gc_graph"
else
    PROGDIR=$root/build/gpu
    OUTD=${GPU_CHECK_OUT:-$PROGDIR/dumps}
    PROGS="gc_runtime gc_vmm gc_cublas gc_loop gc_graph"
fi
NVCC=${GPU_NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=$(command -v nvcc 2>/dev/null || true)

analyzer_ok() { [ -x "$BIN" ] && "$BIN" --help >/dev/null 2>&1; }

# rowf CHECK EXPECTED MEASURED RESULT: a row decided here (rows.tsv, read by gpu_compare.py)
rowf() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$OUTD/rows.tsv"; }

analyze() {
    if ! analyzer_ok; then
        echo "gpu-check: build/cumemtrack cannot run here ($(ldd "$BIN" 2>/dev/null | grep -o '[^ 	]* => not found' | tr '\n' ' '))."
        echo "gpu-check: the dumps are in ${OUTD#$root/}: copy that directory back to the build machine"
        echo "gpu-check: (same checkout path) and run 'make gpu-check-analyze' there."
        return 1
    fi
    python3 "$CMP" --bin "$BIN" "$OUTD"
}

if [ $mode = analyze ]; then
    [ -d "$OUTD" ] || { echo "gpu-check: no dumps in ${OUTD#$root/}" >&2; exit 1; }
    analyze; exit $?
fi

if [ $mode = real ]; then
    if ! { nvidia-smi -L >/dev/null 2>&1 || [ -e /dev/nvidia0 ]; }; then
        echo "skipped: no NVIDIA GPU"
        exit 0
    fi
fi

rm -rf "$OUTD"
mkdir -p "$OUTD"
: >"$OUTD/rows.tsv"
start=$SECONDS

# --- what runs: the tracer, the analyzer (optional), the programs (built only when missing) ----
if [ ! -f "$LIB" ] || [ ! -x "$BIN" ]; then
    if command -v "${CC:-cc}" >/dev/null 2>&1; then
        make --no-print-directory -s all >"$OUTD/build-tracer.log" 2>&1
    fi
fi
if [ ! -f "$LIB" ]; then
    rowf "tracer build/libcumemtrack.so" present missing FAIL
    analyze; exit 1
fi
use_run=0
analyzer_ok && use_run=1

if [ $mode = real ]; then
    nvidia-smi -L 2>/dev/null | head -n 4 | sed 's/^/gpu-check: /'
    missing=()
    for m in static shared; do
        for p in $PROGS; do [ -x "$PROGDIR/$m/$p" ] || missing+=("build/gpu/$m/$p"); done
    done
    [ -f "$PROGDIR/lib/libcudart.so.13" ] || missing+=(build/gpu/lib/libcudart.so.13)
    if [ ${#missing[@]} -gt 0 ] && [ -n "$NVCC" ]; then
        echo "gpu-check: building ${missing[*]} with $NVCC"
        make --no-print-directory GPU_NVCC="$NVCC" "${missing[@]}" >"$OUTD/build-programs.log" 2>&1 ||
            echo "gpu-check: build failed, see ${OUTD#$root/}/build-programs.log"
    fi
else
    export LD_LIBRARY_PATH=$root/build/tests/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    export FAKECUDA_MEM_MB=1024 FAKECUDA_DEVICES=1
    unset FAKECUDA_FAST FAKECUDA_GROUND_TRUTH CUDA_VISIBLE_DEVICES
fi
unset LD_PRELOAD CUMEMTRACK_OUTPUT CUMEMTRACK_DISABLE CUMEMTRACK_DEPTH

# traced DIR LIMIT CMD...: CMD under the tracker, dumps DIR/%p.cmt, stdout/stderr/rc in DIR
traced() {
    local dir=$1 limit=$2; shift 2
    mkdir -p "$dir"
    if [ $use_run = 1 ]; then
        timeout -k 5 "$limit" "$BIN" run -o "$dir/%p.cmt" -- "$@" >"$dir/stdout" 2>"$dir/stderr"
    else
        CUMEMTRACK_OUTPUT=$dir/%p.cmt LD_PRELOAD=$LIB timeout -k 5 "$limit" "$@" >"$dir/stdout" 2>"$dir/stderr"
    fi
    echo $? >"$dir/rc"
}

for m in static shared; do
    for p in $PROGS; do
        exe=$PROGDIR/$m/$p
        if [ ! -x "$exe" ]; then
            rowf "$m/$p: program" built "missing (no nvcc here; make gpu-check-build)" FAIL
            continue
        fi
        if [ $p = gc_cublas ] && ldd "$exe" 2>/dev/null | grep -q 'libcublas.*not found'; then
            rowf "$m/$p: cuBLAS workspace" "libcublas frame" "skipped: libcublas.so.13 not found" skip
            continue
        fi
        args=()
        [ $p = gc_loop ] && args=("${GPU_CHECK_LOOP_ITERS:-20000}")
        traced "$OUTD/$m/$p" 120 "$exe" "${args[@]}"
        if [ $p = gc_loop ]; then
            timeout -k 5 60 "$exe" "${args[@]}" >"$OUTD/$m/$p/plain.stdout" 2>"$OUTD/$m/$p/plain.stderr"
        fi
    done
done

# --- top: the driver's view (NVML) beside the tracked bytes, on a process that is running ---------
if [ $mode = selftest ]; then
    rowf "top: driver (NVML) vs tracked bytes" "real GPU + NVML" "skipped: fake driver" skip
elif [ $use_run = 0 ] || [ ! -x "$PROGDIR/shared/gc_loop" ]; then
    rowf "top: driver (NVML) vs tracked bytes" "analyzer + gc_loop" "skipped: analyzer or gc_loop missing" skip
else
    td=$OUTD/top
    mkdir -p "$td"
    CUMEMTRACK_OUTPUT=$td/%p.cmt LD_PRELOAD=$LIB "$PROGDIR/shared/gc_loop" 2000000000 >"$td/stdout" 2>"$td/stderr" &
    lp=$!
    for _ in $(seq 300); do # until the dump shows the GPU
        "$BIN" top --once --json "$td" >"$td/top.json" 2>"$td/top.err" &&
            python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["gpus"] else 1)' "$td/top.json" &&
            break
        sleep 0.1
    done
    kill "$lp" 2>/dev/null
    wait "$lp" 2>/dev/null
    # the driver charges the process its allocations plus its context, modules and libraries
    python3 - "$td/top.json" "$OUTD/rows.tsv" <<'P'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    d = None
name, want = "top: driver (NVML) vs tracked bytes", "driver >= tracked > 0 context"
if not d or not d["processes"] or not d["gpus"]:
    row = (name, want, "no frame with a GPU", "FAIL")
elif not d["driver_view"]:
    row = (name, want, "skipped: NVML n/a (%s)" % d.get("driver_view_why", ""), "skip")
else:
    p = d["processes"][0]
    g = d["gpus"][0]
    got = "driver %s, tracked %d, untracked %s; GPU used %s of %s" % (
        p["driver_bytes"], p["live_bytes"], p["untracked_bytes"], g["driver_used_bytes"], g["driver_total_bytes"])
    ok = p["driver_bytes"] is not None and p["driver_bytes"] >= p["live_bytes"] and p["driver_bytes"] > 0 \
        and g["driver_used_bytes"] is not None and g["driver_used_bytes"] >= p["driver_bytes"]
    row = (name, want, got, "pass" if ok else "FAIL")
open(sys.argv[2], "a").write("\t".join(row) + "\n")
P
fi

# --- PyTorch ------------------------------------------------------------------------------------
# torch_export_rows: `cumemtrack export --torch-snapshot` of the caching run against PyTorch's own
# torch.cuda.memory._snapshot() taken at the end of the same run (the segments its caching allocator
# holds: the same cudaMalloc'ed segments, same addresses and sizes), and PyTorch's own snapshot
# readers (torch.cuda._memory_viz) on our pickle.
torch_export_rows() {
    local cd=$OUTD/torch/caching
    "$BIN" export --torch-snapshot -o "$cd/export.pickle" "$cd" >"$cd/export.out" 2>"$cd/export.err"
    echo $? >"$cd/export.rc"
    python3 - "$cd" "$OUTD/rows.tsv" <<'P'
import os, pickle, sys, traceback
cd, rows = sys.argv[1], sys.argv[2]
out = []
def row(check, want, got, ok):
    out.append("\t".join((check, want, str(got)[:200], "pass" if ok else "FAIL")))
rc = open(os.path.join(cd, "export.rc")).read().strip()
ours = theirs = None
try:
    ours = pickle.load(open(os.path.join(cd, "export.pickle"), "rb"))
    row("torch export: writes a pickle", "exit 0", "exit " + rc, rc == "0")
except Exception as e:
    row("torch export: writes a pickle", "exit 0", "exit %s, %s" % (rc, e), False)
try:
    theirs = pickle.load(open(os.path.join(cd, "torch_snapshot.pickle"), "rb"))
except Exception as e:
    row("torch export: PyTorch's own snapshot", "written by torch_loop.py", e, False)
if ours is not None and theirs is not None:
    # PyTorch's handle pool (cuBLAS workspaces) is device memory outside PyTorch's allocator: ours only
    # (cuBLAS's own allocations: a workspace PyTorch allocated for a handle is one of its segments)
    names = lambda s: [f.get("name") or "" for f in s.get("frames", [])]
    pool = lambda s: any("getCurrentCUDABlas" in n for n in names(s)) and \
        not any("CUDACachingAllocator" in n for n in names(s))
    seg = lambda d, skip: {(s["address"], s["total_size"]) for s in d["segments"] if s["device"] == 0 and not skip(s)}
    a, b = seg(ours, pool), seg(theirs, lambda s: False)
    got = "ours %d segments %d B, PyTorch's %d segments %d B" % (
        len(a), sum(x[1] for x in a), len(b), sum(x[1] for x in b))
    if a != b:
        got += "; only ours %s, only PyTorch's %s" % (sorted(a - b)[:4], sorted(b - a)[:4])
    row("torch export: segments at exit = torch.cuda.memory._snapshot()'s", "same (address, size) set, "
        "PyTorch's handle pool apart", got, a == b)
    # cuBLAS's own buffers are in use: allocated blocks, not a cache's segment of unknown blocks
    held = [s for s in ours["segments"] if s["device"] == 0 and pool(s)]
    bad = [s["total_size"] for s in held if [b["state"] for b in s["blocks"]] != ["active_allocated"]]
    row("torch export: the handle pool's buffers are allocated blocks", "%d segments active" % len(held),
        "%d not: %s" % (len(bad), bad[:4]) if bad else "all", bool(held) and not bad)
if ours is not None:
    import torch.cuda._memory_viz as mv
    for fn in ("segsum", "trace", "trace_plot", "segment_plot"):
        if not hasattr(mv, fn):
            continue
        try:
            r = getattr(mv, fn)(ours)
            row("torch export: torch.cuda._memory_viz.%s reads it" % fn, "no exception",
                "%d chars" % len(r or ""), True)
        except Exception:
            row("torch export: torch.cuda._memory_viz.%s reads it" % fn, "no exception",
                traceback.format_exc().strip().splitlines()[-1], False)
open(rows, "a").write("".join(l + "\n" for l in out))
P
}

# torch_pytest_rows: the pytest plugin's per-test gates on real PyTorch (tests/gpu/torch_pertest.py,
# --cumemtrack-tensors: one allocation per tensor): pytest exits 1, test_leaky fails its gate with its own line in the
# stack, test_clean and test_peak pass theirs, and `check --per-marker` on the kept dumps agrees.
torch_pytest_rows() {
    local pd=$OUTD/pytest_torch
    mkdir -p "$pd"
    (cd "$pd" && PATH=$root/build:$PATH PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH} \
        timeout -k 5 200 python3 -m pytest \
        -p cumemtrack.pytest_plugin -p no:cacheprovider --cumemtrack --cumemtrack-tensors --cumemtrack-dir="$pd/dumps" \
        --cumemtrack-top 0 -rA "$root/tests/gpu/torch_pertest.py" >"$pd/stdout" 2>"$pd/stderr"
    echo $? >"$pd/rc")
    "$BIN" check --per-marker "$pd/dumps" >"$pd/check.out" 2>&1
    echo $? >"$pd/check.rc"
    "$BIN" report --json "$pd/dumps" >"$pd/report.json" 2>"$pd/report.err"
    python3 - "$pd" "$OUTD/rows.tsv" <<'P'
import json, os, re, sys
pd, rows = sys.argv[1], sys.argv[2]
out = []
def row(check, want, got, ok):
    out.append("\t".join((check, want, str(got)[:200], "pass" if ok else "FAIL")))
rd = lambda f: open(os.path.join(pd, f), errors="replace").read()
rc, text = rd("rc").strip(), rd("stdout")
row("pytest plugin: pytest's exit status", "1 (one gated test failed)", rc, rc == "1")
err = re.search(r"ERROR at teardown of test_leaky.*?(?=\n_{5,}|\n={5,})", text, re.S)
row("pytest plugin: test_leaky fails its 0 B gate", "an error at teardown", "found" if err else "missing", bool(err))
row("pytest plugin: ... with the leaking line in the message", "torch_pertest.py:<line of _kept.append>",
    "found" if err and re.search(r"torch_pertest\.py:\d+", err.group(0)) else "missing",
    bool(err and re.search(r"torch_pertest\.py:\d+", err.group(0))))
for t in ("test_clean", "test_peak", "test_warmup", "test_linear"):
    bad = re.search(r"ERROR at teardown of %s\b" % t, text) or re.search(r"FAILED [^ ]*::%s\b" % t, text)
    row("pytest plugin: %s passes" % t, "no error", "error" if bad else "passed", not bad)
try:
    r = json.load(open(os.path.join(pd, "report.json")))
    tests = {t["name"].split("::")[-1]: t for t in r.get("tests", [])}
    lk = tests.get("test_leaky", {}).get("leaked_bytes")
    row("pytest plugin: report tests[] test_leaky leaked", ">= 3145728", lk, lk is not None and lk >= 3 << 20)
    pk = tests.get("test_peak", {}).get("peak_bytes")
    row("pytest plugin: report tests[] test_peak peak", "16-64 MiB", pk, pk is not None and 16 << 20 <= pk <= 64 << 20)
except Exception as e:
    row("pytest plugin: report --json tests[]", "readable", e, False)
crc = rd("check.rc").strip()
row("pytest plugin: check --per-marker on the kept dumps", "exit 1 naming test_leaky",
    "exit %s" % crc, crc == "1" and "test_leaky" in rd("check.out"))
open(rows, "a").write("".join(l + "\n" for l in out))
P
}

torch_py=$root/tests/gpu/torch_loop.py
if [ $mode = selftest ]; then
    rowf "torch: training loop" "real GPU + torch" "skipped: fake driver" skip
    if python3 -c 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
        "$torch_py" "$OUTD/torch_loop.pyc" 2>"$OUTD/torch-compile.err"; then
        rowf "torch: torch_loop.py compiles" ok ok pass
    else
        rowf "torch: torch_loop.py compiles" ok "$(tail -n 1 "$OUTD/torch-compile.err")" FAIL
    fi
    rowf "cuBLAS workspace (libcublas frame)" "real GPU" "skipped: fake driver" skip
elif timeout 120 python3 -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
    steps=${GPU_CHECK_TORCH_STEPS:-30}
    PYTORCH_NO_CUDA_MEMORY_CACHING=1 traced "$OUTD/torch/nocache" 150 python3 "$torch_py" --steps "$steps" --leak
    traced "$OUTD/torch/caching" 150 python3 "$torch_py" --steps "$steps" \
        --snapshot "$OUTD/torch/caching/torch_snapshot.pickle"
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True \
        traced "$OUTD/torch/expandable" 150 python3 "$torch_py" --steps "$steps"
    # --tensors: tensor-level stacks (backend:cudaMallocAsync); set directly when run cannot run here
    mkdir -p "$OUTD/torch/tensors"
    if [ $use_run = 1 ]; then
        (unset PYTORCH_CUDA_ALLOC_CONF; timeout -k 5 150 "$BIN" run --tensors -o "$OUTD/torch/tensors/%p.cmt" -- \
            python3 "$torch_py" --steps "$steps" --leak >"$OUTD/torch/tensors/stdout" 2>"$OUTD/torch/tensors/stderr"
        echo $? >"$OUTD/torch/tensors/rc")
        if grep -q -- "--tensors: PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync" "$OUTD/torch/tensors/stderr"; then
            rowf "torch/tensors: run --tensors says so" "a stderr line" ok pass
        else
            rowf "torch/tensors: run --tensors says so" "a stderr line" missing FAIL
        fi
    else
        PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync \
            traced "$OUTD/torch/tensors" 150 python3 "$torch_py" --steps "$steps" --leak
    fi
    timeout -k 5 150 python3 "$torch_py" --steps "$steps" \
        >"$OUTD/torch/caching/plain.stdout" 2>"$OUTD/torch/caching/plain.stderr"
    if [ $use_run = 1 ]; then
        torch_export_rows
        torch_pytest_rows
    else
        rowf "torch: export and pytest plugin" "build/cumemtrack runs here" "skipped: analyzer unusable" skip
    fi
else
    rowf "torch: training loop" "torch with CUDA" "skipped: torch absent or no CUDA in it" skip
fi

echo "gpu-check: runs took $((SECONDS - start)) s; dumps in ${OUTD#$root/}"
analyze
