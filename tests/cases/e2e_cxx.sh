# C++ under the tracker: exceptions thrown and caught in the host process work unchanged (the
# tracker's libunwind is loaded RTLD_LOCAL and never binds the host's _Unwind_*), and frames are
# demangled in the report (trainer::Workspace::grow).
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
B=$CMT_TESTBIN/cxx/cxx_alloc
[ -x "$B" ] || die "missing $B"
"$B" | grep -qx "caught 100" || die "without the tracker"
traced x "$B" || { cat x.err; die "with the tracker: exit $?"; }
grep -qx "caught 100" x.out || die "exceptions changed under the tracker"
check x
python3 - <<'PY' || die "frames not demangled"
import json
r = json.load(open('x.json'))
fns = [f['function'] for l in r['leaks'] for f in l['frames'] if f['function']]
assert any(f.startswith('trainer::Workspace::grow') for f in fns), fns
PY
echo PASS
