#!/usr/bin/env bash
# cmt-test: long
# Python frames in every stack, under every CPython 3.8+ found: each version's layout entry matches
# its own headers; through ctypes.CDLL (GIL released) and ctypes.PyDLL (GIL held), the dumped
# stacks name the right function, file and line for every call site (three distinct sites, a
# method, a thread, a generator, a coroutine, an exception unwinding through the site, recursion,
# a C extension calling cudaMalloc, repeated sites through the call-site stack cache), distinct
# sites give distinct stacks, each Python frame names ("at") a native frame of the eval loop
# _PyEval_EvalFrameDefault, and the program's output is what it is untraced; 8 threads allocating
# concurrently from 16 functions each get their own function's frames.
source "$CMT_ROOT/tests/cases/py_lib.sh.inc"
n=0
for py in $(interpreters); do
    mi=$(minor_of "$py")
    inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    cc -I"$CMT_ROOT/preload" -I"$inc" -I"$inc/internal" "$PYDIR/layout_check.c" -o layout_check.$n ||
        die "$py: layout_check does not build"
    ./layout_check.$n || die "$py: the CMT_PY_LAYOUTS entry does not match the headers"
    build_ext "$py" "ext.$n" || die "$py: the C extension does not build"
    "$py" "$PYDIR/alloc_sites.py" cdll >plain.$n.out 2>&1 || die "$py: untraced run failed"
    for mode in cdll pydll; do
        t=py.$n.$mode
        PYTHONPATH=$PWD/ext.$n pyrun "$t" "$py" "$mode" sites loop cache method threads generator coroutine exception \
            recursion extension unicode
        "$CMT_BIN" report --json "$t.cmt" >"$t.json" || die "$py $mode: report failed"
        python3 "$PYDIR/check_sites.py" "$t.txt" "$t.out" --minor "$mi" --report "$t.json" ||
            die "$py $mode: wrong Python frames"
        grep -q 'INFO key="python" value="CPython 3\.'"$mi"'\.[0-9]*: Python frames on"' "$t.txt" ||
            die "$py $mode: no INFO note saying Python frames are on"
        grep -q "cumemtrack\[" "$t.err" && die "$py $mode: the tracker warned: $(cat "$t.err")"
        # behaviour unchanged (the extension scenario aside, the same program output)
        "$py" "$PYDIR/alloc_sites.py" "$mode" >plain.$n.$mode.out 2>&1 || die "$py $mode: untraced run failed"
        LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/same.cmt "$py" "$PYDIR/alloc_sites.py" "$mode" >same.out 2>&1
        cmp -s same.out plain.$n.$mode.out || die "$py $mode: output differs under the tracker"
        echo "ok $py $mode"
    done
    # concurrent hooks (8 threads, GIL released): every allocation names its own function
    rm -f stress.$n.cmt*
    LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/stress.$n.cmt "$py" "$PYDIR/threads_stress.py" >stress.$n.out 2>&1 ||
        die "$py: threads_stress failed: $(cat stress.$n.out)"
    "$CMT_BIN" dump stress.$n.cmt >stress.$n.txt || die "$py: threads_stress dump unreadable"
    python3 "$PYDIR/threads_stress.py" check stress.$n.txt || die "$py: threads_stress: wrong stacks"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no CPython 3.8+ found"; exit 77; }
echo "PASS ($n interpreters)"
