# Markers and the leak-per-iteration finder: a loop that leaks 4 KiB per iteration among many
# balanced allocations is found by its stack (growth[]), live bytes are reported at each marker
# (markers[]), NVTX ranges arrive through the injection (NCCL filtered out unless asked for), an
# injection already set is never overridden, and check --max-growth-per-marker gates on it.
source "$CMT_ROOT/tests/cases/e2e_lib.sh.inc"
T=$CMT_TESTBIN/signals/sig_train
LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/m.cmt "$T" 30 >m.out 2>m.err || die "sig_train failed"
"$CMT_BIN" report --json m.cmt >m.json || die "report failed"
python3 - <<'PY' || die "markers/growth wrong"
import json
r = json.load(open('m.json'))
marks = [m for m in r['markers'] if m['kind'] == 'mark' and m['label'] == 'iteration']
ranges = [m for m in r['markers'] if m['kind'] == 'range' and m['label'] == 'iteration']
# nvtxRangeStartA/End (a process-wide range around the loop) is a range marker too
assert [m['label'] for m in r['markers'] if m['kind'] == 'range' and m['label'] != 'iteration'] == ['training']
assert len(marks) == 30, len(marks)
assert len(ranges) == 30 and all(m['domain'] == 'default' for m in ranges), ranges[:2]
assert not [m for m in r['markers'] if m['domain'] == 'NCCL'], 'NCCL ranges were not filtered'
# live bytes at the k-th end-of-iteration marker: exactly k+1 leaked 4 KiB buffers on device 0
for k, m in enumerate(marks):
    dev0 = [x['bytes'] for x in m['live_bytes'] if x['device'] == 0]
    assert dev0 == [4096 * (k + 1)], (k, m['live_bytes'])
g = r['growth']
assert g, 'no growth found'
top = g[0]
assert top['label'] == 'iteration' and abs(top['bytes_per_marker'] - 4096) < 1e-6, top
assert any(f['function'] == 'grow_cache' for f in top['frames']), top['frames']
# the balanced allocations never show up as growth
assert all(not any(f['function'] == 'balanced_work' for f in x['frames']) for x in g), g
PY
"$CMT_BIN" check --max-leak-bytes 1M --max-growth-per-marker 1KiB m.cmt 2>check.err && die "check should fail"
[ $? -eq 1 ] || die "check over the growth budget must exit 1"
grep -q "grow_cache" check.err || die "check did not name the growing stack"
"$CMT_BIN" check --max-leak-bytes 1M --max-growth-per-marker 8KiB m.cmt || die "check should pass at 8 KiB"
"$CMT_BIN" check --max-growth-per-marker lots m.cmt; [ $? -eq 2 ] || die "bad size must be a usage error"
"$CMT_BIN" report m.cmt | grep -q "growth per marker" || die "text report lacks the growth section"

# all domains on request
LD_PRELOAD=$CMT_LIB CUMEMTRACK_NVTX_DOMAINS='*' CUMEMTRACK_OUTPUT=$PWD/all.cmt "$T" 3 >/dev/null || die "run failed"
"$CMT_BIN" dump all.cmt | grep -q 'domain="NCCL"' || die "NCCL domain not recorded with CUMEMTRACK_NVTX_DOMAINS=*"
# an injection library already set (a profiler) is left alone: no NVTX markers, app unchanged
NVTX_INJECTION64_PATH=/nonexistent/libprofiler.so LD_PRELOAD=$CMT_LIB CUMEMTRACK_OUTPUT=$PWD/prof.cmt "$T" 3 >prof.out \
    || die "run with a foreign injection failed"
"$CMT_BIN" dump prof.cmt | grep -q 'flags=1 domain="default"' && die "overrode NVTX_INJECTION64_PATH"
grep -q "iterations 3 leaked 3" prof.out || die "output changed"
# without the tracker the forwarding library is a no-op and the program is unchanged
"$T" 3 | grep -q "iterations 3 leaked 3" || die "sig_train without the tracker"
echo PASS
