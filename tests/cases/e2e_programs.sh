# Every family through every route: runtime programs (shared and static runtime double: dlopen +
# one dlsym + cuGetProcAddress_v2), driver programs (exported names, cuGetProcAddress at old/new/
# future versions and per-thread flags), VMM idioms, teardown, capture, threads, OOM. Each dump must
# match the fake driver's own record exactly: every allocation once, same device, size, kind,
# pointer, and a stack naming the calling function.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
for p in rt_basic rt_threads rt_oom rt_capture rt_ptsz; do
    for v in shared static; do
        traced "$p.$v" "$P/$p.$v" || { cat "$p.$v.err"; die "$p.$v exited $?"; }
        check "$p.$v"
        echo "ok $p.$v"
    done
done
for p in drv_basic drv_vmm drv_teardown drv_getproc; do
    traced "$p" "$P/$p" || { cat "$p.err"; die "$p exited $?"; }
    check "$p"
    echo "ok $p"
done
# no warnings from the tracker in any of these runs
if grep -l "cumemtrack\[" ./*.err; then die "the tracker warned"; fi
# OOM: an OOM event with the requested size and the device
grep -q "^seq=.* OOM " rt_oom.shared.txt || die "rt_oom: no OOM record"
python3 - <<'PY' || die "rt_oom: report lacks the OOM"
import json
r = json.load(open('rt_oom.shared.json'))
assert r['oom'] and r['oom'][0]['requested_bytes'] > 0, r['oom']
PY
# per-thread variants were reached as such (flag 0x40 on their records)
grep -q "api=cuMemAllocAsync_ptsz" rt_ptsz.shared.txt || die "rt_ptsz: _ptsz variant not recorded"
# cuGetProcAddress at a version newer than our headers: matched by pointer, still tracked
grep -q "UNMATCHED_PROC" drv_getproc.txt && die "drv_getproc: a known variant was not matched"
echo PASS
