#!/usr/bin/env bash
# CPython loaded late: a C program allocates first (no Python in the process: native-only stack),
# then dlopens a shared libpython and runs tests/python/alloc_sites.py in it. The tracer looks for
# CPython again after the dlopen: the Python allocations carry their Python frames.
source "$CMT_ROOT/tests/cases/py_lib.sh.inc"
cc -O1 -o embed "$PYDIR/embed.c" -L"$FAKERT" -l:libcudart.so.13 -ldl || die "embed does not build"
n=0
for py in $(interpreters); do
    lib=$("$py" -c 'import sysconfig, os; print(os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("LDLIBRARY")))')
    [ -e "$lib" ] && [ "${lib%.so*}" != "$lib" ] || { echo "skip $py: no shared libpython"; continue; }
    mi=$(minor_of "$py")
    home=$("$py" -c 'import sys; print(sys.prefix)')
    rm -f e$n.cmt*
    PYTHONHOME=$home LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/e$n.cmt ./embed "$lib" "$PYDIR/alloc_sites.py" \
        cdll sites threads >e$n.out 2>e$n.err || { cat e$n.err; die "$py: embed exited $?"; }
    "$CMT_BIN" dump e$n.cmt >e$n.txt || die "$py: dump unreadable"
    python3 "$PYDIR/check_sites.py" e$n.txt e$n.out --minor "$mi" || die "$py: wrong Python frames after dlopen"
    # the allocation made before libpython was loaded: native frames only
    s=$(awk '/ ALLOC .* size=9437184 / { for (i = 1; i <= NF; i++) if ($i ~ /^stack=/) print substr($i, 7) }' e$n.txt)
    [ -n "$s" ] || die "$py: no 9 MiB allocation"
    grep " STACK id=$s " e$n.txt | grep -q " npy=" && die "$py: Python frames before Python was loaded"
    echo "ok $py"
    n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "no shared libpython found"; exit 77; }
echo PASS
