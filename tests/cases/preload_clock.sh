#!/usr/bin/env bash
# Event times (issue 16: TSC timestamps scaled per thread segment). The dump says which clock made
# its times (INFO "clock": tsc where the TSC is invariant and the kernel keeps time with it,
# monotonic or coarse as CUMEMTRACK_CLOCK asks); whatever the source, every allocation's time lies
# between the CLOCK_MONOTONIC readings the program took around the call (within 20 us: the TSC
# scale's error over one base pair's span is far below that), and each thread's times never
# decrease. drv_clock runs long enough (two threads, pauses) to cross the calibration and many
# per-thread base pairs.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo &&
    [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc ]; then
    default=tsc
else
    default=monotonic
fi
for mode in default monotonic precise; do
    want=$mode
    [ "$mode" = default ] || [ "$mode" = precise ] && want=$default
    if [ "$mode" = default ]; then
        traced ck "$P/drv_clock" || die "drv_clock exited $?"
    else
        CUMEMTRACK_CLOCK=$mode traced ck "$P/drv_clock" || die "drv_clock ($mode) exited $?"
    fi
    check ck
    "$CMT_BIN" dump --raw ck.cmt >ck.raw || die "dump --raw failed"
    python3 - ck.txt ck.raw ck.out "$want" <<'PY' || die "event times ($mode) disagree with CLOCK_MONOTONIC"
import re, sys
txt, raw, out, want = open(sys.argv[1]).read(), open(sys.argv[2]).read(), open(sys.argv[3]).read(), sys.argv[4]
clocks = re.findall(r'INFO key="clock" value="([a-z]+)"', txt)
assert clocks == [want], ("INFO clock", clocks, want)
calls = {int(m[0]): (int(m[1]), int(m[2])) for m in re.findall(r'^call (\d+) (\d+) (\d+)$', out, re.M)}
assert len(calls) == 3000, len(calls)
tol = 20000
seen = 0
for m in re.finditer(r'^seq=\d+ t=(\d+) ALLOC .* size=(\d+) ', txt, re.M):
    t, size = int(m[1]), int(m[2])
    if size not in calls:
        continue
    t0, t1 = calls[size]
    assert t0 - tol <= t <= t1 + tol, ("ALLOC size", size, "time", t, "outside", t0, t1)
    seen += 1
assert seen == 3000, seen
# per writer, in sequence order: times never decrease
last = {}
for m in re.finditer(r'^seq=\d+ t=(\d+) .* w=(\d+) off=', raw, re.M):
    t, w = int(m[1]), int(m[2])
    assert t >= last.get(w, 0), ("writer", w, "time went back", last[w], t)
    last[w] = t
assert len(last) >= 2, last
PY
    echo "ok $mode ($want)"
done
echo PASS
