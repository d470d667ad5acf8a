# Under the tracker, dlsym(RTLD_NEXT) and dlopen() called from a library resolve relative to that
# library (caller identity kept by the trampolines), dlerror() still works, and a program that never
# touches CUDA leaves no dump.
set -eu
out=$(LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$CMT_TMP/d.%p.cmt "$CMT_TESTBIN/unit/dlsym_next")
echo "$out"
[ "$out" = ok ]
if ls "$CMT_TMP"/d.*.cmt >/dev/null 2>&1; then echo "a dump was written by a program that never touched CUDA"; exit 1; fi
# python (dlopen of extension modules, C++ exceptions) runs unchanged
LD_PRELOAD=$CMT_LIB python3 -c 'import json, ctypes, sqlite3; print("py ok")' | grep -q "py ok"
# dlsym of a hooked name on a specific handle (the runtime's route to the driver) returns our wrapper
out=$(LD_PRELOAD=$CMT_LIB "$CMT_TESTBIN/unit/dlsym_next" "$CMT_FAKE_LIBDIR/libcuda.so.1" libcumemtrack)
echo "$out"
echo "$out" | grep -q "libcumemtrack.so" && echo "$out" | tail -n 1 | grep -qx ok
# and without the tracker the same look-up yields the driver's own function
"$CMT_TESTBIN/unit/dlsym_next" "$CMT_FAKE_LIBDIR/libcuda.so.1" libcuda.so | tail -n 1 | grep -qx ok
