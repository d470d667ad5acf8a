#!/usr/bin/env bash
# Dump clocks at the ends of what a dump may hold (header start_realtime_ns / start_clock_ns and
# record times in [0, 2^62)): the renderers that do time arithmetic (export --torch-snapshot,
# timeline text / --csv / --perfetto, report --html, the text report) give the same output and
# exit code from the ASan+UBSan build (build/asan/cumemtrack) as from the normal one, with no
# sanitizer report, and the times they print are the exact ones (torch time_us, CSV unix_ns);
# header clocks outside [0, 2^62) are refused (exit 3) naming the field.
source "$CMT_ROOT/tests/cases/analyzer_lib.sh.inc"
ABIN=$CMT_BUILD/asan/cumemtrack
[ -x "$ABIN" ] || { echo "no sanitizer build (build/asan/cumemtrack: make test-programs)"; exit 77; }
export ASAN_OPTIONS=abort_on_error=0:exitcode=86:detect_leaks=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86
M=$(((1 << 62) - 1))
# mk NAME START_REAL START_CLOCK FIRST_TIME: a dump of one device (an allocation freed, one left
# live, an OOM, a marker), its records 1 us apart from FIRST_TIME on
mk() {
    cat >"$1.script" <<S
header pid=4$RANDOM host=h1 rank=0 world=1 cmd="x" start_real=$2 start_clock=$3
api id=1 name=cuMemAlloc_v2 t=$4
api id=2 name=cuMemFree_v2
device ord=0 uuid=GPU-11111111-2222-3333-4444-555555555555 name="G" pci=0000:10:00.0 total=80G
ctx idx=1 dev=0 handle=0xabc
stack id=1 0x401234 0x401300
alloc dev=0 ptr=0x7f0000000000 size=1M kind=device stack=1 ctx=1 api=cuMemAlloc_v2
marker label=step
alloc dev=0 ptr=0x7f0000100000 size=2M kind=device stack=1 ctx=1 api=cuMemAlloc_v2
oom dev=0 size=100G stack=1 api=cuMemAlloc_v2
free dev=0 ptr=0x7f0000000000 api=cuMemFree_v2
exit clean status=0
S
    "$MKDUMP" "$1.script" "$1.cmt" || fail "mkdump $1"
}
mk late_real "$M" 0 $((M - 100000))       # real clock at its end, records late
mk late_both "$M" "$M" $((M - 100000))    # records before the start (negative times from start)
mk late_clock 0 "$M" 1000000              # no real time; records long before the start
mk late_records 0 0 $((M - 100000))
mk early 1 1 1000000
n=0
for set in late_real late_both late_clock late_records early "late_real late_clock" "late_both early"; do
    files=()
    for f in $set; do files+=("$f.cmt"); done
    tag=${set// /+}
    for sub in "timeline" "timeline --csv" "timeline --perfetto" "export --torch-snapshot -o OUT" \
        "report --html -o OUT" "report --no-symbols" "report --json --no-symbols"; do
        [ "${sub#export}" != "$sub" ] && [ ${#files[@]} -gt 1 ] && continue # one process per snapshot
        rm -f want.file got.file
        "$CMT_BIN" ${sub/OUT/want.file} "${files[@]}" >want.out 2>want.err
        want=$?
        "$ABIN" ${sub/OUT/got.file} "${files[@]}" >got.out 2>got.err
        got=$?
        if [ $got = 86 ] || grep -q "Sanitizer\|runtime error" got.err; then
            cat got.err
            fail "sanitizer report: $sub $tag"
        fi
        [ $got = "$want" ] || { cat got.err; fail "$sub $tag: exit $got, normal build $want"; }
        [ "$want" = 0 ] || { cat want.err; fail "$sub $tag: exit $want"; }
        cmp -s want.out got.out || fail "$sub $tag: output differs from the normal build"
        if [ -f want.file ]; then
            [ "${sub#report --html}" != "$sub" ] || cmp -s want.file got.file || fail "$sub $tag: file differs"
            cp want.file "$tag.${sub%% *}.file"
        fi
        [ "$sub" = "timeline --csv" ] && cp want.out "$tag.csv"
        n=$((n + 1))
    done
done
echo "ok $n runs: same output and exit code from the ASan+UBSan build, no sanitizer report"
# the times are exact: torch time_us = (start_real - start_clock + t) / 1000 (start_real 0: t / 1000);
# CSV unix_ns = start_real + t - start_clock
python3 - "$M" <<'PY' || fail "times"
import csv, pickle, re, sys
M = int(sys.argv[1])
def records(name):  # the script's record times: t= on the api line, then 1000 ns apart
    lines = [l for l in open(name + '.script') if l.strip() and not l.startswith('header')]
    t0 = int(re.search(r' t=(\d+)', lines[0]).group(1))
    return t0, len(lines)
heads = {'late_real': (M, 0), 'late_both': (M, M), 'late_clock': (0, M), 'late_records': (0, 0), 'early': (1, 1)}
for name, (real, clock) in heads.items():
    t0, n = records(name)
    snap = pickle.load(open(name + '.export.file', 'rb'))
    got = sorted({e['time_us'] for tr in snap['device_traces'] for e in tr})
    # allocs at records 5 and 7, the OOM at 8, the free at 9 (0-based: api=0)
    want = sorted({((real - clock if real else 0) + t0 + 1000 * k) // 1000 for k in (5, 7, 8, 9)})
    assert got == want, (name, got, want)
    rows = list(csv.reader(open(name + '.csv')))
    hdr, rows = rows[0], rows[1:]
    for r in rows:
        t, unix = int(r[0]), int(r[1])
        assert unix == real + t, (name, r)
        assert t - (t0 - clock) in (5000, 6000, 7000, 8000, 9000), (name, r)
print('ok times exact at the clock extremes (torch time_us, CSV unix_ns)')
PY
# header clocks outside [0, 2^62): refused, the field named
for bad in "start_real=$((1 << 62)) start_clock=0:start_realtime_ns" "start_real=1 start_clock=$(((1 << 63) - 1)):start_clock_ns" \
    "start_real=0xffffffffffffffff start_clock=0:start_realtime_ns" "start_real=1 start_clock=0x8000000000000000:start_clock_ns"; do
    hdr=${bad%:*} field=${bad##*:}
    sed "s/start_real=[^ ]* start_clock=[^ ]*/$hdr/" early.script >bad.script
    "$MKDUMP" bad.script bad.cmt || fail "mkdump $hdr"
    for sub in "timeline --perfetto" "export --torch-snapshot -o bad.pickle" "report --html -o bad.html"; do
        "$ABIN" $sub bad.cmt >bad.out 2>bad.err
        rc=$?
        grep -q "Sanitizer\|runtime error" bad.err && { cat bad.err; fail "sanitizer report: $sub ($hdr)"; }
        [ $rc = 3 ] || { cat bad.err; fail "$sub ($hdr): exit $rc, want 3"; }
        grep -q "$field" bad.err || { cat bad.err; fail "$sub ($hdr): the error does not name $field"; }
    done
done
echo "ok header clocks outside [0, 2^62) refused with exit 3, the field named"
echo PASS
